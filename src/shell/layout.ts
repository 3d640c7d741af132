// Where the files of an agent-guard installation are (docs/install.md): the bundle, the shim
// template, the shell hooks, the shim directory. Two kinds:
//
// - an installation made by install.sh: `<prefix>/lib/agent-guard.cjs` is the running bundle; the
//   prefix holds lib/shim.sh, lib/agent-guard-preload.cjs, bin/agent-guard, shims/, shell/ and the
//   install list;
// - a checkout: `<repo>/dist/agent-guard.cjs` (and dist/agent-guard-preload.cjs); the checkout's
//   shell/ and shims/shim.sh are used, and
//   the shims are rendered into a per-user cache directory,
//   `$XDG_CACHE_HOME/agent-guard/<hash of the bundle path>/shims` (default `~/.cache/...`).
//
// The functions take explicit paths: `__filename` exists in the CJS bundle only (runningBundle()).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../config.js';
import { renderShim, SHIM_MARKER, SHIM_NAMES, writeShims, type ShimName } from './shims.js';
import { PRELOAD_NAME } from '../runtime/node-options.js';

/** The bundle's file name, in lib/ (installed) or dist/ (checkout). */
export const BUNDLE_NAME = 'agent-guard.cjs';
/** The list of everything install.sh installed, relative to the prefix (read by --uninstall). */
export const INSTALL_LIST = '.agent-guard-install';
/** The startup files of the zsh ZDOTDIR wrapper (shell/zsh/). */
export const ZSH_WRAPPER_FILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin', '.zlogout'] as const;

export type LayoutKind = 'install' | 'checkout';

export interface Layout {
  kind: LayoutKind;
  /** The installation prefix, or the checkout's root. */
  root: string;
  /** The bundled CLI (absolute). */
  bundle: string;
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
  /** The shim directory (rendered shims + marker). */
  shimDir: string;
  /** The Node preload (NODE_OPTIONS=--require …), beside the bundle: it loads the bundle from its own
   *  directory (docs/interpreters.md). Not checked by layoutOf: without it Node runs unguarded. */
  preload: string;
  /** install: `<prefix>/bin/agent-guard`; checkout: null. */
  launcher: string | null;
  /** install: `<prefix>/.agent-guard-install`; checkout: null. */
  installList: string | null;
}

export class LayoutError extends Error {}

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

/** The per-user cache directory of a checkout bundle's shims. */
export function checkoutShimDir(bundle: string, env: Env): string {
  const xdg = env.XDG_CACHE_HOME;
  const home = env.HOME ? env.HOME : os.homedir();
  const cache = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache');
  // node:crypto on first use: the bundle's start-up (every check) does not pay for it.
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256').update(path.resolve(bundle)).digest('hex').slice(0, 16);
  return path.join(cache, 'agent-guard', hash, 'shims');
}

/** The layout of an installation prefix made by install.sh (paths only; nothing is checked). */
export function installLayout(prefix: string): Layout {
  const root = path.resolve(prefix);
  const shellDir = path.join(root, 'shell');
  return {
    kind: 'install',
    root,
    bundle: path.join(root, 'lib', BUNDLE_NAME),
    template: path.join(root, 'lib', 'shim.sh'),
    shellDir,
    guardBash: path.join(shellDir, 'guard.bash'),
    guardZsh: path.join(shellDir, 'guard.zsh'),
    zdotdir: path.join(shellDir, 'zsh'),
    shimDir: path.join(root, 'shims'),
    preload: path.join(root, 'lib', PRELOAD_NAME),
    launcher: path.join(root, 'bin', 'agent-guard'),
    installList: path.join(root, INSTALL_LIST),
  };
}

/** The layout of a checkout whose bundle is `<repo>/dist/agent-guard.cjs`. */
export function checkoutLayout(repo: string, env: Env, bundle = path.join(path.resolve(repo), 'dist', BUNDLE_NAME)): Layout {
  const root = path.resolve(repo);
  const shellDir = path.join(root, 'shell');
  return {
    kind: 'checkout',
    root,
    bundle: path.resolve(bundle),
    template: path.join(root, 'shims', 'shim.sh'),
    shellDir,
    guardBash: path.join(shellDir, 'guard.bash'),
    guardZsh: path.join(shellDir, 'guard.zsh'),
    zdotdir: path.join(shellDir, 'zsh'),
    shimDir: checkoutShimDir(bundle, env),
    preload: path.join(path.dirname(path.resolve(bundle)), PRELOAD_NAME),
    launcher: null,
    installList: null,
  };
}

/** The layout the bundle at `bundle` belongs to: `<prefix>/lib/agent-guard.cjs` with lib/shim.sh
 *  beside it (install), or `<repo>/dist/agent-guard.cjs` with shims/shim.sh in the repo (checkout).
 *  The shell files must exist in both. Throws LayoutError otherwise. */
export function layoutOf(bundle: string, env: Env): Layout {
  const abs = path.resolve(bundle);
  const dir = path.dirname(abs);
  const parent = path.dirname(dir);
  let layout: Layout | null = null;
  if (path.basename(dir) === 'lib' && isFile(path.join(dir, 'shim.sh'))) layout = installLayout(parent);
  else if (path.basename(dir) === 'dist' && isFile(path.join(parent, 'shims', 'shim.sh'))) layout = checkoutLayout(parent, env, abs);
  if (!layout) {
    throw new LayoutError(
      `${abs} is neither <prefix>/lib/${BUNDLE_NAME} of an installation (with lib/shim.sh) nor <repo>/dist/${BUNDLE_NAME} of a checkout (with shims/shim.sh)`,
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
