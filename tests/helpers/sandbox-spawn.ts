// A long-running process inside the read-only sandbox (tests/helpers/sandbox.ts, sandbox-run.sh),
// started by someone else's spawn: the command and arguments that run `argv` with only rwDir
// writable. For a process a test talks to while it runs (an MCP server under the SDK's client);
// runSandboxed is for commands that run to completion. No readiness signal here: when no sandbox
// can be made, the script exits 125 before `argv` starts, so the caller sees its process end
// without an answer — use it inside describeSandboxed/itSandboxed, which check support first.
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./sandbox-run.sh', import.meta.url));

export function sandboxedCommand(rwDir: string, argv: string[], opts: { cwd?: string; timeoutS?: number } = {}): { command: string; args: string[] } {
  if (argv.length === 0) throw new Error('sandboxedCommand: empty argv');
  return { command: '/bin/sh', args: [SCRIPT, rwDir, '--timeout', String(opts.timeoutS ?? 300), ...(opts.cwd !== undefined ? ['--cwd', opts.cwd] : []), '--', ...argv] };
}
