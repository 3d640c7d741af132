// `restore show <txid>`: what one transaction holds, item by item (docs/recovery.md, "Restore"):
// quarantined entries with their type and size, the files a snapshot changes, the refs and stash
// entries a refs transaction keeps.
import fs from 'node:fs';
import path from 'node:path';
import type { GitRunner } from '../probe/git.js';
import { treeBytes } from './gc.js';
import { listTransactions, RestoreError, type Transaction } from './restore.js';
import { snapshotFiles } from './snapshot.js';
import type { QuarantinePlace } from './quarantine.js';

export interface ShownItem {
  /** What to name in `restore <txid> PATH…`: relative to the workspace root (a ref's full name,
   *  `stash <commit>` for a stash entry). */
  path: string;
  /** file, dir, symlink, other; for a snapshot: modified, added, deleted, type-changed; for refs:
   *  branch, ref, stash. */
  type: string;
  /** Bytes it holds (a directory: everything below it; a snapshot file: its size in the snapshot);
   *  null when not known or not there. */
  bytes: number | null;
  /** Where it goes back to: an absolute path, or the ref. */
  origin: string;
  /** It is in the quarantine (in git, for snapshots and refs) and not restored yet. */
  present: boolean;
  /** A commit, a stash message: what identifies it besides its path. */
  detail?: string;
}

export interface ShownTransaction {
  txid: string;
  state: Transaction['state'];
  ts: string;
  session: string | null;
  command: string | null;
  /** The quarantine that holds it, and the workspace root its paths are relative to. */
  quarantine: string;
  root: string;
  kind: 'relocate' | 'snapshot' | 'refs';
  items: ShownItem[];
  snapshot?: { commit: string | null; ref: string | null; repo: string; before: { ref: string | null; sha: string | null } | null; after: { ref: string | null; sha: string | null } | null };
  /** Why the items could not be listed in full (a snapshot git cannot read). */
  warning?: string;
}

function sizeOf(p: string | Buffer): number | null {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (!st) return null;
  return st.isDirectory() ? treeBytes(p) : st.size;
}

export function showTransaction(q: QuarantinePlace, txid: string, git: GitRunner | null): ShownTransaction {
  const t = listTransactions(q).transactions.find((x) => x.txid === txid);
  if (!t) throw new RestoreError('UNKNOWN_TXID', `no transaction ${txid} in ${path.join(q.quarantine, 'manifest.jsonl')}`);
  const snap = t.snapshot;
  const hasRefs = (snap?.refs?.length ?? 0) + (snap?.stashes?.length ?? 0) > 0;
  const out: ShownTransaction = {
    txid,
    state: t.state,
    ts: t.ts,
    session: t.session,
    command: t.command,
    quarantine: q.quarantine,
    root: q.root,
    kind: hasRefs ? 'refs' : snap ? 'snapshot' : 'relocate',
    items: [],
  };
  for (const item of t.items) {
    const dest = item.bytes ? Buffer.concat([Buffer.from(`${q.quarantine}/`), Buffer.from(item.bytes.dest, 'base64')]) : item.dest;
    out.items.push({ path: path.relative(q.root, item.origin), type: item.type, bytes: item.present ? sizeOf(dest) : null, origin: item.origin, present: item.present });
  }
  if (hasRefs) {
    const live = t.state === 'RESTORABLE';
    for (const r of snap!.refs ?? []) out.items.push({ path: r.ref, type: r.ref.startsWith('refs/heads/') ? 'branch' : 'ref', bytes: null, origin: r.ref, present: live, detail: r.sha });
    for (const s of snap!.stashes ?? []) out.items.push({ path: `stash ${s.sha}`, type: 'stash', bytes: null, origin: 'refs/stash', present: live, detail: s.message });
  } else if (snap) {
    out.snapshot = { commit: snap.stash, ref: snap.ref ?? (snap.stash ? 'refs/stash' : null), repo: snap.repo, before: snap.before ?? null, after: snap.after ?? null };
    if (snap.stash && git) {
      const listed = snapshotFiles(git, snap);
      if ('error' in listed) out.warning = listed.error;
      else {
        const live = t.state === 'RESTORABLE';
        for (const f of listed.files) {
          const origin = path.join(listed.top, f.path);
          out.items.push({ path: path.relative(q.root, origin), type: f.change, bytes: f.bytes, origin, present: live });
        }
      }
    }
  }
  return out;
}
