// Conformance with the PATH shims first on PATH (cases.ts): the text entry points defer to the
// shims what they will see concretely — that deferral is the documented difference
// (docs/shell-hooks.md) and is asserted as such — and the command itself through the shims (sh -c)
// gives the shims' outcome, with its effect asserted too: what left the workspace, the transaction
// that holds it (`restore list --json`), and that `restore <txid>` brings the workspace back.
// Each case runs in one sandbox (conformance.ts).
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed } from '../helpers/sandbox.js';
import { CASES, ENTRY_POINTS, run, show, type Outcome } from './cases.js';
import { applied, Batch, conformance, json, observed, seen, shimOutcome, value } from './conformance.js';

const cf = conformance('ag-conformance-shims');

describeSandboxed('conformance with the shims first on PATH', () => {
  const canary = cf.useCanary();

  CASES.forEach((c, i) => {
    const text = c.shims ? run : c.expect;
    const want: Outcome = c.shims ?? c.expect;
    itSandboxed(`with the shims first on PATH: ${c.cmd}: the text entry points give ${show(text)}, the shims ${show(want)}`, () => {
      // HOME exists and holds a file, outside the workspaces (`rm -rf ~` must leave it). The worlds
      // are in HOME, as in posix.test.ts: their sibling `outside/` is then no scratch (the area is
      // in /tmp, a scratch zone: docs/zones.md) but outside the workspace.
      const home = path.join(cf.rw(), `s${i}-home`);
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(home, 'keep.txt'), 'home\n');
      const env = cf.withShims(home);
      const b = new Batch();
      const probes = ENTRY_POINTS.filter((e) => e !== 'check').map((entry) => b.probe(entry, c, cf.world(`s${i}-home/${entry.replace(/\W+/g, '-')}`, c), env));

      // The command itself through sh -c (no hook): the shims' own outcome, and its effect. The
      // trailing `wait` lets a background job (`rm -rf build &`) finish before the state is read;
      // the status is the command's. Then what `restore` makes of it.
      const ws = cf.world(`s${i}-home/shim`, c);
      const before = b.state(ws);
      const shim = b.add({ argv: ['sh', '-c', `${c.cmd}\nst=$?; wait; exit $st`], env, exactEnv: true, cwd: ws, timeoutMs: 20_000 });
      const homeFile = b.read(path.join(home, 'keep.txt'));
      const after = b.state(ws);
      const list = b.guard(ws, env, 'restore', 'list', '--json');
      const e = c.effect;
      const restore = e ? b.guard(ws, env, 'restore', { $json: [list, 'transactions', 0, 'txid'] }, '--json') : -1;
      const restored = e ? b.state(ws) : -1;
      const list2 = e ? b.guard(ws, env, 'restore', 'list', '--json') : -1;
      const results = cf.run(b);

      for (const p of probes) {
        const { entry } = p;
        // The text check defers (runs) the cases the shims will decide on the concrete argv, and
        // leaves the SAFE ones to them too: nothing is compensated twice.
        const s = seen(results, p, c);
        expect({ entry, cmd: c.cmd, got: s.outcome }).toEqual({ entry, cmd: c.cmd, got: text });
        expect({ entry, state: s.after.state, snapshots: Object.keys(s.after.snapshots).length }).toEqual({ entry, state: s.before.state, snapshots: 0 });
      }

      const r = results[shim]!;
      expect({ cmd: c.cmd, got: shimOutcome(r) }).toEqual({ cmd: c.cmd, got: want });
      expect(r.exitCode, r.error ?? r.stderr).toBe(want.kind === 'run' ? 0 : want.kind === 'ask' ? 3 : 2);
      expect(value(results, homeFile)).toBe('home\n');

      const start = observed(results, before);
      const end = observed(results, after);
      expect(end.state).toEqual(applied(start.state, e?.changes ?? {}));
      const { transactions } = json(results, list, 'restore list --json');
      if (!e) {
        expect(transactions).toEqual([]);
        return;
      }
      expect(transactions).toHaveLength(1);
      const tx = transactions[0];
      expect(tx.state).toBe('RESTORABLE');
      const held = tx.items.map((it: { origin: string; present: boolean; completed: boolean }) => {
        expect(it.present && it.completed).toBe(true);
        return path.relative(ws, it.origin);
      });
      expect(held.sort()).toEqual([...e.moved].sort());
      if (e.snapshot) {
        expect(tx.snapshot?.stash).toMatch(/^[0-9a-f]{40}$/);
        expect(end.snapshots[`refs/agent-guard/${tx.txid}/snapshot`]).toBe(tx.snapshot.stash);
      } else expect(tx.snapshot?.stash ?? null).toBeNull();
      if (e.refs) {
        expect(tx.snapshot.refs.map((r: { ref: string }) => r.ref)).toEqual(e.refs.refs);
        expect(tx.snapshot.stashes).toHaveLength(e.refs.stashes);
      }

      json(results, restore, `restore ${tx.txid} --json`);
      expect(observed(results, restored).state).toEqual({ ...start.state, ...e.restored });
      expect(json(results, list2, 'restore list --json').transactions.map((t: { state: string }) => t.state)).toEqual(['RESTORED']);
    }, 120_000);
  });

  it('the canary outside every workspace survived every case', () => {
    expect(canary.intact()).toBe(true);
  });
});
