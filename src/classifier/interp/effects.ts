// What a piece of interpreter code does that the guard cares about — an Effect — and the helpers the
// four languages' tables (apis.ts) share to find it: a node's qualified name through the code's
// imports and assignments (`sh.rmtree` after `import shutil as sh` is `shutil.rmtree`), and a node's
// value as a path argument, literal or computed.
import type { CallNode, Node } from './calls.js';
import type { Lang } from './tokens.js';

/** A path or word the code passes: a literal, or a description of a value known only when it runs. */
export type Arg = { lit: string } | { computed: string };

/** How a deletion reads as the rm family (its decision is rm's): `rm-r` removes a tree, `rmdir-p`
 *  an empty directory and its empty parents. */
export type How = 'rm' | 'rm-f' | 'rm-r' | 'rm-rf' | 'rmdir' | 'rmdir-p';

export type Effect =
  /** A deletion call with its targets; `glob`: the API expands patterns (rimraf, del). */
  | { kind: 'delete'; api: string; src: string; how: How; targets: Arg[]; glob?: boolean; cwd?: Arg }
  /** A command string handed to a shell (`os.system`, `shell=True`, `execSync`, backticks). */
  | { kind: 'shell'; api: string; src: string; text: Arg; cwd?: Arg }
  /** An argv started without a shell (`subprocess.run([...])`, `execFileSync`, `system LIST`). */
  | { kind: 'exec'; api: string; src: string; argv: Arg[]; cwd?: Arg }
  /** Code run by the code (`exec('…')`, `eval "…"`, `new Function('…')`): read in the same language. */
  | { kind: 'code'; api: string; src: string; code: string }
  /** The working directory changes for what follows (`os.chdir`, `process.chdir`, `chdir`). */
  | { kind: 'chdir'; src: string; dir: Arg }
  /** A deletion or shell API reached in a way whose arguments cannot be read (handed on as a
   *  function, looked up by a computed name, called with a computed argument list). */
  | { kind: 'computed'; api: string; src: string; deletes: boolean; why: string }
  /** Code that cannot be read (an unterminated string, unbalanced brackets, nesting too deep). */
  | { kind: 'unreadable'; why: string };

/** What the tables see of the code around a call: the names bound so far, star imports, the text. */
export interface Scope {
  lang: Lang;
  code: string;
  binds: Map<string, Node>;
  stars: string[];
}

/** Is `key` a table's own entry (never a prototype's: `toString`, `constructor`)? */
export function has(table: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(table, key);
}

/** Module names as one spelling: `node:fs` is `fs`, `fs/promises` is `fs.promises`. */
export function moduleName(v: string): string {
  const m = v.replace(/^node:/, '');
  return m === 'fs/promises' ? 'fs.promises' : m === 'child_process/promises' ? 'child_process' : m;
}

/** Calls that load a module by name. */
const LOADERS = new Set(['require', '__import__', 'import', 'importlib.import_module', 'process.getBuiltinModule', 'module.require']);

export function literal(n: Node | undefined): string | null {
  return n !== undefined && n.n === 'str' && n.v !== null && !n.tok.flavor ? n.v : null;
}

/** The qualified name a node stands for (`os.remove`, `fs.promises.rm`, `FileUtils.rm_rf`), following
 *  the scope's bindings; an unbound name stands for itself. Null for a value that is not a name. */
export function qualify(node: Node, scope: Scope, depth = 0): string | null {
  if (depth > 16) return null;
  switch (node.n) {
    case 'module':
      return moduleName(node.v);
    case 'name': {
      const bound = scope.binds.get(node.v);
      if (bound !== undefined) return qualify(bound, scope, depth + 1);
      const v = node.v.replace(/^&/, '').replace(/::/g, '.');
      return v.replace(/^CORE\.(GLOBAL\.)?/, '');
    }
    case 'member': {
      const o = qualify(node.obj, scope, depth + 1);
      return o === null ? null : `${o}.${node.name}`;
    }
    case 'call': {
      const f = qualify(node.fn, scope, depth + 1);
      const arg = literal(node.args[0]);
      if (f !== null && LOADERS.has(f) && arg !== null) return moduleName(arg);
      // getattr(os, 'remove'), FileUtils.send(:rm_rf, …)'s receiver: a member by a literal name.
      if (f === 'getattr' && node.args.length >= 2) {
        const o = qualify(node.args[0]!, scope, depth + 1);
        const name = literal(node.args[1]);
        return o !== null && name !== null ? `${o}.${name}` : null;
      }
      return null;
    }
    default:
      return null;
  }
}

/** The last segment of a qualified name. */
export function lastOf(q: string): string {
  return q.slice(q.lastIndexOf('.') + 1);
}

function describe(n: Node): string {
  switch (n.n) {
    case 'name':
      return `the variable ${n.v}`;
    case 'str':
      return 'a string built when the code runs';
    case 'call':
      return 'a value a call returns';
    case 'index':
      return 'an element of a list or mapping';
    case 'member':
      return 'an attribute';
    default:
      return 'an expression';
  }
}

/** Joins literal path parts as `os.path.join` does (an absolute part restarts the path). */
function joinParts(parts: string[], resolve: boolean): string {
  let out = '';
  for (const p of parts) {
    if (p.startsWith('/') || out === '') out = p;
    else out = out.endsWith('/') ? out + p : `${out}/${p}`;
  }
  return resolve && out === '' ? '.' : out;
}

/** Pure path builders of literals: their result is literal too. */
const JOINS: Readonly<Record<string, boolean>> = { 'os.path.join': false, 'posixpath.join': false, 'path.join': false, 'path.posix.join': false, 'path.resolve': true, 'File.join': false, 'pathlib.Path': false, 'pathlib.PosixPath': false, 'Path': false, 'Pathname.new': false, 'Pathname': false };

/** A node as path arguments: a literal, a list of them, a join of literals; anything else computed. */
export function argsOf(n: Node | undefined, scope: Scope): Arg[] {
  if (n === undefined) return [{ computed: 'a missing argument' }];
  if (n.n === 'str') return n.v !== null && !n.tok.flavor ? [{ lit: n.v }] : [{ computed: describe(n) }];
  if (n.n === 'list') return n.items.flatMap((x) => argsOf(x, scope));
  const p = pathValue(n, scope);
  if (p !== null) return [{ lit: p }];
  return [{ computed: describe(n) }];
}

/** A join of literals (`os.path.join('a', 'b')`, `Path('a', 'b')`, `Pathname.new('x')`), or null. */
export function pathValue(n: Node, scope: Scope): string | null {
  if (n.n === 'str') return literal(n);
  if (n.n !== 'call' || n.kw.size > 0) return null;
  const f = qualify(n.fn, scope);
  if (f === null || !has(JOINS, f) || n.args.length === 0) return null;
  const parts = n.args.map(literal);
  return parts.every((p): p is string => p !== null) ? joinParts(parts, JOINS[f]!) : null;
}

/** The source text of a call, for messages (clipped). */
export function srcOf(node: Node, scope: Scope): string {
  const s = scope.code.slice(node.at, node.end).replace(/\s+/g, ' ');
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** A dictionary argument's entry (`{recursive: true}`, `cwd=`, `chdir:`), from keywords or a dict among the arguments. */
export function option(call: CallNode, key: string): Node | undefined {
  const kw = call.kw.get(key);
  if (kw !== undefined) return kw;
  for (const a of call.args) if (a.n === 'dict' && a.entries.has(key)) return a.entries.get(key);
  return undefined;
}

/** Is an option true (`True`, `true`, a non-empty literal), false, or unknown (computed: null)? */
export function truth(n: Node | undefined): boolean | null {
  if (n === undefined) return false;
  if (n.n === 'bool') return n.v;
  if (n.n === 'str' && n.v !== null) return n.v !== '';
  return null;
}
