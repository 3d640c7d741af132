// `agent-guard restore list [--json]` and `agent-guard restore <txid> [--force] [--json]`.
import { workspaceOf } from './place.js';
import type { Command } from 'commander';
import { gitRunner } from '../probe/index.js';
import { listTransactions, restore, RestoreError } from '../recovery/restore.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../cli.js';

interface RestoreOptions {
  json?: boolean;
  force?: boolean;
}

export function configureRestore(program: Command, ctx: CommandContext): void {
  program
    .command('restore')
    .description('list quarantine transactions, or move one back to where it came from')
    .argument('<txid|list>', '"list", or the transaction id to restore')
    .option('--force', 'restore over what now exists at an origin (that is quarantined first, never deleted)')
    .option('--json', 'print the result as one JSON object')
    .action((target: string, opts: RestoreOptions) => {
      ctx.exitCode = runRestore(target, opts, ctx);
    });
}

export function runRestore(target: string, opts: RestoreOptions, ctx: CommandContext): number {
  const { config, ws, place } = workspaceOf(ctx);
  if (target === 'list') {
    const { transactions, corrupt } = listTransactions(place);
    if (opts.json) {
      ctx.io.stdout(JSON.stringify({ version: 1, quarantine: ws.quarantine, corruptRecords: corrupt, transactions }) + '\n');
    } else {
      const rows = transactions.map((t) => `${t.txid}  ${t.state.padEnd(10)}  ${String(t.items.length).padStart(5)}  ${t.command ?? ''}`);
      ctx.io.stdout(['TXID                       STATE       ITEMS  COMMAND', ...rows].join('\n') + '\n');
      if (corrupt > 0) ctx.io.stderr(`warning: ${corrupt} unreadable manifest line(s) skipped\n`);
    }
    return EXIT.OK;
  }
  try {
    const out = restore(place, target, { force: opts.force === true, session: config.session, git: gitRunner(config.gitBinary, config.env) });
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, ...out }) + '\n');
    else {
      const lines = [`restored ${out.restored.length} path(s) from ${out.txid}`, ...out.restored.map((p) => `  restored ${p}`), ...out.skipped.map((s) => `  skipped  ${s.origin}: ${s.reason}`)];
      if (out.displaced) lines.push(`what stood at the origins was quarantined as ${out.displaced}`);
      ctx.io.stdout(lines.join('\n') + '\n');
    }
    return out.skipped.length > 0 && out.restored.length === 0 ? EXIT.ERROR : EXIT.OK;
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    ctx.io.stderr(`agent-guard restore: ${err.message}\n`);
    return EXIT.ERROR;
  }
}
