// The enforcement wing: one decision for every entry point (check, the shims and the warm checker,
// the shell hooks, the harness adapters, the MCP tools, the runtime guards, `delete`): decide,
// narrowed by the session's stored mode, then — when enforcing — compensate and audit. An entry
// point differs only in how it reads its input and reports the result. compensate.ts holds the typed
// compensation steps, audit.ts the audit log, text.ts the check of a command text (hooks, harnesses).
import type { Config } from '../config.js';
import { decide, type CheckResult } from '../engine.js';
import type { Mode } from '../policy/reasons.js';
import { quarantinePlace, type QuarantinePlace } from '../workspace.js';
import { audit, type Via } from './audit.js';
import { compensate, type Step } from './compensate.js';

export { leftToDelete, needsCompensation, planOf, relocatesRegenerable, type Step } from './compensate.js';
export type { Via } from './audit.js';
export type { PlacedTarget } from '../recovery/places.js';
export type { DroppedRefs } from '../recovery/snapshot.js';
/** For the warm checker: the best-effort records of a call written after it has answered. */
export { deferringRecords } from '../recovery/records.js';

export interface DecideLine {
  text: string;
  /** A concrete argv (a PATH shim's), classified as it is; `text` is its quoted form, for the records. */
  argv?: readonly string[];
  config: Config;
  mode: Mode;
  /** A dialect selector as given (a flag, a payload field): validated by decide. */
  dialect?: unknown;
  /** A human authorized this one execution (src/grants/settle.ts): the shape rules are skipped. */
  authorized?: boolean;
  /** The directory the text runs in is not known (engine DecideInput.cwdUnknown). */
  cwdUnknown?: boolean;
}

/** decide(), with the session's stored mode: it can only narrow the given mode, never widen it. The
 *  engine reads it once it knows the workspace, before probing, so the line is classified and probed
 *  once; a line without operations pays no workspace lookup. */
export function decideLine(input: DecideLine): CheckResult {
  return decide({
    command: input.text,
    ...(input.argv !== undefined ? { argv: input.argv } : {}),
    config: input.config,
    mode: input.mode,
    ...(input.dialect !== undefined ? { dialect: input.dialect } : {}),
    ...(input.authorized ? { authorized: true } : {}),
    ...(input.cwdUnknown ? { cwdUnknown: true } : {}),
    sessionMode: true,
  });
}

export interface EnforceOptions {
  /** Which entry point asked, for the audit record (src/enforce/audit.ts). */
  via?: Via;
  /** The steps to perform instead of the decision's own (a shim that knows more from its argv). */
  steps?: readonly Step[];
}

/** Performs what the decision needs (compensate.ts) and audits the outcome. A line with no op is
 *  audited only when a step kept something (the refs of `git branch -D`): in the workspace's
 *  quarantine, or in that step's. */
export function enforce(r: CheckResult, text: string, config: Config, opts: EnforceOptions = {}): CheckResult {
  const out = compensate(r, text, config, opts.steps);
  const place: QuarantinePlace | undefined = out.workspace ? quarantinePlace(out.workspace) : opts.steps?.flatMap((s) => (s.kind === 'refs' ? [s.place] : []))[0];
  if (place === undefined || (out.ops.length === 0 && out.compensations.length === 0)) return out;
  return audit(out, place, text, config, opts.via);
}
