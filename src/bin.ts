// The bundled entry (dist/agent-guard.cjs): the only place that sets the exit status.
// `check` — what every guarded command pays for — runs without loading commander (a lazy import
// loads the full CLI for everything else), and output goes straight to the file descriptors
// instead of through process.stdout's stream machinery (docs/performance.md).
import fs from 'node:fs';
import { parseCheckFast, runCheck } from './commands/check.js';
import type { CommandContext, IO } from './cli.js';

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

const fast = parseCheckFast(argv);
if (argv[0] === 'hook' && argv[1] !== 'install') {
  // A harness's pre-tool hook: any failure is exit 2 (every harness treats 2 as a block).
  import('./commands/hook.js').then(
    ({ runHookCommand }) => {
      try {
        process.exitCode = runHookCommand(argv.slice(1), process.env, process.cwd(), io);
      } catch (err) {
        fail(err);
        process.exitCode = 2;
      }
    },
    (err: unknown) => {
      fail(err);
      process.exitCode = 2;
    },
  );
} else if (argv[0] === 'shim' || argv[0] === 'hook-shell') {
  // The shims' and hooks' entry: no commander, and loaded only here (a dynamic import keeps its
  // module initialisation off `check`'s start-up). Any failure is an exit status the caller
  // treats as a refusal (no directive for a shim; not 0/2/3 for a hook): fail closed.
  import('./commands/shim.js').then(
    ({ runShimCommand, runHookShellCommand }) => {
      try {
        process.exitCode = (argv[0] === 'shim' ? runShimCommand : runHookShellCommand)(argv.slice(1), process.env, process.cwd(), io);
      } catch (err) {
        process.exitCode = fail(err);
      }
    },
    (err: unknown) => {
      process.exitCode = fail(err);
    },
  );
} else if (fast) {
  const ctx: CommandContext = { env: process.env, cwd: process.cwd(), io, exitCode: 0, interactive: false };
  try {
    process.exitCode = runCheck(fast.args, fast.opts, ctx);
  } catch (err) {
    process.exitCode = fail(err);
  }
} else {
  import('./cli.js').then(
    ({ main }) => {
      try {
        process.exitCode = main(argv, process.env, io, process.cwd(), process.stdin.isTTY === true && process.stdout.isTTY === true);
      } catch (err) {
        process.exitCode = fail(err);
      }
    },
    (err: unknown) => {
      process.exitCode = fail(err);
    },
  );
}
