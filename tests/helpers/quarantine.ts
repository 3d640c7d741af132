// Recovery-module unit tests' small worlds: a workspace directory with its quarantine place, and one
// file relocated into it as a transaction of its own (the engine itself, in the test's temp area).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { relocate, type QuarantinePlace } from '../../src/recovery/quarantine.js';

/** `<rw>/<name>` (created) as a workspace whose quarantine is `.agent-trash` inside it. */
export function placeIn(rw: string, name: string): QuarantinePlace {
  const ws = path.join(rw, name);
  fs.mkdirSync(ws, { recursive: true });
  return { root: ws, quarantine: path.join(ws, '.agent-trash') };
}

/** Writes `name` in the workspace and relocates it: the transaction's id. */
export function moveOne(q: QuarantinePlace, name: string): string {
  fs.writeFileSync(path.join(q.root, name), name);
  const r = relocate(q, [path.join(q.root, name)], { session: 's', command: `rm ${name}`, cwd: q.root });
  expect(r.status).toBe('done');
  return r.txid;
}
