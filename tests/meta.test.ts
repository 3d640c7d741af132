// Keeps the registry and the docs honest: every reason code documented, every documented code real,
// every rule in docs/rules.md, every code reachable from some rule or documented source.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASON_CODES, REASONS } from '../src/policy/reasons.js';
import { RULES } from '../src/policy/rules.js';

const doc = (name: string): string => fs.readFileSync(path.resolve(import.meta.dirname, '../docs', name), 'utf8');

describe('docs/reason-codes.md', () => {
  const headings = [...doc('reason-codes.md').matchAll(/^## (\S+)$/gm)].map((m) => m[1]);
  it('has one section per reason code, in the registry order', () => {
    expect(headings).toEqual(REASON_CODES);
  });
  it('states each code’s decision', () => {
    const text = doc('reason-codes.md');
    for (const code of REASON_CODES) {
      const section = text.split(`## ${code}\n`)[1]!.split('\n## ')[0]!;
      expect(section).toContain(`**${REASONS[code].decision}`);
    }
  });
  it('marks exactly the codes agent-guard added', () => {
    const text = doc('reason-codes.md');
    for (const code of REASON_CODES) {
      const section = text.split(`## ${code}\n`)[1]!.split('\n## ')[0]!;
      expect(section.includes('*(agent-guard)*'), code).toBe(REASONS[code].extension === true);
    }
  });
});

describe('every refusal says the next step', () => {
  it.each(REASON_CODES.filter((c) => REASONS[c].decision === 'BLOCK' || REASONS[c].decision === 'ASK'))('%s has a one-line remediation', (code) => {
    const r = REASONS[code].remediation;
    expect(r.trim().length).toBeGreaterThan(10);
    expect(r).not.toMatch(/\n/);
  });
});

describe('docs/rules.md', () => {
  it('lists every rule id with its code', () => {
    const text = doc('rules.md');
    for (const r of RULES) expect(text).toMatch(new RegExp(`^\\| ${r.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\|.*\`${r.code}\``, 'm'));
  });
});

describe('the rule table', () => {
  it('gives every policy code of the reference through some rule', () => {
    const fromRules = new Set(RULES.map((r) => r.code));
    fromRules.add('BLOCK_RESTRICTED_MODE'); // rule 8's refusal
    const elsewhere = new Set(['RELOCATE_FAILED_STORAGE', 'COMPENSATION_FAILED', 'BLOCK_DIALECT_UNKNOWN', 'BLOCK_DIALECT_INVALID', 'BLOCK_INTERNAL_ERROR', 'BLOCK_GUARD_TAMPERING']); // the last one: the text check (src/enforce/tamper.ts)
    for (const code of REASON_CODES) expect(fromRules.has(code) || elsewhere.has(code), code).toBe(true);
  });
});
