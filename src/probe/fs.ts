// Physical path facts: what the kernel would reach, read without changing anything.
import fs from 'node:fs';
import path from 'node:path';

export type EntryType = 'file' | 'dir' | 'symlink' | 'other' | 'missing';

/** realpath results of the current decision: many targets share parents (and a line of relative
 *  `cd`s makes them deep), so each directory is resolved once. Cleared by `resetFsCache` at the start
 *  of every decision, since the filesystem may change between decisions. */
const realpaths = new Map<string, string | null>();

export function resetFsCache(): void {
  realpaths.clear();
}

function realpathOrNull(p: string): string | null {
  let r = realpaths.get(p);
  if (r === undefined) {
    try {
      r = fs.realpathSync.native(p);
    } catch {
      r = null;
    }
    realpaths.set(p, r);
  }
  return r;
}

/** realpath of `p`, or of its nearest existing ancestor with the rest appended (folded lexically:
 *  a directory that does not exist cannot be a symlink). Iterative: no depth limit to overflow. */
export function realpathLoose(p: string): string {
  // `p` is not folded first: `link/..` must be walked through the link, as the kernel does.
  let cur = p.startsWith('/') ? p.replace(/\/+$/, '') || '/' : path.posix.resolve('/', p);
  const rest: string[] = [];
  let base: string | null;
  for (;;) {
    base = realpathOrNull(cur);
    if (base !== null || cur === '/') break;
    rest.push(path.posix.basename(cur));
    cur = path.posix.dirname(cur);
  }
  let out = base ?? '/';
  for (let i = rest.length - 1; i >= 0; i--) {
    const part = rest[i]!;
    if (part === '..') out = path.posix.dirname(out);
    else if (part !== '.' && part !== '') out = out === '/' ? '/' + part : out + '/' + part;
  }
  return out;
}

/** Where an operand lands. A symlink is judged as the link itself, unless the operand ends in `/`
 *  (or `/.`), which makes the kernel follow it. `..` components are walked physically. */
export function physicalOf(joined: string, follows: boolean): string {
  const trimmed = joined.replace(/\/+$/, '') || '/';
  if (follows || trimmed === '/') return realpathLoose(trimmed);
  const base = path.posix.basename(trimmed);
  if (base === '.' || base === '..') return realpathLoose(trimmed);
  return path.posix.join(realpathLoose(path.posix.dirname(trimmed)), base);
}

export function entryType(p: string | Buffer): EntryType {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return 'missing'; // ENOTDIR, EACCES, ENAMETOOLONG …: nothing reachable there
  }
  if (!st) return 'missing';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

/** Is there an entry at `p` (the entry itself: a dangling symlink exists)? */
export function exists(p: string | Buffer): boolean {
  return entryType(p) !== 'missing';
}

export function isEmptyDir(p: string): boolean {
  try {
    const d = fs.opendirSync(p);
    try {
      return d.readSync() === null;
    } finally {
      d.closeSync();
    }
  } catch {
    return false;
  }
}

/** Is `dir/.git` the nested-repository marker of a quarantine (src/recovery/quarantine.ts makes it:
 *  HEAD, objects/, refs/, never a config, next to the quarantine's records) rather than a work tree's? */
function quarantineMarker(dir: string): boolean {
  return (
    entryType(path.posix.join(dir, '.git')) === 'dir' &&
    !exists(path.posix.join(dir, '.git', 'config')) &&
    (exists(path.posix.join(dir, 'manifest.jsonl')) || exists(path.posix.join(dir, 'audit.jsonl')))
  );
}

/** Nearest ancestor of `start` (inclusive) holding `.git` (a directory or a gitfile). A quarantine's
 *  marker is not a work tree: a command run inside the quarantine belongs to the workspace around it. */
export function findGitRoot(start: string): string | null {
  let dir = start;
  for (;;) {
    if (exists(path.posix.join(dir, '.git')) && !quarantineMarker(dir)) return dir;
    const parent = path.posix.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `abs` with its directory resolved physically and its last name kept as bytes: the exact path of
 *  an entry whose name need not be UTF-8 (a string path would be lossy). Throws when the directory
 *  cannot be resolved. `abs` is absolute, without a trailing slash. */
export function physicalBytes(abs: Buffer): Buffer {
  const slash = abs.lastIndexOf(0x2f);
  const parent = fs.realpathSync(slash <= 0 ? Buffer.from('/') : abs.subarray(0, slash), { encoding: 'buffer' });
  return Buffer.concat([parent, parent.length === 1 ? Buffer.alloc(0) : Buffer.from('/'), abs.subarray(slash + 1)]);
}
