// Conformance of cmd and PowerShell text (cases.ts DIALECT_CASES): through check (--dialect) and
// every harness adapter (the payload's `dialect`). The shell hooks read only POSIX text, so they are
// not entry points for it; nor are the shims (a cmdlet or a cmd builtin is no process they see), so
// with the shims first on PATH the adapters still decide and compensate themselves. Each case runs
// in one sandbox (conformance.ts).
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed } from '../helpers/sandbox.js';
import { DIALECT_CASES, gone, show, TEXT_ENTRY_POINTS } from './cases.js';
import { applied, Batch, conformance, seen } from './conformance.js';

const cf = conformance('ag-conformance-dialects');

describeSandboxed('conformance of cmd and PowerShell text', () => {
  const canary = cf.useCanary();

  DIALECT_CASES.forEach((c, i) => {
    itSandboxed(`[${c.dialect}] ${c.cmd}: ${show(c.expect)} through ${TEXT_ENTRY_POINTS.join(', ')}, with and without the shims`, () => {
      const b = new Batch();
      const probes = [false, true].flatMap((withShims) =>
        TEXT_ENTRY_POINTS.map((entry, j) => {
          const name = `d${i}-e${j}${withShims ? '-s' : ''}`;
          const env = withShims ? cf.withShims(path.join(cf.rw(), name)) : cf.base(name);
          return { withShims, p: b.probe(entry, c, cf.world(name, c), env) };
        }),
      );
      const results = cf.run(b);
      for (const { withShims, p } of probes) {
        const { entry } = p;
        const { before, outcome, after } = seen(results, p, c);
        expect({ entry, withShims, outcome }).toEqual({ entry, withShims, outcome: c.expect });
        const compensates = entry !== 'check' && c.expect.kind === 'run' && c.effect !== undefined;
        expect({ entry, withShims, state: after.state }).toEqual({ entry, withShims, state: compensates ? applied(before.state, gone(...c.effect!.moved)) : before.state });
      }
    }, 180_000);
  });

  it('the canary outside every workspace survived every case', () => {
    expect(canary.intact()).toBe(true);
  });
});
