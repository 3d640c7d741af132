// The peer-style corpora through `check`'s decision (the engine, in the fixture workspace): how many
// destructive lines are caught (a decision other than ALLOW, or an ALLOW whose targets are relocated
// too: rule 13) and how many benign lines still run (not BLOCK or ASK). Issue 15's acceptance: ≥ 95%
// caught, ≥ 99% not refused (issue 14). The rates, per category, and every line on the wrong side
// are printed; docs/classifier.md lists and explains them.
import { expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { DESTRUCTIVE } from '../corpus/peer-destructive.js';
import { BENIGN } from '../corpus/peer-benign.js';
import type { CheckResult } from '../../src/engine.js';

const fixture = useFixture();

interface Rate {
  total: number;
  good: number;
  wrong: string[];
}

function rate(sets: Readonly<Record<string, readonly string[]>>, good: (r: CheckResult) => boolean): { all: Rate; by: Record<string, Rate> } {
  const all: Rate = { total: 0, good: 0, wrong: [] };
  const by: Record<string, Rate> = {};
  for (const [name, lines] of Object.entries(sets)) {
    const r: Rate = (by[name] = { total: 0, good: 0, wrong: [] });
    for (const line of lines) {
      const d = fixture().decide(line);
      r.total++;
      if (good(d)) r.good++;
      else r.wrong.push(`${JSON.stringify(line)} -> ${d.decision} ${d.code}`);
    }
    all.total += r.total;
    all.good += r.good;
    all.wrong.push(...r.wrong);
  }
  return { all, by };
}

const pct = (r: Rate): string => `${r.good}/${r.total} (${((100 * r.good) / r.total).toFixed(1)}%)`;

function report(title: string, res: { all: Rate; by: Record<string, Rate> }, wrong: string): void {
  const lines = [`${title}: ${pct(res.all)}`, ...Object.entries(res.by).map(([k, r]) => `  ${k}: ${pct(r)}`), `${wrong}:`, ...res.all.wrong.map((w) => `  ${w}`)];
  console.log(lines.join('\n'));
}

it('destructive lines: at least 95% caught by check', () => {
  const res = rate(DESTRUCTIVE, (d) => d.decision !== 'ALLOW' || d.ops.some((o) => o.code === 'ALLOW_REGENERABLE'));
  report('destructive caught', res, 'allowed');
  expect(res.all.total).toBeGreaterThanOrEqual(300);
  expect(res.all.good / res.all.total).toBeGreaterThanOrEqual(0.95);
});

it('benign lines: at least 99% not refused by check', () => {
  const res = rate(BENIGN, (d) => d.decision !== 'BLOCK' && d.decision !== 'ASK');
  report('benign not refused', res, 'refused');
  expect(res.all.total).toBeGreaterThanOrEqual(300);
  expect(res.all.good / res.all.total).toBeGreaterThanOrEqual(0.99);
});
