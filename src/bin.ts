// The bundled entry (dist/agent-guard.cjs): the only place that sets the exit status.
// `check` — what every guarded command pays for — runs without loading commander (a lazy import
// loads the full CLI for everything else), and output goes straight to the file descriptors
// instead of through process.stdout's stream machinery (docs/performance.md).
//
// Required as a module (the Node preload loads it so on a program's first deletion that needs a
// decision, docs/interpreters.md), it runs no command: it only exports runtimeDelete.
import fs from 'node:fs';
import { parseCheckFast, runCheck } from './commands/check.js';
import type { CommandContext, IO } from './context.js';

export { runtimeDelete } from './runtime/delete.js';

function writeAll(fd: number, s: string): void {
  const buf = Buffer.from(s, 'utf8');
  let off = 0;
  let spins = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off);
    } catch (err) {
      // A non-blocking pipe that is full: retry, then hand the rest to the stream.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++spins > 1000) {
        (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(off));
        return;
      }
    }
  }
}

const io: IO = { stdout: (s) => writeAll(1, s), stderr: (s) => writeAll(2, s) };
const argv = process.argv.slice(2);

function fail(err: unknown): number {
  io.stderr(`agent-guard: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

/** Loads a command module on first use (a dynamic import keeps its initialisation off the start-up
 *  of every other command) and runs it; a failure to load or to run is `failStatus`. */
function lazily<M>(load: Promise<M>, run: (m: M) => number, failStatus = 1): void {
  const failed = (err: unknown): void => {
    fail(err);
    process.exitCode = failStatus;
  };
  load.then((m) => {
    try {
      process.exitCode = run(m);
    } catch (err) {
      failed(err);
    }
  }, failed);
}

/** Run as a program (not required as a library)? Under vitest/tsx (ESM) there is no `require`. */
const isMain = typeof require === 'undefined' || typeof module === 'undefined' || require.main === module;

/** agent-guard's own processes are the guard: the Node preload, if NODE_OPTIONS loaded it here too,
 *  must not judge their relocations, restores and purges (src/runtime/node-preload.ts). */
function switchOffPreload(): void {
  const state = (globalThis as unknown as Record<symbol, { active?: boolean } | undefined>)[Symbol.for('agent-guard.node-preload')];
  if (state) state.active = false;
}

if (isMain) {
  switchOffPreload();
  runMain();
}

function runMain(): void {
  const fast = parseCheckFast(argv);
  if (argv[0] === 'hook' && argv[1] !== 'install') {
    // A harness's pre-tool hook: any failure is exit 2 (every harness treats 2 as a block).
    lazily(import('./commands/harness-hook.js'), ({ runHookCommand }) => runHookCommand(argv.slice(1), process.env, process.cwd(), io), 2);
  } else if (argv[0] === 'shim' || argv[0] === 'hook-shell') {
    // The shims' and hooks' entry, without commander. Any failure is an exit status the caller
    // treats as a refusal (no directive for a shim; not 0/2/3 for a hook): fail closed.
    lazily(import('./commands/shim.js'), ({ runShimCommand, runHookShellCommand }) => (argv[0] === 'shim' ? runShimCommand : runHookShellCommand)(argv.slice(1), process.env, process.cwd(), io));
  } else if (argv[0] === 'checker-serve') {
    // A session's warm checker (src/checker/server.ts), started in the background by a cold shim call.
    lazily(import('./checker/server.js'), ({ serve }) => serve(argv[1] ?? '', process.env));
  } else if (argv[0] === 'runtime-delete') {
    // A runtime guard's decision (docs/interpreters.md); no verdict (exit 1) is a refusal for it.
    lazily(import('./commands/runtime-delete.js'), ({ runRuntimeDeleteCommand }) => runRuntimeDeleteCommand(argv.slice(1), process.env, io));
  } else if (fast) {
    const ctx: CommandContext = { env: process.env, cwd: process.cwd(), io, exitCode: 0, interactive: false };
    try {
      process.exitCode = runCheck(fast.args, fast.opts, ctx);
    } catch (err) {
      process.exitCode = fail(err);
    }
  } else {
    lazily(import('./cli.js'), ({ main }) => main(argv, process.env, io, process.cwd(), process.stdin.isTTY === true && process.stdout.isTTY === true));
  }
}
