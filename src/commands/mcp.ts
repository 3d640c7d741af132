// `agent-guard mcp`: runs the MCP server on stdio (docs/mcp.md). The server and the SDK are a
// second bundle beside this one (dist/agent-guard-mcp.cjs, or lib/ in an installation), loaded only
// here, so that no other command pays for them. The server runs after `main` has returned; its exit
// status is set when the client closes stdin (as `run` sets its child's).
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import type { McpOptions } from '../mcp/server.js';
import { runningBundle } from '../layout.js';
import { EXIT } from '../exit-codes.js';

/** The MCP bundle's file name, beside the CLI bundle. */
export const MCP_BUNDLE_NAME = 'agent-guard-mcp.cjs';

export function configureMcp(program: Command, ctx: CommandContext, version: string): void {
  program
    .command('mcp')
    .description('run the MCP server on stdio: safe_delete, explain, restore and status as tools for agents')
    .action(() => {
      ctx.exitCode = startMcp(ctx, version);
    });
}

function startMcp(ctx: CommandContext, version: string): number {
  const bundle = runningBundle();
  if (bundle === null) {
    ctx.io.stderr('agent-guard mcp: runs from the bundled CLI only (npm run build)\n');
    return EXIT.ERROR;
  }
  const file = path.join(path.dirname(bundle), MCP_BUNDLE_NAME);
  let mod: { runMcp(opts: McpOptions): Promise<number> };
  try {
    mod = createRequire(file)(file) as typeof mod;
  } catch (err) {
    ctx.io.stderr(`agent-guard mcp: cannot load ${file}: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.ERROR;
  }
  mod.runMcp({ env: ctx.env, cwd: ctx.cwd, version, log: (line) => ctx.io.stderr(`${line}\n`) }).then(
    (status) => {
      process.exitCode = status;
    },
    (err: unknown) => {
      ctx.io.stderr(`agent-guard mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = EXIT.ERROR;
    },
  );
  return EXIT.OK;
}
