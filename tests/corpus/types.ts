import type { Decision, ReasonCode } from '../../src/policy/reasons.js';
import type { Mode } from '../../src/policy/rules.js';

/** One whole-command case, decided in the fixture workspace (tests/helpers/fixture.ts). */
export interface Case {
  cmd: string;
  expect: Decision;
  code: ReasonCode;
  /** Relative to the fixture workspace. */
  cwd?: string;
  mode?: Mode;
  env?: Record<string, string>;
  note?: string;
}
