// Spare transaction directories (src/recovery/spare.ts): the warm checker's next transaction
// directory, made ahead and renamed into place. In-process, in the test's own temp directory (mkdir,
// rename and rmdir of empty directories there; nothing is deleted that holds anything). A canary
// outside it must survive. The module's state is per process: the tests run in order.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSpares, enableSpares, makeTxDir, refillSpares, SPARE_NAME } from '../../src/recovery/spare.js';
import { planGc, executeGc } from '../../src/recovery/gc.js';

let rw = '';
let canary = '';
beforeAll(() => {
  rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-spare-')));
  canary = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-canary-')));
  fs.writeFileSync(path.join(canary, 'keep'), 'keep\n');
});
afterAll(() => {
  dropSpares();
  expect(fs.readFileSync(path.join(canary, 'keep'), 'utf8')).toBe('keep\n');
  fs.rmSync(rw, { recursive: true, force: true });
  fs.rmSync(canary, { recursive: true, force: true });
});

const B = (p: string): Buffer => Buffer.from(p);
const quarantine = (name: string): string => {
  const q = path.join(rw, name);
  fs.mkdirSync(q, { mode: 0o700 });
  return q;
};
const spares = (q: string): string[] => fs.readdirSync(q).filter((n) => n.startsWith('.agent-guard-spare-'));
const ino = (p: string): number => fs.lstatSync(p).ino;

describe('spare transaction directories', () => {
  it('a process that has not enabled them makes each directory itself, and refill makes none', () => {
    const q = quarantine('off');
    makeTxDir(B(q), B(path.join(q, 'tx1')));
    refillSpares();
    expect(fs.statSync(path.join(q, 'tx1')).mode & 0o777).toBe(0o700);
    expect(spares(q)).toEqual([]);
  });

  it('once enabled: the first transaction makes its directory, refill makes a spare, the next one takes it', () => {
    enableSpares();
    const q = quarantine('on');
    makeTxDir(B(q), B(path.join(q, 'tx1')));
    expect(spares(q)).toEqual([]);
    refillSpares();
    const [spare] = spares(q);
    expect(spare).toMatch(SPARE_NAME);
    expect(SPARE_NAME.exec(spare!)![1]).toBe(String(process.pid));
    expect(fs.statSync(path.join(q, spare!)).mode & 0o777).toBe(0o700);
    const was = ino(path.join(q, spare!));
    makeTxDir(B(q), B(path.join(q, 'tx2')));
    expect(ino(path.join(q, 'tx2'))).toBe(was);
    expect(spares(q)).toEqual([]);
    // A refill with nothing taken since makes no second one.
    refillSpares();
    refillSpares();
    expect(spares(q)).toHaveLength(1);
  });

  it('a spare that holds anything, or was replaced by a symlink, is never taken: mkdir instead, and it is left as it is', () => {
    const q = path.join(rw, 'on');
    const [spare] = spares(q);
    fs.writeFileSync(path.join(q, spare!, 'planted'), 'x');
    makeTxDir(B(q), B(path.join(q, 'tx3')));
    expect(fs.readdirSync(path.join(q, 'tx3'))).toEqual([]);
    expect(fs.readFileSync(path.join(q, spare!, 'planted'), 'utf8')).toBe('x');
    refillSpares();
    const fresh = spares(q).find((n) => n !== spare)!;
    const elsewhere = fs.mkdtempSync(path.join(rw, 'elsewhere-'));
    fs.rmdirSync(path.join(q, fresh));
    fs.symlinkSync(elsewhere, path.join(q, fresh));
    makeTxDir(B(q), B(path.join(q, 'tx4')));
    expect(fs.lstatSync(path.join(q, 'tx4')).isDirectory()).toBe(true);
    expect(fs.lstatSync(path.join(q, fresh)).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('a quarantine that is gone gets no spare and no error; at most four quarantines keep one', () => {
    const gone = quarantine('gone');
    makeTxDir(B(gone), B(path.join(gone, 'tx1')));
    fs.rmSync(gone, { recursive: true });
    expect(() => refillSpares()).not.toThrow();
    expect(fs.existsSync(gone)).toBe(false);
    const qs = ['q1', 'q2', 'q3', 'q4', 'q5'].map(quarantine);
    for (const q of qs) makeTxDir(B(q), B(path.join(q, 'tx1')));
    refillSpares();
    // The least recently used ones lost theirs ('on' and q1), the four newest have one each.
    expect(qs.map((q) => spares(q).length)).toEqual([0, 1, 1, 1, 1]);
  });

  it('dropSpares removes the empty spares this process made, and nothing else', () => {
    const q = path.join(rw, 'q2');
    dropSpares();
    expect(spares(q)).toEqual([]);
    // The spare that got a file stays (rmdir only).
    expect(spares(path.join(rw, 'on')).length).toBeGreaterThanOrEqual(1);
    expect(fs.readdirSync(path.join(rw, 'on', 'tx3'))).toEqual([]);
  });

  it('gc lists the empty spares of processes that are gone and removes exactly those', () => {
    const ws = path.join(rw, 'gcws');
    const q = path.join(ws, '.agent-trash');
    fs.mkdirSync(q, { recursive: true, mode: 0o700 });
    // A pid no process has (above the kernel's limit) stands for a killed checker.
    const dead = '.agent-guard-spare-4194999-0123456789ab';
    const deadFull = '.agent-guard-spare-4194999-ba9876543210';
    const live = `.agent-guard-spare-${process.pid}-00112233aabb`;
    for (const n of [dead, deadFull, live]) fs.mkdirSync(path.join(q, n), { mode: 0o700 });
    fs.writeFileSync(path.join(q, deadFull, 'x'), 'x');
    const plan = planGc({ root: ws, quarantine: q });
    expect(plan.spares).toEqual([dead]);
    const out = executeGc({ root: ws, quarantine: q }, plan, { session: null });
    expect(out.spares).toBe(1);
    expect(fs.readdirSync(q).sort()).toEqual([deadFull, live].sort());
    expect(fs.readFileSync(path.join(q, deadFull, 'x'), 'utf8')).toBe('x');
  });
});
