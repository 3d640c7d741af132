// One decision for every entry point (check, the shims, the shell hooks): decide, narrowed by the
// session's stored mode, then — when enforcing — compensate and audit. An entry point differs only
// in how it reads its input and reports the result.
import type { Config } from '../config.js';
import { decide, type CheckResult } from '../engine.js';
import type { Mode } from '../policy/rules.js';
import { audit, compensate } from './compensate.js';
import { readMode } from '../recovery/mode.js';

export interface DecideLine {
  text: string;
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
  const extra = { ...(input.dialect !== undefined ? { dialect: input.dialect } : {}), ...(input.authorized ? { authorized: true } : {}), ...(input.cwdUnknown ? { cwdUnknown: true } : {}) };
  const session = input.config.session;
  return decide({ command: input.text, config: input.config, mode: input.mode, ...extra, storedMode: (place) => readMode(place, session) });
}

/** Performs what a SAFE decision needs and audits the outcome (`check --enforce`). `via` adds fields
 *  to the audit record that say which entry point asked (a runtime guard: `via`, `program`, `api`). */
export function enforce(r: CheckResult, text: string, config: Config, via?: Readonly<Record<string, string>>): CheckResult {
  let out = compensate(r, text, config);
  if (out.ops.length > 0 && out.workspace) out = audit(out, text, config, via);
  return out;
}
