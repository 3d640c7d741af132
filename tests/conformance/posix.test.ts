// Conformance: the same cases (command + cwd + workspace state, cases.ts) through every entry point
// — `check`, each harness adapter, the bash and zsh hooks' checker (`hook-shell`) — and the same
// outcome from each: run (ALLOW, or a SAFE decision whose compensation was done), ask with the
// code, or block with the code. A new entry point joins by being added to ENTRY_POINTS; the harness
// list is checked against the adapters' own. With the shims first on PATH: shims.test.ts; cmd and
// PowerShell text: dialects.test.ts. Each case runs in one sandbox (conformance.ts).
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed } from '../helpers/sandbox.js';
import { HARNESSES } from '../../src/harness/adapter.js';
import { SHELLS } from '../../src/commands/shell-init.js';
import { CASES, ENTRY_POINTS, gone, show } from './cases.js';
import { applied, Batch, conformance, seen } from './conformance.js';

const cf = conformance('ag-conformance-posix');

it('every harness the adapters know and every shell the hooks support is an entry point of this suite', () => {
  for (const h of HARNESSES) expect(ENTRY_POINTS).toContain(`hook ${h}`);
  for (const sh of SHELLS) expect(ENTRY_POINTS).toContain(`hook-shell ${sh}`);
  expect(ENTRY_POINTS).toHaveLength(1 + SHELLS.length + HARNESSES.length);
});

describeSandboxed('conformance: one outcome per case, whatever the entry point', () => {
  const canary = cf.useCanary();

  CASES.forEach((c, i) => {
    itSandboxed(`${c.cmd}: ${show(c.expect)} through ${ENTRY_POINTS.join(', ')}`, () => {
      // Each entry point in a fresh workspace of its own, all of them in one sandbox.
      const b = new Batch();
      const probes = ENTRY_POINTS.map((entry, j) => b.probe(entry, c, cf.world(`c${i}-e${j}`, c), cf.base(`c${i}-e${j}`)));
      const results = cf.run(b);
      for (const p of probes) {
        const { entry } = p;
        const { before, outcome, after } = seen(results, p, c);
        expect({ entry, outcome }).toEqual({ entry, outcome: c.expect });
        // Without the shims a text entry point compensates a SAFE decision itself before the
        // command runs (`check` without --enforce only decides): the relocated entries are gone,
        // a snapshot is stored. Ref deletions are left to the git shim (nothing recorded here).
        const compensates = entry !== 'check' && c.expect.kind === 'run' && c.effect !== undefined;
        expect({ entry, state: after.state, snapshots: Object.keys(after.snapshots).length }).toEqual({
          entry,
          state: compensates ? applied(before.state, gone(...c.effect!.moved)) : before.state,
          snapshots: compensates && c.effect!.snapshot ? 1 : 0,
        });
      }
    }, 120_000);
  });

  it('the canary outside every workspace survived every case', () => {
    expect(canary.intact()).toBe(true);
  });
});
