// The transaction index (a cache of the folded manifest) and the quarantine lock. The index must
// never change an answer: every test compares what is listed with the index against what is listed
// from the manifest alone, after appends, replacements, rewrites, damage and torn lines.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendRecord, encodePath } from '../../src/recovery/records.js';
import { ensureQuarantine, manifestPath, relocate, withQuarantineLock, type QuarantinePlace } from '../../src/recovery/quarantine.js';
import { listTransactions, restore } from '../../src/recovery/restore.js';
import { INDEX_FILE } from '../../src/recovery/txindex.js';
import { planGc } from '../../src/recovery/gc.js';
import { moveOne, placeIn } from '../helpers/quarantine.js';

let rw: string;
beforeAll(() => {
  rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-txindex-')));
});
afterAll(() => {
  fs.rmSync(rw, { recursive: true, force: true });
});

const world = (name: string): QuarantinePlace => placeIn(rw, name);

const indexFile = (q: QuarantinePlace): string => path.join(q.quarantine, INDEX_FILE);

/** What is listed with the index, and what is listed from the manifest alone (index removed first,
 *  then put back as it was). */
function both(q: QuarantinePlace): { cached: unknown; fresh: unknown } {
  const cached = listTransactions(q);
  const saved = fs.existsSync(indexFile(q)) ? fs.readFileSync(indexFile(q)) : null;
  fs.rmSync(indexFile(q), { force: true });
  const fresh = listTransactions(q);
  if (saved) fs.writeFileSync(indexFile(q), saved);
  else fs.rmSync(indexFile(q), { force: true });
  return { cached, fresh };
}

describe('the transaction index', () => {
  it('is written by the first listing and then only extended by the manifest’s new lines', () => {
    const q = world('incremental');
    const a = moveOne(q, 'a.txt');
    expect(fs.existsSync(indexFile(q))).toBe(false);
    expect(listTransactions(q).transactions.map((t) => t.txid)).toEqual([a]);
    expect(fs.existsSync(indexFile(q))).toBe(true);
    const offset1 = JSON.parse(fs.readFileSync(indexFile(q), 'utf8')).offset;
    const b = moveOne(q, 'b.txt');
    const listed = listTransactions(q);
    expect(listed.transactions.map((t) => [t.txid, t.state, t.itemCount])).toEqual([
      [a, 'RESTORABLE', 1],
      [b, 'RESTORABLE', 1],
    ]);
    expect(JSON.parse(fs.readFileSync(indexFile(q), 'utf8')).offset).toBeGreaterThan(offset1);
    expect(restore(q, a, { session: 's' }).restored).toHaveLength(1);
    const { cached, fresh } = both(q);
    expect(cached).toEqual(fresh);
    expect(listTransactions(q).transactions.map((t) => t.state)).toEqual(['RESTORED', 'RESTORABLE']);
  });

  it('is not used for a manifest that was replaced, rewritten in place, or truncated', () => {
    const q = world('replaced');
    moveOne(q, 'a.txt');
    moveOne(q, 'b.txt');
    listTransactions(q);
    const manifest = manifestPath(q);
    const lines = fs.readFileSync(manifest, 'utf8').split('\n').filter(Boolean);
    // Replaced by another file (new inode) holding the second transaction only, made longer.
    const second = lines.filter((l) => l.includes('b.txt'));
    fs.writeFileSync(manifest + '.new', [...second, ...second, ...second].join('\n') + '\n');
    fs.renameSync(manifest + '.new', manifest);
    let r = both(q);
    expect(r.cached).toEqual(r.fresh);
    expect((r.cached as any).transactions).toHaveLength(1);
    // Rewritten in place (same inode, same length), different bytes where the index samples: the
    // last 64 bytes before its offset and 32 spread over the rest (an edit elsewhere in a file that
    // is append-only by contract is not noticed: docs/records.md).
    listTransactions(q);
    const text = fs.readFileSync(manifest, 'utf8');
    const last = text.lastIndexOf('"type":"file"');
    fs.writeFileSync(manifest, text.slice(0, last) + '"type":"FILE"' + text.slice(last + 13));
    r = both(q);
    expect(r.cached).toEqual(r.fresh);
    expect((r.cached as any).transactions[0].items[0].type).toBe('FILE');
    // Truncated below the indexed offset.
    listTransactions(q);
    fs.truncateSync(manifest, 10);
    r = both(q);
    expect(r.cached).toEqual(r.fresh);
  });

  it('is rebuilt when it is damaged, and is not needed when it cannot be written', () => {
    const q = world('damaged');
    const a = moveOne(q, 'a.txt');
    listTransactions(q);
    for (const junk of ['', '{', '[]', '{"v":3,"txs":"x"}', JSON.stringify({ v: 3, ino: 1, offset: 0, tail: '', corrupt: 0, txs: [] })]) {
      fs.writeFileSync(indexFile(q), junk);
      expect(listTransactions(q).transactions.map((t) => t.txid)).toEqual([a]);
    }
    // A directory where the index would go: listing still works, nothing is written.
    fs.rmSync(indexFile(q), { force: true });
    fs.mkdirSync(indexFile(q));
    expect(listTransactions(q).transactions.map((t) => t.txid)).toEqual([a]);
    fs.rmdirSync(indexFile(q));
  });

  it('never indexes a torn last line, and picks up the record appended after it', () => {
    const q = world('torn');
    const a = moveOne(q, 'a.txt');
    fs.appendFileSync(manifestPath(q), '{"v":1,"kind":"tx-st');
    const torn = listTransactions(q);
    expect(torn.transactions.map((t) => t.txid)).toEqual([a]);
    expect(torn.corrupt).toBe(1);
    const b = moveOne(q, 'b.txt'); // glued onto the torn line, as a crash leaves it
    const r = both(q);
    expect(r.cached).toEqual(r.fresh);
    expect((r.cached as any).transactions.map((t: any) => t.txid)).toEqual([a, b]);
  });

  it('caches each transaction directory’s size until the transaction gets another record', () => {
    const q = world('sizes');
    fs.mkdirSync(path.join(q.root, 'tree'));
    fs.writeFileSync(path.join(q.root, 'tree', 'f.bin'), Buffer.alloc(3000));
    const r = relocate(q, [path.join(q.root, 'tree')], { session: 's', command: 'rm -rf tree', cwd: q.root });
    const first = planGc(q).transactions[0]!;
    expect(first.bytes).toBeGreaterThanOrEqual(3000);
    // Changed behind the guard's back: the cached size stands (documented) ...
    fs.writeFileSync(path.join(q.quarantine, r.txid, 'tree', 'g.bin'), Buffer.alloc(5000));
    expect(planGc(q).transactions[0]!.bytes).toBe(first.bytes);
    // ... until the transaction has a new record: a restore.
    restore(q, r.txid, { session: 's' });
    expect(planGc(q).transactions[0]!.bytes).toBeLessThan(first.bytes);
  });

  it('keeps names that are not UTF-8 exact through the index', () => {
    const q = world('bytes');
    const name = Buffer.concat([Buffer.from(q.root + '/x'), Buffer.from([0xff, 0xfe])]);
    fs.writeFileSync(name, 'odd');
    const r = relocate(q, [name], { session: 's', command: 'git clean -f', cwd: q.root });
    listTransactions(q); // written
    const listed = listTransactions(q).transactions[0]!; // read back
    expect(Buffer.from(listed.items[0]!.bytes!.origin, 'base64')).toEqual(Buffer.from([0x78, 0xff, 0xfe]));
    expect(restore(q, r.txid, { session: 's' }).skipped).toEqual([]);
    expect(fs.readFileSync(name, 'utf8')).toBe('odd');
  });

  it('a record whose dest climbs out of the quarantine is never listed as present, and never restored', () => {
    const q = world('climb');
    const a = moveOne(q, 'a.txt');
    const outside = path.join(rw, 'outside.txt');
    fs.writeFileSync(outside, 'outside');
    appendRecord(manifestPath(q), { kind: 'relocate', txid: a, session: null, origin: encodePath(Buffer.from('a.txt')), dest: encodePath(Buffer.from(path.relative(q.quarantine, outside))), type: 'file' });
    const tx = listTransactions(q).transactions[0]!;
    expect(tx.items.map((i) => i.present)).toEqual([true, false]);
    restore(q, a, { session: 's' });
    expect(fs.readFileSync(outside, 'utf8')).toBe('outside');
  });
});

describe('the quarantine lock', () => {
  it('is taken over from a process that is gone, and released after use', () => {
    const q = world('lock-stale');
    ensureQuarantine(q, () => false);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    fs.writeFileSync(path.join(q.quarantine, '.lock'), `${dead.stdout}\n`);
    expect(withQuarantineLock(q, () => 42)).toBe(42);
    expect(fs.existsSync(path.join(q.quarantine, '.lock'))).toBe(false);
  });

  it('waits for a live holder, then fails with a clear error and runs nothing', async () => {
    const q = world('lock-live');
    ensureQuarantine(q, () => false);
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => holder.once('spawn', r));
      fs.writeFileSync(path.join(q.quarantine, '.lock'), `${holder.pid}\n`);
      let ran = false;
      expect(() =>
        withQuarantineLock(
          q,
          () => {
            ran = true;
          },
          { waitMs: 300 },
        ),
      ).toThrow(/locked by process/);
      expect(ran).toBe(false);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
