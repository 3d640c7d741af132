// `agent-guard restore list [--json]`, `agent-guard restore show <txid> [--json]` and
// `agent-guard restore <txid> [PATH…] [--force] [--json]`.
import path from 'node:path';
import { workspaceOf } from '../workspace.js';
import type { Command } from 'commander';
import { gitRunner } from '../probe/index.js';
import { physicalOf } from '../probe/fs.js';
import { listTransactions, restore, RestoreError, type Transaction } from '../recovery/restore.js';
import { showTransaction, type ShownTransaction } from '../recovery/show.js';
import { formatBytes } from '../recovery/gc.js';
import { printable, table } from './gc.js';
import { hasTransaction, zonePlaces } from '../recovery/places.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../context.js';

interface RestoreOptions {
  json?: boolean;
  force?: boolean;
}

export function configureRestore(program: Command, ctx: CommandContext): void {
  program
    .command('restore')
    .description('list quarantine transactions, show what one holds, or move it (or some of its paths) back to where it came from')
    .argument('<txid|list|show>', '"list"; "show" and a transaction id; or the transaction id to restore')
    .argument('[paths...]', 'with show: the transaction id; with a txid: restore only these paths (a directory: what is below it)')
    .option('--force', 'restore over what now exists at an origin (that is quarantined first, never deleted)')
    .option('--json', 'print the result as one JSON object')
    .action((target: string, paths: string[], opts: RestoreOptions) => {
      ctx.exitCode = runRestore(target, paths, opts, ctx);
    });
}

function showText(s: ShownTransaction): string {
  const lines = [`${s.txid}  ${s.state}  ${s.ts}${s.session ? `  session ${s.session}` : ''}`, `command: ${printable(s.command ?? '', 200)}`];
  if (s.snapshot) {
    const head = s.snapshot.before ? `; HEAD was ${s.snapshot.before.ref ? `${s.snapshot.before.ref.replace(/^refs\/heads\//, '')} at ` : ''}${s.snapshot.before.sha?.slice(0, 12) ?? 'unborn'}` : '';
    lines.push(s.snapshot.commit ? `snapshot ${s.snapshot.commit} (${s.snapshot.ref}) of ${s.snapshot.repo}${head}` : `snapshot of ${s.snapshot.repo}: there were no local changes to keep`);
  } else if (s.kind === 'relocate') lines.push(`quarantine: ${s.quarantine}`);
  if (s.items.length > 0) {
    const rows = s.items.map((i) => [i.type, i.bytes === null ? '-' : formatBytes(i.bytes), i.present ? '' : '(gone)', `${printable(i.path, 200)}${i.detail ? `  ${printable(i.detail, 80)}` : ''}`]);
    lines.push(table([['TYPE', 'SIZE', '', 'PATH'], ...rows], new Set([1])));
  }
  if (s.warning) lines.push(`warning: ${s.warning}`);
  return lines.join('\n') + '\n';
}

/** The text or JSON of a listing, kept with it: a listing the warm checker keeps (listTransactions'
 *  `shared`) is the same array until something changes, and is rendered once. */
const renderings = new WeakMap<Transaction[], { json?: string; text?: string }>();
function rendered(txs: Transaction[], kind: 'json' | 'text', render: () => string): string {
  let r = renderings.get(txs);
  if (!r) renderings.set(txs, (r = {}));
  return (r[kind] ??= render());
}

export function runRestore(target: string, args: string[], opts: RestoreOptions, ctx: CommandContext): number {
  const { config, ws, place } = workspaceOf(ctx);
  const git = gitRunner(config.gitBinary, config.env);
  // With --json the failure is also on stdout, with its code (a RestoreError's, or USAGE).
  const fail = (message: string, code = 'USAGE'): number => {
    ctx.io.stderr(`agent-guard restore: ${message}\n`);
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, error: message, code }) + '\n');
    return EXIT.ERROR;
  };
  try {
    // The scratch zones' quarantines too (docs/zones.md): a transaction is found wherever it lives.
    const zones = zonePlaces(ws, (w) => ctx.io.stderr(`warning: ${w}\n`));
    if (target === 'list') {
      if (args.length > 0) return fail('usage: agent-guard restore list [--json]');
      // The text shows each transaction's item count, not its items: the state alone is computed.
      const only = opts.json ? {} : { items: false };
      const { transactions, corrupt } = listTransactions(place, undefined, only);
      const inZones = zones.map((z) => ({ zone: z, ...listTransactions(z, undefined, only) }));
      if (opts.json) {
        // JSON.stringify of { version, quarantine, corruptRecords, transactions, zones? }, written out
        // so that a kept listing (the warm checker) is stringified once (rendered()).
        const txJson = (txs: Transaction[]): string => rendered(txs, 'json', () => JSON.stringify(txs));
        const head = (o: object): string => JSON.stringify(o).slice(0, -1); // without its closing brace
        const zoneJson = inZones.map(({ zone, transactions: txs, corrupt: c }) => `${head({ zone: zone.zone, root: zone.root, quarantine: zone.quarantine, corruptRecords: c })},"transactions":${txJson(txs)}}`);
        ctx.io.stdout(`${head({ version: 1, quarantine: ws.quarantine, corruptRecords: corrupt })},"transactions":${txJson(transactions)}${zoneJson.length > 0 ? `,"zones":[${zoneJson.join(',')}]` : ''}}\n`);
      } else {
        const rows = (txs: Transaction[]): string => rendered(txs, 'text', () => txs.map((t) => `\n${t.txid}  ${t.state.padEnd(10)}  ${String(t.itemCount).padStart(5)}  ${t.command ?? ''}`).join(''));
        let text = 'TXID                       STATE       ITEMS  COMMAND' + rows(transactions);
        for (const z of inZones) if (z.transactions.length > 0) text += `\n\nscratch zone ${z.zone.zone} ${z.zone.root} (quarantine ${z.zone.quarantine}):${rows(z.transactions)}`;
        ctx.io.stdout(text + '\n');
        const bad = corrupt + inZones.reduce((n, z) => n + z.corrupt, 0);
        if (bad > 0) ctx.io.stderr(`warning: ${bad} unreadable manifest line(s) skipped\n`);
      }
      return EXIT.OK;
    }
    const holder = (txid: string) => [place, ...zones].find((q) => hasTransaction(q, txid)) ?? place;
    if (target === 'show') {
      if (args.length !== 1) return fail('usage: agent-guard restore show <txid> [--json]');
      const shown = showTransaction(holder(args[0]!), args[0]!, git);
      ctx.io.stdout(opts.json ? JSON.stringify({ version: 1, ...shown }) + '\n' : showText(shown));
      return EXIT.OK;
    }
    // PATHs as the shell gave them, relative to the working directory; a symlink names itself.
    const paths = args.length > 0 ? args.map((p) => physicalOf(path.resolve(config.cwd, p), false)) : undefined;
    const out = restore(holder(target), target, { force: opts.force === true, session: config.session, git, ...(paths ? { paths } : {}) });
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, ...out }) + '\n');
    else {
      const lines = [`restored ${out.restored.length} path(s) from ${out.txid}`, ...out.restored.map((p) => `  restored ${p}`), ...out.skipped.map((s) => `  skipped  ${s.origin}: ${s.reason}`)];
      if (out.displaced) lines.push(`what stood at the origins was quarantined as ${out.displaced}`);
      ctx.io.stdout(lines.join('\n') + '\n');
    }
    return out.skipped.length > 0 && out.restored.length === 0 ? EXIT.ERROR : EXIT.OK;
  } catch (err) {
    if (!(err instanceof RestoreError)) throw err;
    return fail(err.message, err.code);
  }
}
