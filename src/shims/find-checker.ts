// The find shim's checker (docs/find-delete.md, docs/shims.md 4b): `find … -delete` is planned
// (find-plan.ts: which entries the real find would delete), those entries are decided as
// `rm -rf -- <entries>` would be and relocated as a `find-delete` compensation, and the real find
// runs again only where it must (what it could not delete, what is left for it). `-exec` of a
// deleting program reaches that program's shim by PATH; one named by its path does not.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { quoteArgv } from '../classifier/index.js';
import { isWithin } from '../classifier/paths.js';
import { leftToDelete, needsCompensation, type PlacedTarget } from '../enforce/index.js';
import { keptBy, notice } from '../notice.js';
import { physicalBytes, physicalOf } from '../probe/fs.js';
import { discoverWorkspace } from '../workspace.js';
import { parseFindArgs, planFindDelete } from './find-plan.js';
import { blockWith, decideArgv, enforceShim, exit, leftInQuarantine, refuse, run, type Directive, type ShimContext } from './directive.js';

const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'git', 'find']);

export function shimFind(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['find', ...args];
  // `-delete` as an action (not, say, the pattern of `-name -delete`): the planner's parser knows.
  const parsed = args.includes('-delete') ? parseFindArgs(args) : null;
  if (parsed && (parsed.ok || parsed.hasDelete)) return shimFindDelete(real, args, ctx);
  // -exec rm … reaches the rm shim by PATH; a program named by its path does not.
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
    const prog = args[i + 1] ?? '';
    if (prog.includes('/') && DELETERS.has(path.basename(prog))) {
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `${args[i]} ${prog} runs ${path.basename(prog)} by its path, past the guard: name it without a path (${path.basename(prog)}) so each call is checked`);
    }
  }
  return run;
}

function shimFindDelete(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['find', ...args];
  const q = discoverWorkspace(loadConfig(ctx.env, ctx.cwd)).quarantine;
  // find's enumeration never reaches into the quarantine. A starting point inside it is left out
  // (one line says so); below the others, every -delete is guarded (planFindDelete).
  let use = args.map((_, i) => i); // indexes into args of the argv find is planned with
  const parsed = parseFindArgs(args);
  if (parsed.ok && parsed.find.starts.length === 0) {
    // No starting point: find searches ".".
    const here = physicalOf(ctx.cwd, true);
    if (here !== q && isWithin(here, q)) {
      leftInQuarantine(ctx, 'find', ['.']);
      return exit(0);
    }
  } else if (parsed.ok) {
    const first = parsed.find.leading.length;
    const inside = parsed.find.starts
      .map((st, k) => ({ st, at: first + k, p: physicalOf(path.resolve(ctx.cwd, st), /\/\.?$/.test(st)) }))
      .filter(({ p }) => p !== q && isWithin(p, q));
    if (inside.length > 0) {
      leftInQuarantine(ctx, 'find', inside.map((x) => x.st));
      const drop = new Set(inside.map((x) => x.at));
      use = use.filter((i) => !drop.has(i));
      if (drop.size === parsed.find.starts.length) return exit(0);
    }
  }
  const planned = use.map((i) => args[i]!);
  const plan = planFindDelete(planned, { real, cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv, quarantine: q });
  if (!plan.ok) return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `find -delete: ${plan.reason}`);
  // The real find runs again only to report what it could not delete, or to delete what is left for
  // it (a regenerable artifact on another filesystem than the quarantine), without the starting
  // points that were moved whole: as a `keep` of the original argv, or — when its -delete had to be
  // guarded against the quarantine — run from here with the guarded expression.
  const finish = (direct: readonly Buffer[]): Directive => {
    if (!plan.rerun && direct.length === 0) return exit(0);
    const starts = plan.starts.filter((st, k) => !plan.startMoved[k] || direct.some((d) => d.equals(Buffer.from(st))));
    if (plan.starts.length > 0 && starts.length === 0) return exit(0); // find would default to "."
    const runArgs = [...plan.leading, ...starts, ...plan.expression];
    if (plan.guarded) {
      const child = process.getBuiltinModule('node:child_process').spawnSync(real, runArgs, { cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv, stdio: 'inherit', argv0: 'find' });
      return exit(child.status ?? 128 + (child.signal ? (process.getBuiltinModule('node:os').constants.signals[child.signal] ?? 0) : 0));
    }
    const indexes: number[] = [];
    let from = 0;
    for (const a of runArgs) {
      const at = planned.indexOf(a, from);
      if (at < 0) return blockWith(ctx, argv, 'BLOCK_INTERNAL_ERROR', 'find -delete: the rerun is not a part of the original argv');
      indexes.push(use[at]! + 1);
      from = at + 1;
    }
    return indexes.length === args.length ? run : { kind: 'keep', indexes };
  };
  // The quarantine itself, or what holds it, matched: find would fail on it (its content is never
  // deleted), but it is refused like rm -rf of it (rule 5). The starting point "." is skipped by find.
  const holders = plan.matches
    .filter((m) => !(m.length === 1 && m[0] === 0x2e))
    .map((m) => m.toString('utf8'))
    .filter((m) => !m.includes('\uFFFD') && isWithin(q, physicalOf(path.resolve(ctx.cwd, m), false)));
  if (plan.relocate.length === 0 && holders.length === 0) return finish([]);
  // The policy judges the concrete entries as `rm -rf -- <entries>` would be judged.
  const shown = plan.relocate.map((b) => b.toString('utf8'));
  const d = decideArgv(['rm', '-rf', '--', ...shown, ...holders], ctx, real);
  const { r } = d;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  // ALLOW other than a regenerable one: the real find deletes them itself.
  if (!needsCompensation(r) || !r.workspace) return finish(plan.relocate);
  // find prints paths below the starting points as it walked them (no links followed): relative ones
  // are placed under the physical cwd, which is where the policy's facts place them too.
  const cwd = Buffer.from(fs.realpathSync(ctx.cwd));
  // The zone the probe found for each entry (by its physical path; the i-th operand otherwise).
  const decided = r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope'));
  const exact: PlacedTarget[] = [];
  for (const [i, b] of plan.relocate.entries()) {
    let bytes: Buffer;
    try {
      // The directory physically (`./`, `..`, links in the starting point), the name as bytes.
      bytes = physicalBytes(b[0] === 0x2f ? b : Buffer.concat([cwd, Buffer.from('/'), b]));
    } catch (err) {
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `find -delete: the directory of ${b.toString('utf8')} cannot be resolved (${(err as Error).message})`);
    }
    const shownPath = bytes.toString('utf8');
    const zone = (decided.find((t) => t.physical === shownPath) ?? decided[i])?.zone;
    exact.push({ path: bytes, ...(zone !== undefined ? { zone } : {}) });
  }
  // Audited and recorded as the find command that ran.
  const findText = quoteArgv(argv);
  if (r.decision === 'ALLOW') {
    // Regenerable artifacts (rule 13, inside the workspace: its quarantine): relocated when one
    // rename does it, else find deletes them.
    const paths = exact.map((e) => e.path);
    const done = enforceShim(d, r, { steps: [{ kind: 'regenerable', op: 0, targets: paths }] }, findText);
    const left = leftToDelete(done);
    return finish(plan.relocate.filter((_, i) => left.has(paths[i]!.toString('utf8'))));
  }
  const done = enforceShim(d, r, { steps: [{ kind: 'relocate', op: 0, policyCode: r.code, strategy: 'find-delete', targets: exact }] }, findText);
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  return finish([]);
}
