// Planning the compensation of `find … -delete` (GNU findutils): which entries must be moved to the
// quarantine so that, after the move (and, when needed, a rerun of the real find), what is left on
// disk, the output and the exit status are what the real `find … -delete` would have produced.
//
// The plan is made by running the REAL find over the same expression with every -delete replaced
// by -print0 (same boolean structure) and -depth added after the starting points (-delete implies
// -depth), then walking the tree ourselves (lstat, names as bytes) to decide which matched
// directories find could actually remove (only empty ones: every entry below was deleted first).
// Tests whose value changes while -delete runs (-empty of a directory emptied by the deletion, and
// the time/-links/-size/-xtype/-readable family) are re-evaluated with further enumerations in
// which that test is replaced by -true/-false; anything that stays undecidable is refused.
// Nothing is modified here. docs/find-delete.md describes the accepted expressions and the gaps.
//
// Paths are handled as latin1 strings inside (one char per byte, so any byte sequence round-trips)
// and handed out as Buffers with the exact bytes find printed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type FindPlan =
  | {
      ok: true;
      /** What the enumeration printed: every path some -delete was reached for, exact bytes, in
       *  find's order (relative to cwd or absolute, as find prints them). */
      matches: Buffer[];
      /** The top-most entries to move to the quarantine, in traversal order. */
      relocate: Buffer[];
      /** Run the real find afterwards (with rerunArgs) and pass its output and status through. */
      rerun: boolean;
      /** The argv (without the program name) for that rerun: args without the starting points that
       *  are relocated as a whole (a find over them would only report them missing). */
      rerunArgs: string[];
      /** The first enumeration's exit status and stderr. */
      enumeration: { status: number; stderr: string };
      /** The argv's parts: leading options and starting points as given, and whether each starting
       *  point is relocated as a whole. */
      leading: string[];
      starts: string[];
      startMoved: boolean[];
      /** The expression a later run of the real find must use: as given, or, when the quarantine
       *  lies below a starting point (`guarded`), with every -delete made `( -path Q/* -o -delete )`
       *  so that it never reaches into the quarantine. A guarded argv is no subset of the original. */
      expression: string[];
      guarded: boolean;
    }
  | { ok: false; reason: string };

export interface PlanFindOptions {
  /** Absolute path of the real find binary (never a shim). */
  real: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The physical quarantine: nothing below it is ever matched (the enumeration and `expression`
   *  skip it); the directory itself still is, so that the caller can refuse it. A starting point
   *  below it is refused: the caller leaves those out. */
  quarantine?: string;
}

// ---------------------------------------------------------------------------------------------
// Parsing

type Follow = 'P' | 'H' | 'L';
/** attr: times, link count, size (change when find deletes entries of a directory or another
 *  hard link of a file); link: -xtype and the access tests, which follow symlinks (change when a
 *  link's target is deleted); empty: -empty (changes when a directory is emptied). */
type SensitiveKind = 'attr' | 'link' | 'empty';

export interface FindArgs {
  /** Leading options as given (-H -L -P -D x -Ox --). */
  leading: string[];
  /** Starting points as given (empty: find uses "."). */
  starts: string[];
  expression: string[];
  follow: Follow;
  /** Indices in `expression` of the -delete actions. */
  deletes: number[];
  /** Tests whose value -delete itself can change, with their index and token count in `expression`. */
  sensitive: { at: number; width: number; kind: SensitiveKind; name: string; inode: boolean }[];
  /** Files named by -newer, -anewer, -cnewer, -newerXY (Y not t) and -samefile: find reads them
   *  when it starts, so a rerun needs them where they were. */
  references: string[];
  prune: boolean;
  /** -depth or -d given explicitly (find refuses -prune with -delete without it). */
  explicitDepth: boolean;
  xdev: boolean;
}

export type ParsedFind = { ok: true; find: FindArgs } | { ok: false; reason: string; hasDelete: boolean };

const OPERATORS = new Set(['(', ')', '!', '-not', '-a', '-and', '-o', '-or', ',']);
const TESTS_0 = new Set(['-empty', '-readable', '-writable', '-executable', '-true', '-false', '-prune', '-nouser', '-nogroup']);
const TESTS_1 = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname',
  '-type', '-xtype', '-size', '-newer', '-anewer', '-cnewer', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin',
  '-used', '-user', '-group', '-uid', '-gid', '-perm', '-links', '-inum', '-samefile', '-fstype',
]);
const NEWER_XY = /^-newer[aBcm][aBcmt]$/;
const OPTIONS_0 = new Set(['-depth', '-d', '-xdev', '-mount', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-daystart', '-warn', '-nowarn']);
const OPTIONS_1 = new Set(['-maxdepth', '-mindepth', '-regextype']);
const ATTR_TESTS = new Set(['-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-used', '-newer', '-anewer', '-cnewer', '-links', '-size']);
const LINK_TESTS = new Set(['-xtype', '-readable', '-writable', '-executable']);
/** The attr tests that also change for a file when find deletes another hard link of it (its link
 *  count and ctime); -newerXY when X is c. */
const INODE_TESTS = new Set(['-ctime', '-cmin', '-cnewer', '-used', '-links']);
const inodeSensitive = (t: string): boolean => INODE_TESTS.has(t) || (NEWER_XY.test(t) && t[6] === 'c');

/** Actions and options that are refused, with their argument count and why. */
const REFUSED: Record<string, { args: number; why: string }> = {
  '-print': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-print0': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-printf': { args: 1, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-ls': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-fprint': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fprint0': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fls': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fprintf': { args: 2, why: 'it writes a file, a side effect that would happen twice' },
  '-quit': { args: 0, why: 'it stops the traversal at a point the enumeration cannot reproduce' },
  '-follow': { args: 0, why: 'find would delete while following symbolic links' },
  '-files0-from': { args: 1, why: 'the starting points are read from a file, not from the command line' },
  '-help': { args: 0, why: 'it prints help instead of searching' },
  '--help': { args: 0, why: 'it prints help instead of searching' },
  '-version': { args: 0, why: 'it prints the version instead of searching' },
  '--version': { args: 0, why: 'it prints the version instead of searching' },
};
const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** GNU find's looks_like_expression(arg, leading=true): where the starting points end. "-" alone,
 *  ")" and "," are file names there; "!" and "(" (alone) and any "-x" start the expression. */
function startsExpression(arg: string): boolean {
  if (arg.startsWith('-')) return arg.length > 1;
  return arg === '!' || arg === '(';
}

/** Splits find's argv (without the program name) the way GNU findutils does and classifies every
 *  expression token. Refuses (ok:false) what planFindDelete cannot plan for; hasDelete tells a
 *  refusal from "no -delete here" (a command that is not ours to compensate). */
export function parseFindArgs(args: readonly string[]): ParsedFind {
  let follow: Follow = 'P';
  let i = 0;
  let leadingProblem: string | null = null;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-H' || a === '-L' || a === '-P') follow = a[1] as Follow;
    else if (a === '--') {
      i++;
      break;
    } else if (a === '-D') {
      if (i + 1 >= args.length) {
        leadingProblem ??= 'find -D needs an argument';
        i++;
        break;
      }
      leadingProblem ??= `find -D ${args[i + 1]} prints debugging output that the enumeration cannot reproduce`;
      i++;
    } else if (a.startsWith('-O')) {
      // optimisation level: no effect on what is matched (find itself rejects bad levels)
    } else break;
  }
  const leading = args.slice(0, i);
  const firstStart = i;
  while (i < args.length && !startsExpression(args[i]!)) i++;
  const starts = args.slice(firstStart, i);
  const expression = args.slice(i);

  const deletes: number[] = [];
  const sensitive: FindArgs['sensitive'] = [];
  let problem: string | null = null;
  let prune = false;
  let explicitDepth = false;
  let xdev = false;
  const references: string[] = [];
  let deleteLater = false; // a literal -delete after an unknown primary (its arity unknown)
  for (let j = 0; j < expression.length; ) {
    const t = expression[j]!;
    if (OPERATORS.has(t)) j++;
    else if (t === '-delete') {
      deletes.push(j);
      j++;
    } else if (TESTS_0.has(t) || OPTIONS_0.has(t)) {
      if (t === '-prune') prune = true;
      if (t === '-depth' || t === '-d') explicitDepth = true;
      if (t === '-xdev' || t === '-mount') xdev = true;
      if (t === '-empty') sensitive.push({ at: j, width: 1, kind: 'empty', name: t, inode: false });
      if (LINK_TESTS.has(t)) sensitive.push({ at: j, width: 1, kind: 'link', name: t, inode: false });
      j++;
    } else if (TESTS_1.has(t) || OPTIONS_1.has(t) || NEWER_XY.test(t)) {
      if (j + 1 >= expression.length) {
        problem ??= `missing argument to ${t}`;
        j++;
        continue;
      }
      if (ATTR_TESTS.has(t) || NEWER_XY.test(t)) sensitive.push({ at: j, width: 2, kind: 'attr', name: t, inode: inodeSensitive(t) });
      if (LINK_TESTS.has(t)) sensitive.push({ at: j, width: 2, kind: 'link', name: t, inode: false });
      if (t === '-newer' || t === '-anewer' || t === '-cnewer' || t === '-samefile' || (NEWER_XY.test(t) && !t.endsWith('t'))) references.push(expression[j + 1]!);
      j += 2;
    } else if (EXEC_ACTIONS.has(t)) {
      problem ??= `${t} runs a command, a side effect the enumeration would repeat (an rm it runs reaches the rm shim by itself)`;
      let k = j + 1;
      while (k < expression.length && !(expression[k] === ';' || (expression[k] === '+' && expression[k - 1] === '{}'))) k++;
      j = k + 1;
    } else if (t in REFUSED) {
      const r = REFUSED[t]!;
      problem ??= `${t}: ${r.why}`;
      j += 1 + r.args;
    } else {
      problem ??= t.startsWith('-')
        ? `unknown or unsupported find primary ${JSON.stringify(t)}`
        : `unexpected argument ${JSON.stringify(t)} in the expression (find wants the starting points before the expression)`;
      deleteLater = expression.slice(j + 1).includes('-delete');
      break;
    }
  }
  const hasDelete = deletes.length > 0 || deleteLater;
  if (!hasDelete) return { ok: false, hasDelete: false, reason: 'no -delete in the expression: not a find -delete command' };
  if (follow === 'L') leadingProblem ??= 'find -L would delete while following symbolic links';
  const reason = leadingProblem ?? problem;
  if (reason !== null) return { ok: false, hasDelete: true, reason: `cannot compensate this find -delete: ${reason}` };
  return { ok: true, find: { leading, starts, expression, follow, deletes, sensitive, references, prune, explicitDepth, xdev } };
}

// ---------------------------------------------------------------------------------------------
// Enumeration

interface Enumeration {
  status: number;
  stderr: string;
  paths: Buffer[];
  /** How often each path (latin1) was printed: more than once when several -delete reach it. */
  counts: Map<string, number>;
}

class EnumerationError extends Error {}

/** `s` as a literal fnmatch pattern (find's -path): `\`, `*`, `?` and `[` escaped. */
const literalPattern = (s: string): string => s.replace(/[\\*?[]/g, '\\$&');

/** `expression` with every -delete (at `deletes`) replaced by `( <guard> -o <action> )`: the guard
 *  tests are true exactly below the quarantine, so the action is never reached there. */
export function guardDeletes(expression: readonly string[], deletes: readonly number[], guard: readonly string[], action = '-delete'): string[] {
  const at = new Set(deletes);
  return expression.flatMap((t, j) => (at.has(j) ? (guard.length > 0 ? ['(', ...guard, '-o', action, ')'] : [action]) : [t]));
}

/** Runs the real find once per distinct substitution (cached). */
class Enumerator {
  private cache = new Map<string, Enumeration>();
  constructor(
    private readonly f: FindArgs,
    private readonly opts: PlanFindOptions,
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

interface Node {
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

const B = (s: string): Buffer => Buffer.from(s, 'latin1');
const L = (b: Buffer): string => b.toString('latin1');

function stripOneSlash(p: string): string {
  return p.endsWith('/') ? p.slice(0, -1) : p;
}
function stripSlashes(p: string): string {
  let e = p.length;
  while (e > 0 && p[e - 1] === '/') e--;
  return p.slice(0, e);
}
/** Where find puts the entries of directory P: fts appends "/name" to P minus one trailing slash. */
function childKey(p: string, name: string): string {
  return `${stripOneSlash(p)}/${name}`;
}
function joinCanon(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}
function under(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);
}
function realpath(p: string): string | null {
  try {
    return L(fs.realpathSync.native(B(p), { encoding: 'buffer' }));
  } catch {
    return null;
  }
}
function lstat(p: string): fs.BigIntStats | null {
  try {
    return fs.lstatSync(B(p), { bigint: true });
  } catch {
    return null;
  }
}
function stat(p: string): fs.BigIntStats | null {
  try {
    return fs.statSync(B(p), { bigint: true });
  } catch {
    return null;
  }
}

interface StartInfo {
  key: string;
  abs: string;
  st: fs.BigIntStats;
  /** What find sees (-H: the target of a symlink). */
  view: fs.BigIntStats;
  isLink: boolean;
  self: string;
  tree: string | null;
}

function startInfo(s: string, cwd: string, follow: Follow): StartInfo | null {
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

// ---------------------------------------------------------------------------------------------
// Planning

const MAX_VARIED = 4; // at most 2^4 extra enumerations for one entry

/** The -path tests (or-ed) that are true for every entry find reaches below the quarantine `q`
 *  (latin1, physical), one per starting point whose tree holds it: find names those entries after
 *  the starting point as given, then the path from its physical tree down to `q`. A string when a
 *  starting point lies inside the quarantine or the place cannot be written as a pattern. */
function quarantineGuard(infos: readonly (StartInfo | null)[], q: string): string[] | string {
  const tests: string[] = [];
  for (const info of infos) {
    if (!info) continue;
    if (info.self !== q && under(q, info.self)) return `the starting point ${JSON.stringify(info.key)} is inside the quarantine`;
    if (info.tree === null || !under(info.tree, q)) continue;
    const rel = info.tree === q ? '' : q.slice(info.tree === '/' ? 1 : info.tree.length + 1);
    const prefix = rel === '' ? stripOneSlash(info.key) : childKey(info.key, rel);
    const text = B(prefix).toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(B(prefix))) return `the quarantine's place below ${JSON.stringify(info.key)} is not valid UTF-8`;
    tests.push(...(tests.length > 0 ? ['-o'] : []), '-path', `${literalPattern(text)}/*`);
  }
  return tests;
}

export function planFindDelete(args: readonly string[], opts: PlanFindOptions): FindPlan {
  const parsed = parseFindArgs(args);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const f = parsed.find;
  // find receives the arguments as UTF-8 bytes; inside, paths are latin1 strings of those bytes
  const starts = f.starts.map((s) => L(Buffer.from(s)));
  const cwd = L(Buffer.from(path.resolve(opts.cwd)));

  // GNU find refuses -prune with -delete unless -depth is explicit, before touching anything: the
  // real find reproduces that error by itself and there is nothing to move.
  const parts = { leading: f.leading, starts: f.starts, expression: f.expression, guarded: false };
  if (f.prune && !f.explicitDepth) {
    return { ok: true, matches: [], relocate: [], rerun: true, rerunArgs: [...args], enumeration: { status: 1, stderr: '' }, ...parts, startMoved: f.starts.map(() => false) };
  }

  const infos = (starts.length > 0 ? starts : ['.']).map((s) => startInfo(s, cwd, f.follow));
  const guard = opts.quarantine === undefined ? [] : quarantineGuard(infos, L(Buffer.from(opts.quarantine)));
  if (typeof guard === 'string') return { ok: false, reason: `cannot compensate this find -delete: ${guard}` };
  for (let a = 0; a < infos.length; a++) {
    for (let b = 0; b < infos.length; b++) {
      const x = infos[a];
      const y = infos[b];
      if (a === b || !x || !y) continue;
      if (x.self === y.self || (x.tree !== null && (under(x.tree, y.self) || (y.tree !== null && under(x.tree, y.tree))))) {
        return {
          ok: false,
          reason: `cannot compensate this find -delete: the starting points ${JSON.stringify(x.key)} and ${JSON.stringify(y.key)} overlap (find would visit the same entries twice)`,
        };
      }
    }
  }

  const en = new Enumerator(f, opts, guard);
  try {
    const p = plan(f, infos, en, cwd);
    return p.ok && guard.length > 0 ? { ...p, expression: guardDeletes(f.expression, f.deletes, guard), guarded: true } : p;
  } catch (e) {
    if (e instanceof EnumerationError) return { ok: false, reason: `cannot enumerate the find -delete: ${e.message}` };
    if (e instanceof RangeError) return { ok: false, reason: `cannot compensate this find -delete: the tree is too deep to plan for (${e.message})` };
    throw e;
  }
}

function plan(f: FindArgs, infos: (StartInfo | null)[], en: Enumerator, cwd: string): FindPlan {
  const e0 = en.run(false, null);
  const hasEmpty = f.sensitive.some((s) => s.kind === 'empty');
  const attrOcc = f.sensitive.filter((s) => s.kind === 'attr');
  const inodeOcc = attrOcc.filter((s) => s.inode);
  const linkOcc = f.sensitive.filter((s) => s.kind === 'link');
  // Dirtiness that crosses the tree (another hard link, a symlink's target) needs the whole tree.
  const fullListing = attrOcc.length > 0 || linkOcc.length > 0;

  // Directories worth listing: those with a match below (or matched themselves).
  const prefixes = new Set<string>();
  for (const k of e0.counts.keys()) for (let c = k.indexOf('/'); c !== -1; c = k.indexOf('/', c + 1)) prefixes.add(k.slice(0, c));
  const descend = (n: Node): boolean => fullListing || e0.counts.has(n.key) || prefixes.has(stripOneSlash(n.key));

  const nodes = new Map<string, Node>();
  const order: Node[] = []; // post-order: entries before their directory
  const roots: (Node | null)[] = [];

  const list = (n: Node): void => {
    if (!n.dir) return;
    if (!descend(n)) return;
    if (f.xdev && n.mount) return; // -xdev: find does not enter another file system
    let names: Buffer[];
    try {
      names = fs.readdirSync(B(n.abs), { encoding: 'buffer' });
    } catch {
      n.unreadable = true; // find cannot list it either; children stay unknown
      return;
    }
    const kids: Node[] = [];
    for (const nb of names) {
      const name = L(nb);
      const abs = childKey(n.abs, name);
      const st = lstat(abs);
      if (!st) return; // vanished under us: unknown
      const canon = joinCanon(n.canonDir, name);
      const c: Node = {
        key: childKey(n.key, name),
        abs,
        parent: n,
        dir: st.isDirectory(),
        symlink: st.isSymbolicLink(),
        dev: st.dev,
        inode: `${st.dev}:${st.ino}`,
        nlink: st.nlink,
        children: null,
        unreadable: false,
        removable: st.dev === n.dev, // a mount point cannot be removed
        mount: st.dev !== n.dev,
        silent: false,
        canon,
        canonDir: canon,
        decided: false,
        deleted: false,
        failed: false,
        printed: 0,
      };
      kids.push(c);
    }
    n.children = kids;
    for (const c of kids) {
      nodes.set(c.key, c);
      list(c);
      order.push(c);
    }
  };

  for (const info of infos) {
    if (!info) {
      roots.push(null);
      continue;
    }
    const stripped = stripSlashes(info.key);
    const last = stripped.slice(stripped.lastIndexOf('/') + 1);
    const dir = info.view.isDirectory();
    let removable = stripped !== '' && last !== '.' && last !== '..' && !(dir && info.isLink);
    if (removable) {
      const parentDev = dir ? stat(`${info.abs}/..`)?.dev : stat(info.abs.slice(0, Math.max(1, stripSlashes(info.abs).lastIndexOf('/'))))?.dev;
      if (parentDev !== undefined && parentDev !== info.view.dev) removable = false;
    }
    const n: Node = {
      key: info.key,
      abs: info.abs,
      parent: null,
      dir,
      symlink: info.isLink,
      dev: info.view.dev,
      inode: `${info.view.dev}:${info.view.ino}`,
      nlink: info.view.nlink,
      children: null,
      unreadable: false,
      removable,
      mount: false,
      silent: info.key === '.',
      canon: info.self,
      canonDir: info.tree ?? info.self,
      decided: false,
      deleted: false,
      failed: false,
      printed: 0,
    };
    nodes.set(n.key, n);
    list(n);
    order.push(n);
    roots.push(n);
  }

  for (const k of e0.counts.keys()) {
    if (!nodes.has(k)) {
      return { ok: false, reason: `cannot compensate this find -delete: find printed ${JSON.stringify(k)}, which agent-guard cannot place in the tree it lists` };
    }
  }

  // Symlink resolution traces (for the -xtype/access family): canonical paths each link goes through.
  const traces = new Map<Node, string[]>();
  const traceOf = (n: Node): string[] => {
    let t = traces.get(n);
    if (t) return t;
    t = [];
    const visited = t;
    let budget = 40;
    const walk = (dir: string, rel: string): string | null => {
      let cur = rel.startsWith('/') ? '' : dir;
      for (const comp of rel.split('/')) {
        if (comp === '' || comp === '.') continue;
        if (comp === '..') {
          cur = cur.slice(0, Math.max(0, cur.lastIndexOf('/')));
          continue;
        }
        const p = `${cur}/${comp}`;
        visited.push(p);
        const st = lstat(p);
        if (!st) return null;
        if (st.isSymbolicLink()) {
          if (--budget < 0) return null;
          let target: string;
          try {
            target = L(fs.readlinkSync(B(p), { encoding: 'buffer' }));
          } catch {
            return null;
          }
          const r = walk(cur, target);
          if (r === null) return null;
          cur = r;
        } else cur = p;
      }
      return cur;
    };
    const c = n.canon;
    const parent = c.slice(0, Math.max(0, c.lastIndexOf('/')));
    try {
      walk(parent, L(fs.readlinkSync(B(n.abs), { encoding: 'buffer' })));
    } catch {
      // not readable as a link: nothing to trace
    }
    traces.set(n, visited);
    return visited;
  };

  const decide = (n: Node, emptyTrue: boolean, vary: { at: number }[]): { v: boolean | 'uncertain'; printed: number } => {
    if (vary.length === 0) {
      const c = en.run(emptyTrue, null).counts.get(n.key) ?? 0;
      return { v: c > 0, printed: c };
    }
    if (vary.length > MAX_VARIED) return { v: 'uncertain', printed: 0 };
    let v: boolean | undefined;
    let printed = 0;
    for (let mask = 0; mask < 1 << vary.length; mask++) {
      const assign = new Map(vary.map((s, bit) => [s.at, ((mask >> bit) & 1) === 1]));
      const c = en.run(emptyTrue, assign).counts.get(n.key) ?? 0;
      printed = Math.max(printed, c);
      if (v === undefined) v = c > 0;
      else if (v !== c > 0) return { v: 'uncertain', printed };
    }
    return { v: v ?? false, printed };
  };

  // One pass decides every entry bottom-up from the previous pass's deletions (needed only for
  // dirtiness across the tree: hard links, symlink targets); repeat until nothing changes.
  // An entry found undecidable in any pass makes the whole plan refused (conservative: a later
  // pass may see other deletions, but the answer could flip back and forth).
  let uncertain: { node: Node; vary: { name: string }[] } | null = null;
  let stable = false;
  let prev = new Set<Node>();
  for (let pass = 0; pass < 8 && !stable; pass++) {
    const deletedInodes = new Map<string, number>();
    const deletedCanon = new Set<string>();
    for (const n of prev) {
      if (!n.dir) deletedInodes.set(n.inode, (deletedInodes.get(n.inode) ?? 0) + 1);
      deletedCanon.add(n.canon);
    }
    for (const n of order) {
      const kids = n.children;
      const gone = kids ? kids.filter((k) => k.deleted).length : 0;
      const emptied = n.dir && kids !== null && kids.length > 0 && gone === kids.length;
      const dirDirty = n.dir && gone > 0;
      const inodeDirty = !n.dir && n.nlink > 1n && (deletedInodes.get(n.inode) ?? 0) - (prev.has(n) ? 1 : 0) > 0;
      const linkDirty = linkOcc.length > 0 && n.symlink && traceOf(n).some((p) => deletedCanon.has(p));
      const vary = [...(dirDirty ? attrOcc : inodeDirty ? inodeOcc : []), ...(linkDirty ? linkOcc : [])];
      const d = decide(n, emptied && hasEmpty, vary);
      if (d.v === 'uncertain') uncertain ??= { node: n, vary };
      n.decided = d.v;
      n.printed = d.printed;
      const empty = !n.dir || (kids !== null && gone === kids.length);
      n.deleted = d.v === true && n.removable && empty;
      n.failed = d.v === true && !n.deleted && !n.silent;
    }
    const now = new Set(order.filter((n) => n.deleted));
    stable = !fullListing || (now.size === prev.size && [...now].every((n) => prev.has(n)));
    prev = now;
  }
  if (uncertain) {
    const u: { node: Node; vary: { name: string }[] } = uncertain;
    const tests = [...new Set(u.vary.map((s) => s.name))].join(', ');
    return {
      ok: false,
      reason: `cannot compensate this find -delete: whether it deletes ${JSON.stringify(u.node.key)} depends on ${tests}, whose value for it changes while find deletes other entries`,
    };
  }
  if (!stable) return { ok: false, reason: 'cannot compensate this find -delete: its result depends on the order of the deletions (no stable plan)' };

  for (const n of order) {
    // find removes an unreadable directory when it happens to be empty; nothing tells whether it
    // is (unless it has subdirectories), and the rerun would remove it outside the quarantine.
    if (n.decided === true && n.unreadable && n.removable && n.nlink <= 2n) {
      return {
        ok: false,
        reason: `cannot compensate this find -delete: it would remove the directory ${JSON.stringify(n.key)} if it is empty, and agent-guard cannot read it to know`,
      };
    }
    if (n.deleted && n.printed > 1) {
      return { ok: false, reason: `cannot compensate this find -delete: several -delete actions apply to ${JSON.stringify(n.key)} (the second one fails in the real find)` };
    }
  }

  const top = order.filter((n) => n.deleted && !n.parent?.deleted);
  const relocate = top.map((n) => B(n.key));
  const failures = order.some((n) => n.failed);
  const remaining = f.starts.filter((_, k) => !roots[k]?.deleted);
  const rerunArgs = [...f.leading, ...remaining, ...f.expression];
  let rerun = failures || e0.status !== 0 || e0.stderr !== '';
  if (rerun && f.starts.length > 0 && remaining.length === 0) {
    if (e0.status !== 0) {
      return { ok: false, reason: 'cannot compensate this find -delete: find reports errors, and every starting point would be moved, so no rerun can reproduce them' };
    }
    rerun = false; // only command-line warnings, left in enumeration.stderr
  }
  if (rerun) {
    // The rerun must find its working directory and the files its tests refer to where they were.
    const moved = (p: string): Node | undefined => top.find((n) => under(n.canon, p));
    const here = realpath(cwd) ?? cwd;
    const gone = moved(here);
    if (gone) {
      return { ok: false, reason: `cannot compensate this find -delete: find must run again, but its working directory would be moved with ${JSON.stringify(gone.key)}` };
    }
    for (const r of f.references) {
      const abs = L(Buffer.from(r)).startsWith('/') ? L(Buffer.from(r)) : `${cwd === '/' ? '' : cwd}/${L(Buffer.from(r))}`;
      const stripped = stripSlashes(abs) || '/';
      const cut = stripped.lastIndexOf('/');
      const dir = cut <= 0 ? '/' : stripped.slice(0, cut);
      const canon = joinCanon(realpath(dir) ?? dir, stripped.slice(cut + 1));
      const hit = moved(canon) ?? moved(realpath(abs) ?? canon);
      if (hit) {
        return { ok: false, reason: `cannot compensate this find -delete: find must run again, but the file ${JSON.stringify(r)} its expression refers to would be moved with ${JSON.stringify(hit.key)}` };
      }
    }
  }
  return {
    ok: true,
    matches: e0.paths,
    relocate,
    rerun,
    rerunArgs,
    enumeration: { status: e0.status, stderr: e0.stderr },
    leading: f.leading,
    starts: f.starts,
    startMoved: f.starts.map((_, k) => roots[k]?.deleted === true),
    expression: f.expression,
    guarded: false,
  };
}
