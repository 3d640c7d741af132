// Relocation: the compensation for filesystem deletes. Each target moves into
// `<quarantine>/<txid>/<path relative to the workspace>`, after a durable write-ahead intent, so the
// command that runs next finds nothing and the user can get everything back (`restore`).
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, encodePath } from './records.js';
import { isWithin } from '../classifier/paths.js';
import { exists } from '../probe/fs.js';

export interface QuarantinePlace {
  /** Physical workspace root. */
  root: string;
  /** Physical quarantine directory. */
  quarantine: string;
}

export interface Moved {
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

/** Random hex; node:crypto is loaded on first use, not at start-up (every check pays for start-up). */
function randomHex(bytes: number): string {
  return process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');
}

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


function fsyncPath(p: string, dir: boolean): void {
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

/** Copies a tree exactly (symlinks as links, modes, timestamps), durably. */
function copyTree(src: string, dest: string): void {
  const st = fs.lstatSync(src);
  if (st.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(src), dest);
  } else if (st.isDirectory()) {
    fs.mkdirSync(dest, { mode: st.mode & 0o7777 });
    for (const name of fs.readdirSync(src)) copyTree(path.join(src, name), path.join(dest, name));
    fs.chmodSync(dest, st.mode & 0o7777);
    fs.utimesSync(dest, st.atimeMs / 1000, st.mtimeMs / 1000);
    fsyncPath(dest, true);
  } else if (st.isFile()) {
    fs.copyFileSync(src, dest, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(dest, st.mode & 0o7777);
    fs.utimesSync(dest, st.atimeMs / 1000, st.mtimeMs / 1000);
    fsyncPath(dest, false);
  } else {
    throw Object.assign(new Error(`cannot copy special file ${src}`), { code: 'ENOTSUP' });
  }
}

/** Both trees hold the same names, types, link targets, modes and bytes. */
function sameTree(a: string, b: string): boolean {
  const sa = fs.lstatSync(a);
  const sb = fs.lstatSync(b);
  if (typeOf(sa) !== typeOf(sb) || (sa.mode & 0o7777) !== (sb.mode & 0o7777)) return false;
  if (sa.isSymbolicLink()) return fs.readlinkSync(a) === fs.readlinkSync(b);
  if (sa.isFile()) return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  const na = fs.readdirSync(a).sort();
  const nb = fs.readdirSync(b).sort();
  return na.length === nb.length && na.every((n, i) => n === nb[i] && sameTree(path.join(a, n), path.join(b, n)));
}

/** Moves one entry. Same filesystem: one rename (O(1)). Across filesystems: copy, verify, and only
 *  then remove the source — the source is never lost before the copy is durable. With `staging` (a
 *  free name in dest's directory), the copy is made there and renamed to `dest` once verified and
 *  durable, so `dest` never holds a partial copy, even when the process is killed while copying. */
export function moveEntry(origin: string, dest: string, staging?: string): Moved['via'] {
  try {
    fs.renameSync(origin, dest);
    return 'rename';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
  }
  const copy = staging ?? dest;
  let placed = false;
  try {
    copyTree(origin, copy);
    if (!sameTree(origin, copy)) throw Object.assign(new Error(`the copy of ${origin} does not match it`), { code: 'EVERIFY' });
    if (copy !== dest) {
      fs.renameSync(copy, dest);
      placed = true;
    }
    fsyncPath(path.dirname(dest), true); // the name is durable before the source goes
  } catch (err) {
    try {
      fs.rmSync(placed ? dest : copy, { recursive: true, force: true }); // our own copy; the origin is untouched
    } catch {
      // keep the error that matters
    }
    throw err;
  }
  fs.rmSync(origin, { recursive: true, force: true });
  return 'copy';
}

/** Where a target goes inside the transaction: its path relative to the workspace. */
function destFor(q: QuarantinePlace, txid: string, origin: string): string {
  const rel = isWithin(origin, q.root) && origin !== q.root ? path.relative(q.root, origin) : path.join('.outside', origin);
  return path.join(q.quarantine, txid, rel);
}

/** Relocates `targets` (physical paths, each judged as the entry itself) under one txid. */
export function relocate(q: QuarantinePlace, targets: readonly string[], ctx: RelocationContext, isIgnored: (dir: string) => boolean = () => false): RelocationResult {
  const txid = newTxid();
  const res: RelocationResult = { txid, status: 'done', moved: [], skipped: [] };
  const manifest = manifestPath(q);
  // `storage`: the quarantine itself (its directory or its records) could not take the transaction —
  // whatever the errno (a read-only parent makes a recursive mkdir say ENOENT).
  const fail = (err: unknown, what: string, storage = false): RelocationResult => {
    // records.ts wraps its errors and keeps the system error as the cause.
    const code = (err as NodeJS.ErrnoException).code ?? ((err as { cause?: NodeJS.ErrnoException }).cause?.code ?? '');
    res.status = 'failed';
    res.failure = {
      code: storage || STORAGE_ERRORS.has(code) ? 'RELOCATE_FAILED_STORAGE' : 'COMPENSATION_FAILED',
      message: `${what}: ${err instanceof Error ? err.message : String(err)}`,
    };
    return res;
  };
  // Ancestors first, so a target inside one already moved is covered rather than moved twice.
  const ordered = [...new Set(targets)].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  try {
    ensureQuarantine(q, isIgnored);
    appendRecord(manifest, { kind: 'tx-start', txid, session: ctx.session, command: ctx.command, cwd: ctx.cwd, targets: ordered.length });
  } catch (err) {
    return fail(err, 'the quarantine cannot record a transaction', true);
  }
  for (const origin of ordered) {
    if (res.moved.some((m) => isWithin(origin, m.origin))) {
      res.skipped.push({ origin, reason: 'covered' });
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.lstatSync(origin);
    } catch {
      res.skipped.push({ origin, reason: 'missing' });
      continue;
    }
    const dest = destFor(q, txid, origin);
    const fields = {
      txid,
      session: ctx.session,
      origin: encodePath(Buffer.from(path.relative(q.root, origin))),
      dest: encodePath(Buffer.from(path.relative(q.quarantine, dest))),
      type: typeOf(st),
    };
    try {
      // Write-ahead: the intent is durable before anything moves; if it cannot be stored, nothing moves.
      appendRecord(manifest, { kind: 'relocate-intent', ...fields });
    } catch (err) {
      return fail(err, `the intent for ${origin} could not be stored`, true);
    }
    let via: Moved['via'];
    try {
      fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
      via = moveEntry(origin, dest, path.join(path.dirname(dest), `.agent-guard-copy-${randomHex(6)}`));
    } catch (err) {
      // A copy put in place before removing the source failed: it is in the quarantine (restorable).
      if (exists(dest)) res.moved.push({ origin, dest, type: fields.type, via: 'copy' });
      return fail(err, `${origin} could not be moved to the quarantine`);
    }
    res.moved.push({ origin, dest, type: fields.type, via });
    try {
      appendRecord(manifest, { kind: 'relocate', ...fields, via });
    } catch {
      // The move happened; its intent record keeps it discoverable and restorable.
    }
  }
  return res;
}
