// Evaluation: the first rule that matches decides an op; a line takes the most restrictive op.
import type { ProbedOp } from '../probe/index.js';
import { REASONS, SEVERITY, type Decision, type ReasonCode } from './reasons.js';
import { RULES, type PolicyContext, type Rule } from './rules.js';

export interface Verdict {
  decision: Decision;
  code: ReasonCode;
  /** The id of the rule that decided (`fallback` when none did: a BLOCK). */
  rule: string;
  detail: string;
}

function fromRule(rule: Rule, code: ReasonCode, detail: string): Verdict {
  return { decision: REASONS[code].decision, code, rule: rule.id, detail };
}

/** Runs the rules from `start` on; null when none matches. */
function firstMatch(p: ProbedOp, ctx: PolicyContext, start: number, skipShapes: boolean): Verdict | null {
  for (let i = start; i < RULES.length; i++) {
    const rule = RULES[i]!;
    if (skipShapes && rule.shape) continue;
    const hit = rule.when(p, ctx);
    if (!hit) continue;
    if (rule.shape) {
      // A shape rule describes compensation difficulty, never effect scope: a BLOCK from any later
      // rule (2c, 4, 5, 6, RESTRICTED, force push, …) wins over its ASK.
      const later = firstMatch(p, ctx, i + 1, true);
      if (later && later.decision === 'BLOCK') return later;
      // RESTRICTED mode never asks: when no later rule refuses first (rule 3 allows housekeeping in
      // the quarantine), rule 7 refuses the shape.
      if (ctx.mode === 'RESTRICTED') {
        const restricted = RULES.find((r) => r.id === '7')!;
        const hit7 = restricted.when(p, ctx);
        if (hit7) return fromRule(restricted, hit7.code ?? restricted.code, hit7.detail);
      }
    }
    return fromRule(rule, hit.code ?? rule.code, hit.detail);
  }
  return null;
}

export function evaluateOp(p: ProbedOp, ctx: PolicyContext): Verdict {
  return (
    firstMatch(p, ctx, 0, ctx.authorized === true) ?? {
      decision: 'BLOCK',
      code: 'BLOCK_UNDETERMINABLE_EFFECT',
      rule: 'fallback',
      detail: `no rule decides ${p.op.kind}: refused (fail closed)`,
    }
  );
}

/** The rule (by id) an op's verdict came from, for tests and `explain`. */
export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** The most restrictive verdict of a line (the first op wins a tie); null for no ops. */
export function combine(verdicts: readonly Verdict[]): { verdict: Verdict; index: number } | null {
  let best: { verdict: Verdict; index: number } | null = null;
  verdicts.forEach((v, index) => {
    if (!best || SEVERITY[v.decision] > SEVERITY[best.verdict.decision]) best = { verdict: v, index };
  });
  return best;
}
