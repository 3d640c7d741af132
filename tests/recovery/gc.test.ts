// Retention and gc: planGc marks by age and by cap (read-only, in-process on temp workspaces), and the
// built CLI — `status`, `gc`, `gc --execute` — inside the read-only sandbox: exactly the eligible
// `<quarantine>/<txid>` directories go, purge records are appended (audit, manifest) before anything is
// removed, nothing else in the quarantine or outside it is touched. A canary outside the writable area
// must survive.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runGuardSandboxed } from '../helpers/sandbox.js';
import { listing } from '../helpers/tree.mjs';
import { INDEX_FILE } from '../../src/recovery/txindex.js';

/** The tree, without the transaction index (a cache that reading commands may write; docs/records.md). */
const tree = (p: string): string[] => listing(p, p, (r) => r === INDEX_FILE || r === path.join('.agent-trash', INDEX_FILE));
import { BIN } from '../helpers/cli.js';
import { world as makeWorld, type World as BaseWorld } from '../helpers/world.js';
import { appendRecord, encodePath, readRecords } from '../../src/recovery/records.js';
import { auditPath, ensureQuarantine, manifestPath, newTxid, relocate, type QuarantinePlace } from '../../src/recovery/quarantine.js';
import { restore } from '../../src/recovery/restore.js';
import { GC_MAX_AGE_DAYS, GC_MAX_BYTES, formatBytes, planGc, treeBytes } from '../../src/recovery/gc.js';

const DAY = 86_400_000;

let rw: string;
let canary: string;
beforeAll(() => {
  rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-gc-')));
  canary = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-canary-')));
  fs.writeFileSync(path.join(canary, 'keep.txt'), 'canary\n');
  fs.writeFileSync(path.join(canary, 'big.bin'), Buffer.alloc(256 * 1024, 7));
});
afterAll(() => {
  expect(fs.readFileSync(path.join(canary, 'keep.txt'), 'utf8')).toBe('canary\n');
  expect(fs.statSync(path.join(canary, 'big.bin')).size).toBe(256 * 1024);
  fs.rmSync(rw, { recursive: true, force: true });
  fs.rmSync(canary, { recursive: true, force: true });
});

interface World extends BaseWorld {
  q: QuarantinePlace;
}

/** A fresh workspace (git repo) in the writable area; its quarantine is not created. */
function world(name: string): World {
  const w = makeWorld(path.join(rw, name, 'home'), { env: { AGENT_GUARD_SESSION: 'gc-tester' } });
  return { ...w, q: { root: w.ws, quarantine: path.join(w.ws, '.agent-trash') } };
}

/** A transaction written as relocate() writes one, but started `daysAgo` before `now`: the tree
 *  `<name>/` (files of the given sizes) sits in `<quarantine>/<txid>/<name>`. */
function pastTx(w: World, daysAgo: number, name: string, files: Record<string, number>, now = Date.now(), opts: { regenerable?: boolean } = {}): string {
  ensureQuarantine(w.q, () => false);
  const when = new Date(now - daysAgo * DAY);
  const txid = newTxid(when);
  const ts = when.toISOString();
  const manifest = manifestPath(w.q);
  appendRecord(manifest, { kind: 'tx-start', ts, txid, session: 'old-agent', command: `rm -rf ${name}`, cwd: w.ws, targets: 1, ...(opts.regenerable ? { regenerable: true } : {}) });
  const dest = path.join(w.q.quarantine, txid, name);
  const fields = { ts, txid, session: 'old-agent', origin: encodePath(Buffer.from(name)), dest: encodePath(Buffer.from(path.relative(w.q.quarantine, dest))), type: 'dir' };
  appendRecord(manifest, { kind: 'relocate-intent', ...fields });
  fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
  for (const [f, size] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dest, f)), { recursive: true });
    fs.writeFileSync(path.join(dest, f), crypto.randomBytes(size));
  }
  appendRecord(manifest, { kind: 'relocate', ...fields, via: 'rename' });
  return txid;
}

/** A snapshot-only transaction (a stash in git, nothing in the quarantine), started `daysAgo`. */
function pastSnapshot(w: World, daysAgo: number): string {
  ensureQuarantine(w.q, () => false);
  const when = new Date(Date.now() - daysAgo * DAY);
  const txid = newTxid(when);
  const ts = when.toISOString();
  appendRecord(manifestPath(w.q), { kind: 'tx-start', ts, txid, session: 'old-agent', command: 'git reset --hard', cwd: w.ws, strategy: 'snapshot' });
  appendRecord(manifestPath(w.q), { kind: 'snapshot', ts, txid, session: 'old-agent', stash: 'a'.repeat(40), message: `agent-guard snapshot ${txid}`, repo: w.ws, globals: [] });
  return txid;
}

/** A transaction made now by the real relocate(), of a tree created in the workspace. */
function recentTx(w: World, name: string, size: number): string {
  fs.mkdirSync(path.join(w.ws, name, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(w.ws, name, 'sub', 'data.bin'), crypto.randomBytes(size));
  const r = relocate(w.q, [path.join(w.ws, name)], { session: 'agent-1', command: `rm -rf ${name}`, cwd: w.ws });
  expect(r.status).toBe('done');
  return r.txid;
}

/** Independent size: sum of lstat sizes of every entry below dir, links not followed (the
 *  quarantine's index cache is not counted, as gc does not count it). */
function du(dir: string): number {
  let n = 0;
  for (const name of fs.readdirSync(dir)) {
    if (name === INDEX_FILE || name.startsWith(`${INDEX_FILE}.tmp-`)) continue;
    const st = fs.lstatSync(path.join(dir, name));
    n += st.size;
    if (st.isDirectory()) n += du(path.join(dir, name));
  }
  return n;
}


const eligibleOf = (plan: ReturnType<typeof planGc>): [string, string][] => plan.eligible.map((c) => [c.txid, c.why]);

describe('planGc (reads only)', () => {
  it('marks restorable transactions older than the retention period, measured from `now`', () => {
    const w = world('age');
    const base = Date.now();
    const t45 = pastTx(w, 45, 'a', { 'f.bin': 100 }, base);
    const t31 = pastTx(w, 31, 'b', { 'f.bin': 100 }, base);
    const t10 = pastTx(w, 10, 'c', { 'f.bin': 100 }, base);
    const before = tree(w.ws);
    const plan = planGc(w.q, { now: base });
    expect(plan.maxAgeDays).toBe(GC_MAX_AGE_DAYS);
    expect(plan.maxBytes).toBe(GC_MAX_BYTES);
    expect(eligibleOf(plan)).toEqual([[t45, 'age'], [t31, 'age']]);
    expect(plan.transactions.map((t) => [t.txid, t.state])).toEqual([[t45, 'GC_ELIGIBLE'], [t31, 'GC_ELIGIBLE'], [t10, 'RESTORABLE']]);
    expect(plan.eligible[0]!.ageMs).toBe(45 * DAY);
    expect(eligibleOf(planGc(w.q, { now: base - 5 * DAY }))).toEqual([[t45, 'age']]);
    expect(eligibleOf(planGc(w.q, { now: base + 25 * DAY }))).toEqual([[t45, 'age'], [t31, 'age'], [t10, 'age']]);
    expect(eligibleOf(planGc(w.q, { now: base, maxAgeDays: 40 }))).toEqual([[t45, 'age']]);
    // A transaction exactly at the limit is not older than it.
    expect(eligibleOf(planGc(w.q, { now: base, maxAgeDays: 45 }))).toEqual([]);
    expect(tree(w.ws)).toEqual(before);
  });

  it('under the cap, marks regenerable transactions (rule 13 relocations) first, oldest first, then the rest oldest first', () => {
    const w = world('cap-regenerable');
    const base = Date.now();
    const old = pastTx(w, 10, 'src', { 'f.bin': 1000 }, base);
    const regenNew = pastTx(w, 2, 'node_modules', { 'f.bin': 3000 }, base, { regenerable: true });
    const regenOld = pastTx(w, 5, 'build', { 'f.bin': 2000 }, base, { regenerable: true });
    const plan0 = planGc(w.q, { now: base });
    const bytes = Object.fromEntries(plan0.transactions.map((t) => [t.txid, t.bytes]));
    const total = plan0.restorableBytes;
    expect(plan0.transactions.filter((t) => t.regenerable).map((t) => t.txid).sort()).toEqual([regenNew, regenOld].sort());
    // Purging both regenerable ones is enough: the older hand-written tree stays, though it is the oldest.
    const fits = planGc(w.q, { now: base, maxBytes: total - bytes[regenNew]! - bytes[regenOld]! });
    expect(eligibleOf(fits)).toEqual([[regenOld, 'cap'], [regenNew, 'cap']]);
    expect(fits.eligible.map((c) => c.regenerable ?? false)).toEqual([true, true]);
    expect(eligibleOf(planGc(w.q, { now: base, maxBytes: total - bytes[regenNew]! - bytes[regenOld]! - 1 }))).toEqual([[regenOld, 'cap'], [regenNew, 'cap'], [old, 'cap']]);
    // Age is age: a regenerable transaction within the retention period is not marked by it.
    expect(eligibleOf(planGc(w.q, { now: base, maxAgeDays: 7 }))).toEqual([[old, 'age']]);
  });

  it('marks the oldest first while the restorable total exceeds the cap, and counts sizes by lstat', () => {
    const w = world('cap');
    const base = Date.now();
    const txids = [10, 8, 6, 4].map((d, i) => pastTx(w, d, `t${i}`, { 'x.bin': 1000 * (i + 1), 'deep/y.bin': 10 }, base));
    const before = tree(w.ws);
    const plan = planGc(w.q, { now: base });
    const bytes = txids.map((t) => du(path.join(w.q.quarantine, t)));
    expect(plan.transactions.map((t) => t.bytes)).toEqual(bytes);
    expect(bytes[1]).toBeGreaterThanOrEqual(2010);
    const total = bytes.reduce((a, b) => a + b, 0);
    expect(plan.restorableBytes).toBe(total);
    expect(plan.quarantineBytes).toBe(du(w.q.quarantine));
    expect(eligibleOf(plan)).toEqual([]);
    expect(eligibleOf(planGc(w.q, { now: base, maxBytes: total }))).toEqual([]);
    expect(eligibleOf(planGc(w.q, { now: base, maxBytes: total - bytes[0]! }))).toEqual([[txids[0], 'cap']]);
    expect(eligibleOf(planGc(w.q, { now: base, maxBytes: total - bytes[0]! - 1 }))).toEqual([[txids[0], 'cap'], [txids[1], 'cap']]);
    expect(eligibleOf(planGc(w.q, { now: base, maxBytes: 0 })).map(([, why]) => why)).toEqual(['cap', 'cap', 'cap', 'cap']);
    // Age first; what age frees counts towards the cap; the cap then takes the next oldest.
    const mixed = planGc(w.q, { now: base, maxAgeDays: 9, maxBytes: total - bytes[0]! - 1 });
    expect(eligibleOf(mixed)).toEqual([[txids[0], 'age'], [txids[1], 'cap']]);
    expect(mixed.eligibleBytes).toBe(bytes[0]! + bytes[1]!);
    expect(eligibleOf(planGc(w.q, { now: base, maxAgeDays: 7, maxBytes: total - bytes[0]! - 1 }))).toEqual([[txids[0], 'age'], [txids[1], 'age']]);
    expect(tree(w.ws)).toEqual(before);
  });

  it('never follows a symlink when sizing, and never marks what has no txid directory of its own', () => {
    const w = world('odd');
    const base = Date.now();
    // Links to a large file and to a directory outside: counted as links.
    const t1 = pastTx(w, 40, 'linked', { 'small.bin': 10 }, base);
    const item = path.join(w.q.quarantine, t1, 'linked');
    fs.symlinkSync(path.join(canary, 'big.bin'), path.join(item, 'to-big'));
    fs.symlinkSync(canary, path.join(item, 'to-dir'));
    expect(treeBytes(path.join(w.q.quarantine, t1))).toBe(du(path.join(w.q.quarantine, t1)));
    expect(treeBytes(path.join(w.q.quarantine, t1))).toBeLessThan(256 * 1024);
    // A name that is not valid UTF-8 is still sized.
    fs.writeFileSync(Buffer.concat([Buffer.from(item + '/'), Buffer.from([0x62, 0xff])]), Buffer.alloc(5000));
    expect(treeBytes(path.join(w.q.quarantine, t1))).toBeGreaterThanOrEqual(5010);
    // Snapshot-only: a stash in git, no directory.
    const snap = pastSnapshot(w, 50);
    // A restored transaction.
    const back = recentTx(w, 'back', 10);
    expect(restore(w.q, back, { session: null }).restored).toHaveLength(1);
    // A forged txid that would point outside, and a txid directory that is a symlink to the canary.
    appendRecord(manifestPath(w.q), { kind: 'tx-start', ts: new Date(base - 60 * DAY).toISOString(), txid: '../escape', session: null, command: 'x', cwd: w.ws });
    appendRecord(manifestPath(w.q), { kind: 'relocate', txid: '../escape', session: null, origin: encodePath(Buffer.from('keep.txt')), dest: encodePath(Buffer.from(path.relative(w.q.quarantine, path.join(canary, 'keep.txt')))), type: 'file' });
    const linkTx = newTxid(new Date(base - 60 * DAY));
    fs.symlinkSync(canary, path.join(w.q.quarantine, linkTx));
    appendRecord(manifestPath(w.q), { kind: 'tx-start', ts: new Date(base - 60 * DAY).toISOString(), txid: linkTx, session: null, command: 'y', cwd: w.ws });
    appendRecord(manifestPath(w.q), { kind: 'relocate', txid: linkTx, session: null, origin: encodePath(Buffer.from('keep.txt')), dest: encodePath(Buffer.from(`${linkTx}/keep.txt`)), type: 'file' });
    const plan = planGc(w.q, { now: base, maxAgeDays: 0, maxBytes: 0 });
    const states = Object.fromEntries(plan.transactions.map((t) => [t.txid, t.state]));
    expect(states[snap]).toBe('RESTORABLE');
    expect(states[back]).toBe('RESTORED');
    expect(states['../escape']).toBe('FAILED'); // its dest climbs out of the quarantine: never present
    expect(states[linkTx]).toBe('RESTORABLE');
    expect(plan.eligible.map((c) => c.txid)).toEqual([t1]);
  });

  it('works on a workspace without a quarantine, and creates nothing', () => {
    const w = world('none');
    const plan = planGc(w.q);
    expect(plan).toMatchObject({ exists: false, transactions: [], eligible: [], eligibleBytes: 0, restorableBytes: 0, quarantineBytes: 0, unfinished: [], corrupt: 0 });
    expect(fs.existsSync(w.q.quarantine)).toBe(false);
  });

  it('formats sizes for people', () => {
    expect([0, 1023, 1536, 5 * 1024 ** 3, 12.4 * 1024 ** 2].map(formatBytes)).toEqual(['0 B', '1023 B', '1.5 KiB', '5.0 GiB', '12 MiB']);
  });
});

function cli(w: World, args: string[], extra: Record<string, string> = {}) {
  return runGuardSandboxed(rw, BIN, args, { cwd: w.ws, env: { ...w.env, ...extra } });
}

const read = (p: string): string => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '');

describeSandboxed('status and gc through the CLI', () => {
  itSandboxed('status and gc on a workspace without a quarantine: zeros, and nothing is created', () => {
    const w = world('cli-empty');
    const s = cli(w, ['status', '--json']);
    expect(s.exitCode).toBe(0);
    expect(s.json).toEqual({
      version: 1,
      session: 'gc-tester',
      mode: 'NORMAL',
      workspace: w.ws,
      quarantine: w.q.quarantine,
      quarantineExists: false,
      counts: { total: 0, restorable: 0, gcEligible: 0, restored: 0, purged: 0, failed: 0 },
      bytes: { quarantine: 0, restorable: 0 },
      recent: [],
      gc: { eligible: 0, bytes: 0, unfinished: 0, policy: { maxAgeDays: 30, maxBytes: 5 * 1024 ** 3 } },
      corruptRecords: 0,
    });
    const text = cli(w, ['status']);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('not created yet');
    expect(text.stdout).toMatch(/transactions\s+0 in all/);
    const g = cli(w, ['gc', '--execute', '--json']);
    expect(g.exitCode).toBe(0);
    expect(g.json).toMatchObject({ version: 1, executed: true, eligible: [], purged: [], failed: [], freedBytes: 0 });
    expect(cli(w, ['gc']).stdout).toContain('nothing to purge');
    expect(fs.existsSync(w.q.quarantine)).toBe(false);
  });

  itSandboxed('gc plans by age, --execute purges exactly the eligible txid directories and records it', () => {
    const w = world('cli-purge');
    const old45 = pastTx(w, 45, 'old45', { 'a.bin': 3000, 'deep/b.bin': 20 });
    // A link out of the quarantine inside a purged transaction: removed as a link, never followed.
    fs.symlinkSync(canary, path.join(w.q.quarantine, old45, 'old45', 'to-canary'));
    fs.symlinkSync(path.join(canary, 'keep.txt'), path.join(w.q.quarantine, old45, 'old45', 'to-keep'));
    const old35 = pastTx(w, 35, 'old35', { 'c.bin': 500 });
    const snap = pastSnapshot(w, 50);
    const restored = pastTx(w, 60, 'gone', { 'g.bin': 10 });
    expect(restore(w.q, restored, { session: null }).restored).toHaveLength(1);
    const recent = recentTx(w, 'recent', 700);
    // Unrecorded things in the quarantine: never collected.
    const stray = newTxid(new Date(Date.now() - 90 * DAY));
    fs.mkdirSync(path.join(w.q.quarantine, stray));
    fs.writeFileSync(path.join(w.q.quarantine, stray, 'x'), 'stray\n');
    fs.writeFileSync(path.join(w.q.quarantine, 'notes.txt'), 'mine\n');
    appendRecord(auditPath(w.q), { kind: 'decision', txid: null, session: 'old-agent', decision: 'ALLOW', code: 'RELOCATE_TREE', command: 'rm -rf old45', cwd: w.ws });

    const size = (t: string): number => du(path.join(w.q.quarantine, t));
    const status = cli(w, ['status', '--json']);
    expect(status.exitCode).toBe(0);
    expect(status.json.quarantineExists).toBe(true);
    expect(status.json.counts).toEqual({ total: 5, restorable: 4, gcEligible: 2, restored: 1, purged: 0, failed: 0 });
    expect(status.json.bytes).toEqual({ quarantine: du(w.q.quarantine), restorable: size(old45) + size(old35) + size(recent) });
    expect(status.json.gc).toMatchObject({ eligible: 2, bytes: size(old45) + size(old35) });
    expect(status.json.recent.map((t: any) => [t.txid, t.state, t.items])).toEqual([
      [recent, 'RESTORABLE', 1],
      [old35, 'GC_ELIGIBLE', 1],
      [old45, 'GC_ELIGIBLE', 1],
      [snap, 'RESTORABLE', 0],
      [restored, 'RESTORED', 1],
    ]);
    const statusText = cli(w, ['status']).stdout;
    expect(statusText).toContain(old45);
    expect(statusText).toMatch(/gc\s+2 transaction\(s\) eligible/);

    // The dry plan: what would go, why, and nothing removed.
    const before = tree(w.ws);
    const manifestBefore = read(manifestPath(w.q));
    const auditBefore = read(auditPath(w.q));
    const dry = cli(w, ['gc', '--json']);
    expect(dry.exitCode).toBe(0);
    expect(dry.json).toMatchObject({ version: 1, executed: false, policy: { maxAgeDays: 30, maxBytes: 5 * 1024 ** 3 }, eligibleBytes: size(old45) + size(old35) });
    expect(dry.json.eligible.map((c: any) => [c.txid, c.why, c.bytes])).toEqual([
      [old45, 'age', size(old45)],
      [old35, 'age', size(old35)],
    ]);
    expect(dry.json.eligible[0].ageSeconds).toBeGreaterThanOrEqual(45 * 86_400);
    const dryText = cli(w, ['gc']);
    expect(dryText.exitCode).toBe(0);
    expect(dryText.stdout).toContain('dry run: 2 transaction(s)');
    expect(dryText.stdout).toMatch(new RegExp(`${old45}\\s+45d\\s+\\S+ \\S+\\s+age`));
    expect(tree(w.ws)).toEqual(before);

    // Execute.
    const sizes = { [old45]: size(old45), [old35]: size(old35) };
    const recentTree = tree(path.join(w.q.quarantine, recent));
    const run = cli(w, ['gc', '--execute', '--json'], { AGENT_GUARD_SESSION: 'janitor' });
    expect(run.exitCode).toBe(0);
    expect(run.json).toMatchObject({ version: 1, executed: true, failed: [], freedBytes: sizes[old45]! + sizes[old35]! });
    expect(run.json.purged).toEqual([
      { txid: old45, bytes: sizes[old45], why: 'age' },
      { txid: old35, bytes: sizes[old35], why: 'age' },
    ]);
    expect(fs.existsSync(path.join(w.q.quarantine, old45))).toBe(false);
    expect(fs.existsSync(path.join(w.q.quarantine, old35))).toBe(false);
    // Everything else is exactly as it was (the records files aside, which only grew).
    const rest = (lines: string[]): string[] => lines.filter((l) => !l.includes(old45) && !l.includes(old35) && !/(manifest|audit)\.jsonl/.test(l));
    expect(rest(tree(w.ws))).toEqual(rest(before));
    expect(tree(path.join(w.q.quarantine, recent))).toEqual(recentTree);
    expect(fs.readFileSync(path.join(w.q.quarantine, stray, 'x'), 'utf8')).toBe('stray\n');
    expect(fs.readdirSync(canary).sort()).toEqual(['big.bin', 'keep.txt']);

    // Records: appended only, one purge per transaction in each file, written by this session.
    for (const [file, prior] of [[manifestPath(w.q), manifestBefore], [auditPath(w.q), auditBefore]] as const) {
      const now = read(file);
      expect(now.startsWith(prior)).toBe(true);
      const added = now.slice(prior.length).trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(added.map((r: any) => [r.v, r.kind, r.txid, r.session, r.bytes])).toEqual([
        [1, 'purge', old45, 'janitor', sizes[old45]],
        [1, 'purge', old35, 'janitor', sizes[old35]],
      ]);
    }
    expect(readRecords(manifestPath(w.q)).corrupt).toEqual([]);

    const list = cli(w, ['restore', 'list', '--json']);
    expect(Object.fromEntries(list.json.transactions.map((t: any) => [t.txid, t.state]))).toEqual({
      [old45]: 'PURGED',
      [old35]: 'PURGED',
      [snap]: 'RESTORABLE',
      [restored]: 'RESTORED',
      [recent]: 'RESTORABLE',
    });
    const after = cli(w, ['status', '--json']);
    expect(after.json.counts).toEqual({ total: 5, restorable: 2, gcEligible: 0, restored: 1, purged: 2, failed: 0 });
    expect(after.json.bytes).toEqual({ quarantine: du(w.q.quarantine), restorable: size(recent) });
    expect(after.json.gc).toMatchObject({ eligible: 0, bytes: 0 });

    // Nothing left to do: no removal, no record.
    const manifestAfter = read(manifestPath(w.q));
    const again = cli(w, ['gc', '--execute']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('purged 0 transaction(s)');
    expect(read(manifestPath(w.q))).toBe(manifestAfter);
    // The rest still restores.
    expect(cli(w, ['restore', recent, '--json']).exitCode).toBe(0);
    expect(fs.readdirSync(path.join(w.ws, 'recent', 'sub'))).toEqual(['data.bin']);
  });

  itSandboxed('write-ahead: when the purge cannot be recorded, nothing is removed', () => {
    const w = world('cli-unrecorded');
    const old = pastTx(w, 40, 'old', { 'a.bin': 100 });
    fs.mkdirSync(auditPath(w.q)); // appending to it fails
    const before = tree(w.ws);
    const manifest = read(manifestPath(w.q));
    const run = cli(w, ['gc', '--execute', '--json']);
    expect(run.exitCode).toBe(1);
    expect(run.json.purged).toEqual([]);
    expect(run.json.failed).toMatchObject([{ txid: old, recorded: false }]);
    expect(tree(w.ws)).toEqual(before);
    expect(read(manifestPath(w.q))).toBe(manifest);
    expect(cli(w, ['restore', 'list', '--json']).json.transactions[0].state).toBe('RESTORABLE');
  });

  itSandboxed('finishes a purge whose removal did not complete, without a second record', () => {
    const w = world('cli-unfinished');
    const old = pastTx(w, 40, 'old', { 'a.bin': 100 });
    const keep = pastTx(w, 1, 'keep', { 'k.bin': 100 });
    for (const file of [auditPath(w.q), manifestPath(w.q)]) appendRecord(file, { kind: 'purge', txid: old, session: null, bytes: 1 });
    const dry = cli(w, ['gc', '--json']);
    expect(dry.json.eligible).toEqual([]);
    expect(dry.json.unfinished).toEqual([{ txid: old, bytes: du(path.join(w.q.quarantine, old)) }]);
    const manifest = read(manifestPath(w.q));
    const run = cli(w, ['gc', '--execute', '--json']);
    expect(run.exitCode).toBe(0);
    expect(run.json.finished.map((f: any) => f.txid)).toEqual([old]);
    expect(fs.existsSync(path.join(w.q.quarantine, old))).toBe(false);
    expect(fs.existsSync(path.join(w.q.quarantine, keep, 'keep', 'k.bin'))).toBe(true);
    expect(read(manifestPath(w.q))).toBe(manifest);
  });
});
