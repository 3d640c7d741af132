// Every rule's own hit and miss examples, decided in the fixture workspace: a hit must be decided
// by that rule, a miss by some other rule (or by none).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, type Example } from '../../src/policy/rules.js';
import { useFixture } from '../helpers/fixture.js';

const fixture = useFixture();

const norm = (e: string | Example): Example => (typeof e === 'string' ? { cmd: e } : e);
const label = (e: Example): string => e.cmd + (e.mode ? ` [${e.mode}]` : '') + (e.cwd ? ` (in ${e.cwd})` : '') + (e.env ? ` ${JSON.stringify(e.env)}` : '');
/** An example's environment, its relative paths taken from the fixture workspace. */
const envOf = (e: Example): Record<string, string> | undefined =>
  e.env ? Object.fromEntries(Object.entries(e.env).map(([k, v]) => [k, /^AGENT_GUARD_(TRASH|WORKSPACE)$/.test(k) ? path.resolve(fixture().ws, v) : v])) : undefined;
const opts = (e: Example) => ({ ...(e.mode ? { mode: e.mode } : {}), ...(e.cwd ? { cwd: e.cwd } : {}), ...(e.env ? { env: envOf(e)! } : {}) });

describe.each(RULES.map((r) => [r.id, r] as const))('rule %s', (_id, rule) => {
  it('has hit and miss examples', () => {
    expect(rule.examples.hit.length).toBeGreaterThan(0);
    expect(rule.examples.miss.length).toBeGreaterThan(0);
  });
  it.each(rule.examples.hit.map((e) => [label(norm(e)), norm(e)] as const))('hit: %s', (_l, e) => {
    const r = fixture().decide(e.cmd, opts(e));
    expect(r.decidingOp).not.toBeNull();
    const op = r.ops[r.decidingOp!]!;
    expect({ rule: op.rule, code: r.code }).toMatchObject({ rule: rule.id });
    if (rule.id !== '8') expect(op.code).toBe(rule.code);
  });
  it.each(rule.examples.miss.map((e) => [label(norm(e)), norm(e)] as const))('miss: %s', (_l, e) => {
    const r = fixture().decide(e.cmd, opts(e));
    expect(r.ops.map((o) => o.rule)).not.toContain(rule.id);
  });
});

describe('rule table', () => {
  it('has unique ids in the reference order', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(['1', '2', '2a', '2b', '2c', '3', '4', '5', '6', '7', '8', '8a', '8b', '9', '10', '11', '11a', '11b', '12a', '12', '12b', '13', '14', '15']);
  });
});
