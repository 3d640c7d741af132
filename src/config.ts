// The only module that reads agent-guard's configuration from the environment: `loadConfig` (what a
// decision needs), and the few settings read on their own (noticeEnabled, shimsFirst, sessionVars).
// Everything else receives a Config. Read where they are written instead: the environment `run` and
// `shell-init` build for their children, the warm checker's own variables (src/checker/place.ts
// CHECKER_ENV) and the Node preload's start-up variables (its own bundle).
import path from 'node:path';
import { parseNodeOptions, PRELOAD_NAME, requiredFiles } from './runtime/node-options.js';
import { PYTHON_DIR_NAME } from './runtime/python-path.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The policy reference's default artifact patterns (rule 13). */
export const DEFAULT_ARTIFACTS: readonly string[] = [
  'node_modules', 'dist', 'build', 'out', 'target', '__pycache__', '.cache', 'coverage', '.next', '.nuxt', '.venv', 'venv',
  '.pytest_cache', '.mypy_cache', '.tox', '.turbo', '.parcel-cache', '*.pyc', '*.pyo', '*.egg-info',
];

export interface Config {
  /** Absolute directory the command runs in. */
  cwd: string;
  home: string | null;
  /** AGENT_GUARD_WORKSPACE, absolute; null: discover it. */
  workspace: string | null;
  /** AGENT_GUARD_TRASH, absolute; null: `<workspace>/.agent-trash`. */
  trash: string | null;
  /** AGENT_GUARD_SESSION. */
  session: string | null;
  artifacts: readonly string[];
  /** AGENT_GUARD_ALLOW_REGENERABLE (anything but unset/1/true/yes/on disables it: fail closed). */
  allowRegenerable: boolean;
  /** AGENT_GUARD_DIALECT as given (validated by dialect.ts). */
  dialect: string | undefined;
  /** CDPATH is set: `cd name` may land elsewhere than ./name. */
  cdpath: boolean;
  /** The git the probes run (read-only queries). */
  gitBinary: string;
  /** The environment passed to the git probes. */
  env: Env;
  /** The user's agent-guard state directory (`$XDG_STATE_HOME/agent-guard`, else
   *  `~/.local/state/agent-guard`): one-time grants live there (docs/grants.md). Null without a home. */
  stateDir: string | null;
  /** AGENT_GUARD_ASK_TIMEOUT (seconds, 1..3600, default 60): how long an ASK waits for an answer at
   *  the terminal. */
  askTimeoutMs: number;
  /** TMPDIR when absolute (a scratch zone besides /tmp and /var/tmp; docs/zones.md). */
  tmpdir: string | null;
  /** XDG_CACHE_HOME when absolute (the cache zone; else `$HOME/.cache`). */
  cacheHome: string | null;
  /** agent-guard's own files named by the environment `run` sets (AGENT_GUARD_SHIMS, the prefix of
   *  AGENT_GUARD_BUNDLE): never scratch, even inside a zone. */
  guardPaths: string[];
}

/** The default and the bounds of AGENT_GUARD_ASK_TIMEOUT, in seconds. */
export const ASK_TIMEOUT_S = { default: 60, min: 1, max: 3600 };

/** An absolute path from the environment (a relative one means nothing stable: ignored). */
const absolute = (v: string | undefined): string | null => (v !== undefined && path.isAbsolute(v) ? path.resolve(v) : null);

export function loadConfig(env: Env, cwd: string): Config {
  const abs = (v: string | undefined): string | null => (v === undefined || v === '' ? null : path.resolve(cwd, v));
  const allow = env.AGENT_GUARD_ALLOW_REGENERABLE;
  const home = env.HOME ? path.resolve(env.HOME) : null;
  const xdgState = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : null;
  const timeout = Number(env.AGENT_GUARD_ASK_TIMEOUT);
  const extra = (env.AGENT_GUARD_ARTIFACTS ?? '').split(path.delimiter).map((s) => s.trim()).filter((s) => s !== '');
  return {
    cwd: path.resolve(cwd),
    home,
    workspace: abs(env.AGENT_GUARD_WORKSPACE),
    trash: abs(env.AGENT_GUARD_TRASH),
    session: env.AGENT_GUARD_SESSION || null,
    artifacts: [...DEFAULT_ARTIFACTS, ...extra],
    allowRegenerable: allow === undefined || /^(1|true|yes|on)?$/i.test(allow.trim()),
    dialect: env.AGENT_GUARD_DIALECT,
    cdpath: (env.CDPATH ?? '') !== '',
    gitBinary: 'git',
    env,
    stateDir: xdgState ? path.join(xdgState, 'agent-guard') : home ? path.join(home, '.local', 'state', 'agent-guard') : null,
    askTimeoutMs: 1000 * (env.AGENT_GUARD_ASK_TIMEOUT && Number.isFinite(timeout) ? Math.min(ASK_TIMEOUT_S.max, Math.max(ASK_TIMEOUT_S.min, timeout)) : ASK_TIMEOUT_S.default),
    tmpdir: absolute(env.TMPDIR),
    cacheHome: absolute(env.XDG_CACHE_HOME),
    guardPaths: [absolute(env.AGENT_GUARD_SHIMS), absolute(env.AGENT_GUARD_BUNDLE)].map((p, i) => (p === null ? null : i === 1 ? path.dirname(path.dirname(p)) : p)).filter((p): p is string => p !== null),
  };
}

/** AGENT_GUARD_NOTICE=1: a guarded command that kept something restorable says so on stderr (off by
 *  default, so that output stays byte-identical to the unguarded command's). Read on its own, not
 *  in Config: the shims and hooks ask only once something was kept. */
export function noticeEnabled(env: Env): boolean {
  return env.AGENT_GUARD_NOTICE === '1';
}

/** The PATH shims are first on PATH: AGENT_GUARD_SHIMS names the directory `run` (or `shell-init`)
 *  put there, and PATH still starts with it. Then what the shims will see concretely is left to
 *  them by the text entry points (src/enforce/text.ts). */
export function shimsFirst(env: Env): boolean {
  const shims = env.AGENT_GUARD_SHIMS ?? '';
  const p = env.PATH ?? '';
  return shims !== '' && (p === shims || p.startsWith(`${shims}:`));
}

/** The runtime deletion guards the environment carries to the programs it starts (`run` and
 *  `shell-init` set both, docs/interpreters.md): the Node preload among NODE_OPTIONS' `--require`
 *  files, the Python guard's directory first on PYTHONPATH (where Python takes its sitecustomize
 *  from). */
export function runtimeGuards(env: Env): { node: boolean; python: boolean } {
  const first = (env.PYTHONPATH ?? '').split(':')[0] ?? '';
  return {
    node: requiredFiles(parseNodeOptions(env.NODE_OPTIONS ?? '') ?? []).some((f) => path.basename(f) === PRELOAD_NAME),
    python: path.basename(first.replace(/\/+$/, '')) === PYTHON_DIR_NAME,
  };
}

/** The variables `run` and `shell-init` set for a guarded session (docs/shims.md, docs/shell-hooks.md):
 *  the node and the bundle the hooks call, the shim directory, the session id. `doctor` checks them. */
export interface SessionVars {
  node: string | undefined;
  bundle: string | undefined;
  shims: string | undefined;
  session: string | undefined;
}

export function sessionVars(env: Env): SessionVars {
  return { node: env.AGENT_GUARD_NODE, bundle: env.AGENT_GUARD_BUNDLE, shims: env.AGENT_GUARD_SHIMS, session: env.AGENT_GUARD_SESSION };
}
