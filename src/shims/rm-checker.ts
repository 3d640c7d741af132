// The rm family's shim checkers (docs/shims.md, 4b): rm, unlink, rmdir, shred. The argv is read with
// the classifier's own option reader (`readRm`), and each operand is matched to the target decided
// for it by its argv index (TargetSpec.arg), never by its text.
import fs from 'node:fs';
import path from 'node:path';
import { readRm, RM_SPECS, type RmArgs } from '../classifier/index.js';
import { OptionReader } from '../classifier/options.js';
import type { CheckResult } from '../engine.js';
import { leftToDelete, needsCompensation } from '../enforce/index.js';
import { keptBy, notice } from '../notice.js';
import { blockWith, decideArgv, enforceShim, exit, inQuarantine, leftInQuarantine, refuse, run, targetAt, type Directive, type ShimContext } from './directive.js';

/** Would the real rm remove this operand (given its flags)? Otherwise it stays for the real rm,
 *  which reports it exactly as it would have. */
function rmRemoves(abs: string, value: string, a: RmArgs): boolean {
  const base = path.basename(value.replace(/\/+$/, ''));
  if (base === '.' || base === '..' || value.replace(/\/+$/, '') === '') return false; // rm refuses these
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return false;
  if (st.isDirectory()) {
    if (a.recursive) return true;
    return a.dir && fs.readdirSync(abs).length === 0;
  }
  return true;
}

/** GNU rm's quoting of a name in messages, for the plain cases ('name'; "it's" with a quote). */
function rmQuote(p: string): string {
  return p.includes("'") ? `"${p}"` : `'${p}'`;
}

/** What `rm -v` prints for an entry it removes: children first, in directory order. */
function verboseLines(shown: string, dest: string, out: string[]): void {
  const st = fs.lstatSync(dest, { throwIfNoEntry: false });
  if (st?.isDirectory()) {
    for (const n of fs.readdirSync(dest)) verboseLines(`${shown.replace(/\/+$/, '')}/${n}`, path.join(dest, n), out);
    out.push(`removed directory ${rmQuote(shown)}`);
  } else out.push(`removed ${rmQuote(shown)}`);
}

/** The decision, restricted to the targets of the given arguments (argv indexes): what the real
 *  tool would remove. */
function restrictTo(r: CheckResult, args: ReadonlySet<number>): CheckResult {
  return { ...r, ops: r.ops.map((o) => ({ ...o, targets: o.targets.filter((t) => t.role === 'scope' || (t.physical !== null && t.arg !== undefined && args.has(t.arg))) })) };
}

export function shimRm(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['rm', ...args];
  const d = decideArgv(argv, ctx, real);
  const { r } = d;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const a = readRm(args);
  if (a.unknown) return run; // an option rm does not know (or --help): it removes nothing
  // Quarantined content the real rm would remove stays where it is (ALLOW_TRASH_GC is for paths
  // named in command text, which the text entry points see; here the argv may come from find/xargs).
  const kept = a.operands.filter((op) => inQuarantine(r, targetAt(r, op.i + 1)) && rmRemoves(path.resolve(ctx.cwd, op.value), op.value, a));
  const compensating = needsCompensation(r);
  if (!compensating && kept.length === 0) return run;
  leftInQuarantine(ctx, 'rm', kept.map((k) => k.value));
  const keptAt = new Set(kept.map((k) => k.i));
  // RELOCATE (and a regenerable ALLOW): each operand the real rm would remove is quarantined; the
  // rest stay for the real rm.
  const chosen: { i: number; value: string; physical: string }[] = [];
  for (const op of a.operands) {
    const physical = compensating ? targetAt(r, op.i + 1) : null;
    if (physical === null || keptAt.has(op.i)) continue;
    if (op.value.endsWith('/') && fs.lstatSync(path.resolve(ctx.cwd, op.value.replace(/\/+$/, '')), { throwIfNoEntry: false })?.isSymbolicLink()) {
      // `rm -r link/` acts on the directory behind the link: refused rather than guessed.
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `${op.value} is a symlink named with a trailing slash; name the link (no slash) or the directory itself`);
    }
    if (rmRemoves(path.resolve(ctx.cwd, op.value), op.value, a)) chosen.push({ ...op, physical });
  }
  if (chosen.length > 0 && a.interactive) {
    const yes = ctx.ask?.(`agent-guard: rm: move ${chosen.length} path(s) to the quarantine (restorable with agent-guard restore)? [y/N] `) ?? null;
    if (yes === null) return refuse(ctx, argv, { decision: 'ASK', code: r.code, explanation: 'rm -i asks about each file, and there is no terminal to ask: drop -i (what rm removes is quarantined and restorable).' });
    if (!yes) return exit(0);
  }
  // What the compensation left for rm itself (a regenerable artifact on another filesystem than the
  // quarantine) stays in its argv.
  let direct = new Set<string>();
  if (chosen.length > 0) {
    const done = enforceShim(d, restrictTo(r, new Set(chosen.map((c) => c.i + 1))));
    if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
    notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
    direct = leftToDelete(done);
    if (a.verbose) {
      const lines: string[] = [];
      const moved = done.compensations.flatMap((c) => ('moved' in c ? c.moved : []));
      for (const c of chosen) {
        const m = moved.find((x) => x.origin === c.physical);
        if (m) verboseLines(c.value, m.dest, lines);
      }
      if (lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
    }
  }
  const gone = new Set([...chosen.filter((c) => !direct.has(c.physical)).map((c) => c.i), ...keptAt]);
  const remaining = a.operands.filter((o) => !gone.has(o.i));
  if (remaining.length === 0) return exit(0);
  return { kind: 'keep', indexes: [...a.options, ...remaining.map((o) => o.i)].sort((x, y) => x - y).map((i) => i + 1) };
}

export function shimUnlink(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['unlink', ...args];
  const d = decideArgv(argv, ctx, real);
  const { r } = d;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  if (args.length !== 1 || args[0]!.startsWith('-')) return run;
  const st = fs.lstatSync(path.resolve(ctx.cwd, args[0]!), { throwIfNoEntry: false });
  if (!st || st.isDirectory()) return run; // the real unlink reports it
  if (inQuarantine(r, targetAt(r, 1))) {
    leftInQuarantine(ctx, 'unlink', args);
    return exit(0);
  }
  if (!needsCompensation(r)) return run;
  const done = enforceShim(d);
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  return leftToDelete(done).size > 0 ? run : exit(0);
}

/** The operands (0-based indexes into args) of rmdir or shred, read with their option tables. */
function operandsOf(program: 'rmdir' | 'shred', args: readonly string[]): number[] {
  const out: number[] = [];
  const reader = new OptionReader(args, RM_SPECS[program]!);
  for (let item = reader.next(); item !== null; item = reader.next()) if (item.kind === 'operand') out.push(item.word);
  return out;
}

/** Drops the operands that name quarantined content (it stays in place, with one line saying so);
 *  null when there are none. */
function dropQuarantined(program: string, args: readonly string[], operands: readonly number[], r: CheckResult, ctx: ShimContext, present: (abs: string) => boolean): Directive | null {
  const kept = operands.filter((i) => inQuarantine(r, targetAt(r, i + 1)) && present(path.resolve(ctx.cwd, args[i]!)));
  if (kept.length === 0) return null;
  leftInQuarantine(ctx, program, kept.map((i) => args[i]!));
  if (kept.length === operands.length) return exit(0);
  const drop = new Set(kept);
  return { kind: 'keep', indexes: args.map((_, i) => i).filter((i) => !drop.has(i)).map((i) => i + 1) };
}

/** rmdir removes only empty directories: nothing in them to keep. The policy still decides (a
 *  protected path, RESTRICTED mode), then the real rmdir runs as it is — without the directories
 *  inside the quarantine. */
export function shimRmdir(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['rmdir', ...args];
  const { r } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const isDir = (abs: string): boolean => fs.lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
  return dropQuarantined('rmdir', args, operandsOf('rmdir', args), r, ctx, isDir) ?? run;
}

/** shred overwrites files in place (and with -u removes them): a verified copy of each goes to the
 *  quarantine first (a `copy` compensation), then the real shred runs. */
export function shimShred(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['shred', ...args];
  const d = decideArgv(argv, ctx, real);
  const { r } = d;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const isFile = (abs: string): boolean => fs.lstatSync(abs, { throwIfNoEntry: false })?.isFile() === true;
  // Quarantined content is never overwritten: dropped from the argv; the rest is copied as usual.
  const dropped = dropQuarantined('shred', args, operandsOf('shred', args), r, ctx, isFile);
  if (dropped?.kind === 'exit') return dropped;
  if (!needsCompensation(r) || !r.workspace) return dropped ?? run;
  const targets = r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope' && t.physical !== null && t.type === 'file' && !inQuarantine(r, t.physical)).map((t) => ({ path: t.physical!, ...(t.zone !== undefined ? { zone: t.zone } : {}) })));
  if (targets.length === 0) return dropped ?? run;
  // A regenerable file (rule 13) is copied too: shred has no rename to offer, and a file is small.
  const done = enforceShim(d, r, { steps: [{ kind: 'copy', op: 0, policyCode: r.code, targets, regenerable: r.decision === 'ALLOW' }] });
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  return dropped ?? run;
}
