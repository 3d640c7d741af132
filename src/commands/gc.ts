// `agent-guard gc [--execute] [--json]`: the retention plan (default, changes nothing), or the purge
// of what it marks (docs/gc.md).
import { workspaceOf } from '../workspace.js';
import type { Command } from 'commander';
import { executeGc, formatAge, formatBytes, planGc, type GcOutcome, type GcPlan } from '../recovery/gc.js';
import { EXIT } from '../exit-codes.js';
import { gitRunner } from '../probe/index.js';
import { zonePlaces } from '../recovery/places.js';
import type { QuarantinePlace } from '../recovery/quarantine.js';
import type { CommandContext } from '../context.js';
import type { Config } from '../config.js';

interface GcCliOptions {
  json?: boolean;
  execute?: boolean;
  maxAgeDays?: string;
  maxBytes?: string;
}

/** A non-negative whole number given on the command line, or an error message. */
function count(name: string, v: string | undefined): number | undefined | string {
  if (v === undefined) return undefined;
  return /^\d+$/.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : `${name} must be a whole number of ${name === '--max-bytes' ? 'bytes' : 'days'}, not ${JSON.stringify(v)}`;
}

export function configureGc(program: Command, ctx: CommandContext): void {
  program
    .command('gc')
    .description('show which quarantined transactions the retention policy marks (30 days, 5 GiB), or purge them with --execute')
    .option('--execute', 'purge the eligible transactions (records first; removes only <quarantine>/<txid> directories)')
    .option('--max-age-days <days>', 'retention period for this run (default 30)')
    .option('--max-bytes <bytes>', 'cap on the restorable total for this run (default 5 GiB)')
    .option('--json', 'print the result as one JSON object')
    .action((opts: GcCliOptions) => {
      ctx.exitCode = runGc(opts, ctx);
    });
}

/** Text cells in columns; the last column is not padded. */
export function table(rows: string[][], right: ReadonlySet<number> = new Set()): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 && !right.has(i) ? c : right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

/** Control characters (newlines in a command) shown escaped, so a table row stays one line. */
export function printable(s: string, max = 80): string {
  const clean = s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function planJson(plan: GcPlan): Record<string, unknown> {
  return {
    quarantine: plan.quarantine,
    now: plan.now,
    policy: { maxAgeDays: plan.maxAgeDays, maxBytes: plan.maxBytes },
    restorableBytes: plan.restorableBytes,
    eligibleBytes: plan.eligibleBytes,
    eligible: plan.eligible.map((c) => ({ txid: c.txid, ts: c.ts, ageSeconds: c.ageMs === null ? null : Math.floor(c.ageMs / 1000), bytes: c.bytes, why: c.why, ...(c.regenerable ? { regenerable: true } : {}) })),
    unfinished: plan.unfinished,
    staging: plan.staging.map((c) => ({ txid: c.txid, path: c.path, bytes: c.bytes })),
    spares: plan.spares.length,
    corruptRecords: plan.corrupt,
  };
}

function policyLine(plan: GcPlan): string {
  return `policy: older than ${plan.maxAgeDays} days, or oldest first while restorable transactions exceed ${formatBytes(plan.maxBytes)} (restorable now: ${formatBytes(plan.restorableBytes)})`;
}

function rowsFor(plan: GcPlan, status?: (txid: string) => string): string {
  const head = ['TXID', 'AGE', 'SIZE', 'WHY', ...(status ? ['RESULT'] : [])];
  const rows = plan.eligible.map((c) => [c.txid, formatAge(c.ageMs), formatBytes(c.bytes), c.regenerable ? `${c.why} (regenerable)` : c.why, ...(status ? [status(c.txid)] : [])]);
  return table([head, ...rows], new Set([1, 2]));
}

export function runGc(opts: GcCliOptions, ctx: CommandContext): number {
  const { config, ws, place } = workspaceOf(ctx);
  // The workspace's quarantine, then each scratch zone's (docs/zones.md): the same policy for each.
  const zones = zonePlaces(ws, (w) => ctx.io.stderr(`warning: ${w}\n`));
  if (zones.length === 0) return gcOne(place, opts, ctx, config);
  if (!opts.json) {
    let code = gcOne(place, opts, ctx, config);
    for (const z of zones) {
      ctx.io.stdout(`\nscratch zone ${z.zone} ${z.root} (quarantine ${z.quarantine}):\n`);
      code = Math.max(code, gcOne(z, opts, ctx, config));
    }
    return code;
  }
  // JSON: one object, the workspace's result with the zones' results in `zones`.
  const collect = (q: QuarantinePlace): { code: number; json: Record<string, unknown> | null } => {
    let json: Record<string, unknown> | null = null;
    const code = gcOne(q, opts, { ...ctx, io: { ...ctx.io, stdout: (s: string) => void (json = JSON.parse(s) as Record<string, unknown>) } }, config);
    return { code, json };
  };
  const main = collect(place);
  const rest = zones.map((z) => ({ z, ...collect(z) }));
  if (main.json) ctx.io.stdout(JSON.stringify({ ...main.json, zones: rest.filter((r) => r.json).map((r) => ({ zone: r.z.zone, root: r.z.root, ...r.json })) }) + '\n');
  return Math.max(main.code, ...rest.map((r) => r.code));
}

/** gc of one quarantine, as the command prints it. */
function gcOne(place: QuarantinePlace, opts: GcCliOptions, ctx: CommandContext, config: Config): number {
  const maxAgeDays = count('--max-age-days', opts.maxAgeDays);
  const maxBytes = count('--max-bytes', opts.maxBytes);
  for (const bad of [maxAgeDays, maxBytes]) {
    if (typeof bad === 'string') {
      ctx.io.stderr(`agent-guard gc: ${bad}\n`);
      return EXIT.ERROR;
    }
  }
  let plan: GcPlan;
  try {
    plan = planGc(place, { ...(maxAgeDays !== undefined ? { maxAgeDays: maxAgeDays as number } : {}), ...(maxBytes !== undefined ? { maxBytes: maxBytes as number } : {}) });
  } catch (err) {
    ctx.io.stderr(`agent-guard gc: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
  if (!opts.execute) {
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, executed: false, ...planJson(plan) }) + '\n');
    else {
      const lines = [policyLine(plan)];
      if (plan.eligible.length === 0) lines.push('nothing to purge');
      else {
        lines.push(`dry run: ${plan.eligible.length} transaction(s), ${formatBytes(plan.eligibleBytes)} would be purged (nothing has been removed)`, rowsFor(plan));
      }
      if (plan.unfinished.length > 0) lines.push(`${plan.unfinished.length} purged transaction(s) still have files (${formatBytes(plan.unfinished.reduce((n, u) => n + u.bytes, 0))}); gc --execute removes them`);
      if (plan.staging.length > 0) lines.push(`${plan.staging.length} partial copy(ies) left by interrupted moves (${formatBytes(plan.staging.reduce((n, c) => n + c.bytes, 0))}); gc --execute removes them (the originals were never removed)`);
      if (plan.spares.length > 0) lines.push(`${plan.spares.length} empty spare director(ies) left by a stopped checker; gc --execute removes them`);
      if (plan.eligible.length > 0 || plan.unfinished.length > 0 || plan.staging.length > 0 || plan.spares.length > 0) lines.push('run `agent-guard gc --execute` to purge');
      ctx.io.stdout(lines.join('\n') + '\n');
    }
    if (plan.corrupt > 0 && !opts.json) ctx.io.stderr(`warning: ${plan.corrupt} unreadable manifest line(s) skipped\n`);
    return EXIT.OK;
  }
  let out: GcOutcome;
  try {
    out = executeGc(place, plan, { session: config.session, git: gitRunner(config.gitBinary, config.env) });
  } catch (err) {
    ctx.io.stderr(`agent-guard gc: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
  if (opts.json) {
    ctx.io.stdout(
      JSON.stringify({
        version: 1,
        executed: true,
        ...planJson(plan),
        purged: out.purged.map((c) => ({ txid: c.txid, bytes: c.bytes, why: c.why })),
        finished: out.finished,
        stagingRemoved: out.staging.map((c) => ({ txid: c.txid, path: c.path, bytes: c.bytes })),
        sparesRemoved: out.spares,
        failed: out.failed,
        freedBytes: out.freedBytes,
      }) + '\n',
    );
  } else {
    const done = new Set(out.purged.map((c) => c.txid));
    const lines = [policyLine(plan), `purged ${out.purged.length} transaction(s), ${formatBytes(out.freedBytes)} freed`];
    if (plan.eligible.length > 0) lines.push(rowsFor(plan, (txid) => (done.has(txid) ? 'purged' : 'FAILED')));
    if (out.finished.length > 0) lines.push(`finished the removal of ${out.finished.length} previously purged transaction(s)`);
    if (out.staging.length > 0) lines.push(`removed ${out.staging.length} partial copy(ies) left by interrupted moves`);
    if (out.spares > 0) lines.push(`removed ${out.spares} empty spare director(ies)`);
    ctx.io.stdout(lines.join('\n') + '\n');
    for (const f of out.failed) ctx.io.stderr(`agent-guard gc: ${f.txid}: ${f.error}\n`);
  }
  return out.failed.length > 0 ? EXIT.ERROR : EXIT.OK;
}
