// `agent-guard shim NAME REAL -- ARGS...` (run by the PATH shims, never by hand: the directive goes
// to fd 3, which the shim opens) and `agent-guard hook-shell …` (run by the bash/zsh hooks). Both
// are parsed here without commander: they are on the path every guarded command pays for.
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config.js';
import { formatDirective, shim } from '../shims/checker.js';
import { hookShell, parseHookArgs } from '../shell-hooks/checker.js';
import { askTty } from '../tty.js';
import { runningBundle } from '../layout.js';
import { ensureChecker } from '../checker/start.js';
import { CHECKER_ENV } from '../checker/place.js';
import type { IO } from '../context.js';

/** Returns the exit status. The directive is written to fd 3; without one the shim refuses. */
export function runShimCommand(argv: readonly string[], env: Env, cwd: string, io: IO): number {
  const [name, real, dd, ...args] = argv;
  if (name === undefined || real === undefined || dd !== '--' || !path.isAbsolute(real)) {
    io.stderr('agent-guard shim: usage: agent-guard shim NAME /abs/path/of/real -- ARGS... (run by the PATH shims, which read the directive on fd 3)\n');
    return 1;
  }
  // This call took the cold path: a session whose warm checker is not running starts it now, in the
  // background, for the calls that follow (src/checker/start.ts).
  if (env[CHECKER_ENV.dir]) ensureChecker(env, process.execPath, runningBundle());
  const directive = shim(name, real, args, { env, cwd, io, ask: askTty });
  try {
    fs.writeSync(3, formatDirective(directive));
  } catch (err) {
    io.stderr(`agent-guard shim: cannot write the directive to fd 3 (${(err as Error).message}); this command is run by the PATH shims\n`);
    return 1;
  }
  return 0;
}

/** `hook-shell --shell bash|zsh [--interactive] [--shims] [--overwrite PATH]... [--overwrite-only] --cwd DIR -- TEXT`. */
export function runHookShellCommand(argv: readonly string[], env: Env, cwd: string, io: IO): number {
  const input = parseHookArgs(argv, cwd);
  if (typeof input === 'string') {
    io.stderr(`agent-guard hook-shell: ${input}\n`);
    return 1;
  }
  // As for a shim: a session whose warm checker is not running starts it now, for the hooks' and
  // shims' calls that follow (shell/hook-client.sh asks it first).
  if (env[CHECKER_ENV.dir]) ensureChecker(env, process.execPath, runningBundle());
  return hookShell(input, { env, io });
}
