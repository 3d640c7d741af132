// What a program's own deletion needs no decision for (docs/interpreters.md, "The rule"): the checks
// that read a few stats and no policy, shared by the Node preload (which runs them before it loads
// anything) and by runtimeDelete (src/runtime/delete.ts, which every runtime guard reaches). When one
// of them holds, the real function runs as it is; otherwise the policy decides. The Python guard
// keeps a copy in Python (src/runtime/python/agent-guard-delete.py, pass_through), so that a Python
// program's own churn starts no process; tests/runtime/python-churn.test.ts keeps the two in step.
//
// Only node:fs and node:path, taken with process.getBuiltinModule: this module is bundled into the
// preload, which every Node start pays for, and an `import` of a builtin costs a copy of its exports
// there (the bundler's CommonJS interop, ~1 ms for the first one). A Node older than 20.16 (another
// version on PATH, which NODE_OPTIONS reaches too) has no getBuiltinModule: `require` then.
import type { Stats } from 'node:fs';

/** A builtin module, on any Node the preload may be loaded into. */
export function builtin<T extends 'node:fs' | 'node:path' | 'node:url' | 'node:module' | 'node:child_process'>(id: T): ReturnType<typeof process.getBuiltinModule<T>> {
  return typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule(id) : module.require(id);
}

const fs = builtin('node:fs');
const path = builtin('node:path');

/** What a runtime's deletion call does, in `rm` terms:
 *  - `rm`: one entry, not a directory (Node `fs.rm` without `recursive`);
 *  - `rm-r`: an entry and, for a directory, everything in it (`fs.rm` with `recursive`, `shutil.rmtree`);
 *  - `unlink`: one entry that is not a directory;
 *  - `rmdir`: one empty directory;
 *  - `rmdir-r`: a directory and everything in it (Node's deprecated `fs.rmdir` with `recursive`). */
export type DeleteKind = 'rm' | 'rm-r' | 'unlink' | 'rmdir' | 'rmdir-r';

export interface DeleteRequest {
  /** The runtime asking (`node`, `python`): audit records carry it. */
  runtime: string;
  /** The program, for messages and records: `node -e`, `node /w/clean.js`, `python3 -c`. */
  program: string;
  /** The call, for messages and records: `fs.rmSync`, `fs.promises.rm`, `shutil.rmtree`. */
  api: string;
  kind: DeleteKind;
  /** The path as the program gave it (relative to `cwd`, or absolute). */
  path: string;
  /** The process's working directory. */
  cwd: string;
  /** The process's environment (HOME, TMPDIR, AGENT_GUARD_*, npm_config_cache). */
  env: Readonly<Record<string, string | undefined>>;
  /** When the process started (ms since the epoch); null: unknown (nothing is taken as its own). */
  startedAt: number | null;
}

/** Why the real function runs without a decision. */
export type PassReason =
  /** Nothing there: the real function reports ENOENT (or, with `force`, succeeds). */
  | 'missing'
  /** The real function will refuse this type (`rm`/`unlink` of a directory, `rmdir -r` of a file). */
  | 'type'
  /** `rmdir`: only an empty directory goes, which holds nothing. */
  | 'empty-dir'
  /** Every entry was born after the process started: its own scratch. */
  | 'own'
  /** Below a `node_modules` directory: the package manager's territory, installed from a lockfile. */
  | 'node_modules'
  /** Below a `site-packages` or `dist-packages` directory: Python's installed packages (pip, uv). */
  | 'site-packages'
  /** Inside a package manager's cache or store (packageCaches). */
  | 'package-cache';

/** At most this many entries below a directory are looked at to find a tree the process made itself;
 *  a bigger one is decided. */
export const OWN_TREE_LIMIT = 5000;

/** The path as the kernel walks it from `cwd` (no `..` folded: a symlink's `..` is its target's parent). */
export function joinCwd(cwd: string, p: string): string {
  return p.startsWith('/') ? p : cwd.endsWith('/') ? cwd + p : `${cwd}/${p}`;
}

const lstat = (p: string): Stats | null => {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
};

let btimeReal: boolean | undefined;

/** Does stat report real birth times here? Node reads them with statx on Linux; where statx is missing
 *  (an old kernel, a seccomp filter) libuv falls back to stat and reports the *change* time as the
 *  birth time, which a chmod or a write moves. Procfs records no birth time, so with statx its
 *  entries report 0 and with the fallback their ctime. macOS has real birth times. */
export function birthTimesAreReal(): boolean {
  if (btimeReal !== undefined) return btimeReal;
  if (process.platform === 'darwin') return (btimeReal = true);
  if (process.platform !== 'linux') return (btimeReal = false);
  const st = lstat('/proc/self');
  return (btimeReal = st !== null && st.birthtimeMs === 0 && st.ctimeMs > 0);
}

/** Was every entry of the tree at `abs` born after `startedAt`? (A tree of more than `limit` entries,
 *  an unreadable directory, or a filesystem without birth times: no.) */
export function bornAfter(abs: string, st: Stats, startedAt: number, limit = OWN_TREE_LIMIT): boolean {
  if (!(st.birthtimeMs > startedAt)) return false;
  if (!st.isDirectory()) return true;
  const stack = [abs];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return false;
    }
    for (const n of names) {
      if (++seen > limit) return false;
      const p = `${dir}/${n}`;
      const s = lstat(p);
      if (!s || !(s.birthtimeMs > startedAt)) return false;
      if (s.isDirectory()) stack.push(p);
    }
  }
  return true;
}

/** The physical path of the entry `abs` names (its directory resolved, its own name kept), or null
 *  when the directory cannot be resolved or the name is `.`/`..`. */
export function physicalEntry(abs: string): string | null {
  const trimmed = abs.replace(/\/+$/, '');
  const base = path.posix.basename(trimmed);
  if (trimmed === '' || base === '.' || base === '..') return null;
  try {
    const dir = fs.realpathSync(path.posix.dirname(trimmed));
    return dir === '/' ? `/${base}` : `${dir}/${base}`;
  } catch {
    return null;
  }
}

/** The package managers' caches and stores, as the environment places them (absolute paths only):
 *  npm (`$npm_config_cache`, else `~/.npm`), yarn (`$YARN_CACHE_FOLDER`, `$YARN_GLOBAL_FOLDER`, else
 *  `~/.yarn/berry` and `~/.cache/yarn`), pnpm (`$npm_config_store_dir`, else `~/.local/share/pnpm/store`,
 *  `~/.pnpm-store`, `~/.cache/pnpm`), bun (`$BUN_INSTALL_CACHE_DIR`, else `~/.bun/install/cache`),
 *  node-gyp (`~/.cache/node-gyp`, `~/.node-gyp`), pip (`$PIP_CACHE_DIR`, else `$XDG_CACHE_HOME/pip`,
 *  else `~/.cache/pip`), uv (`$UV_CACHE_DIR`, else `$XDG_CACHE_HOME/uv`, else `~/.cache/uv`).
 *  The Python guard keeps a copy of this list (src/runtime/python/agent-guard-delete.py). */
export function packageCaches(env: DeleteRequest['env']): string[] {
  const abs = (v: string | undefined): string | null => (v && path.isAbsolute(v) ? v : null);
  const home = abs(env.HOME);
  const inHome = (...rel: string[]): string[] => (home ? rel.map((r) => path.join(home, r)) : []);
  const first = (set: string | null, ...fallback: string[]): string[] => (set ? [set] : inHome(...fallback));
  const xdg = abs(env.XDG_CACHE_HOME);
  const cache = (set: string | null, name: string): string[] => (set ? [set] : xdg ? [path.join(xdg, name)] : inHome(`.cache/${name}`));
  return [
    ...first(abs(env.npm_config_cache ?? env.NPM_CONFIG_CACHE), '.npm'),
    ...first(abs(env.YARN_CACHE_FOLDER), '.cache/yarn'),
    ...first(abs(env.YARN_GLOBAL_FOLDER), '.yarn/berry'),
    ...first(abs(env.npm_config_store_dir ?? env.NPM_CONFIG_STORE_DIR), '.local/share/pnpm/store', '.pnpm-store', '.cache/pnpm'),
    ...first(abs(env.BUN_INSTALL_CACHE_DIR), '.bun/install/cache'),
    ...inHome('.cache/node-gyp', '.node-gyp'),
    ...cache(abs(env.PIP_CACHE_DIR), 'pip'),
    ...cache(abs(env.UV_CACHE_DIR), 'uv'),
  ];
}

const within = (p: string, root: string): boolean => p.startsWith(root.endsWith('/') ? root : `${root}/`);

/** Physical paths of the caches that exist (a missing one is looked up again next time). */
const realCaches = new Map<string, string>();
function realCache(dir: string): string | null {
  const known = realCaches.get(dir);
  if (known !== undefined) return known;
  try {
    const real = fs.realpathSync(dir);
    realCaches.set(dir, real);
    return real;
  } catch {
    return null; // not there (yet): nothing of it to delete
  }
}

/** The package managers' territory: below a `node_modules`, `site-packages` or `dist-packages`
 *  directory, or inside a package manager's cache (never the directory itself). Judged on the physical
 *  entry, so a link named node_modules/x that leads elsewhere counts where the removal lands: the link
 *  itself. */
export function territoryOf(physical: string, env: DeleteRequest['env']): 'node_modules' | 'site-packages' | 'package-cache' | null {
  const parents = physical.split('/').slice(0, -1);
  if (parents.includes('node_modules')) return 'node_modules';
  if (parents.includes('site-packages') || parents.includes('dist-packages')) return 'site-packages';
  for (const dir of packageCaches(env)) {
    const real = realCache(dir);
    if (real !== null && within(physical, real)) return 'package-cache';
  }
  return null;
}

/** Why the real function can run as it is, or null when the policy must decide. Reads a few stats;
 *  loads nothing. A trailing slash on a symlink (which makes the call act on the link's target) and a
 *  name ending in `.` or `..` are left to the policy (runtimeDelete refuses them). */
export function passThrough(req: DeleteRequest): PassReason | null {
  if (req.kind === 'rmdir') return 'empty-dir';
  const abs = joinCwd(req.cwd, req.path);
  const st = lstat(abs);
  if (!st) return 'missing';
  const dir = st.isDirectory();
  if ((req.kind === 'rm' || req.kind === 'unlink') && dir) return 'type';
  if (req.kind === 'rmdir-r' && !dir) return 'type';
  const trimmed = abs.replace(/\/+$/, '');
  if (trimmed !== abs && lstat(trimmed)?.isSymbolicLink()) return null;
  const physical = physicalEntry(abs);
  if (physical === null) return null;
  const territory = territoryOf(physical, req.env);
  if (territory) return territory;
  if (req.startedAt !== null && birthTimesAreReal() && bornAfter(abs, st, req.startedAt)) return 'own';
  return null;
}
