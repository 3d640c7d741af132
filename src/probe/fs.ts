// Physical path facts: what the kernel would reach, read without changing anything.
import fs from 'node:fs';
import path from 'node:path';

export type EntryType = 'file' | 'dir' | 'symlink' | 'other' | 'missing';

/** realpath of `p`, or of its nearest existing ancestor with the rest appended (folded lexically:
 *  a directory that does not exist cannot be a symlink). */
export function realpathLoose(p: string): string {
  // `p` is not folded first: `link/..` must be walked through the link, as the kernel does.
  const abs = p.startsWith('/') ? p.replace(/\/+$/, '') || '/' : path.posix.resolve('/', p);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    if (abs === '/') return '/';
    const base = path.posix.basename(abs);
    const parent = realpathLoose(path.posix.dirname(abs));
    if (base === '..') return path.posix.dirname(parent);
    if (base === '.') return parent;
    return path.posix.join(parent, base);
  }
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

export function entryType(p: string): EntryType {
  try {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return 'symlink';
    if (st.isDirectory()) return 'dir';
    if (st.isFile()) return 'file';
    return 'other';
  } catch {
    return 'missing';
  }
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

/** Nearest ancestor of `start` (inclusive) holding `.git` (a directory or a gitfile). */
export function findGitRoot(start: string): string | null {
  let dir = start;
  for (;;) {
    if (entryType(path.posix.join(dir, '.git')) !== 'missing') return dir;
    const parent = path.posix.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
