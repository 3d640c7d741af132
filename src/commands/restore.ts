// `agent-guard restore list [--json]` and `agent-guard restore <txid> [--force] [--json]`.
import { workspaceOf } from './place.js';
import type { Command } from 'commander';
import { gitRunner } from '../probe/index.js';
import { listTransactions, restore, RestoreError } from '../recovery/restore.js';
import { hasTransaction, zonePlaces } from '../recovery/places.js';
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
  // The scratch zones' quarantines too (docs/zones.md): a transaction is found wherever it lives.
  const zones = zonePlaces(ws, (w) => ctx.io.stderr(`warning: ${w}\n`));
  if (target === 'list') {
    const { transactions, corrupt } = listTransactions(place);
    const inZones = zones.map((z) => ({ zone: z, ...listTransactions(z) }));
    if (opts.json) {
      const zoneJson = inZones.map(({ zone, transactions: txs, corrupt: c }) => ({ zone: zone.zone, root: zone.root, quarantine: zone.quarantine, corruptRecords: c, transactions: txs }));
      ctx.io.stdout(JSON.stringify({ version: 1, quarantine: ws.quarantine, corruptRecords: corrupt, transactions, ...(zoneJson.length > 0 ? { zones: zoneJson } : {}) }) + '\n');
    } else {
      const rows = (txs: typeof transactions): string[] => txs.map((t) => `${t.txid}  ${t.state.padEnd(10)}  ${String(t.items.length).padStart(5)}  ${t.command ?? ''}`);
      const lines = ['TXID                       STATE       ITEMS  COMMAND', ...rows(transactions)];
      for (const z of inZones) if (z.transactions.length > 0) lines.push('', `scratch zone ${z.zone.zone} ${z.zone.root} (quarantine ${z.zone.quarantine}):`, ...rows(z.transactions));
      ctx.io.stdout(lines.join('\n') + '\n');
      const bad = corrupt + inZones.reduce((n, z) => n + z.corrupt, 0);
      if (bad > 0) ctx.io.stderr(`warning: ${bad} unreadable manifest line(s) skipped\n`);
    }
    return EXIT.OK;
  }
  try {
    const where = [place, ...zones].find((q) => hasTransaction(q, target)) ?? place;
    const out = restore(where, target, { force: opts.force === true, session: config.session, git: gitRunner(config.gitBinary, config.env) });
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
