// `agent-guard delete PATH... [--reason TEXT] [--json]`: the explicit safe delete. Patterns are
// expanded here (enumerate-then-act), every concrete path is decided by the same policy as
// `rm -rf -- PATH...` (with the session's mode), and what may go is relocated under one txid per
// quarantine through the enforcement wing (audited, `via: delete`) — never deleted outright, not
// even a regenerable artifact.
import path from 'node:path';
import type { Command } from 'commander';
import { quoteArgv } from '../classifier/index.js';
import { decideLine, enforce } from '../enforce/index.js';
import type { MovedEntry, RelocateCompensation } from '../engine.js';
import { physicalBytes, physicalOf } from '../probe/fs.js';
import { isWithin } from '../classifier/paths.js';
import { expandGlob } from '../recovery/glob.js';
import { workspaceOf } from '../workspace.js';
import { EXIT } from '../exit-codes.js';
import type { CommandContext } from '../context.js';

interface DeleteOptions {
  reason?: string;
  json?: boolean;
}

export function configureDelete(program: Command, ctx: CommandContext): void {
  program
    .command('delete')
    .description('move paths to the quarantine (restorable); patterns are expanded first, each path is checked')
    .argument('<paths...>', 'paths or patterns (*, ?, [...])')
    .option('--reason <text>', 'why (recorded with the transaction)')
    .option('--json', 'print the result as one JSON object')
    .action((paths: string[], opts: DeleteOptions) => {
      ctx.exitCode = runDelete(paths, opts, ctx);
    });
}

/** The exact bytes of a path whose display form is lossy: its physical directory plus its own name
 *  as bytes (a name that is not UTF-8 cannot be resolved through the display form). */
function exactIn(physicalShown: string, abs: Buffer): Buffer {
  try {
    return physicalBytes(abs);
  } catch {
    return Buffer.from(physicalShown);
  }
}

/** Is `p` (as named, relative to cwd) inside the quarantine `q` (not `q` itself)? Judged physically,
 *  as the policy would place it: the entry itself, or what a trailing slash leads to. */
function insideQuarantine(q: string, cwd: string, p: string): boolean {
  const at = physicalOf(path.posix.resolve(cwd, p), /\/\.?$/.test(p));
  return at !== q && isWithin(at, q);
}

export function runDelete(patterns: string[], opts: DeleteOptions, ctx: CommandContext): number {
  const { config, place } = workspaceOf(ctx, { allowRegenerable: false });
  // What the quarantine holds is never moved again (into a transaction inside itself): a pattern's
  // matches there, and paths named there, are left in place.
  const all = patterns.map((p) => expandGlob(p, config.cwd));
  const held = [...new Set(all.flat().filter((e) => insideQuarantine(place.quarantine, config.cwd, e.path)).map((e) => e.path))];
  const expanded = all.map((list) => list.filter((e) => !insideQuarantine(place.quarantine, config.cwd, e.path)));
  if (held.length > 0) ctx.io.stderr(`agent-guard delete: ${held.length === 1 ? JSON.stringify(held[0]) : `${held.length} paths (${JSON.stringify(held[0])}, …)`} ${held.length === 1 ? 'is' : 'are'} in the quarantine: left in place (agent-guard gc purges the quarantine)\n`);
  const unmatched = patterns.filter((_, i) => expanded[i]!.length === 0);
  const paths = [...new Set(expanded.flat().map((e) => e.path))];
  // Names that are not UTF-8: the policy judges the display form, the relocation moves the bytes.
  // Two names that read the same would be one path to the policy: refused rather than guessed.
  const exact = new Map<string, Buffer>();
  for (const e of expanded.flat()) {
    const key = path.posix.resolve(config.cwd, e.path);
    const prev = exact.get(key);
    const abs = e.bytes[0] === 0x2f ? e.bytes : Buffer.concat([Buffer.from(config.cwd.endsWith('/') ? config.cwd : `${config.cwd}/`), e.bytes]);
    if (prev && !prev.equals(abs)) {
      ctx.io.stderr(`agent-guard delete: two names read as ${JSON.stringify(e.path)} (bytes that are not UTF-8); nothing was moved — rename them first\n`);
      return EXIT.ERROR;
    }
    exact.set(key, abs);
  }
  const out = (o: object, text: string): void => ctx.io[opts.json ? 'stdout' : 'stderr'](opts.json ? JSON.stringify({ version: 1, ...o }) + '\n' : text + '\n');
  if (unmatched.length > 0) {
    out({ error: 'no match', patterns: unmatched }, `agent-guard delete: no match for ${unmatched.join(' ')}; nothing was moved`);
    return EXIT.ERROR;
  }
  const argv = ['rm', '-rf', '--', ...paths];
  const r = decideLine({ text: quoteArgv(argv), argv, config, mode: 'NORMAL', dialect: 'posix' });
  if (r.decision !== 'RELOCATE') {
    out({ decision: r.decision, code: r.code, explanation: r.explanation, paths }, `${r.decision} ${r.code}: ${r.explanation}`);
    // BLOCK: refused. Anything else (the quarantine's own content, nothing to do) is not a safe delete.
    return r.decision === 'BLOCK' ? EXIT.BLOCK : EXIT.ERROR;
  }
  const targets = r.ops.flatMap((o) =>
    o.targets
      .filter((t) => t.role !== 'scope' && t.physical !== null)
      .map((t) => {
        const bytes = t.path !== null ? exact.get(t.path) : undefined;
        const zone = t.zone !== undefined ? { zone: t.zone } : {};
        // A display form with a replacement character names no file: move the exact bytes (their
        // directory resolved physically, as the policy's facts were).
        if (bytes && t.physical!.includes('\uFFFD') && !Buffer.from(t.physical!).equals(bytes)) return { path: exactIn(t.physical!, bytes), ...zone };
        return { path: t.physical!, ...zone };
      }),
  );
  // Scratch-zone targets go to their zone's quarantine: one transaction per quarantine.
  const text = `agent-guard delete ${quoteArgv(patterns)}${opts.reason ? ` # ${opts.reason}` : ''}`;
  const done = enforce(r, text, config, { steps: [{ kind: 'relocate', op: 0, policyCode: r.code, strategy: 'relocate', targets }], via: { via: 'delete' } });
  const results = done.compensations.filter((c): c is RelocateCompensation => c.strategy === 'relocate');
  const txids = results.map((x) => x.txid!);
  const moved: MovedEntry[] = results.flatMap((x) => x.moved);
  if (done.decision === 'BLOCK') {
    out({ decision: 'BLOCK', code: done.code, explanation: done.explanation, txid: txids[txids.length - 1], moved }, `BLOCK ${done.code}: ${done.explanation}`);
    return EXIT.BLOCK;
  }
  const zones = results.filter((x) => x.zone).map((x) => ({ txid: x.txid, zone: x.zone, quarantine: x.quarantine }));
  if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, decision: 'RELOCATE', code: r.code, txid: txids[0], ...(txids.length > 1 ? { txids } : {}), ...(zones.length > 0 ? { zones } : {}), moved, skipped: results.flatMap((x) => x.skipped) }) + '\n');
  else ctx.io.stdout(`moved ${moved.length} path(s) to the quarantine as ${txids.join(', ')}; undo with: agent-guard restore ${txids.join(' && agent-guard restore ')}\n`);
  return EXIT.OK;
}
