// `agent-guard mode [restrict|normal] [--reason TEXT] [--json]`: show or change the session's mode.
import { workspaceOf } from '../workspace.js';
import type { Command } from 'commander';
import { AuthorizationRequired, setMode } from '../recovery/mode.js';
import { readMode } from '../workspace.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../context.js';

export function configureMode(program: Command, ctx: CommandContext): void {
  program
    .command('mode')
    .description('show the session mode, or change it: "restrict" (anyone, one-way) or "normal" (a human at a terminal only)')
    .argument('[change]', 'restrict | normal')
    .option('--reason <text>', 'why (recorded in the audit log)', '')
    .option('--json', 'print the result as one JSON object')
    .action((change: string | undefined, opts: { reason: string; json?: boolean }) => {
      ctx.exitCode = runMode(change, opts, ctx);
    });
}

export function runMode(change: string | undefined, opts: { reason: string; json?: boolean }, ctx: CommandContext): number {
  const { config, place } = workspaceOf(ctx);
  const print = (mode: string): void => {
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, session: config.session ?? 'default', mode }) + '\n');
    else ctx.io.stdout(`${config.session ?? 'default'}: ${mode}\n`);
  };
  if (change === undefined) {
    print(readMode(place, config.session));
    return EXIT.OK;
  }
  if (change !== 'restrict' && change !== 'normal') {
    ctx.io.stderr(`agent-guard mode: expected "restrict" or "normal", not ${JSON.stringify(change)}\n`);
    return EXIT.ERROR;
  }
  try {
    setMode(place, config.session, change === 'restrict' ? 'RESTRICTED' : 'NORMAL', ctx.interactive, opts.reason);
  } catch (err) {
    if (!(err instanceof AuthorizationRequired)) throw err;
    ctx.io.stderr(`agent-guard mode: ${err.message}\n`);
    return EXIT.BLOCK;
  }
  print(readMode(place, config.session));
  return EXIT.OK;
}
