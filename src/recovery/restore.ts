// Restore: transactions read back from the manifest, and quarantined entries moved back to their
// origin. Non-destructive: an origin that exists is skipped unless --force, and then what occupies it
// is itself quarantined, never deleted. It never follows a symlink planted on the way to an origin.
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, decodePath, encodePath, readRecords, type StoredRecord } from './records.js';
import { manifestPath, moveEntry, newTxid, type QuarantinePlace } from './quarantine.js';
import { isWithin } from '../classifier/paths.js';
import { exists } from '../probe/fs.js';
import type { GitRunner } from '../probe/git.js';
import { applySnapshot } from './snapshot.js';

export type TxState = 'RESTORABLE' | 'RESTORED' | 'FAILED' | 'GC_ELIGIBLE' | 'PURGED';

export interface TxItem {
  /** Absolute origin in the workspace. */
  origin: string;
  /** Absolute place in the quarantine. */
  dest: string;
  type: string;
  /** A completion record exists (else only the write-ahead intent). */
  completed: boolean;
  /** The entry is in the quarantine now. */
  present: boolean;
}

export interface Transaction {
  txid: string;
  ts: string;
  session: string | null;
  command: string | null;
  state: TxState;
  items: TxItem[];
  /** A git snapshot taken before an overwriting git command. */
  snapshot?: { stash: string | null; repo: string; globals: string[] };
}

export interface RestoreOutcome {
  txid: string;
  restored: string[];
  skipped: { origin: string; reason: string }[];
  /** Occupants of an origin moved aside by --force (restorable under this txid). */
  displaced?: string;
}

export class RestoreError extends Error {
  readonly code: 'UNKNOWN_TXID' | 'BAD_TXID';
  constructor(code: RestoreError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

const TXID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;


/** Every transaction in the manifest, oldest first; unreadable lines are reported, not fatal. */
export function listTransactions(q: QuarantinePlace): { transactions: Transaction[]; corrupt: number } {
  const { records, corrupt } = readRecords(manifestPath(q));
  const byTx = new Map<string, { start?: StoredRecord; records: StoredRecord[] }>();
  for (const r of records) {
    if (typeof r.txid !== 'string') continue;
    const e = byTx.get(r.txid) ?? { records: [] };
    if (r.kind === 'tx-start') e.start = r;
    e.records.push(r);
    byTx.set(r.txid, e);
  }
  const out: Transaction[] = [];
  for (const [txid, e] of byTx) {
    const items = new Map<string, TxItem>();
    let restored = false;
    let purged = false;
    let snap: Transaction['snapshot'];
    for (const r of e.records) {
      if (r.kind === 'relocate-intent' || r.kind === 'relocate') {
        let origin: string;
        let dest: string;
        try {
          origin = path.join(q.root, decodePath(r.origin as never).toString());
          dest = path.join(q.quarantine, decodePath(r.dest as never).toString());
        } catch {
          continue;
        }
        const prev = items.get(dest);
        items.set(dest, { origin, dest, type: String(r.type ?? 'file'), completed: (prev?.completed ?? false) || r.kind === 'relocate', present: exists(dest) });
      }
      if (r.kind === 'snapshot' && typeof r.repo === 'string') {
        snap = { stash: typeof r.stash === 'string' ? r.stash : null, repo: r.repo, globals: Array.isArray(r.globals) ? r.globals.map(String) : [] };
      }
      if (r.kind === 'restore') restored = true;
      if (r.kind === 'purge') purged = true;
    }
    const list = [...items.values()];
    const present = list.some((i) => i.present) || (snap?.stash != null && !restored);
    const state: TxState = purged ? 'PURGED' : present ? 'RESTORABLE' : restored ? 'RESTORED' : list.length === 0 ? 'FAILED' : 'FAILED';
    out.push({
      txid,
      ts: String(e.start?.ts ?? e.records[0]?.ts ?? ''),
      session: (e.start?.session as string | null | undefined) ?? null,
      command: typeof e.start?.command === 'string' ? e.start.command : null,
      state,
      items: list,
      ...(snap ? { snapshot: snap } : {}),
    });
  }
  out.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.txid < b.txid ? -1 : 1));
  return { transactions: out, corrupt: corrupt.length };
}

/** Is every directory between the workspace root and `origin` a real directory (or absent)? A
 *  symlink there would carry the restore somewhere else. */
function pathIsPlain(root: string, origin: string): boolean {
  let dir = root;
  for (const part of path.relative(root, path.dirname(origin)).split(path.sep).filter((p) => p !== '')) {
    dir = path.join(dir, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      return true; // the rest does not exist yet: it will be created as plain directories
    }
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** Is everything at `a` also at `b` — same names, types, modes, link targets and bytes? What a move
 *  across filesystems that was interrupted while removing its source leaves at the origin, next to
 *  the complete copy in the quarantine. */
function containedIn(a: string, b: string): boolean {
  let sa: fs.Stats;
  let sb: fs.Stats;
  try {
    sa = fs.lstatSync(a);
    sb = fs.lstatSync(b);
  } catch {
    return false;
  }
  if ((sa.mode & 0o177777) !== (sb.mode & 0o177777)) return false; // type and permission bits
  if (sa.isSymbolicLink()) return fs.readlinkSync(a) === fs.readlinkSync(b);
  if (sa.isFile()) return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  if (!sa.isDirectory()) return false;
  return fs.readdirSync(a).every((name) => containedIn(path.join(a, name), path.join(b, name)));
}

/** Moves back without ever replacing what appeared at the origin meanwhile: a file or link is
 *  hard-linked (EEXIST if taken) then unlinked from the quarantine; a directory is renamed (which
 *  fails on a non-empty one). */
function moveNoClobber(src: string, dst: string): void {
  const st = fs.lstatSync(src);
  if (st.isDirectory()) {
    if (exists(dst)) throw Object.assign(new Error(`${dst} exists`), { code: 'EEXIST' });
    moveEntry(src, dst);
    return;
  }
  try {
    fs.linkSync(src, dst);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    if (exists(dst)) throw Object.assign(new Error(`${dst} exists`), { code: 'EEXIST' });
    moveEntry(src, dst);
    return;
  }
  fs.unlinkSync(src);
}

export function restore(q: QuarantinePlace, txid: string, opts: { force?: boolean; session: string | null; git?: GitRunner }): RestoreOutcome {
  if (!TXID.test(txid)) throw new RestoreError('BAD_TXID', `${JSON.stringify(txid)} is not a transaction id (they look like 20261202T113000Z-1a2b3c4d)`);
  const tx = listTransactions(q).transactions.find((t) => t.txid === txid);
  if (!tx) throw new RestoreError('UNKNOWN_TXID', `no transaction ${txid} in ${manifestPath(q)}`);
  const out: RestoreOutcome = { txid, restored: [], skipped: [] };
  const rel = (p: string): string => (p.startsWith('stash ') ? p : path.relative(q.root, p));
  let displacedTx: string | null = null;
  if (tx.snapshot?.stash && tx.state === 'RESTORABLE') {
    const applied = opts.git ? applySnapshot(opts.git, tx.snapshot.repo, tx.snapshot.globals, tx.snapshot.stash) : { ok: false, message: 'no git to apply it with' };
    if (applied.ok) out.restored.push(`stash ${tx.snapshot.stash}`);
    else out.skipped.push({ origin: `stash ${tx.snapshot.stash}`, reason: `git stash apply refused: ${applied.message}` });
  }
  for (const item of tx.items) {
    if (!item.present) {
      out.skipped.push({ origin: item.origin, reason: 'not in the quarantine (restored or purged already)' });
      continue;
    }
    if (!isWithin(item.origin, q.root) || item.origin === q.root) {
      out.skipped.push({ origin: item.origin, reason: 'origin is outside the workspace' });
      continue;
    }
    if (!pathIsPlain(q.root, item.origin)) {
      out.skipped.push({ origin: item.origin, reason: 'a symlink or file stands where a directory of the origin path should be' });
      continue;
    }
    if (exists(item.origin)) {
      // Only an intent, an origin and a complete copy: a move across filesystems was interrupted
      // while removing its source. When nothing at the origin differs from the copy, finishing it
      // loses nothing, and what is left at the origin is moved aside as --force would (never deleted).
      const remnant = !item.completed && containedIn(item.origin, item.dest);
      if (!opts.force && !remnant) {
        out.skipped.push({ origin: item.origin, reason: 'origin exists (use --force to restore over it; what is there is quarantined first)' });
        continue;
      }
      displacedTx ??= newTxid();
      const aside = path.join(q.quarantine, displacedTx, path.relative(q.root, item.origin));
      fs.mkdirSync(path.dirname(aside), { recursive: true, mode: 0o700 });
      const fields = {
        txid: displacedTx,
        session: opts.session,
        origin: encodePath(Buffer.from(path.relative(q.root, item.origin))),
        dest: encodePath(Buffer.from(path.relative(q.quarantine, aside))),
        type: 'other',
        reason: remnant ? `remnant of an interrupted move, displaced by restore ${txid}` : `displaced by restore ${txid} --force`,
      };
      appendRecord(manifestPath(q), { kind: 'relocate-intent', ...fields });
      moveEntry(item.origin, aside);
      appendRecord(manifestPath(q), { kind: 'relocate', ...fields });
      out.displaced = displacedTx;
    }
    fs.mkdirSync(path.dirname(item.origin), { recursive: true });
    try {
      moveNoClobber(item.dest, item.origin);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' && (err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
      out.skipped.push({ origin: item.origin, reason: 'origin was re-created while restoring; left as it is' });
      continue;
    }
    out.restored.push(item.origin);
  }
  appendRecord(manifestPath(q), { kind: 'restore', txid, session: opts.session, restored: out.restored.map(rel), skipped: out.skipped.map((s) => ({ origin: rel(s.origin), reason: s.reason })) });
  return out;
}
