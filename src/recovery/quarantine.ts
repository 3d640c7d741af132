// Relocation: the compensation for filesystem deletes. Each target moves into its transaction's
// directory, `<quarantine>/<txid>/`, after a durable write-ahead intent, so the command that runs next
// finds nothing and the user can get everything back (`restore`). A transaction of one target holds
// it by its name (`<txid>/<name>`); one of several by their paths relative to the workspace.
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, appendRecords, encodePath, type NewRecord } from './records.js';
import { isWithin } from '../classifier/paths.js';
import { exists } from '../probe/fs.js';
import { bdirname, bIsWithin, bjoin, brelative, depth, display, toBytes } from './bpath.js';
import { ensureZoneQuarantine } from './zonetrash.js';
import { makeTxDir } from './spare.js';
import { randomHex } from './random.js';
import type { QuarantinePlace } from '../workspace.js';

export type { QuarantinePlace };

export interface Moved {
  /** Display forms (lossy when a name is not UTF-8; the records hold the exact bytes). */
  origin: string;
  dest: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  /** How it moved: one rename, or copy-verify-remove across filesystems. */
  via: 'rename' | 'copy';
}

export interface RelocationResult {
  txid: string;
  status: 'done' | 'failed';
  moved: Moved[];
  skipped: { origin: string; reason: 'missing' | 'covered' }[];
  /** Set when status is failed: the reason code the decision becomes. */
  failure?: { code: 'RELOCATE_FAILED_STORAGE' | 'COMPENSATION_FAILED'; message: string };
}

export interface RelocationContext {
  session: string | null;
  /** The command the relocation compensates for, already redacted. */
  command: string;
  cwd: string;
}

/** Errors that mean the quarantine cannot take more (never a reason to delete instead). */
const STORAGE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EFBIG', 'EMLINK']);

/** A transaction id that sorts by time and does not collide across concurrent agents. */
export function newTxid(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomHex(4)}`;
}

export function manifestPath(q: QuarantinePlace): string {
  return path.join(q.quarantine, 'manifest.jsonl');
}

export function auditPath(q: QuarantinePlace): string {
  return path.join(q.quarantine, 'audit.jsonl');
}

/** Creates the quarantine and keeps it out of git: an existing ignore rule is accepted, else one
 *  line goes to `.git/info/exclude` (the user's .gitignore is never modified). */
export function ensureQuarantine(q: QuarantinePlace, isIgnored: (dir: string) => boolean): void {
  // A zone's quarantine is verified, never repaired; it is in no work tree (no marker, no exclude).
  if (q.zone) return ensureZoneQuarantine(q);
  fs.mkdirSync(q.quarantine, { recursive: true, mode: 0o700 });
  if (!isWithin(q.quarantine, q.root) || q.quarantine === q.root) return;
  // A nested-repository marker: `git clean -fdx` / `-fdX` (single -f) skip nested repositories, so
  // the command the guard lets run after enumerating can never wipe the quarantine. (-ff, which
  // would remove it, is refused by rule 11a.)
  // HEAD is written last, so it is what says the marker is complete: a process killed while making
  // it leaves a `.git` without HEAD, which git does not take for a repository; the next run redoes it.
  const marker = path.join(q.quarantine, '.git');
  if (!fs.existsSync(path.join(marker, 'HEAD'))) {
    fs.mkdirSync(path.join(marker, 'objects'), { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(marker, 'refs'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(marker, 'HEAD'), 'ref: refs/heads/main\n');
  }
  const gitDir = path.join(q.root, '.git');
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(gitDir);
  } catch {
    return; // not a git work tree root: nothing to keep it out of
  }
  if (!st.isDirectory()) return;
  const rule = '/' + path.relative(q.root, q.quarantine).split(path.sep).join('/') + '/';
  const exclude = path.join(gitDir, 'info', 'exclude');
  const current = fs.existsSync(exclude) ? fs.readFileSync(exclude, 'utf8') : '';
  // Our own rule first (no git spawn); then any existing ignore rule is accepted.
  if (current.split('\n').includes(rule) || isIgnored(q.quarantine)) return;
  fs.mkdirSync(path.dirname(exclude), { recursive: true });
  fs.appendFileSync(exclude, (current === '' || current.endsWith('\n') ? '' : '\n') + `# agent-guard quarantine\n${rule}\n`);
}

function typeOf(st: fs.Stats): Moved['type'] {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}


function fsyncPath(p: string | Buffer, dir: boolean): void {
  const fd = fs.openSync(p, dir ? fs.constants.O_RDONLY | fs.constants.O_DIRECTORY : fs.constants.O_RDONLY);
  try {
    fs.fsyncSync(fd);
  } catch (err) {
    // Some filesystems cannot sync a directory (EINVAL); its entries are as durable as they get.
    if (!dir || (err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    fs.closeSync(fd);
  }
}

const names = (dir: Buffer): Buffer[] => fs.readdirSync(dir, { encoding: 'buffer' });

/** Copies a tree exactly (symlinks as links, modes, timestamps, names as bytes), durably. A
 *  directory is created writable by its owner and gets its own mode once its entries are in, so a
 *  read-only (0555) directory copies for a user who is not root. */
function copyTree(src: Buffer, dest: Buffer): void {
  const st = fs.lstatSync(src);
  if (st.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(src, { encoding: 'buffer' }), dest);
  } else if (st.isDirectory()) {
    fs.mkdirSync(dest, { mode: 0o700 });
    for (const name of names(src)) copyTree(bjoin(src, name), bjoin(dest, name));
    fsyncPath(dest, true);
    fs.chmodSync(dest, st.mode & 0o7777);
    fs.utimesSync(dest, st.atimeMs / 1000, st.mtimeMs / 1000);
  } else if (st.isFile()) {
    fs.copyFileSync(src, dest, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(dest, st.mode & 0o7777);
    fs.utimesSync(dest, st.atimeMs / 1000, st.mtimeMs / 1000);
    fsyncPath(dest, false);
  } else {
    throw Object.assign(new Error(`cannot copy special file ${display(src)}`), { code: 'ENOTSUP' });
  }
}

/** Both trees hold the same names, types, link targets, modes and bytes. */
function sameTree(a: Buffer, b: Buffer): boolean {
  const sa = fs.lstatSync(a);
  const sb = fs.lstatSync(b);
  if (typeOf(sa) !== typeOf(sb) || (sa.mode & 0o7777) !== (sb.mode & 0o7777)) return false;
  if (sa.isSymbolicLink()) return fs.readlinkSync(a, { encoding: 'buffer' }).equals(fs.readlinkSync(b, { encoding: 'buffer' }));
  if (sa.isFile()) return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  const na = names(a).sort(Buffer.compare);
  const nb = names(b).sort(Buffer.compare);
  return na.length === nb.length && na.every((n, i) => n.equals(nb[i]!) && sameTree(bjoin(a, n), bjoin(b, n)));
}

/** Removes our own copy, which may hold read-only (0555) directories copied with their modes. */
function removeTree(p: Buffer): void {
  try {
    fs.rmSync(p, { recursive: true, force: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' && (err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    // Make each directory writable by its owner, then try again.
    const stack = [p];
    while (stack.length > 0) {
      const d = stack.pop()!;
      const st = fs.lstatSync(d, { throwIfNoEntry: false });
      if (!st?.isDirectory()) continue;
      fs.chmodSync(d, (st.mode & 0o7777) | 0o700);
      for (const n of names(d)) stack.push(bjoin(d, n));
    }
    fs.rmSync(p, { recursive: true, force: true });
  }
}

/** Moves one entry. Same filesystem: one rename (O(1)). Across filesystems: copy, verify, and only
 *  then remove the source — the source is never lost before the copy is durable. With `staging` (a
 *  free name in dest's directory), the copy is made there and renamed to `dest` once verified and
 *  durable, so `dest` never holds a partial copy, even when the process is killed while copying. */
export function moveEntry(originPath: string | Buffer, destPath: string | Buffer, stagingPath?: string | Buffer): Moved['via'] {
  const origin = toBytes(originPath);
  const dest = toBytes(destPath);
  try {
    fs.renameSync(origin, dest);
    return 'rename';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
  }
  const copy = stagingPath === undefined ? dest : toBytes(stagingPath);
  let placed = false;
  try {
    copyTree(origin, copy);
    if (!sameTree(origin, copy)) throw Object.assign(new Error(`the copy of ${display(origin)} does not match it`), { code: 'EVERIFY' });
    if (!copy.equals(dest)) {
      fs.renameSync(copy, dest);
      placed = true;
    }
    fsyncPath(bdirname(dest), true); // the name is durable before the source goes
  } catch (err) {
    try {
      removeTree(placed ? dest : copy); // our own copy; the origin is untouched
    } catch {
      // keep the error that matters
    }
    throw err;
  }
  // The source goes as `rm -rf` would take it: its directories' modes are not changed, so a part
  // that cannot be removed stays (the caller reports the copy as moved and the failure).
  fs.rmSync(origin, { recursive: true, force: true });
  return 'copy';
}

/** Copies one entry into the quarantine and leaves the origin as it is (for a command that
 *  overwrites in place, like `shred`): copy under the staging name, verify, rename into place. */
export function copyEntry(originPath: string | Buffer, destPath: string | Buffer, stagingPath: string | Buffer): 'copy' {
  const origin = toBytes(originPath);
  const dest = toBytes(destPath);
  const staging = toBytes(stagingPath);
  try {
    copyTree(origin, staging);
    if (!sameTree(origin, staging)) throw Object.assign(new Error(`the copy of ${display(origin)} does not match it`), { code: 'EVERIFY' });
    fs.renameSync(staging, dest);
    fsyncPath(bdirname(dest), true);
  } catch (err) {
    try {
      removeTree(staging);
    } catch {
      // keep the error that matters
    }
    throw err;
  }
  return 'copy';
}

/** The device the quarantine is (or will be, once made) on: its nearest existing ancestor's. */
function quarantineDevice(quarantine: string): number | null {
  for (let d = quarantine; ; d = path.dirname(d)) {
    const st = fs.statSync(d, { throwIfNoEntry: false });
    if (st) return st.dev;
    if (path.dirname(d) === d) return null;
  }
}

/** Splits targets into those one rename moves into the quarantine (same filesystem) and those that
 *  would have to be copied across filesystems (or are gone: nothing to move). A regenerable
 *  artifact on another filesystem is deleted directly rather than copied (docs/rules.md, rule 13). */
export function byFilesystem(quarantine: string, targets: readonly (string | Buffer)[]): { rename: (string | Buffer)[]; other: (string | Buffer)[] } {
  const dev = quarantineDevice(quarantine);
  const out: { rename: (string | Buffer)[]; other: (string | Buffer)[] } = { rename: [], other: [] };
  for (const t of targets) {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(t, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    // A missing target moves nowhere; relocate records it as skipped, as for any other delete.
    if (!st || (dev !== null && st.dev === dev)) out.rename.push(t);
    else out.other.push(t);
  }
  return out;
}

const DOT = Buffer.from('.');
const DOTDOT = Buffer.from('..');

/** Where a target goes inside the transaction. The only target of a transaction: its name, so no
 *  directory is made below the transaction's own (each mkdir of a fresh directory cost up to 2 ms
 *  here, docs/performance.md); one of several: its path relative to the workspace (`.outside/<path>`
 *  for one outside it), which keeps same-named targets apart. The records hold every dest. */
function destFor(root: Buffer, quarantine: Buffer, txid: string, origin: Buffer, only: boolean): Buffer {
  const name = origin.subarray(origin.lastIndexOf(0x2f) + 1);
  if (only && name.length > 0 && !name.equals(DOT) && !name.equals(DOTDOT)) return bjoin(quarantine, Buffer.from(txid), name);
  const rel = bIsWithin(origin, root) && !origin.equals(root) ? brelative(root, origin) : bjoin(Buffer.from('.outside'), origin);
  return bjoin(quarantine, Buffer.from(txid), rel);
}

/** Is `dir` a directory this process may create entries in and remove entries from? */
function writable(dir: Buffer): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Relocates `targets` (physical paths, each judged as the entry itself; a Buffer carries a name
 *  that is not UTF-8 exactly) under one txid. */
export function relocate(
  q: QuarantinePlace,
  targets: readonly (string | Buffer)[],
  ctx: RelocationContext,
  isIgnored: (dir: string) => boolean = () => false,
  /** regenerable: mark the transaction (rule 13) and move by rename only — an EXDEV (a bind mount of
   *  the same filesystem) fails the entry rather than copying it; the caller deletes it instead.
   *  ready: the caller has just run ensureQuarantine on `q` (relocateByPlace). */
  opts: { keepOrigin?: boolean; regenerable?: boolean; ready?: boolean } = {},
): RelocationResult {
  const txid = newTxid();
  const res: RelocationResult = { txid, status: 'done', moved: [], skipped: [] };
  const manifest = manifestPath(q);
  const root = Buffer.from(q.root);
  const quarantine = Buffer.from(q.quarantine);
  // `storage`: the quarantine itself (its directory or its records) could not take the transaction —
  // whatever the errno (a read-only parent makes a recursive mkdir say ENOENT).
  const fail = (err: unknown, what: string, storage = false, sourceSide = false): RelocationResult => {
    // records.ts wraps its errors and keeps the system error as the cause.
    const code = (err as NodeJS.ErrnoException).code ?? ((err as { cause?: NodeJS.ErrnoException }).cause?.code ?? '');
    res.status = 'failed';
    res.failure = {
      code: storage || (!sourceSide && STORAGE_ERRORS.has(code)) ? 'RELOCATE_FAILED_STORAGE' : 'COMPENSATION_FAILED',
      message: `${what}: ${err instanceof Error ? err.message : String(err)}`,
    };
    return res;
  };
  // Ancestors first, so a target inside one already moved is covered rather than moved twice.
  const unique = new Map<string, Buffer>();
  for (const t of targets) {
    const b = toBytes(t);
    unique.set(b.toString('base64'), b);
  }
  const ordered = [...unique.values()].sort((a, b) => depth(a) - depth(b) || Buffer.compare(a, b));
  // The start record goes to the disk with the first intent, in the same write and fsync; a
  // transaction that moves nothing writes it alone at the end.
  let start: NewRecord | null = { kind: 'tx-start', txid, session: ctx.session, command: ctx.command, cwd: ctx.cwd, targets: ordered.length, ...(q.zone ? { zone: q.zone, root: q.root } : {}), ...(opts.regenerable ? { regenerable: true } : {}) };
  try {
    if (!opts.ready) ensureQuarantine(q, isIgnored);
  } catch (err) {
    return fail(err, 'the quarantine cannot record a transaction', true);
  }
  const txdir = bjoin(quarantine, Buffer.from(txid));
  const movedBytes: Buffer[] = [];
  for (const origin of ordered) {
    if (movedBytes.some((m) => bIsWithin(origin, m))) {
      res.skipped.push({ origin: display(origin), reason: 'covered' });
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.lstatSync(origin);
    } catch {
      res.skipped.push({ origin: display(origin), reason: 'missing' });
      continue;
    }
    const dest = destFor(root, quarantine, txid, origin, ordered.length === 1);
    const fields = {
      txid,
      session: ctx.session,
      origin: encodePath(bIsWithin(origin, root) ? brelative(root, origin) : Buffer.from(path.relative(q.root, display(origin)))),
      dest: encodePath(brelative(quarantine, dest)),
      type: typeOf(st),
      ...(opts.keepOrigin ? { kept: true } : {}),
    };
    try {
      // Write-ahead: the intent is durable before anything moves (the first one carries the
      // tx-start in the same write); if it cannot be stored, nothing moves.
      appendRecords(manifest, start ? [start, { kind: 'relocate-intent', ...fields }] : [{ kind: 'relocate-intent', ...fields }]);
      if (start) {
        start = null;
        // The transaction's own directory first (a spare renamed into place in the warm checker:
        // spare.ts): the recursive mkdir below then makes only what is missing under it, without a
        // failed attempt at the deepest level first.
        makeTxDir(quarantine, txdir);
      }
    } catch (err) {
      return fail(err, `the intent for ${display(origin)} could not be stored`, true);
    }
    let via: Moved['via'];
    try {
      if (!bdirname(dest).equals(txdir)) fs.mkdirSync(bdirname(dest), { recursive: true, mode: 0o700 });
      const staging = bjoin(bdirname(dest), Buffer.from(`.agent-guard-copy-${randomHex(6)}`));
      if (opts.keepOrigin) via = copyEntry(origin, dest, staging);
      else if (opts.regenerable) {
        fs.renameSync(origin, dest);
        via = 'rename';
      } else via = moveEntry(origin, dest, staging);
    } catch (err) {
      // A copy put in place before removing the source failed: it is in the quarantine (restorable).
      if (exists(dest)) res.moved.push({ origin: display(origin), dest: display(dest), type: fields.type, via: 'copy' });
      // A permission or read-only refusal while the quarantine can still take entries came from the
      // workspace side (the target, or something inside it, may not be removed or read by this
      // process — `rm` would fail too): the compensation failed, not the storage.
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const sourceSide = ['EACCES', 'EPERM', 'EROFS'].includes(code) && writable(bdirname(dest));
      return fail(err, `${display(origin)} could not be moved to the quarantine${sourceSide ? ' (the workspace side refused it)' : ''}`, false, sourceSide);
    }
    movedBytes.push(origin);
    res.moved.push({ origin: display(origin), dest: display(dest), type: fields.type, via });
    try {
      // Not fsync'd: a completion record lost in a power cut leaves the intent, which keeps the move
      // discoverable and restorable (the reference's rule for an intent without its completion).
      appendRecord(manifest, { kind: 'relocate', ...fields, via }, { sync: false, deferrable: true });
    } catch {
      // The move happened; its intent record keeps it discoverable and restorable.
    }
  }
  if (start) {
    try {
      appendRecord(manifest, start, { sync: false });
    } catch (err) {
      return fail(err, 'the quarantine cannot record a transaction', true);
    }
  }
  return res;
}

/** How long a restore or a purge waits for another one holding the quarantine's lock. */
const LOCK_WAIT_MS = 10_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Is there no process `pid` any more (a stale lock, an abandoned copy)? Unknown pids are not gone. */
export function processGone(pid: number | null): boolean {
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Runs `fn` holding `<quarantine>/.lock` (created exclusively, holding the pid): restore and
 *  `gc --execute` take it, so a purge never removes a transaction while it is being restored. A lock
 *  whose process is gone is taken over; a live one is waited for, then a clear error. Relocations do
 *  not take it (each writes only its own new transaction directory). Without a quarantine there is
 *  nothing to race over and `fn` runs as it is. */
export function withQuarantineLock<T>(q: QuarantinePlace, fn: () => T, opts: { waitMs?: number } = {}): T {
  const lock = path.join(q.quarantine, '.lock');
  const deadline = Date.now() + (opts.waitMs ?? LOCK_WAIT_MS);
  let fd: number | null = null;
  for (;;) {
    try {
      fd = fs.openSync(lock, 'wx', 0o600);
      fs.writeSync(fd, `${process.pid}\n`);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return fn(); // no quarantine
      if (code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number.parseInt(fs.readFileSync(lock, 'utf8'), 10);
    } catch {
      continue; // released meanwhile
    }
    if (processGone(holder)) {
      try {
        fs.unlinkSync(lock); // left by a process that is gone
      } catch {
        // someone else took it over first
      }
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`the quarantine is locked by process ${Number.isNaN(holder) ? '(being written)' : holder} (${lock}); try again, or remove the lock file if no agent-guard restore/gc is running`);
    }
    sleep(50);
  }
  try {
    return fn();
  } finally {
    fs.closeSync(fd);
    try {
      fs.unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}
