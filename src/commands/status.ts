// `agent-guard status [--json]`: the session mode, the workspace and its quarantine, transaction
// counts and sizes, the latest transactions, and what gc would do now. Reads only.
import { workspaceOf } from '../workspace.js';
import type { Command } from 'commander';
import { readMode } from '../workspace.js';
import { formatBytes, planGc, type GcPlan } from '../recovery/gc.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../context.js';
import { printable, table } from './gc.js';
import { zonePlaces } from '../recovery/places.js';
import type { QuarantinePlace } from '../recovery/quarantine.js';

interface StatusOptions {
  json?: boolean;
}

/** How many of the latest transactions are shown. */
const RECENT = 10;

export function configureStatus(program: Command, ctx: CommandContext): void {
  program
    .command('status')
    .description('show the session mode, the quarantine, its transactions and what gc would do')
    .option('--json', 'print the result as one JSON object')
    .action((opts: StatusOptions) => {
      ctx.exitCode = runStatus(opts, ctx);
    });
}

function countsOf(plan: GcPlan): { total: number; restorable: number; gcEligible: number; restored: number; purged: number; failed: number } {
  const count = (...states: string[]): number => plan.transactions.filter((t) => states.includes(t.state)).length;
  return {
    total: plan.transactions.length,
    restorable: count('RESTORABLE', 'GC_ELIGIBLE'),
    gcEligible: count('GC_ELIGIBLE'),
    restored: count('RESTORED'),
    purged: count('PURGED'),
    failed: count('FAILED'),
  };
}

export function runStatus(opts: StatusOptions, ctx: CommandContext): number {
  const { config, ws, place } = workspaceOf(ctx);
  let plan: GcPlan;
  try {
    plan = planGc(place);
  } catch (err) {
    ctx.io.stderr(`agent-guard status: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
  const mode = readMode(place, config.session);
  const txs = plan.transactions;
  const counts = countsOf(plan);
  // The scratch zones' quarantines (docs/zones.md), each with its own counts.
  const zones: { place: QuarantinePlace; plan: GcPlan }[] = [];
  for (const z of zonePlaces(ws, (w) => ctx.io.stderr(`warning: ${w}\n`))) {
    try {
      zones.push({ place: z, plan: planGc(z) });
    } catch (err) {
      ctx.io.stderr(`warning: ${z.quarantine}: ${(err as Error).message}\n`);
    }
  }
  const recent = txs.slice(-RECENT).reverse();
  if (opts.json) {
    ctx.io.stdout(
      JSON.stringify({
        version: 1,
        session: config.session ?? 'default',
        mode,
        workspace: ws.root,
        quarantine: ws.quarantine,
        quarantineExists: plan.exists,
        counts,
        bytes: { quarantine: plan.quarantineBytes, restorable: plan.restorableBytes },
        recent: recent.map((t) => ({ txid: t.txid, ts: t.ts, state: t.state, items: t.itemCount, bytes: t.bytes, command: t.command })),
        gc: { eligible: plan.eligible.length, bytes: plan.eligibleBytes, unfinished: plan.unfinished.length, policy: { maxAgeDays: plan.maxAgeDays, maxBytes: plan.maxBytes } },
        corruptRecords: plan.corrupt,
        // Only when a zone has a quarantine (docs/zones.md).
        ...(zones.length === 0 ? {} : { zones: zones.map((z) => ({ zone: z.place.zone, root: z.place.root, quarantine: z.place.quarantine, counts: countsOf(z.plan), bytes: { quarantine: z.plan.quarantineBytes, restorable: z.plan.restorableBytes }, gc: { eligible: z.plan.eligible.length, bytes: z.plan.eligibleBytes } })) }),
      }) + '\n',
    );
    return EXIT.OK;
  }
  const lines = [
    table([
      ['session', `${config.session ?? 'default'} (mode ${mode})`],
      ['workspace', ws.root],
      ['quarantine', `${ws.quarantine}${plan.exists ? '' : ' (not created yet)'}`],
      ['size', `${formatBytes(plan.quarantineBytes)} in the quarantine, ${formatBytes(plan.restorableBytes)} restorable`],
      ['transactions', `${counts.total} in all: ${counts.restorable} restorable${counts.gcEligible > 0 ? ` (${counts.gcEligible} eligible for gc)` : ''}, ${counts.restored} restored, ${counts.purged} purged, ${counts.failed} failed`],
      [
        'gc',
        plan.eligible.length === 0
          ? `nothing eligible (older than ${plan.maxAgeDays} days, or over ${formatBytes(plan.maxBytes)})`
          : `${plan.eligible.length} transaction(s) eligible, ${formatBytes(plan.eligibleBytes)} (\`agent-guard gc\` shows them, \`gc --execute\` purges)`,
      ],
      ...zones.map((z): [string, string] => {
        const c = countsOf(z.plan);
        return [`zone ${z.place.zone}`, `${z.place.quarantine}: ${c.total} transaction(s), ${c.restorable} restorable, ${formatBytes(z.plan.restorableBytes)}${z.plan.eligible.length > 0 ? `, ${z.plan.eligible.length} eligible for gc` : ''}`];
      }),
    ]),
  ];
  if (recent.length > 0) {
    lines.push('', `latest ${recent.length} transaction(s), newest first:`);
    lines.push(table([['TXID', 'STATE', 'ITEMS', 'SIZE', 'COMMAND'], ...recent.map((t) => [t.txid, t.state, String(t.itemCount), formatBytes(t.bytes), printable(t.command ?? (t.snapshot ? '(snapshot)' : ''))])], new Set([2, 3])));
  }
  ctx.io.stdout(lines.join('\n') + '\n');
  if (plan.corrupt > 0) ctx.io.stderr(`warning: ${plan.corrupt} unreadable manifest line(s) skipped\n`);
  return EXIT.OK;
}
