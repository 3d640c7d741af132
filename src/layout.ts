// Where the files of an agent-guard installation are (docs/install.md, docs/distribution.md): the
// bundles, the shim template, the shell hooks, the shim directory. Three kinds:
//
// - `install`: made by install.sh. `<prefix>/lib/agent-guard.cjs` is the running bundle; the prefix
//   holds lib/shim.sh, bin/agent-guard, shims/ (rendered by install.sh), shell/ and the install list;
// - `package`: the npm package, wherever a package manager put it (`npm i -g`, `npx`, `pnpm dlx`):
//   `<pkg>/dist/agent-guard.cjs` in a directory `node_modules/[@scope/]<pkg>`, with shims/shim.sh
//   and shell/ beside it;
// - `checkout`: the same files in a source tree (`<repo>/dist/agent-guard.cjs`).
//
// A package and a checkout are never written to (a package directory is replaced whole by an
// upgrade and often belongs to root): their shims are rendered into a per-user directory,
// `$XDG_DATA_HOME/agent-guard/<hash of the bundle path>/shims` (userShimDir), by run and shell-init.
//
// The other bundles of scripts/build.mjs (the MCP server, the Node preload) and the Python guard's
// directory lie beside the main one: lib/ or dist/.
//
// The functions take explicit paths: `__filename` exists in the CJS bundle only (runningBundle()).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from './config.js';
import { renderShim, SHIM_MARKER, SHIM_NAMES, writeShims, type ShimName } from './shims/render.js';
import { PRELOAD_NAME } from './runtime/node-options.js';
import { PYTHON_DIR_NAME } from './runtime/python-path.js';

/** The bundle's file name, in lib/ (installed) or dist/ (package, checkout). */
export const BUNDLE_NAME = 'agent-guard.cjs';
/** The list of everything install.sh installed, relative to the prefix (read by --uninstall). */
export const INSTALL_LIST = '.agent-guard-install';
/** The startup files of the zsh ZDOTDIR wrapper (shell/zsh/). */
export const ZSH_WRAPPER_FILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin', '.zlogout'] as const;

export type LayoutKind = 'install' | 'package' | 'checkout';

export interface Layout {
  kind: LayoutKind;
  /** The installation prefix, the package directory, or the checkout's root. */
  root: string;
  /** The bundled CLI (absolute). */
  bundle: string;
  /** The Node preload (NODE_OPTIONS=--require …), beside the bundle: it loads the bundle from its own
   *  directory (docs/interpreters.md). Not checked by layoutOf: without it Node runs unguarded. */
  preload: string;
  /** The Python guard's directory (sitecustomize.py; PYTHONPATH), beside the bundle
   *  (docs/interpreters.md). Not checked by layoutOf: without it Python runs unguarded. */
  python: string;
  /** The shim template the shims are rendered from. */
  template: string;
  /** The directory holding guard.bash, guard.zsh and zsh/. */
  shellDir: string;
  /** BASH_ENV target. */
  guardBash: string;
  /** Sourced by an interactive zsh (shell-init zsh) and by the wrapper's .zshenv. */
  guardZsh: string;
  /** ZDOTDIR target: the wrapper directory. */
  zdotdir: string;
  /** The shim directory (rendered shims + marker): `<prefix>/shims`, or the per-user one. */
  shimDir: string;
  /** True when shimDir is the per-user directory run and shell-init render (package, checkout). */
  userShims: boolean;
  /** install: `<prefix>/bin/agent-guard`; otherwise null. */
  launcher: string | null;
  /** install: `<prefix>/.agent-guard-install`; otherwise null. */
  installList: string | null;
}

/** What a kind of installation is called in messages. */
export const KIND_NAME: Record<LayoutKind, string> = { install: 'installation', package: 'npm package', checkout: 'checkout' };

export class LayoutError extends Error {}

/** How to get an installation, for the messages of a bundle that found none. */
export const INSTALL_HINT = 'install agent-guard with npm (npm i -g agent-guard) or with install.sh from a clone, and run that agent-guard';

/** The bundle this code runs from: `__filename` in the CJS bundle; null under vitest/tsx (ESM, no
 *  `__filename`) or when the module is not the bundle. */
export function runningBundle(): string | null {
  if (typeof __filename !== 'string' || path.basename(__filename) !== BUNDLE_NAME) return null;
  return __filename;
}

const isFile = (p: string): boolean => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The per-user data directory of agent-guard: `$XDG_DATA_HOME/agent-guard` (absolute), else
 *  `~/.local/share/agent-guard`. Data, not cache: a cache cleaner that removed the shims would leave
 *  the shells that have them on PATH running the real rm (docs/distribution.md). */
export function userDataDir(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  const home = env.HOME ? env.HOME : os.homedir();
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share'), 'agent-guard');
}

/** The per-user shim directory of a package or checkout bundle:
 *  `<userDataDir>/<first 16 hex of sha256(absolute bundle path)>/shims`. Keyed by the bundle's path,
 *  not its version: an upgrade in place (same path) rewrites the very directory live shells have on
 *  PATH, and two installations (a checkout and a global package) never rewrite each other's. */
export function userShimDir(bundle: string, env: Env): string {
  // node:crypto on first use: the bundle's start-up (every check) does not pay for it.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256').update(path.resolve(bundle)).digest('hex').slice(0, 16);
  return path.join(userDataDir(env), hash, 'shims');
}

/** The layout of an installation prefix made by install.sh (paths only; nothing is checked). */
export function installLayout(prefix: string): Layout {
  const root = path.resolve(prefix);
  const shellDir = path.join(root, 'shell');
  return {
    kind: 'install',
    root,
    bundle: path.join(root, 'lib', BUNDLE_NAME),
    preload: path.join(root, 'lib', PRELOAD_NAME),
    python: path.join(root, 'lib', PYTHON_DIR_NAME),
    template: path.join(root, 'lib', 'shim.sh'),
    shellDir,
    guardBash: path.join(shellDir, 'guard.bash'),
    guardZsh: path.join(shellDir, 'guard.zsh'),
    zdotdir: path.join(shellDir, 'zsh'),
    shimDir: path.join(root, 'shims'),
    userShims: false,
    launcher: path.join(root, 'bin', 'agent-guard'),
    installList: path.join(root, INSTALL_LIST),
  };
}

/** Whether `root` is a package a package manager installed: it lies in `node_modules/` (npm, npx,
 *  pnpm, yarn, bun), directly or under a scope (`node_modules/@scope/`). */
export function isInstalledPackage(root: string): boolean {
  const parent = path.dirname(path.resolve(root));
  return path.basename(parent) === 'node_modules' || (path.basename(parent).startsWith('@') && path.basename(path.dirname(parent)) === 'node_modules');
}

/** The layout of a package or a checkout whose bundle is `<root>/dist/agent-guard.cjs` (paths only);
 *  the kind follows from where the root is (isInstalledPackage). */
export function distLayout(rootDir: string, env: Env, bundle = path.join(path.resolve(rootDir), 'dist', BUNDLE_NAME)): Layout {
  const root = path.resolve(rootDir);
  const shellDir = path.join(root, 'shell');
  const abs = path.resolve(bundle);
  return {
    kind: isInstalledPackage(root) ? 'package' : 'checkout',
    root,
    bundle: abs,
    preload: path.join(path.dirname(abs), PRELOAD_NAME),
    python: path.join(path.dirname(abs), PYTHON_DIR_NAME),
    template: path.join(root, 'shims', 'shim.sh'),
    shellDir,
    guardBash: path.join(shellDir, 'guard.bash'),
    guardZsh: path.join(shellDir, 'guard.zsh'),
    zdotdir: path.join(shellDir, 'zsh'),
    shimDir: userShimDir(abs, env),
    userShims: true,
    launcher: null,
    installList: null,
  };
}

/** The layout the bundle at `bundle` belongs to: `<prefix>/lib/agent-guard.cjs` with lib/shim.sh
 *  beside it (install), or `<root>/dist/agent-guard.cjs` with shims/shim.sh in the root (package or
 *  checkout). The shell files must exist in all of them. Throws LayoutError otherwise. */
export function layoutOf(bundle: string, env: Env): Layout {
  const abs = path.resolve(bundle);
  const dir = path.dirname(abs);
  const parent = path.dirname(dir);
  let layout: Layout | null = null;
  if (path.basename(dir) === 'lib' && isFile(path.join(dir, 'shim.sh'))) layout = installLayout(parent);
  else if (path.basename(dir) === 'dist' && isFile(path.join(parent, 'shims', 'shim.sh'))) layout = distLayout(parent, env, abs);
  if (!layout) {
    throw new LayoutError(
      `${abs} is neither <prefix>/lib/${BUNDLE_NAME} of an installation (with lib/shim.sh) nor <package or checkout>/dist/${BUNDLE_NAME} (with shims/shim.sh)`,
    );
  }
  const missing = [layout.guardBash, layout.guardZsh, ...ZSH_WRAPPER_FILES.map((f) => path.join(layout.zdotdir, f))].filter((f) => !isFile(f));
  if (missing.length > 0) throw new LayoutError(`the shell files of ${layout.root} are missing: ${missing.join(', ')}`);
  return layout;
}

/** The layout of the running bundle (see layoutOf); LayoutError when not running from a bundle. */
export function currentLayout(env: Env): Layout {
  const bundle = runningBundle();
  if (bundle === null) throw new LayoutError('not running from the bundled CLI (dist/agent-guard.cjs or an installed lib/agent-guard.cjs)');
  return layoutOf(bundle, env);
}

/** Same file (device and inode), or the same path. */
export function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

export type ShimFileState = 'ok' | 'missing' | 'not-executable' | 'stale';

export interface ShimFile {
  name: ShimName;
  file: string;
  state: ShimFileState;
  /** The node path baked into the file, when it has one. */
  node: string | null;
}

const NODE_LINE = /^ag_node="([^"\n]*)"$/m;

/** The state of each shim in `layout.shimDir`: present, executable, and exactly the template
 *  rendered for this bundle and for `node` (a baked node path that is the same file as `node`, e.g.
 *  the `/usr/bin/node` symlink install.sh found, counts as `node`). */
export function shimFiles(layout: Layout, node: string, template?: string): ShimFile[] {
  let text = template;
  if (text === undefined) {
    try {
      text = fs.readFileSync(layout.template, 'utf8');
    } catch {
      text = undefined;
    }
  }
  return SHIM_NAMES.map((name): ShimFile => {
    const file = path.join(layout.shimDir, name);
    let content: string;
    try {
      if (!fs.statSync(file).isFile()) return { name, file, state: 'missing', node: null };
      content = fs.readFileSync(file, 'utf8');
    } catch {
      return { name, file, state: 'missing', node: null };
    }
    const baked = NODE_LINE.exec(content)?.[1] ?? null;
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if ((fs.statSync(file).mode & 0o111) !== 0o111) return { name, file, state: 'not-executable', node: baked };
    } catch {
      return { name, file, state: 'not-executable', node: baked };
    }
    if (text === undefined || baked === null || !sameFile(baked, node)) return { name, file, state: 'stale', node: baked };
    let expected: string;
    try {
      expected = renderShim(text, name, baked, layout.bundle);
    } catch {
      return { name, file, state: 'stale', node: baked };
    }
    return { name, file, state: content === expected ? 'ok' : 'stale', node: baked };
  });
}

/** True when the shim directory holds the marker. */
export function hasMarker(dir: string): boolean {
  return isFile(path.join(dir, SHIM_MARKER));
}

/** Makes sure `layout.shimDir` holds current shims for `node` (shimFiles): writes them when the
 *  marker or any shim is missing or stale, leaves them alone otherwise. Returns whether it wrote. */
export function ensureShims(layout: Layout, node: string): boolean {
  if (layout.shimDir.includes(':')) throw new Error(`the shim directory ${layout.shimDir} holds a ':' and cannot be put on PATH (set XDG_DATA_HOME)`);
  const template = fs.readFileSync(layout.template, 'utf8');
  if (hasMarker(layout.shimDir) && shimFiles(layout, node, template).every((s) => s.state === 'ok')) return false;
  writeShims(layout.shimDir, { node, bundle: layout.bundle, template });
  return true;
}

/** ensureShims for a command about to rely on the shims (shell-init, run). When they cannot be
 *  written but every shim and the marker are there (say, stale ones in a read-only prefix), they
 *  still guard (they fail closed): the problem comes back as a warning. Throws when there are no
 *  usable shims at all. */
export function prepareShims(layout: Layout, node: string): { warning: string | null } {
  try {
    ensureShims(layout, node);
    return { warning: null };
  } catch (err) {
    const present = hasMarker(layout.shimDir) && shimFiles(layout, node).every((s) => s.state === 'ok' || s.state === 'stale');
    if (!present) throw err;
    return { warning: `the shims in ${layout.shimDir} are not current and cannot be rewritten (${(err as Error).message}); run 'agent-guard doctor'` };
  }
}

/** The layout's Node preload when its file is there; otherwise null, and `warn` says what that means
 *  (`run` and `shell-init` go on: the shims and hooks still guard). */
export function preloadOrWarn(layout: Pick<Layout, 'preload'>, warn: (message: string) => void): string | null {
  if (isFile(layout.preload)) return layout.preload;
  warn(`${layout.preload} is missing: Node programs run without the deletion guard (the shims still apply); run 'agent-guard doctor'`);
  return null;
}

/** PATH with `dir` first and nowhere else (empty entries elsewhere are kept as they are). */
export function prependPath(pathVar: string | undefined, dir: string): string {
  const rest = pathVar === undefined || pathVar === '' ? [] : pathVar.split(':').filter((p) => p !== dir);
  return [dir, ...rest].join(':');
}
