// The validity property the fuzz tests share: a decision's result is well-formed and consistent with
// itself (codes and decisions agree, the line takes its most restrictive op, JSON round-trips).
import { SCHEMA_VERSION, type CheckResult } from '../../src/engine.js';
import { REASONS, REASON_CODES, type Decision } from '../../src/policy/reasons.js';

export const DECISIONS: readonly Decision[] = ['ALLOW', 'RELOCATE', 'SNAPSHOT', 'ASK', 'BLOCK'];
export const RANK: Record<Decision, number> = { ALLOW: 0, RELOCATE: 1, SNAPSHOT: 2, ASK: 3, BLOCK: 4 };
const CODES = new Set<string>(REASON_CODES);

export function errText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 200) : String(e).slice(0, 200);
}

/** Everything wrong with a decision's result, pushed to `problems` (kind before the first ':'). */
export function validate(r: CheckResult, problems: string[], dialect: string = 'posix'): void {
  const bad = (s: string): void => {
    problems.push(`invalid: ${s}`);
  };
  if (r.version !== SCHEMA_VERSION) bad(`version ${String(r.version)}`);
  if (r.dialect !== dialect) bad(`dialect ${String(r.dialect)}`);
  if (!Array.isArray(r.warnings) || !Array.isArray(r.compensations)) bad('warnings or compensations is not an array');
  if (!DECISIONS.includes(r.decision)) bad(`decision ${String(r.decision)}`);
  if (!CODES.has(r.code)) bad(`code ${String(r.code)}`);
  else if (REASONS[r.code].decision !== r.decision) bad(`line ${r.code} is ${REASONS[r.code].decision}, decision says ${r.decision}`);
  if (typeof r.explanation !== 'string' || r.explanation.trim() === '') bad('empty explanation');
  if (!Array.isArray(r.ops)) {
    bad('ops is not an array');
    return;
  }
  r.ops.forEach((op, i) => {
    if (!DECISIONS.includes(op.decision)) bad(`op ${i} decision ${String(op.decision)}`);
    if (!CODES.has(op.code)) bad(`op ${i} code ${String(op.code)}`);
    else if (REASONS[op.code].decision !== op.decision) bad(`op ${i} ${op.code} is ${REASONS[op.code].decision}, op says ${op.decision}`);
    if (typeof op.rule !== 'string' || op.rule === '') bad(`op ${i} has no rule`);
    if (typeof op.program !== 'string') bad(`op ${i} has no program`);
  });
  if (r.code === 'BLOCK_INTERNAL_ERROR') {
    problems.push(`internal-error: ${r.error ?? r.explanation}`.slice(0, 200));
  } else if (r.ops.length === 0) {
    if (r.code !== 'ALLOW_NOOP') bad(`no ops but ${r.code}`);
    if (r.decidingOp !== null) bad('no ops but a deciding op');
  } else {
    const max = r.ops.reduce((m, o) => Math.max(m, RANK[o.decision] ?? -1), -1);
    if (RANK[r.decision] !== max) bad(`line ${r.decision} is not the most restrictive op decision (${DECISIONS[max]})`);
    const d = r.decidingOp;
    if (d === null || !Number.isInteger(d) || d < 0 || d >= r.ops.length) bad(`decidingOp ${String(d)}`);
    else if (r.ops[d]!.decision !== r.decision || r.ops[d]!.code !== r.code) bad('the deciding op does not carry the line decision');
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(r);
  } catch (e) {
    bad(`JSON.stringify threw ${errText(e)}`);
  }
  if (json !== undefined) {
    const back = JSON.parse(json) as unknown;
    if (JSON.stringify(back) !== json) bad('JSON does not round-trip');
    // A value JSON cannot hold (undefined in an array, NaN, a function, a Buffer) changes on the trip.
    if (!sameJson(back, r)) bad('JSON round trip changes the result');
  }
}

/** Deep equality of a parsed JSON value with the original (undefined object properties ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof b === 'number') return Number.isFinite(b) ? a === b : a === null;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(b)) return Array.isArray(a) && a.length === b.length && b.every((x, i) => sameJson(a[i], x));
  if (Buffer.isBuffer(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return keys.length === Object.keys(ao).length && keys.every((k) => sameJson(ao[k], bo[k]));
}

