// Restore: transactions read back from the manifest, and quarantined entries moved back to their
// origin. Non-destructive: an origin that exists is skipped unless --force, and then what occupies it
// is itself quarantined, never deleted. It never follows a symlink planted on the way to an origin.
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, encodePath } from './records.js';
import { loadFolded, PURGED, REGENERABLE, RESTORED, tx, type Folded, type Snap } from './txindex.js';
import { manifestPath, moveEntry, newTxid, withQuarantineLock, type QuarantinePlace } from './quarantine.js';
import { exists } from '../probe/fs.js';
import type { GitRunner } from '../probe/git.js';
import { applySnapshot, restoreRefs } from './snapshot.js';
import { bdirname, bIsWithin, bjoin, brelative, bsplit, display } from './bpath.js';

export type TxState = 'RESTORABLE' | 'RESTORED' | 'FAILED' | 'GC_ELIGIBLE' | 'PURGED';

export interface TxItem {
  /** Absolute origin in the workspace, for people (lossy when a name is not UTF-8). */
  origin: string;
  /** Absolute place in the quarantine, for people. */
  dest: string;
  /** The exact bytes (base64) of originRel and destRel, when a name is not valid UTF-8. */
  bytes?: { origin: string; dest: string };
  type: string;
  /** A completion record exists (else only the write-ahead intent). */
  completed: boolean;
  /** The entry is in the quarantine (per its transaction directory and the records; restore checks
   *  each entry on disk again). */
  present: boolean;
}

export interface Transaction {
  txid: string;
  ts: string;
  session: string | null;
  command: string | null;
  /** The process that started it (null when unknown). */
  pid: number | null;
  state: TxState;
  /** How many entries it quarantined (also when `items` was not asked for). */
  itemCount: number;
  /** Its entries (empty when listed without items). */
  items: TxItem[];
  /** A git snapshot taken before an overwriting git command. */
  snapshot?: Snap;
  /** Regenerable artifacts relocated under rule 13 (gc purges these first); absent otherwise. */
  regenerable?: true;
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
const DOT = Buffer.from('.');
const DOTDOT = Buffer.from('..');


/** The names directly in the quarantine (one readdir, latin1 so that names are bytes): a transaction whose directory is not there
 *  has nothing present, without a stat per item. */
function topLevel(quarantine: string): Set<string> {
  try {
    return new Set(fs.readdirSync(quarantine, { encoding: 'latin1' }));
  } catch {
    return new Set();
  }
}

/** Has a recorded relative path `.` or `..` components (or an absolute form)? */
const DOTTED = /^\/|(^|\/)\.\.?(\/|$)|\/\/|\/$|^$/;
function dotted(rel: string): boolean {
  return DOTTED.test(rel);
}

/** `p` relative to `base` when it is below it (no normalisation), else null. */
function below(base: string, p: string): string | null {
  return p.startsWith(`${base}/`) ? p.slice(base.length + 1) : null;
}

/** Does a relative path leave its base (an absolute path, or a `..` component)? */
function climbs(rel: string): boolean {
  return rel.startsWith('/') || rel === '..' || rel.startsWith('../') || rel.includes('/../') || rel.endsWith('/..');
}

/** The first component of a relative path, as the latin1 string readdir would give for it. */
function firstName(rel: Buffer): string {
  const i = rel.indexOf(0x2f);
  return (i < 0 ? rel : rel.subarray(0, i)).toString('latin1');
}

/** Every transaction in the manifest, oldest first; unreadable lines are reported, not fatal. The
 *  records come folded from the transaction index plus the manifest's new lines (txindex.ts); the
 *  presence of each quarantined entry is checked on disk, once per entry. */
export function listTransactions(q: QuarantinePlace, folded: Folded = loadFolded(q.quarantine), opts: { items?: boolean; topLevel?: Set<string> } = {}): { transactions: Transaction[]; corrupt: number } {
  const withItems = opts.items !== false;
  const top = opts.topLevel ?? topLevel(q.quarantine);
  const quarantineB = Buffer.from(q.quarantine);
  const out: Transaction[] = [];
  for (const t of folded.txs.values()) {
    const txid = tx.txid(t);
    const restored = tx.has(t, RESTORED);
    const purged = tx.has(t, PURGED);
    const snap = tx.snap(t);
    const list: TxItem[] = [];
    // A completed relocation of a transaction with no restore or purge is where the records say
    // while its transaction directory is there (one readdir for all); anything else is checked on
    // disk. `restore` checks every entry again before moving it.
    const verify = restored || purged;
    let anyPresent = false;
    for (const it of tx.items(t)) {
      if (!withItems && anyPresent) break; // only the state is wanted, and it is settled
      const [o, dRec, type, completed, ob, db] = it;
      const odd = dotted(o) || (dRec !== null && dotted(dRec));
      // The common case, cheaply: dest is `<txid>/<origin>` (no bytes, nothing dotted), completed,
      // no restore or purge: present exactly when the transaction directory is there.
      if (!withItems && dRec === null && db === undefined && completed === 1 && !verify && !odd) {
        anyPresent = top.has(txid);
        continue;
      }
      const d = dRec ?? `${txid}/${o}`;
      const destAbs: string | Buffer = db !== undefined ? bjoin(quarantineB, Buffer.from(db, 'base64')) : `${q.quarantine}/${d}`;
      let present: boolean;
      if (db === undefined && dRec === null && !odd) present = top.has(txid) && (verify || completed === 0 ? exists(destAbs) : true);
      else {
        const first = db !== undefined ? firstName(Buffer.from(db, 'base64')) : d.slice(0, d.includes('/') ? d.indexOf('/') : d.length);
        // A dest that climbs out of the quarantine (a forged or damaged record) is never "present".
        present = top.has(first) && !climbs(db !== undefined ? Buffer.from(db, 'base64').toString('latin1') : d) && (verify || completed === 0 ? exists(destAbs) : true);
      }
      anyPresent ||= present;
      if (!withItems) continue;
      const item: TxItem = { origin: odd ? path.join(q.root, o) : `${q.root}/${o}`, dest: typeof destAbs === 'string' ? destAbs : display(destAbs), type, completed: completed === 1, present };
      // The exact bytes for names that are not UTF-8, and for recorded paths with `.`/`..`
      // components (the display form is normalised; restore judges the recorded one).
      if (ob !== undefined && db !== undefined) item.bytes = { origin: ob, dest: db };
      else if (odd) item.bytes = { origin: Buffer.from(o).toString('base64'), dest: Buffer.from(d).toString('base64') };
      list.push(item);
    }
    const present = anyPresent || (!restored && (snap?.stash != null || (snap?.refs?.length ?? 0) + (snap?.stashes?.length ?? 0) > 0));
    const state: TxState = purged ? 'PURGED' : present ? 'RESTORABLE' : restored ? 'RESTORED' : 'FAILED';
    // No spread: one object shape for tens of thousands of transactions.
    const entry: Transaction = { txid, ts: tx.ts(t), session: tx.session(t), command: tx.command(t), pid: tx.pid(t), state, itemCount: tx.items(t).length, items: list };
    if (snap) entry.snapshot = snap;
    if (tx.has(t, REGENERABLE)) entry.regenerable = true;
    out.push(entry);
  }
  out.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.txid < b.txid ? -1 : 1));
  folded.save();
  return { transactions: out, corrupt: folded.corrupt };
}

/** Is every directory between the workspace root and `origin` a real directory (or absent)? A
 *  symlink there would carry the restore somewhere else. */
function pathIsPlain(root: Buffer, origin: Buffer): boolean {
  let dir = root;
  for (const part of bsplit(brelative(root, bdirname(origin)))) {
    dir = bjoin(dir, part);
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!st) return true; // the rest does not exist yet: it will be created as plain directories
    if (!st.isDirectory()) return false;
  }
  return true;
}

/** Is everything at `a` also at `b` — same names, types, modes, link targets and bytes? What a move
 *  across filesystems that was interrupted while removing its source leaves at the origin, next to
 *  the complete copy in the quarantine. */
function containedIn(a: Buffer, b: Buffer): boolean {
  const sa = fs.lstatSync(a, { throwIfNoEntry: false });
  const sb = fs.lstatSync(b, { throwIfNoEntry: false });
  if (!sa || !sb) return false;
  if ((sa.mode & 0o177777) !== (sb.mode & 0o177777)) return false; // type and permission bits
  if (sa.isSymbolicLink()) return fs.readlinkSync(a, { encoding: 'buffer' }).equals(fs.readlinkSync(b, { encoding: 'buffer' }));
  if (sa.isFile()) return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  if (!sa.isDirectory()) return false;
  return fs.readdirSync(a, { encoding: 'buffer' }).every((name) => containedIn(bjoin(a, name), bjoin(b, name)));
}

/** Moves back without ever replacing what appeared at the origin meanwhile: a file or link is
 *  hard-linked (EEXIST if taken) then unlinked from the quarantine; a directory is renamed (which
 *  fails on a non-empty one). */
function moveNoClobber(src: Buffer, dst: Buffer): void {
  const st = fs.lstatSync(src);
  if (st.isDirectory()) {
    if (exists(dst)) throw Object.assign(new Error(`${display(dst)} exists`), { code: 'EEXIST' });
    moveEntry(src, dst);
    return;
  }
  try {
    fs.linkSync(src, dst);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    if (exists(dst)) throw Object.assign(new Error(`${display(dst)} exists`), { code: 'EEXIST' });
    moveEntry(src, dst);
    return;
  }
  fs.unlinkSync(src);
}

export function restore(q: QuarantinePlace, txid: string, opts: { force?: boolean; session: string | null; git?: GitRunner }): RestoreOutcome {
  if (!TXID.test(txid)) throw new RestoreError('BAD_TXID', `${JSON.stringify(txid)} is not a transaction id (they look like 20261202T113000Z-1a2b3c4d)`);
  return withQuarantineLock(q, () => restoreLocked(q, txid, opts));
}

function restoreLocked(q: QuarantinePlace, txid: string, opts: { force?: boolean; session: string | null; git?: GitRunner }): RestoreOutcome {
  const tx = listTransactions(q).transactions.find((t) => t.txid === txid);
  if (!tx) throw new RestoreError('UNKNOWN_TXID', `no transaction ${txid} in ${manifestPath(q)}`);
  const out: RestoreOutcome = { txid, restored: [], skipped: [] };
  const root = Buffer.from(q.root);
  const quarantine = Buffer.from(q.quarantine);
  const rel = (p: string): string => (p.startsWith('stash ') || p.startsWith('ref ') || p === 'refs' ? p : path.relative(q.root, p));
  let displacedTx: string | null = null;
  if (tx.snapshot?.stash && tx.state === 'RESTORABLE') {
    const applied = opts.git ? applySnapshot(opts.git, tx.snapshot.repo, tx.snapshot.globals, tx.snapshot.stash) : { ok: false, message: 'no git to apply it with' };
    if (applied.ok) out.restored.push(`stash ${tx.snapshot.stash}`);
    else out.skipped.push({ origin: `stash ${tx.snapshot.stash}`, reason: `git stash apply refused: ${applied.message}` });
  }
  if (tx.snapshot && tx.state === 'RESTORABLE' && ((tx.snapshot.refs?.length ?? 0) > 0 || (tx.snapshot.stashes?.length ?? 0) > 0)) {
    if (!opts.git) out.skipped.push({ origin: 'refs', reason: 'no git to re-create them with' });
    else {
      const back = restoreRefs(opts.git, txid, tx.snapshot.repo, tx.snapshot.globals, { refs: tx.snapshot.refs ?? [], stashes: tx.snapshot.stashes ?? [] });
      out.restored.push(...back.restored);
      out.skipped.push(...back.skipped);
    }
  }
  for (const item of tx.items) {
    if (!item.present) {
      out.skipped.push({ origin: item.origin, reason: 'not in the quarantine (restored or purged already)' });
      continue;
    }
    // Exact paths: the recorded bytes, or the display form, which is exact when there are no bytes
    // (listTransactions builds it as <root>/<origin as recorded> and <quarantine>/<dest>).
    const relOrigin = item.bytes ? Buffer.from(item.bytes.origin, 'base64') : Buffer.from(below(q.root, item.origin) ?? '..');
    const origin = bjoin(root, relOrigin);
    const dest = item.bytes ? bjoin(quarantine, Buffer.from(item.bytes.dest, 'base64')) : Buffer.from(item.dest);
    if (!exists(dest)) {
      out.skipped.push({ origin: item.origin, reason: 'not in the quarantine (restored or purged already)' });
      continue;
    }
    if (bsplit(relOrigin).some((c) => c.equals(DOTDOT) || c.equals(DOT)) || relOrigin.length === 0 || relOrigin[0] === 0x2f) {
      out.skipped.push({ origin: item.origin, reason: 'origin is outside the workspace' });
      continue;
    }
    if (!pathIsPlain(root, origin)) {
      out.skipped.push({ origin: item.origin, reason: 'a symlink or file stands where a directory of the origin path should be' });
      continue;
    }
    if (exists(origin)) {
      // Only an intent, an origin and a complete copy: a move across filesystems was interrupted
      // while removing its source. When nothing at the origin differs from the copy, finishing it
      // loses nothing, and what is left at the origin is moved aside as --force would (never deleted).
      const remnant = !item.completed && containedIn(origin, dest);
      if (!opts.force && !remnant) {
        out.skipped.push({ origin: item.origin, reason: 'origin exists (use --force to restore over it; what is there is quarantined first)' });
        continue;
      }
      displacedTx ??= newTxid();
      const aside = bjoin(quarantine, Buffer.from(displacedTx), relOrigin);
      fs.mkdirSync(bdirname(aside), { recursive: true, mode: 0o700 });
      const fields = {
        txid: displacedTx,
        session: opts.session,
        origin: encodePath(relOrigin),
        dest: encodePath(brelative(quarantine, aside)),
        type: 'other',
        reason: remnant ? `remnant of an interrupted move, displaced by restore ${txid}` : `displaced by restore ${txid} --force`,
      };
      appendRecord(manifestPath(q), { kind: 'relocate-intent', ...fields });
      moveEntry(origin, aside);
      appendRecord(manifestPath(q), { kind: 'relocate', ...fields });
      out.displaced = displacedTx;
    }
    fs.mkdirSync(bdirname(origin), { recursive: true });
    try {
      moveNoClobber(dest, origin);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !exists(dest)) {
        out.skipped.push({ origin: item.origin, reason: 'no longer in the quarantine (removed while restoring)' });
        continue;
      }
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
      out.skipped.push({ origin: item.origin, reason: 'origin was re-created while restoring; left as it is' });
      continue;
    }
    out.restored.push(item.origin);
  }
  appendRecord(manifestPath(q), { kind: 'restore', txid, session: opts.session, restored: out.restored.map(rel), skipped: out.skipped.map((s) => ({ origin: rel(s.origin), reason: s.reason })) });
  return out;
}
