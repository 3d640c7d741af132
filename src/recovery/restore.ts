// Restore: transactions read back from the manifest, and quarantined entries moved back to their
// origin. Non-destructive: an origin that exists is skipped unless --force, and then what occupies it
// is itself quarantined, never deleted. It never follows a symlink planted on the way to an origin.
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, encodePath } from './records.js';
import { APPLIED, dirEntries, loadFolded, PARTIAL, PURGED, REGENERABLE, RESTORED, tx, type Folded, type Snap } from './txindex.js';
import { manifestPath, moveEntry, newTxid, withQuarantineLock, type QuarantinePlace } from './quarantine.js';
import { exists } from '../probe/fs.js';
import type { GitRunner } from '../probe/git.js';
import { chooseSnapshotFiles, restoreRefs, restoreSnapshot, restoreSnapshotPaths } from './snapshot.js';
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
  /** Some of its paths were restored on their own (`restore <txid> PATH…`). */
  partly?: true;
  /** Regenerable artifacts relocated under rule 13 (gc purges these first); absent otherwise. */
  regenerable?: true;
}

export interface RestoreOutcome {
  txid: string;
  restored: string[];
  skipped: { origin: string; reason: string }[];
  /** Occupants of an origin moved aside by --force (restorable under this txid). */
  displaced?: string;
  /** A snapshot restore that was refused: the git commands that would do it by hand. */
  commands?: string[];
}

export class RestoreError extends Error {
  readonly code: 'UNKNOWN_TXID' | 'BAD_TXID' | 'UNKNOWN_PATH' | 'WHOLE_ONLY';
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
    return dirEntries(quarantine).names;
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

/** A listing kept by a long-lived process (the warm checker: withFoldedMemory) with what it was
 *  computed from: the same folded transactions (`txs` and `gen`), the same listing of the quarantine
 *  (the very Set: txindex.ts's dirEntries keeps it while the directory is unchanged), and every
 *  entry it looked for on disk, with what it found. */
interface Listed {
  txs: Map<string, unknown>;
  gen: number;
  top: Set<string>;
  probes: [string | Buffer, boolean][];
  result: { transactions: Transaction[]; corrupt: number; shared: true };
}
const listed = new Map<string, Listed>();
const LISTED_MAX = 8;

/** Every transaction in the manifest, oldest first; unreadable lines are reported, not fatal. The
 *  records come folded from the transaction index plus the manifest's new lines (txindex.ts); the
 *  presence of each quarantined entry is checked on disk, once per entry. With `shared` the result
 *  is also kept for the next call (inside withFoldedMemory) and must not be changed by the caller:
 *  it is returned again while the records, the quarantine's listing and every entry looked for on
 *  disk are unchanged. */
export function listTransactions(q: QuarantinePlace, folded: Folded = loadFolded(q.quarantine), opts: { items?: boolean; topLevel?: Set<string> } = {}): { transactions: Transaction[]; corrupt: number; shared?: true } {
  const withItems = opts.items !== false;
  const top = opts.topLevel ?? topLevel(q.quarantine);
  const key = `${q.quarantine}\0${q.root}\0${withItems ? 1 : 0}`;
  if (folded.gen !== null) {
    const m = listed.get(key);
    if (m && m.txs === folded.txs && m.gen === folded.gen && m.top === top && m.probes.every(([p, was]) => exists(p) === was)) {
      folded.save();
      return m.result;
    }
  }
  const probes: [string | Buffer, boolean][] = [];
  const probe = (p: string | Buffer): boolean => {
    const there = exists(p);
    probes.push([p, there]);
    return there;
  };
  const quarantineB = Buffer.from(q.quarantine);
  const out: Transaction[] = [];
  for (const t of folded.txs.values()) {
    const txid = tx.txid(t);
    const restored = tx.has(t, RESTORED);
    const partly = tx.has(t, PARTIAL);
    const purged = tx.has(t, PURGED);
    const snap = tx.snap(t);
    const list: TxItem[] = [];
    // A completed relocation of a transaction with no restore or purge is where the records say
    // while its transaction directory is there (one readdir for all); anything else is checked on
    // disk. `restore` checks every entry again before moving it.
    const verify = restored || partly || purged;
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
      if (db === undefined && dRec === null && !odd) present = top.has(txid) && (verify || completed === 0 ? probe(destAbs) : true);
      else {
        const first = db !== undefined ? firstName(Buffer.from(db, 'base64')) : d.slice(0, d.includes('/') ? d.indexOf('/') : d.length);
        // A dest that climbs out of the quarantine (a forged or damaged record) is never "present".
        present = top.has(first) && !climbs(db !== undefined ? Buffer.from(db, 'base64').toString('latin1') : d) && (verify || completed === 0 ? probe(destAbs) : true);
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
    // A snapshot is there until a restore applied it (a refused restore leaves it restorable); kept
    // refs until a restore of the transaction.
    const present = anyPresent || (snap?.stash != null && !tx.has(t, APPLIED)) || (!restored && (snap?.refs?.length ?? 0) + (snap?.stashes?.length ?? 0) > 0);
    const state: TxState = purged ? 'PURGED' : present ? 'RESTORABLE' : restored || partly ? 'RESTORED' : 'FAILED';
    // No spread: one object shape for tens of thousands of transactions.
    const entry: Transaction = { txid, ts: tx.ts(t), session: tx.session(t), command: tx.command(t), pid: tx.pid(t), state, itemCount: tx.items(t).length, items: list };
    if (snap) entry.snapshot = snap;
    if (partly) entry.partly = true;
    if (tx.has(t, REGENERABLE)) entry.regenerable = true;
    out.push(entry);
  }
  out.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.txid < b.txid ? -1 : 1));
  folded.save();
  if (folded.gen === null) return { transactions: out, corrupt: folded.corrupt };
  const result = { transactions: out, corrupt: folded.corrupt, shared: true as const };
  listed.delete(key);
  listed.set(key, { txs: folded.txs, gen: folded.gen, top, probes, result });
  if (listed.size > LISTED_MAX) listed.delete(listed.keys().next().value!);
  return result;
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

export interface RestoreOptions {
  force?: boolean;
  session: string | null;
  git?: GitRunner;
  /** Restore only these (absolute, physical) paths: items of the transaction, a directory for its
   *  subtree, or a path inside a quarantined directory. Unknown paths: RestoreError, nothing changed. */
  paths?: readonly string[];
}

export function restore(q: QuarantinePlace, txid: string, opts: RestoreOptions): RestoreOutcome {
  if (!TXID.test(txid)) throw new RestoreError('BAD_TXID', `${JSON.stringify(txid)} is not a transaction id (they look like 20261202T113000Z-1a2b3c4d)`);
  return withQuarantineLock(q, () => restoreLocked(q, txid, opts));
}

/** A chosen entry: a whole item, or (`sub`) a path inside a quarantined directory. */
interface Chosen {
  item: TxItem;
  sub: Buffer | null;
}

/** An item's origin relative to the workspace, and its dest, as exact bytes. */
function exact(q: QuarantinePlace, item: TxItem): { relOrigin: Buffer; dest: Buffer } {
  // The recorded bytes, or the display form, which is exact when there are no bytes (listTransactions
  // builds it as <root>/<origin as recorded> and <quarantine>/<dest>).
  const relOrigin = item.bytes ? Buffer.from(item.bytes.origin, 'base64') : Buffer.from(below(q.root, item.origin) ?? '..');
  const dest = item.bytes ? bjoin(Buffer.from(q.quarantine), Buffer.from(item.bytes.dest, 'base64')) : Buffer.from(item.dest);
  return { relOrigin, dest };
}

const SLASH = 0x2f;
/** Is `p` (bytes) `base` itself or below it? */
const within = (p: Buffer, base: Buffer): boolean => p.equals(base) || (p.length > base.length && p[base.length] === SLASH && p.subarray(0, base.length).equals(base));

/** The entries of a transaction the paths name (absolute, physical). Throws RestoreError naming
 *  every path that is not in it. */
function choose(q: QuarantinePlace, tx: Transaction, paths: readonly string[]): Chosen[] {
  const root = Buffer.from(q.root);
  const out: Chosen[] = [];
  const unknown: string[] = [];
  for (const p of paths) {
    const abs = Buffer.from(p);
    let found = false;
    for (const item of tx.items) {
      const { relOrigin, dest } = exact(q, item);
      const origin = bjoin(root, relOrigin);
      if (within(origin, abs)) {
        out.push({ item, sub: null });
        found = true;
      } else if (within(abs, origin) && item.present) {
        const sub = abs.subarray(origin.length + 1);
        if (bsplit(sub).some((c) => c.equals(DOTDOT) || c.equals(DOT)) || !exists(bjoin(dest, sub))) continue;
        out.push({ item, sub });
        found = true;
      }
    }
    if (!found) unknown.push(p);
  }
  if (unknown.length > 0) throw new RestoreError('UNKNOWN_PATH', `not in transaction ${tx.txid}: ${unknown.join(', ')} (agent-guard restore show ${tx.txid} lists what it holds)`);
  // One entry per item: the whole item wins over paths inside it; a path inside another goes.
  const whole = new Set(out.filter((c) => c.sub === null).map((c) => c.item));
  const subs = out.filter((c) => c.sub !== null && !whole.has(c.item)).sort((a, b) => a.sub!.length - b.sub!.length);
  const kept: Chosen[] = [];
  for (const c of subs) if (!kept.some((d) => d.item === c.item && within(c.sub!, d.sub!))) kept.push(c);
  return [...tx.items.filter((i) => whole.has(i)).map((item) => ({ item, sub: null })), ...kept];
}

/** Creates the missing directories of `rel` (relative to root) for a path restored from inside the
 *  quarantined directory `item` (its origin has `itemDepth` components): the item's directory and
 *  those below it get the modes of their counterparts under `dest` (returned, to set once the entry
 *  is in: until then they are writable by the owner); the ones above it are made as mkdir -p would. */
function mkdirLike(root: Buffer, rel: Buffer, dest: Buffer, itemDepth: number): [Buffer, number][] {
  const made: [Buffer, number][] = [];
  let at = root;
  let there = dest;
  for (const [i, part] of bsplit(rel).entries()) {
    at = bjoin(at, part);
    if (i >= itemDepth) there = bjoin(there, part);
    if (exists(at)) continue;
    if (i < itemDepth - 1) {
      fs.mkdirSync(at);
      continue;
    }
    fs.mkdirSync(at, { mode: 0o700 });
    made.push([at, (fs.lstatSync(there, { throwIfNoEntry: false })?.mode ?? 0o40755) & 0o7777]);
  }
  return made;
}

const isRealDir = (p: Buffer): boolean => fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** Moves back what of the quarantined directory `from` is missing in the existing directory `to`,
 *  directory by directory; what exists on both sides as something else than two directories is a
 *  clash (left where it is). Directories of the quarantine emptied this way are removed. Returns how
 *  many entries moved. */
function mergeBack(from: Buffer, to: Buffer, clash: Buffer[]): number {
  let moved = 0;
  for (const name of fs.readdirSync(from, { encoding: 'buffer' })) {
    const src = bjoin(from, name);
    const dst = bjoin(to, name);
    if (!exists(dst)) {
      try {
        moveNoClobber(src, dst);
        moved++;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
        clash.push(dst);
      }
    } else if (isRealDir(src) && isRealDir(dst)) moved += mergeBack(src, dst, clash);
    else clash.push(dst);
  }
  if (fs.readdirSync(from).length === 0) fs.rmdirSync(from);
  return moved;
}

function restoreLocked(q: QuarantinePlace, txid: string, opts: RestoreOptions): RestoreOutcome {
  const tx = listTransactions(q).transactions.find((t) => t.txid === txid);
  if (!tx) throw new RestoreError('UNKNOWN_TXID', `no transaction ${txid} in ${manifestPath(q)}`);
  const out: RestoreOutcome = { txid, restored: [], skipped: [] };
  const root = Buffer.from(q.root);
  const quarantine = Buffer.from(q.quarantine);
  const rel = (p: string): string => (p.startsWith('stash ') || p.startsWith('ref ') || p === 'refs' ? p : path.relative(q.root, p));
  const paths = opts.paths;
  const hasRefs = (tx.snapshot?.refs?.length ?? 0) > 0 || (tx.snapshot?.stashes?.length ?? 0) > 0;
  if (paths && hasRefs) throw new RestoreError('WHOLE_ONLY', `transaction ${txid} holds refs: it restores as a whole (agent-guard restore ${txid})`);
  let chosen: Chosen[] = tx.items.map((item) => ({ item, sub: null }));
  let snapFiles: string[] | null = null;
  if (paths) {
    const snapChosen = tx.snapshot?.stash && tx.state === 'RESTORABLE' && opts.git ? chooseSnapshotFiles(opts.git, tx.snapshot, paths) : null;
    if (snapChosen) {
      if (snapChosen.unknown.length > 0) throw new RestoreError('UNKNOWN_PATH', `not in transaction ${txid}: ${snapChosen.unknown.join(', ')} (agent-guard restore show ${txid} lists what it holds)`);
      snapFiles = snapChosen.files;
      chosen = [];
    } else chosen = choose(q, tx, paths);
  }
  let displacedTx: string | null = null;
  if (tx.snapshot?.stash && tx.state === 'RESTORABLE' && (!paths || snapFiles)) {
    if (!opts.git) out.skipped.push({ origin: `stash ${tx.snapshot.stash}`, reason: 'no git to apply it with' });
    else {
      const back = snapFiles ? restoreSnapshotPaths(opts.git, tx.snapshot, snapFiles) : restoreSnapshot(opts.git, txid, tx.snapshot);
      out.restored.push(...back.restored);
      out.skipped.push(...back.skipped);
      if (back.commands) out.commands = back.commands;
    }
  }
  if (tx.snapshot && tx.state === 'RESTORABLE' && hasRefs) {
    if (!opts.git) out.skipped.push({ origin: 'refs', reason: 'no git to re-create them with' });
    else {
      const back = restoreRefs(opts.git, txid, tx.snapshot.repo, tx.snapshot.globals, { refs: tx.snapshot.refs ?? [], stashes: tx.snapshot.stashes ?? [] });
      out.restored.push(...back.restored);
      out.skipped.push(...back.skipped);
    }
  }
  for (const { item, sub } of chosen) {
    const shown = sub ? `${item.origin}/${sub.toString('utf8')}` : item.origin;
    if (!item.present) {
      out.skipped.push({ origin: shown, reason: 'not in the quarantine (restored or purged already)' });
      continue;
    }
    const whole = exact(q, item);
    const relOrigin = sub ? bjoin(whole.relOrigin, sub) : whole.relOrigin;
    const origin = bjoin(root, relOrigin);
    const dest = sub ? bjoin(whole.dest, sub) : whole.dest;
    if (!exists(dest)) {
      out.skipped.push({ origin: shown, reason: 'not in the quarantine (restored or purged already)' });
      continue;
    }
    if (bsplit(relOrigin).some((c) => c.equals(DOTDOT) || c.equals(DOT)) || relOrigin.length === 0 || relOrigin[0] === 0x2f) {
      out.skipped.push({ origin: shown, reason: 'origin is outside the workspace' });
      continue;
    }
    if (!pathIsPlain(root, origin)) {
      out.skipped.push({ origin: shown, reason: 'a symlink or file stands where a directory of the origin path should be' });
      continue;
    }
    if (exists(origin) && !opts.force && !sub && tx.partly && isRealDir(origin) && isRealDir(dest)) {
      // The rest of a directory some of whose paths were restored on their own: what is missing at
      // the origin goes back into it; nothing there is replaced.
      const clash: Buffer[] = [];
      if (mergeBack(dest, origin, clash) > 0 || clash.length === 0) out.restored.push(shown);
      for (const c of clash) out.skipped.push({ origin: display(c), reason: 'origin exists (use --force to restore over it; what is there is quarantined first)' });
      continue;
    }
    if (exists(origin)) {
      // Only an intent, an origin and a complete copy: a move across filesystems was interrupted
      // while removing its source. When nothing at the origin differs from the copy, finishing it
      // loses nothing, and what is left at the origin is moved aside as --force would (never deleted).
      const remnant = !sub && !item.completed && containedIn(origin, dest);
      if (!opts.force && !remnant) {
        out.skipped.push({ origin: shown, reason: 'origin exists (use --force to restore over it; what is there is quarantined first)' });
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
    // A path from inside a quarantined directory: the directories above it get the modes they had.
    const made = sub ? mkdirLike(root, bdirname(relOrigin), whole.dest, bsplit(whole.relOrigin).length) : [];
    if (!sub) fs.mkdirSync(bdirname(origin), { recursive: true });
    try {
      moveNoClobber(dest, origin);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !exists(dest)) {
        out.skipped.push({ origin: shown, reason: 'no longer in the quarantine (removed while restoring)' });
        continue;
      }
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
      out.skipped.push({ origin: shown, reason: 'origin was re-created while restoring; left as it is' });
      continue;
    }
    for (const [dir, mode] of made.reverse()) fs.chmodSync(dir, mode);
    out.restored.push(shown);
  }
  appendRecord(manifestPath(q), {
    kind: 'restore',
    txid,
    session: opts.session,
    restored: out.restored.map(rel),
    skipped: out.skipped.map((s) => ({ origin: rel(s.origin), reason: s.reason })),
    ...(paths ? { paths: paths.map((p) => path.relative(q.root, p)) } : {}),
  });
  return out;
}
