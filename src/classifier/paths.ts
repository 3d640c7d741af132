// Lexical path facts: pure string work, no filesystem access (physical facts live in probe/).
import path from 'node:path';

/** Joins an operand to a directory without folding `..` (what the kernel walks). */
export function joinRaw(cwd: string, value: string): string {
  if (value.startsWith('/')) return value;
  return cwd.endsWith('/') ? cwd + value : cwd + '/' + value;
}

/** Lexically normalized absolute path: `..` and `.` folded, no trailing slash (except `/`). */
export function normalizeAbs(p: string): string {
  return path.posix.resolve('/', p);
}

/** Does the operand name the link itself (false) or what a link there points to (true)? */
export function followsLink(value: string): boolean {
  return /\/\.?\/*$/.test(value) && value !== '/';
}

/** Is `p` equal to `root` or below it? Both absolute and normalized. */
export function isWithin(p: string, root: string): boolean {
  if (root === '/') return true;
  return p === root || p.startsWith(root + '/');
}

export function basename(p: string): string {
  return path.posix.basename(p);
}
