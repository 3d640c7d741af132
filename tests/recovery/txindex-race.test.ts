// The quarantine lock under a real race, through the built CLI in the read-only sandbox:
// `restore` and `gc --execute` of the same transaction at once. The index and the lock in process:
// txindex.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { relocate } from '../../src/recovery/quarantine.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world } from '../helpers/world.js';

const area = useSandboxArea('ag-txindex-race');

describeSandboxed('restore racing gc --execute', () => {
  itSandboxed('a transaction is either restored whole or purged whole, never split between them', () => {
    const { ws } = world(path.join(area.rw(), 'race'));
    const q = { root: ws, quarantine: path.join(ws, '.agent-trash') };
    const rounds = 4;
    const per = 1500;
    const txids: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const dir = path.join(ws, `t${i}`);
      fs.mkdirSync(dir);
      const files = Array.from({ length: per }, (_, j) => path.join(dir, `f${j}`));
      for (const f of files) fs.writeFileSync(f, f);
      const r = relocate(q, files, { session: 's', command: `rm t${i}/*`, cwd: ws });
      txids.push(r.txid);
    }
    // gc --execute with a zero cap (everything eligible) and restore of the same transaction, at once.
    const script = txids.map((t) => `"$1" "$2" gc --execute --max-bytes 0 --json >/dev/null 2>&1 & "$1" "$2" restore ${t} --json >/dev/null 2>&1; wait`).join('\n');
    const r = runSandboxed(area.rw(), ['sh', '-c', script, 'sh', process.execPath, BIN], { cwd: ws, env: { HOME: path.join(area.rw(), 'race') }, timeoutMs: 280_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    for (let i = 0; i < rounds; i++) {
      const back = fs.existsSync(path.join(ws, `t${i}`)) ? fs.readdirSync(path.join(ws, `t${i}`)).length : 0;
      expect([0, per]).toContain(back);
    }
  }, 300_000);
});
