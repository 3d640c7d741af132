// `agent-guard run [--session ID] [--] <command...>`: runs a command (an agent harness, a script,
// `bash`) under the guard and exits with its status (a signal N gives 128+N):
//
// - PATH: the shim directory first (any other copy of it removed);
// - BASH_ENV=<shell>/guard.bash, the user's previous value in AGENT_GUARD_USER_BASH_ENV;
// - ZDOTDIR=<shell>/zsh (the wrapper), the user's previous value in AGENT_GUARD_USER_ZDOTDIR
//   (empty: it was unset, i.e. $HOME);
// - NODE_OPTIONS: `--require <preload>` first, the user's options after it (the Node deletion guard,
//   docs/interpreters.md; left as it is, with a warning, when the preload file is missing);
// - PYTHONPATH: the Python guard's directory first (its sitecustomize), the user's entries after it;
// - AGENT_GUARD_NODE, AGENT_GUARD_BUNDLE, AGENT_GUARD_SHIMS: absolute paths;
// - AGENT_GUARD_SESSION: --session, else the current one, else a new `run-<time>-<random>`;
// - AGENT_GUARD_CHECKER and AGENT_GUARD_CHECKER_OWNER (Linux): the session's warm checker directory
//   (started on first need by a shim, stopped when the command ends) and this process's pid;
// - AGENT_GUARD_WORKSPACE and everything else as they are.
//
// stdio is inherited; SIGINT, SIGTERM and SIGHUP that reach agent-guard are passed on to the child.
// Exit statuses of its own: 125 (agent-guard could not set up the guard: nothing ran), 126 (the
// command cannot be executed), 127 (not found).
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { sessionVars, type Env } from '../config.js';
import { currentLayout, INSTALL_HINT, LayoutError, preloadOrWarn, prepareShims, prependPath, type Layout } from '../layout.js';
import { CHECKER_ENV, checkerBase, newCheckerDir } from '../checker/place.js';
import { stopChecker } from '../checker/start.js';
import { withPreload } from '../runtime/node-options.js';
import { pythonGuardOrWarn, withSitecustomize } from '../runtime/python-path.js';

export const RUN_EXIT = {
  /** agent-guard itself failed: the guard could not be set up, the command did not run. */
  SETUP: 125,
  NOT_EXECUTABLE: 126,
  NOT_FOUND: 127,
} as const;

/** The signals passed on to the child. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

interface RunOptions {
  session?: string;
}

export function configureRun(program: Command, ctx: CommandContext): void {
  // Options of the program itself (-V, -h) only before the subcommand: `run` hands everything
  // after the command name to the command untouched (`agent-guard run ls -V` is ls's -V).
  program.enablePositionalOptions();
  program
    .command('run')
    .description('run a command under the guard (shims first on PATH, BASH_ENV, the zsh wrapper, a session id): agent-guard run -- bash -c "..."')
    .option('--session <id>', 'AGENT_GUARD_SESSION for the command (default: the current one, else a new run-<time>-<random>)')
    .argument('<command...>', 'the command and its arguments (put -- before it)')
    .passThroughOptions()
    .action((command: string[], opts: RunOptions) => {
      ctx.exitCode = startRun(command, opts, ctx);
    });
}

/** A new session id: `run-<UTC time>-<8 hex>`. */
export function newRunSession(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `run-${stamp}-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`;
}

/** The environment of a guarded command: `env` plus the hook contract for `layout` (see the top of
 *  this file). A BASH_ENV or ZDOTDIR that already is ours keeps the recorded user value. `checker`:
 *  the session's warm checker directory and owner pid (none: the shims take the cold path). With a
 *  `preload` (null: its file is missing), NODE_OPTIONS preloads it. */
export function guardEnv(
  env: Env,
  layout: Pick<Layout, 'bundle' | 'shimDir' | 'guardBash' | 'zdotdir'> & { preload?: string | null; python?: string | null },
  node: string,
  session: string,
  checker: { dir: string; owner: number } | null = null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  delete out[CHECKER_ENV.dir];
  delete out[CHECKER_ENV.owner];
  if (checker) {
    out[CHECKER_ENV.dir] = checker.dir;
    out[CHECKER_ENV.owner] = String(checker.owner);
  }
  out.AGENT_GUARD_NODE = node;
  out.AGENT_GUARD_BUNDLE = layout.bundle;
  out.AGENT_GUARD_SHIMS = layout.shimDir;
  out.AGENT_GUARD_SESSION = session;
  out.AGENT_GUARD_USER_BASH_ENV = env.BASH_ENV === layout.guardBash ? (env.AGENT_GUARD_USER_BASH_ENV ?? '') : (env.BASH_ENV ?? '');
  out.BASH_ENV = layout.guardBash;
  out.AGENT_GUARD_USER_ZDOTDIR = env.ZDOTDIR === layout.zdotdir ? (env.AGENT_GUARD_USER_ZDOTDIR ?? '') : (env.ZDOTDIR ?? '');
  out.ZDOTDIR = layout.zdotdir;
  out.PATH = prependPath(env.PATH, layout.shimDir);
  if (layout.preload) out.NODE_OPTIONS = withPreload(env.NODE_OPTIONS, layout.preload);
  if (layout.python) out.PYTHONPATH = withSitecustomize(env.PYTHONPATH, layout.python);
  // bash skips BASH_ENV — and reads ~/.bashrc instead — when its stdin is a socket and it believes
  // it is a top-level shell (SHLVL unset or 0): its "started by sshd/rshd" heuristic. A harness
  // written in Node gives its children socketpairs as pipes, so a `bash -c` it starts would run
  // unguarded. SHLVL >= 1 makes every bash under the guard at least a second-level shell.
  const level = Number.parseInt(env.SHLVL ?? '', 10);
  if (!Number.isInteger(level) || level < 1) out.SHLVL = '1';
  // bash started with POSIXLY_CORRECT in its environment runs in POSIX mode and reads no BASH_ENV:
  // every `bash -c` under the guard would run without the hook (`bash -c '/usr/bin/rm -rf x'`
  // deleted x past both layers). The hooks refuse exporting it again (BLOCK_GUARD_TAMPERING).
  delete out.POSIXLY_CORRECT;
  return out;
}

/** Starts the command; returns the exit code for now (0 while the child runs, or the set-up
 *  error). The child's status becomes process.exitCode when it ends: main() has returned by then
 *  and the pending child keeps the process alive. */
export function startRun(command: string[], opts: RunOptions, ctx: CommandContext): number {
  const fail = (code: number, msg: string): number => {
    ctx.io.stderr(`agent-guard run: ${msg}\n`);
    return code;
  };
  const [file, ...args] = command;
  if (file === undefined || file === '') return fail(RUN_EXIT.SETUP, 'no command given: agent-guard run -- <command...>');
  if (opts.session !== undefined && opts.session === '') return fail(RUN_EXIT.SETUP, '--session needs a non-empty id');
  const node = process.execPath;
  let layout: Layout;
  try {
    layout = currentLayout(ctx.env);
    const { warning } = prepareShims(layout, node);
    if (warning !== null) ctx.io.stderr(`agent-guard run: warning: ${warning}\n`);
  } catch (err) {
    const hint = err instanceof LayoutError ? ` (${INSTALL_HINT})` : '';
    return fail(RUN_EXIT.SETUP, `cannot set up the guard, nothing was run: ${(err as Error).message}${hint}`);
  }
  const session = opts.session ?? (sessionVars(ctx.env).session || newRunSession());
  // The session's warm checker: a directory name only; the first slow-path shim call starts it.
  const base = checkerBase(ctx.env);
  const checker = base === null ? null : { dir: newCheckerDir(base), owner: process.pid };
  const preload = preloadOrWarn(layout, (w) => ctx.io.stderr(`agent-guard run: warning: ${w}\n`));
  const python = pythonGuardOrWarn(layout, (w) => ctx.io.stderr(`agent-guard run: warning: ${w}\n`));
  const env = guardEnv(ctx.env, { ...layout, preload, python }, node, session, checker);

  let child: import('node:child_process').ChildProcess;
  try {
    // node:child_process and node:os are loaded here, not at start-up: every CLI command would pay.
    child = process.getBuiltinModule('node:child_process').spawn(file, args, { stdio: 'inherit', env, cwd: ctx.cwd });
  } catch (err) {
    return fail(RUN_EXIT.SETUP, `cannot start ${file}: ${(err as Error).message}`);
  }
  const handlers = FORWARDED.map((sig) => {
    const h = (): void => {
      try {
        child.kill(sig);
      } catch {
        // already gone
      }
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  let done = false;
  const finish = (code: number): void => {
    if (done) return;
    done = true;
    for (const [sig, h] of handlers) process.off(sig, h);
    if (checker) stopChecker(checker.dir);
    process.exitCode = code;
  };
  child.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') {
      ctx.io.stderr(`agent-guard run: ${file}: command not found\n`);
      finish(RUN_EXIT.NOT_FOUND);
    } else if (err.code === 'EACCES' || err.code === 'EISDIR' || err.code === 'ENOEXEC') {
      ctx.io.stderr(`agent-guard run: ${file}: cannot execute (${err.code})\n`);
      finish(RUN_EXIT.NOT_EXECUTABLE);
    } else {
      ctx.io.stderr(`agent-guard run: ${file}: ${err.message}\n`);
      finish(RUN_EXIT.NOT_EXECUTABLE);
    }
  });
  child.on('exit', (code, signal) => {
    if (code !== null) finish(code);
    else finish(128 + (signal ? (process.getBuiltinModule('node:os').constants.signals[signal] ?? 0) : 0));
  });
  return 0;
}
