// The exit-code contract of `agent-guard check --enforce` (docs/cli.md). Harnesses act on these.
import type { Decision } from './policy/reasons.js';

export const EXIT = {
  /** proceed (ALLOW, or a SAFE decision whose compensation was performed); advisory check done */
  OK: 0,
  /** usage or runtime error on a line that is not destructive */
  ERROR: 1,
  /** BLOCK: refuse, nothing runs */
  BLOCK: 2,
  /** ASK: a human must authorize this one execution */
  ASK: 3,
} as const;

export function exitForDecision(d: Decision): number {
  if (d === 'BLOCK') return EXIT.BLOCK;
  if (d === 'ASK') return EXIT.ASK;
  return EXIT.OK;
}
