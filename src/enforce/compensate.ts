// What a SAFE decision needs before its command runs, as typed steps, and doing them with the
// recovery primitives. `planOf` derives the steps from a decision (relocation — RELOCATE_TREE/PATHS/
// NARROW/SCRATCH/GIT_LOCK, into the workspace's quarantine or a scratch zone's —, relocation of what
// `git clean -n` enumerated, rule 13's regenerable relocation, git snapshots); a shim that knows more
// from its concrete argv brings its own (`copy` for shred, `refs` for branch -D and stash drop, the
// find -delete plan). An ALLOW_REGENERABLE op stays ALLOW: what one rename moves goes to a transaction
// marked regenerable, the rest is deleted by the command itself (docs/rules.md, rule 13). A step that
// fails refuses the line (BLOCK); nothing is half-done silently.
import type { Config } from '../config.js';
import type { CheckResult, Compensation, OpResult, RelocateCompensation } from '../engine.js';
import { explain, type ReasonCode } from '../policy/reasons.js';
import { gitRunner, isIgnoredPath } from '../probe/git.js';
import { display } from '../recovery/bpath.js';
import { relocateByPlace, type PlacedTarget } from '../recovery/places.js';
import { byFilesystem, relocate, type RelocationContext, type RelocationResult } from '../recovery/quarantine.js';
import { redact } from '../recovery/redact.js';
import { recordRefs, snapshot, type DroppedRefs } from '../recovery/snapshot.js';
import { inAnyQuarantine, quarantinePlace, type QuarantinePlace } from '../workspace.js';

/** One compensation to perform. `op`: the index of the op it is for (null: a step for no op of the
 *  line, as the refs `git branch -D` drops). */
export type Step =
  /** Move the targets into their quarantines (one transaction per quarantine). */
  | { kind: 'relocate'; op: number | null; policyCode: ReasonCode; strategy: 'relocate' | 'clean-enumerate' | 'find-delete'; targets: PlacedTarget[] }
  /** Rule 13: what one rename moves, into the workspace's quarantine (a regenerable transaction);
   *  the rest is left for the command (RelocateCompensation.direct). Never refuses the line. */
  | { kind: 'regenerable'; op: number | null; targets: (string | Buffer)[] }
  /** Copy the targets into their quarantines, the origins left for the command (shred overwrites). */
  | { kind: 'copy'; op: number | null; policyCode: ReasonCode; targets: PlacedTarget[]; regenerable: boolean }
  /** A git snapshot of the local changes where the git command runs. */
  | { kind: 'snapshot'; op: number | null; policyCode: ReasonCode; cwd: string; globals: readonly string[]; args?: readonly string[] }
  /** Keep the commits of refs and stash entries the git command drops (in `place`'s quarantine). */
  | { kind: 'refs'; op: number | null; policyCode: ReasonCode; place: QuarantinePlace; cwd: string; globals: readonly string[]; dropped: DroppedRefs };

/** The codes whose compensation is a relocation. */
const RELOCATING = new Set<ReasonCode>(['RELOCATE_TREE', 'RELOCATE_PATHS', 'RELOCATE_NARROW', 'RELOCATE_VIA_CLEAN_ENUMERATE', 'RELOCATE_SCRATCH', 'RELOCATE_GIT_LOCK']);

/** An op whose targets are relocated although its decision is ALLOW (rule 13). */
export const relocatesRegenerable = (o: Pick<OpResult, 'code'>): boolean => o.code === 'ALLOW_REGENERABLE';

/** Does this decision need `compensate` before the command runs? */
export function needsCompensation(r: CheckResult): boolean {
  return r.decision === 'RELOCATE' || r.decision === 'SNAPSHOT' || (r.decision === 'ALLOW' && r.ops.some(relocatesRegenerable));
}

/** The physical paths a compensation left for the command to delete itself (regenerable artifacts
 *  on another filesystem than the quarantine, or that could not be moved). */
export function leftToDelete(r: CheckResult): Set<string> {
  return new Set(r.compensations.flatMap((c) => ('direct' in c && c.direct ? c.direct : [])));
}

/** The targets of a decision's op that a relocation moves: not a git op's scope, placed, not
 *  already in a quarantine; exact bytes where the name is not UTF-8. */
function relocatable(r: CheckResult, o: OpResult): PlacedTarget[] {
  return o.targets
    .filter((t) => t.role !== 'scope' && t.physical !== null && !inAnyQuarantine(r.workspace!, t.physical))
    .map((t) => ({ path: t.physicalB64 !== undefined ? Buffer.from(t.physicalB64, 'base64') : t.physical!, ...(t.zone !== undefined ? { zone: t.zone } : {}) }));
}

/** The steps a decision needs, in op order; or, when one of them is none this build performs (or
 *  there is no workspace to keep anything in), the compensations that are unavailable. */
export function planOf(r: CheckResult): { steps: Step[] } | { unavailable: Compensation[]; detail: string } {
  const needing = r.ops.map((o, op) => ({ o, op })).filter(({ o }) => o.decision === 'RELOCATE' || o.decision === 'SNAPSHOT' || relocatesRegenerable(o));
  const unsupported = needing.filter(({ o }) => !RELOCATING.has(o.code) && !relocatesRegenerable(o) && !(o.code === 'SNAPSHOT_GIT_STASH' && o.git && o.git.dir !== null && o.cwd !== null));
  if (unsupported.length > 0 || r.workspace === null) {
    return {
      detail: `${unsupported.map(({ o }) => o.code).join(', ') || r.code} needs a compensation this build cannot perform yet`,
      unavailable: needing.map(({ o, op }) => ({ strategy: o.code === 'RELOCATE_VIA_CLEAN_ENUMERATE' ? 'clean-enumerate' : o.decision === 'SNAPSHOT' ? 'snapshot' : 'relocate', op, status: 'unavailable', policyCode: o.code })),
    };
  }
  const steps = needing.map(({ o, op }): Step => {
    if (o.code === 'SNAPSHOT_GIT_STASH') {
      // The subcommand and its arguments, when the argv spells them (not an alias): where the
      // command will leave HEAD is read from them.
      const at = 1 + o.git!.globals.length;
      const args = o.argv[at] === o.git!.subcommand ? o.argv.slice(at) : undefined;
      return { kind: 'snapshot', op, policyCode: o.code, cwd: o.cwd!, globals: o.git!.globals, ...(args ? { args } : {}) };
    }
    // Rule 13's targets are inside the workspace: its quarantine, never a zone's.
    if (relocatesRegenerable(o)) return { kind: 'regenerable', op, targets: relocatable(r, o).map((t) => t.path) };
    // Each target goes to its place: the workspace's quarantine, or its scratch zone's.
    return { kind: 'relocate', op, policyCode: o.code, strategy: o.code === 'RELOCATE_VIA_CLEAN_ENUMERATE' ? 'clean-enumerate' : 'relocate', targets: relocatable(r, o) };
  });
  return { steps };
}

/** The compensations of one relocation (one per quarantine). */
function relocated(base: Pick<RelocateCompensation, 'strategy' | 'op' | 'policyCode'>, results: readonly (RelocationResult & { place: QuarantinePlace })[]): RelocateCompensation[] {
  return results.map((res) => ({
    ...base,
    status: res.status,
    txid: res.txid,
    ...(res.place.zone ? { zone: res.place.zone, quarantine: res.place.quarantine } : {}),
    moved: res.moved.map((m) => ({ origin: m.origin, dest: m.dest, type: m.type, via: m.via })),
    skipped: res.skipped,
    ...(res.failure ? { error: res.failure.message } : {}),
  }));
}

/** Performs what `r` needs (its own steps, `planOf`, or the `steps` given), in order, and stops at
 *  the first that fails: ALLOW with the compensations (their txids in the explanation), or BLOCK
 *  (COMPENSATION_FAILED, RELOCATE_FAILED_STORAGE) saying what was already kept. */
export function compensate(r: CheckResult, command: string, config: Config, given?: readonly Step[]): CheckResult {
  if (given === undefined && !needsCompensation(r)) return r;
  const planned = given === undefined ? planOf(r) : { steps: given };
  if ('unavailable' in planned) {
    // Refuse before moving anything: a half-compensated line must not run.
    return { ...r, decision: 'BLOCK', code: 'COMPENSATION_FAILED', explanation: explain('COMPENSATION_FAILED', planned.detail), compensations: planned.unavailable };
  }
  if (planned.steps.length === 0) return r;
  const git = gitRunner(config.gitBinary, config.env);
  const ignoredIn = (root: string) => (dir: string): boolean => isIgnoredPath(git, root, dir);
  const ctx: RelocationContext = { session: config.session, command: redact(command), cwd: config.cwd };
  const ws = r.workspace;
  const compensations: Compensation[] = [];
  const refuse = (code: ReasonCode, message: string): CheckResult => ({ ...r, decision: 'BLOCK', code, explanation: explain(code, message), compensations });
  for (const step of planned.steps) {
    if (ws === null && step.kind !== 'refs') return refuse('COMPENSATION_FAILED', `the ${step.kind} needs a workspace to keep what it moves in, and the line has none`);
    if (step.kind === 'snapshot') {
      const snap = snapshot(quarantinePlace(ws!), git, { cwd: step.cwd, globals: step.globals, ...(step.args ? { args: step.args } : {}) }, ctx, ignoredIn(ws!.root));
      compensations.push({ strategy: 'snapshot', op: step.op, status: snap.status, txid: snap.txid, policyCode: step.policyCode, stash: snap.stash, ...(snap.error ? { error: snap.error } : {}) });
      if (snap.error) return refuse('COMPENSATION_FAILED', snap.error);
      continue;
    }
    if (step.kind === 'refs') {
      const kept = recordRefs(step.place, git, { cwd: step.cwd, globals: step.globals }, ctx, ignoredIn(step.place.root), step.dropped);
      const refs = step.dropped.refs.map((x) => x.ref);
      compensations.push({ strategy: 'refs', op: step.op, status: kept.error ? 'failed' : 'done', txid: kept.txid, policyCode: step.policyCode, refs, stashes: step.dropped.stashes.length, ...(kept.error ? { error: kept.error } : {}) });
      if (kept.error) return refuse('COMPENSATION_FAILED', kept.error);
      continue;
    }
    if (step.kind === 'regenerable') {
      compensations.push(relocateRegenerable(quarantinePlace(ws!), step.targets, step.op, ctx, ignoredIn(ws!.root)));
      continue;
    }
    const copy = step.kind === 'copy';
    const results = relocateByPlace(ws!, step.targets, ctx, ignoredIn(ws!.root), copy ? { keepOrigin: true, regenerable: step.regenerable } : {});
    compensations.push(...relocated({ strategy: copy ? 'copy' : step.strategy, op: step.op, policyCode: step.policyCode }, results));
    const failure = results[results.length - 1]?.failure;
    if (failure) {
      const restorable = compensations.flatMap((c) => ('moved' in c && c.moved.length > 0 ? [c.txid!] : []));
      return refuse(failure.code, failure.message + (restorable.length > 0 ? `; already moved, restorable: ${restorable.join(' ')}` : '; nothing was moved'));
    }
  }
  const txids = compensations.flatMap((c) => (typeof c.txid === 'string' && (!('moved' in c) || c.moved.length > 0 || !('regenerable' in c)) ? [c.txid] : []));
  const warnings = compensations.flatMap((c) => ('regenerable' in c && c.status === 'failed' ? [`regenerable targets were not relocated (${String(c.error)}); the command deletes them directly`] : []));
  return {
    ...r,
    decision: 'ALLOW',
    explanation: txids.length > 0 ? `${r.explanation} Quarantined as ${txids.join(', ')}; undo with: agent-guard restore ${txids[0]}` : r.explanation,
    compensations,
    ...(warnings.length > 0 ? { warnings: [...r.warnings, ...warnings] } : {}),
  };
}

/** Rule 13's compensation: what one rename moves goes to a transaction marked regenerable (gc purges
 *  those first); what would need a copy across filesystems, and what a failed relocation did not
 *  move, is left for the command to delete directly — the reference's decision for an artifact. */
export function relocateRegenerable(place: QuarantinePlace, targets: readonly (string | Buffer)[], op: number | null, ctx: RelocationContext, isIgnored: (dir: string) => boolean): RelocateCompensation {
  const { rename, other } = byFilesystem(place.quarantine, targets);
  const base = { strategy: 'relocate' as const, op, policyCode: 'ALLOW_REGENERABLE' as const, regenerable: true as const };
  if (rename.length === 0) return { ...base, status: 'direct', txid: null, moved: [], skipped: [], direct: other.map(display) };
  const res = relocate(place, rename, ctx, isIgnored, { regenerable: true });
  const moved = new Set(res.moved.map((m) => m.origin));
  const skipped = new Set(res.skipped.map((m) => m.origin));
  const unmoved = res.failure ? rename.filter((t) => !moved.has(display(t)) && !skipped.has(display(t))) : [];
  return {
    ...base,
    status: res.status,
    txid: res.txid,
    moved: res.moved.map((m) => ({ origin: m.origin, dest: m.dest, type: m.type, via: m.via })),
    skipped: res.skipped,
    direct: [...other, ...unmoved].map(display),
    ...(res.failure ? { error: res.failure.message } : {}),
  };
}
