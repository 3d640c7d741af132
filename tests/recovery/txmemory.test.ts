// What the warm checker keeps between requests (withFoldedMemory, src/recovery/txindex.ts): the
// folded transactions, the quarantine's listing and the listing of transactions. Nothing kept may
// change an answer: each listing inside the memory is compared with one made outside it (from the
// index and the manifest, as the cold CLI does), after appends by "another process", a manifest
// replaced by one of the same length, a transaction directory removed by hand, a restore.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarantinePlace } from '../../src/recovery/quarantine.js';
import { listTransactions, restore } from '../../src/recovery/restore.js';
import { withFoldedMemory } from '../../src/recovery/txindex.js';
import { planGc } from '../../src/recovery/gc.js';
import { moveOne, placeIn } from '../helpers/quarantine.js';

let rw: string;
beforeAll(() => {
  rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-txmemory-')));
});
afterAll(() => {
  fs.rmSync(rw, { recursive: true, force: true });
});

const world = (name: string): QuarantinePlace => placeIn(rw, name);

/** The listing made inside the memory, and the same made outside it (as a new process would). */
function both(q: QuarantinePlace, opts: { items?: boolean } = {}): { warm: unknown; cold: unknown } {
  const strip = ({ transactions, corrupt }: { transactions: unknown; corrupt: number }): unknown => JSON.parse(JSON.stringify({ transactions, corrupt }));
  const warm = strip(withFoldedMemory(() => listTransactions(q, undefined, opts)));
  const cold = strip(listTransactions(q, undefined, opts));
  return { warm, cold };
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 1100));

describe('the warm checker’s memory of a quarantine', () => {
  it('is reused while nothing changed, and every change shows in the next listing', async () => {
    const q = world('changes');
    moveOne(q, 'a.txt');
    const b = moveOne(q, 'b.txt');
    both(q); // writes the index (a change of the quarantine directory)
    await settle(); // the quarantine's listing may be kept from now on
    withFoldedMemory(() => listTransactions(q));
    const first = withFoldedMemory(() => listTransactions(q));
    expect(first.shared).toBe(true);
    expect(withFoldedMemory(() => listTransactions(q))).toBe(first); // kept: the very same listing
    // A transaction by another process (appended to the manifest behind the memory's back).
    const c = moveOne(q, 'c.txt');
    let { warm, cold } = both(q);
    expect(warm).toEqual(cold);
    expect((warm as { transactions: { txid: string }[] }).transactions.map((t) => t.txid)).toContain(c);
    // A transaction directory removed by hand (no record): its transaction is not restorable.
    await settle();
    both(q);
    fs.rmSync(path.join(q.quarantine, b), { recursive: true });
    ({ warm, cold } = both(q));
    expect(warm).toEqual(cold);
    expect((warm as { transactions: { txid: string; state: string }[] }).transactions.find((t) => t.txid === b)!.state).toBe('FAILED');
    // A restore (records appended, the entry moved back).
    restore(q, c, { force: false, session: 's' });
    ({ warm, cold } = both(q));
    expect(warm).toEqual(cold);
    expect((warm as { transactions: { txid: string; state: string }[] }).transactions.find((t) => t.txid === c)!.state).toBe('RESTORED');
    ({ warm, cold } = both(q, { items: false }));
    expect(warm).toEqual(cold);
  });

  it('notices a manifest replaced by another of the same length', () => {
    const q = world('replaced');
    moveOne(q, 'x1.txt');
    moveOne(q, 'x2.txt');
    expect(both(q).warm).toEqual(both(q).cold);
    const manifest = path.join(q.quarantine, 'manifest.jsonl');
    const text = fs.readFileSync(manifest, 'utf8');
    // Same length, same inode: the commands swapped (x1 <-> x2 have the same length).
    fs.writeFileSync(manifest, text.replace(/x1\.txt/g, 'X_TMP').replace(/x2\.txt/g, 'x1.txt').replace(/X_TMP/g, 'x2.txt'));
    fs.rmSync(path.join(q.quarantine, 'index.json'), { force: true });
    const { warm, cold } = both(q);
    expect(warm).toEqual(cold);
  });

  it('gc’s plan from a kept listing is the plan from a fresh one, again and again (the kept listing is not changed)', async () => {
    const q = world('gc');
    for (const n of ['g1', 'g2', 'g3']) moveOne(q, n);
    await settle();
    const now = Date.now() + 60_000;
    const plan = (): unknown => {
      const p = withFoldedMemory(() => planGc(q, { maxAgeDays: 0, now }));
      return JSON.parse(JSON.stringify({ ...p, now: null, transactions: p.transactions.map((t) => ({ ...t, ageMs: null })) }));
    };
    const cold = planGc(q, { maxAgeDays: 0, now });
    const coldJson = JSON.parse(JSON.stringify({ ...cold, now: null, transactions: cold.transactions.map((t) => ({ ...t, ageMs: null })) }));
    expect(coldJson.eligible).toHaveLength(3);
    plan(); // measures the sizes: the index is written again (a change of the quarantine directory)
    await settle();
    const kept = withFoldedMemory(() => listTransactions(q, undefined, { items: false }));
    expect(withFoldedMemory(() => listTransactions(q, undefined, { items: false }))).toBe(kept);
    for (let i = 0; i < 3; i++) {
      const p = plan() as typeof coldJson;
      expect(p.transactions).toEqual(coldJson.transactions);
      expect(p).toEqual(coldJson);
    }
    // A file of the quarantine grows (no record, the directory unchanged): its size is measured again.
    const before = (plan() as typeof coldJson).quarantineBytes;
    fs.appendFileSync(path.join(q.quarantine, 'audit.jsonl'), 'x'.repeat(1000));
    const grown = plan() as typeof coldJson;
    expect(grown.quarantineBytes).toBe(before + 1000);
    const cold2 = planGc(q, { maxAgeDays: 0, now });
    expect(grown.quarantineBytes).toBe(cold2.quarantineBytes);
    expect(grown.restorableBytes).toBe(cold2.restorableBytes);
    // The listing itself still says RESTORABLE (planGc marked its own copies GC_ELIGIBLE).
    expect(withFoldedMemory(() => listTransactions(q, undefined, { items: false })).transactions.map((t) => t.state)).toEqual(['RESTORABLE', 'RESTORABLE', 'RESTORABLE']);
  });
});
