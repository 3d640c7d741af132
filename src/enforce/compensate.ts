// `check --enforce`: perform the compensation a SAFE decision needs, then report ALLOW (policy code
// kept) so the caller runs the command; or refuse with a BLOCK when it cannot be done: relocation
// (RELOCATE_TREE/PATHS/NARROW), relocation of what `git clean -n` enumerated
// (RELOCATE_VIA_CLEAN_ENUMERATE; the probe did the enumeration), git snapshots (SNAPSHOT_GIT_STASH).
// An ALLOW_REGENERABLE op stays ALLOW, and its targets are relocated too when one rename does it (the
// quarantine on their filesystem), in a transaction marked regenerable; the rest is deleted by the
// command itself, as the reference decides (docs/rules.md, rule 13).
import type { Config } from '../config.js';
import { explain, type CheckResult, type Compensation, type OpResult } from '../engine.js';
import { gitRunner, isIgnoredPath } from '../probe/git.js';
import { auditPath, byFilesystem, ensureQuarantine, relocate } from '../recovery/quarantine.js';
import { inAnyQuarantine, relocateByPlace } from '../recovery/places.js';
import { appendRecord } from '../recovery/records.js';
import { redact } from '../recovery/redact.js';
import { snapshot } from '../recovery/snapshot.js';
import { display } from '../recovery/bpath.js';

const RELOCATING = new Set(['RELOCATE_TREE', 'RELOCATE_PATHS', 'RELOCATE_NARROW', 'RELOCATE_VIA_CLEAN_ENUMERATE', 'RELOCATE_SCRATCH', 'RELOCATE_GIT_LOCK']);

/** An op whose targets are relocated although its decision is ALLOW (rule 13). */
export const relocatesRegenerable = (o: Pick<OpResult, 'code'>): boolean => o.code === 'ALLOW_REGENERABLE';

/** Does this decision need `compensate` before the command runs? */
export function needsCompensation(r: CheckResult): boolean {
  return r.decision === 'RELOCATE' || r.decision === 'SNAPSHOT' || (r.decision === 'ALLOW' && r.ops.some(relocatesRegenerable));
}

/** The physical paths a compensation left for the command to delete itself (regenerable artifacts
 *  on another filesystem than the quarantine, or that could not be moved). */
export function leftToDelete(r: CheckResult): Set<string> {
  return new Set(r.compensations.flatMap((c) => (Array.isArray(c.direct) ? (c.direct as string[]) : [])));
}

export function compensate(r: CheckResult, command: string, config: Config): CheckResult {
  if (!needsCompensation(r)) return r;
  const needing = r.ops.map((o, op) => ({ o, op })).filter(({ o }) => o.decision === 'RELOCATE' || o.decision === 'SNAPSHOT' || relocatesRegenerable(o));
  const unsupported = needing.filter(({ o }) => !RELOCATING.has(o.code) && !relocatesRegenerable(o) && !(o.code === 'SNAPSHOT_GIT_STASH' && o.git && o.git.dir !== null && o.cwd !== null));
  if (unsupported.length > 0 || r.workspace === null) {
    // Refuse before moving anything: a half-compensated line must not run.
    return {
      ...r,
      decision: 'BLOCK',
      code: 'COMPENSATION_FAILED',
      explanation: explain('COMPENSATION_FAILED', `${unsupported.map(({ o }) => o.code).join(', ') || r.code} needs a compensation this build cannot perform yet`),
      compensations: needing.map(({ o, op }) => ({
        strategy: o.code === 'RELOCATE_VIA_CLEAN_ENUMERATE' ? 'clean-enumerate' : o.decision === 'SNAPSHOT' ? 'snapshot' : 'relocate',
        op,
        status: 'unavailable',
        policyCode: o.code,
      })),
    };
  }
  const place = { root: r.workspace.root, quarantine: r.workspace.quarantine };
  const git = gitRunner(config.gitBinary, config.env);
  const isIgnored = (dir: string): boolean => isIgnoredPath(git, place.root, dir);
  const compensations: Compensation[] = [];
  for (const { o, op } of needing) {
    if (o.code === 'SNAPSHOT_GIT_STASH') {
      // The subcommand and its arguments, when the argv spells them (not an alias): where the
      // command will leave HEAD is read from them.
      const at = 1 + o.git!.globals.length;
      const args = o.argv[at] === o.git!.subcommand ? o.argv.slice(at) : undefined;
      const snap = snapshot(place, git, { cwd: o.cwd!, globals: o.git!.globals, ...(args ? { args } : {}) }, { session: config.session, command: redact(command), cwd: config.cwd }, isIgnored);
      compensations.push({ strategy: 'snapshot', op, status: snap.status, txid: snap.txid, policyCode: o.code, stash: snap.stash, ...(snap.error ? { error: snap.error } : {}) });
      if (snap.error) {
        return { ...r, decision: 'BLOCK', code: 'COMPENSATION_FAILED', explanation: explain('COMPENSATION_FAILED', snap.error), compensations };
      }
      continue;
    }
    // Each target goes to its place: the workspace's quarantine, or its scratch zone's (one
    // transaction per quarantine).
    const targets = o.targets
      .filter((t) => t.role !== 'scope' && t.physical !== null && !inAnyQuarantine(r.workspace!, t.physical))
      .map((t) => ({ path: t.physicalB64 !== undefined ? Buffer.from(t.physicalB64, 'base64') : t.physical!, ...(t.zone !== undefined ? { zone: t.zone } : {}) }));
    if (relocatesRegenerable(o)) {
      // (rule 13's targets are inside the workspace: its quarantine, never a zone's)
      compensations.push(relocateRegenerable(place, targets.map((t) => t.path), op, { session: config.session, command: redact(command), cwd: config.cwd }, isIgnored));
      continue;
    }
    const results = relocateByPlace(r.workspace, targets, { session: config.session, command: redact(command), cwd: config.cwd }, isIgnored);
    for (const res of results) {
      const zone = res.place.zone ? { zone: res.place.zone, quarantine: res.place.quarantine } : {};
      compensations.push({
        strategy: o.code === 'RELOCATE_VIA_CLEAN_ENUMERATE' ? 'clean-enumerate' : 'relocate',
        op,
        status: res.status,
        txid: res.txid,
        policyCode: o.code,
        ...zone,
        moved: res.moved.map((m) => ({ origin: m.origin, dest: m.dest, type: m.type, via: m.via })),
        skipped: res.skipped,
        ...(res.failure ? { error: res.failure.message } : {}),
      });
    }
    const res = results[results.length - 1]!;
    if (res.failure) {
      const restorable = compensations.filter((c) => Array.isArray(c.moved) && c.moved.length > 0).map((c) => c.txid as string);
      return {
        ...r,
        decision: 'BLOCK',
        code: res.failure.code,
        explanation: explain(res.failure.code, res.failure.message + (restorable.length > 0 ? `; already moved, restorable: ${restorable.join(' ')}` : '; nothing was moved')),
        compensations,
      };
    }
  }
  const txids = compensations.filter((c) => typeof c.txid === 'string' && (c.strategy === 'snapshot' || (Array.isArray(c.moved) && c.moved.length > 0) || !c.regenerable)).map((c) => c.txid as string);
  const warnings = compensations.filter((c) => c.regenerable && c.status === 'failed').map((c) => `regenerable targets were not relocated (${String(c.error)}); the command deletes them directly`);
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
export function relocateRegenerable(
  place: { root: string; quarantine: string },
  targets: readonly (string | Buffer)[],
  op: number,
  ctx: { session: string | null; command: string; cwd: string },
  isIgnored: (dir: string) => boolean,
): Compensation {
  const { rename, other } = byFilesystem(place.quarantine, targets);
  const base = { strategy: 'relocate' as const, op, policyCode: 'ALLOW_REGENERABLE', regenerable: true };
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

/** Every enforced decision about a line that holds an operation of the vocabulary goes to the audit
 *  log, with its compensations' txids. Best effort: the manifest already holds what moved, so an
 *  audit failure is a warning, never a reason to lose or to allow anything. */
export function audit(r: CheckResult, command: string, config: Config, via?: Readonly<Record<string, string>>): CheckResult {
  if (!r.workspace) return r;
  const place = { root: r.workspace.root, quarantine: r.workspace.quarantine };
  try {
    const git = gitRunner(config.gitBinary, config.env);
    ensureQuarantine(place, (dir) => isIgnoredPath(git, place.root, dir));
    appendRecord(auditPath(place), {
      kind: 'decision',
      txid: (r.compensations.find((c) => typeof c.txid === 'string')?.txid as string | undefined) ?? null,
      session: config.session,
      decision: r.decision,
      code: r.code,
      command: redact(command),
      cwd: config.cwd,
      mode: r.mode,
      compensations: r.compensations.map((c) => ({ strategy: c.strategy, txid: c.txid ?? null, status: c.status, ...(c.zone ? { zone: c.zone, quarantine: c.quarantine } : {}) })),
      ...(r.authorizedBy ? { authorizedBy: r.authorizedBy } : {}),
      ...(r.grant ? { grant: r.grant.id } : {}),
      ...via,
    }, { sync: false }); // best effort, as the rest of the audit
    return r;
  } catch (err) {
    return { ...r, warnings: [...r.warnings, `the decision could not be audited: ${err instanceof Error ? err.message : String(err)}`] };
  }
}
