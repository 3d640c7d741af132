// What `find … -delete` will reach, read without deleting anything: the real find run over the
// expression with -delete turned into -print0 (Enumerator), and the tree as find walks it (names as
// latin1 strings, one char per byte: any byte sequence round-trips). Used by find-plan.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { FindArgs, Follow } from './find-args.js';

/** Where and how the real find runs. */
export interface EnumerateOptions {
  /** Absolute path of the real find binary (never a shim). */
  real: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

export interface Enumeration {
  status: number;
  stderr: string;
  paths: Buffer[];
  /** How often each path (latin1) was printed: more than once when several -delete reach it. */
  counts: Map<string, number>;
}

export class EnumerationError extends Error {}

/** `s` as a literal fnmatch pattern (find's -path): `\`, `*`, `?` and `[` escaped. */
export const literalPattern = (s: string): string => s.replace(/[\\*?[]/g, '\\$&');

/** `expression` with every -delete (at `deletes`) replaced by `( <guard> -o <action> )`: the guard
 *  tests are true exactly below the quarantine, so the action is never reached there. */
export function guardDeletes(expression: readonly string[], deletes: readonly number[], guard: readonly string[], action = '-delete'): string[] {
  const at = new Set(deletes);
  return expression.flatMap((t, j) => (at.has(j) ? (guard.length > 0 ? ['(', ...guard, '-o', action, ')'] : [action]) : [t]));
}

/** Runs the real find once per distinct substitution (cached). */
export class Enumerator {
  private cache = new Map<string, Enumeration>();
  constructor(
    private readonly f: FindArgs,
    private readonly opts: EnumerateOptions,
    /** -path tests true below the quarantine (or-ed), empty when it is below no starting point. */
    private readonly guard: readonly string[] = [],
  ) {}

  /** emptyTrue: every -empty replaced by -true; assign: sensitive occurrence index → -true/-false. */
  run(emptyTrue: boolean, assign: ReadonlyMap<number, boolean> | null): Enumeration {
    const key = `${emptyTrue ? 1 : 0}|${assign ? [...assign].map(([k, v]) => `${k}=${v ? 1 : 0}`).join(',') : ''}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const f = this.f;
    const expr: string[] = [];
    const sens = new Map(f.sensitive.map((s) => [s.at, s]));
    const deletes = new Set(f.deletes);
    for (let j = 0; j < f.expression.length; ) {
      const s = sens.get(j);
      if (deletes.has(j)) {
        expr.push(...guardDeletes(['-delete'], [0], this.guard, '-print0'));
        j++;
      } else if (s && s.kind === 'empty' && emptyTrue) {
        expr.push('-true');
        j += s.width;
      } else if (s && assign?.has(j)) {
        expr.push(assign.get(j) ? '-true' : '-false');
        j += s.width;
      } else {
        expr.push(f.expression[j]!);
        j++;
      }
    }
    const argv = [...f.leading, ...f.starts, '-depth', ...expr];
    const r = spawnSync(this.opts.real, argv, {
      cwd: this.opts.cwd,
      env: this.opts.env ?? process.env,
      // stdin inherited: find turns its command-line warnings on when stdin is a terminal, as the
      // real run would; none of the accepted primaries reads stdin.
      stdio: ['inherit', 'pipe', 'pipe'],
      maxBuffer: 1 << 30,
    });
    if (r.error) throw new EnumerationError(`cannot run ${this.opts.real}: ${r.error.message}`);
    if (r.status === null) throw new EnumerationError(`${this.opts.real} was killed by ${r.signal ?? 'a signal'}`);
    const status = r.status;
    const out = r.stdout as Buffer;
    const paths: Buffer[] = [];
    const counts = new Map<string, number>();
    let from = 0;
    for (let k = out.indexOf(0); k !== -1; k = out.indexOf(0, from)) {
      const p = Buffer.from(out.subarray(from, k));
      paths.push(p);
      const l = p.toString('latin1');
      counts.set(l, (counts.get(l) ?? 0) + 1);
      from = k + 1;
    }
    const e: Enumeration = { status, stderr: (r.stderr as Buffer).toString(), paths, counts };
    this.cache.set(key, e);
    return e;
  }
}

// ---------------------------------------------------------------------------------------------
// The tree as find sees it

export interface Node {
  /** The path as find prints it (latin1). */
  key: string;
  /** Absolute path for fs calls (latin1). */
  abs: string;
  parent: Node | null;
  /** Traversed as a directory by find (lstat, or stat for a -H starting point). */
  dir: boolean;
  symlink: boolean;
  dev: bigint;
  inode: string;
  nlink: bigint;
  /** The entries below; null when unknown (unreadable, or not listed because nothing below matched). */
  children: Node[] | null;
  /** A directory find would enter that could not be listed. */
  unreadable: boolean;
  /** -delete could remove it once empty ("." , "./", "x/..", "/", a mount point, a symlink find
   *  treats as a directory: never). */
  removable: boolean;
  /** On another file system than its directory (a mount point). */
  mount: boolean;
  /** The starting point ".": -delete skips it without a word. */
  silent: boolean;
  /** Canonical location of the entry itself, and of the directory listed for its children. */
  canon: string;
  canonDir: string;
  decided: boolean | 'uncertain';
  deleted: boolean;
  failed: boolean;
  printed: number;
}

export const B = (s: string): Buffer => Buffer.from(s, 'latin1');
export const L = (b: Buffer): string => b.toString('latin1');

export function stripOneSlash(p: string): string {
  return p.endsWith('/') ? p.slice(0, -1) : p;
}
export function stripSlashes(p: string): string {
  let e = p.length;
  while (e > 0 && p[e - 1] === '/') e--;
  return p.slice(0, e);
}
/** Where find puts the entries of directory P: fts appends "/name" to P minus one trailing slash. */
export function childKey(p: string, name: string): string {
  return `${stripOneSlash(p)}/${name}`;
}
export function joinCanon(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}
export function under(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
}
export function realpath(p: string): string | null {
  try {
    return L(fs.realpathSync.native(B(p), { encoding: 'buffer' }));
  } catch {
    return null;
  }
}
export function lstat(p: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(B(p), { bigint: true });
  } catch {
    return null;
  }
}
export function stat(p: string): fs.BigIntStats | null {
  try {
    return fs.statSync(B(p), { bigint: true });
  } catch {
    return null;
  }
}

export interface StartInfo {
  key: string;
  abs: string;
  st: fs.BigIntStats;
  /** What find sees (-H: the target of a symlink). */
  view: fs.BigIntStats;
  isLink: boolean;
  self: string;
  tree: string | null;
}

export function startInfo(s: string, cwd: string, follow: Follow): StartInfo | null {
  if (s === '') return null; // find: "‘’: No such file or directory"
  const abs = s.startsWith('/') ? s : `${cwd === '/' ? '' : cwd}/${s}`;
  const st = lstat(abs);
  if (!st) return null;
  const stripped = stripSlashes(abs) || '/';
  // "link/" makes lstat follow the link; the entry itself is still a symlink
  const isLink = stripped !== abs ? lstat(stripped)?.isSymbolicLink() ?? false : st.isSymbolicLink();
  const view = follow === 'H' && st.isSymbolicLink() ? stat(abs) ?? st : st;
  const dir = view.isDirectory();
  const cut = stripped.lastIndexOf('/');
  const parent = cut <= 0 ? '/' : stripped.slice(0, cut);
  const base = stripped.slice(cut + 1);
  const self = dir && !isLink ? realpath(abs) ?? abs : joinCanon(realpath(parent) ?? parent, base);
  const tree = dir ? realpath(abs) ?? abs : null;
  return { key: s, abs, st, view, isLink, self, tree };
}

