// Durability of the relocation engine, inside the read-only sandbox (tests/helpers/sandbox.ts):
//
// 1. crash consistency — a relocating process is killed with SIGKILL at every step (before
//    the first record, with a torn record, after an intent, in the middle of a cross-filesystem copy,
//    while the source is removed, after the move, after the completion record), and afterwards every
//    entry is at its origin or in the quarantine where a record says, `restore list` shows the
//    transaction RESTORABLE when anything is in the quarantine, and `restore <txid>` brings the tree
//    back byte-identical;
// 2. concurrency — 8 processes relocate into one quarantine at the same time;
// 3. across filesystems — a quarantine on a tmpfs (mounted inside the sandbox) is copied into
//    exactly, and a full one blocks with RELOCATE_FAILED_STORAGE, leaving the origin complete.
//
// The kills are injected by tests/recovery/fixtures/relocate-child.ts, which patches functions of the
// `node:fs` default export in its own process; nothing in src/ can trigger them. Scenarios run from
// start to end inside one sandbox (fixtures/driver.ts), since a tmpfs mounted there goes with it.
// Everything outside the test's temp directory is read-only meanwhile; a canary outside it must
// survive.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, sandboxSupport } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { bundleForNobody } from '../helpers/nobody.js';
import { world as makeWorld } from '../helpers/world.js';
import { readRecords } from '../../src/recovery/records.js';
import { allPaths, listing, populate, POPULATED_FILES, POPULATED_LINKS } from '../helpers/tree.mjs';

const REPO = path.resolve(import.meta.dirname, '../..');
// The fixtures are bundled (esbuild) once, before the tests, and run with plain node: a node that
// loads tsx first spends about half a second of CPU on it, for every driver and every child.
let CHILD = '';
let DRIVER = '';
const TMPFS_MAGIC = 0x01021994;

let base: string;
let rw: string;
let canary: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-durability-')));
  rw = path.join(base, 'rw');
  canary = path.join(base, 'canary');
  fs.mkdirSync(rw);
  fs.mkdirSync(canary);
  fs.writeFileSync(path.join(canary, 'keep.txt'), 'canary\n');
  const tools = path.join(rw, '.tools');
  DRIVER = bundleForNobody(path.join(REPO, 'tests/recovery/fixtures/driver.ts'), tools);
  CHILD = bundleForNobody(path.join(REPO, 'tests/recovery/fixtures/relocate-child.ts'), tools);
});
afterAll(() => {
  expect(fs.readdirSync(canary)).toEqual(['keep.txt']);
  expect(fs.readFileSync(path.join(canary, 'keep.txt'), 'utf8')).toBe('canary\n');
  // Even the clean-up runs sandboxed: only this test's own temp directory is writable.
  if (sandboxSupport().ok) {
    expect(runSandboxed(base, ['rm', '-rf', '--', rw, canary]).exitCode).toBe(0);
    fs.rmdirSync(base);
  }
});

interface World {
  ws: string;
  env: Record<string, string>;
  /** The quarantine: a tmpfs mount point (AGENT_GUARD_TRASH) or `<ws>/.agent-trash`. */
  quarantine: string;
  /** Set when the quarantine is a tmpfs mounted inside the sandbox. */
  tmpfs: string | null;
}

/** A fresh git workspace in the writable area; with `tmpfs`, the quarantine is a directory outside
 *  the workspace on which the sandboxed command mounts a tmpfs. */
function world(name: string, tmpfs = false): World {
  const { ws, env } = makeWorld(path.join(rw, name, 'home'));
  if (!tmpfs) return { ws, env, quarantine: path.join(ws, '.agent-trash'), tmpfs: null };
  const trash = path.join(rw, name, 'trashfs');
  fs.mkdirSync(trash);
  return { ws, env: { ...env, AGENT_GUARD_TRASH: trash }, quarantine: trash, tmpfs: trash };
}

/** Runs fixtures/driver.ts in one sandbox (after mounting the world's tmpfs, if it has one). */
function drive(w: World | null, scenario: object, opts: { size?: string; timeoutMs?: number } = {}): any {
  const node = [process.execPath, DRIVER, JSON.stringify(scenario)];
  const argv = w?.tmpfs
    ? ['sh', '-c', 'mount -t tmpfs -o "size=$1,mode=0700" agent-guard-durability "$2" || exit 99; shift 2; exec "$@"', 'sh', opts.size ?? '16m', w.tmpfs, ...node]
    : node;
  const r = runSandboxed(rw, argv, { cwd: REPO, timeoutMs: opts.timeoutMs ?? 60_000 });
  if (r.exitCode !== 0) throw new Error(`driver exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const TARGETS = ['build', 'link', 'notes.txt'];

/** build/ (a tree with everything), link (a symlink), notes.txt: relocated in that order. */
function crashWorld(name: string, tmpfs: boolean): { w: World; before: Record<string, string[]> } {
  const w = world(name, tmpfs);
  populate(path.join(w.ws, 'build'), name);
  fs.writeFileSync(path.join(w.ws, 'notes.txt'), `notes of ${name}\n`);
  fs.symlinkSync('notes.txt', path.join(w.ws, 'link'));
  return { w, before: Object.fromEntries(TARGETS.map((t) => [t, listing(path.join(w.ws, t), w.ws)])) };
}

type Hook = { fn: string; n: number; when: 'before' | 'after' | 'torn' | 'throw' };

interface Point {
  name: string;
  hook: Hook;
  /** Targets found in the quarantine (where a record says) after the kill. */
  quarantined: string[];
  /** A record line was torn by the kill. */
  torn?: boolean;
  /** What is left at build's origin next to its complete copy (moved aside by the restore). */
  remnant?: 'all' | 'part';
  /** The kill came in the middle of a copy: its unfinished staging copy is left in the transaction. */
  staging?: boolean;
  /** The kill came before anything was written: no transaction, everything at its origin. */
  unrecorded?: boolean;
}

// Records are written in this order: #1 tx-start together with build's intent (one write), #2
// build's completion, then for link and notes.txt: an intent (#3, #5) and a completion (#4, #6).
const SAME_FS: Point[] = [
  { name: 'before the first write (tx-start with the first intent)', hook: { fn: 'writeSync', n: 1, when: 'before' }, quarantined: [], unrecorded: true },
  { name: 'in the middle of writing the tx-start and the first intent (torn line)', hook: { fn: 'writeSync', n: 1, when: 'torn' }, quarantined: [], torn: true },
  { name: 'after the intent record, before the rename', hook: { fn: 'renameSync', n: 1, when: 'before' }, quarantined: [] },
  { name: 'after the rename, before the completion record', hook: { fn: 'renameSync', n: 1, when: 'after' }, quarantined: ['build'] },
  { name: 'in the middle of writing the completion record (torn line)', hook: { fn: 'writeSync', n: 2, when: 'torn' }, quarantined: ['build'], torn: true },
  { name: 'after the completion record, before the next intent', hook: { fn: 'writeSync', n: 3, when: 'before' }, quarantined: ['build'] },
  { name: 'after the second rename, before its completion record', hook: { fn: 'renameSync', n: 2, when: 'after' }, quarantined: ['build', 'link'] },
  { name: 'after the last completion record', hook: { fn: 'writeSync', n: 6, when: 'after' }, quarantined: ['build', 'link', 'notes.txt'] },
];

const CROSS_FS: Point[] = [
  { name: 'after the intent record, before the move (EXDEV rename)', hook: { fn: 'renameSync', n: 1, when: 'before' }, quarantined: [] },
  { name: 'in the middle of the copy (3 files copied)', hook: { fn: 'copyFileSync', n: 4, when: 'before' }, quarantined: [], staging: true },
  { name: 'in the middle of the copy (a symlink copied)', hook: { fn: 'symlinkSync', n: 1, when: 'after' }, quarantined: [], staging: true },
  { name: 'after the last file is copied, before the verification', hook: { fn: 'copyFileSync', n: POPULATED_FILES, when: 'after' }, quarantined: [], staging: true },
  { name: 'with the copy in place, before the source is removed', hook: { fn: 'rmSync', n: 1, when: 'before' }, quarantined: ['build'], remnant: 'all' },
  { name: 'in the middle of removing the source', hook: { fn: 'unlinkSync', n: 3, when: 'before' }, quarantined: ['build'], remnant: 'part' },
  { name: 'after the source is removed, before the completion record', hook: { fn: 'writeSync', n: 2, when: 'before' }, quarantined: ['build'] },
  { name: 'after the completion record', hook: { fn: 'writeSync', n: 3, when: 'before' }, quarantined: ['build'] },
  { name: 'after the second target (a symlink) is copied, before it is put in place', hook: { fn: 'symlinkSync', n: POPULATED_LINKS + 1, when: 'after' }, quarantined: ['build'], staging: true },
  { name: 'after the third target (a file) is copied, before its completion record', hook: { fn: 'writeSync', n: 6, when: 'before' }, quarantined: ['build', 'link', 'notes.txt'] },
];

/** Is `p` (relative to a transaction's directory) `entry` or inside it? */
function within(p: string, entry: string): boolean {
  return p === entry || p.startsWith(entry + '/');
}

function crashPoint(p: Point, i: number, tmpfs: boolean): void {
  const { w, before } = crashWorld(`crash-${tmpfs ? 'xfs' : 'fs'}-${i}`, tmpfs);
  const rep = drive(w, { kind: 'crash', bin: BIN, ws: w.ws, env: w.env, child: CHILD, repo: REPO, quarantine: w.quarantine, targets: TARGETS.map((t) => path.join(w.ws, t)), hook: p.hook });
  // The kill (or the injected failure) happened, where it was meant to.
  expect(rep.child.stderr).toContain(`HOOK FIRED ${p.hook.fn}#${p.hook.n} ${p.hook.when}`);
  if (p.hook.when === 'throw') {
    expect(rep.child.status, rep.child.stderr).toBe(0);
    const { result } = JSON.parse(rep.child.stdout);
    expect(result.status).toBe('failed');
    expect(result.failure.message).toContain('EACCES: permission denied (injected)');
    // The copy that was put in place is reported, so the BLOCK names a restorable txid.
    expect(result.moved.map((m: any) => [path.relative(w.ws, m.origin), m.via])).toEqual(p.quarantined.map((t) => [t, 'copy']));
  } else {
    expect(rep.child.signal, rep.child.stderr).toBe('SIGKILL');
    expect(rep.child.stderr).not.toContain('not killed');
  }
  // What `restore list` says after the crash.
  const list1 = rep.list1.json;
  expect(list1.corruptRecords).toBe(p.torn ? 1 : 0);
  if (p.unrecorded) {
    // Nothing recorded, nothing moved: every entry is at its origin.
    expect(list1.transactions).toEqual([]);
    expect(Object.values(before).flat().filter((line) => !(rep.mid.origins as string[]).includes(line))).toEqual([]);
    return;
  }
  expect(list1.transactions).toHaveLength(1);
  const tx = list1.transactions[0];
  const rel = (abs: string): string => path.relative(w.ws, abs);
  const present = tx.items.filter((it: any) => it.present).map((it: any) => rel(it.origin));
  expect(present).toEqual(p.quarantined);
  expect(tx.state).toBe(present.length > 0 ? 'RESTORABLE' : 'FAILED');
  // Zero loss: every entry is at its origin or in the quarantine where a record says it is...
  const found = new Set<string>([...rep.mid.origins, ...Object.values(rep.mid.quarantined as Record<string, string[]>).flat()]);
  expect(Object.values(before).flat().filter((line) => !found.has(line))).toEqual([]);
  // ...and what a record finds in the quarantine is complete, never a partial copy.
  for (const t of present) expect(rep.mid.quarantined[t]).toEqual(before[t]);
  // Nothing else under the transaction's directory, but an unfinished copy's private staging name.
  const strays = (rep.mid.txDirs[tx.txid] as string[]).filter((q) => !present.some((t: string) => within(q, t)));
  expect(strays.filter((q) => !/^\.agent-guard-copy-[0-9a-f]{12}(\/|$)/.test(q))).toEqual([]);
  expect(strays.length > 0).toBe(p.staging === true);
  // gc finds exactly those partial copies (the process that made them is gone) and removes them,
  // audited; nothing else in the quarantine is touched by it.
  expect((rep.gcPlan.json.staging as any[]).map((c) => path.relative(path.join(w.quarantine, tx.txid), c.path)).sort()).toEqual(strays.filter((q) => !q.includes('/')).sort());
  expect(rep.gcRun.exitCode, rep.gcRun.stderr).toBe(0);
  expect(rep.gcRun.json.stagingRemoved).toHaveLength(strays.filter((q) => !q.includes('/')).length);
  expect(rep.gcAfter.json.staging).toEqual([]);
  // Where the source was being removed, build's origin holds all or part of the tree.
  const atOrigin = (rep.mid.origins as string[]).filter((line) => before.build!.includes(line)).length;
  if (p.remnant === 'all') expect(atOrigin).toBe(before.build!.length);
  if (p.remnant === 'part') expect(atOrigin).toBeGreaterThan(0);
  if (p.remnant === 'part') expect(atOrigin).toBeLessThan(before.build!.length);
  // restore <txid> brings everything back, byte-identical.
  expect(rep.restores.map((r: any) => r.txid)).toEqual(present.length > 0 ? [tx.txid] : []);
  for (const r of rep.restores) {
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    expect(r.json.restored.map(rel).sort()).toEqual(p.quarantined);
    // Only what never reached the quarantine (an intent without its entry, still at its origin).
    const absent = tx.items.filter((it: any) => !it.present).map((it: any) => ({ origin: it.origin, reason: 'not in the quarantine (restored or purged already)' }));
    expect(r.json.skipped).toEqual(absent);
    if (p.remnant) expect(r.json.displaced).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    else expect(r.json.displaced).toBeUndefined();
  }
  for (const t of TARGETS) expect(listing(path.join(w.ws, t), w.ws)).toEqual(before[t]);
  const after = rep.list2.json.transactions.find((t: any) => t.txid === tx.txid);
  expect(after.state).toBe(present.length > 0 ? 'RESTORED' : 'FAILED');
  // A remnant of the origin was moved aside (restorable itself), never deleted.
  expect(rep.list2.json.transactions).toHaveLength(p.remnant ? 2 : 1);
  if (p.remnant) {
    const aside = rep.list2.json.transactions.find((t: any) => t.txid === rep.restores[0].json.displaced);
    expect(aside.state).toBe('RESTORABLE');
    expect(aside.items.map((it: any) => [rel(it.origin), it.present])).toEqual([['build', true]]);
  }
}

/** A relocation that runs to the end in the child: proves the fixture's patches are in place. */
function controlRun(tmpfs: boolean): any {
  const { w, before } = crashWorld(`control-${tmpfs ? 'xfs' : 'fs'}`, tmpfs);
  const rep = drive(w, { kind: 'crash', bin: BIN, ws: w.ws, env: w.env, child: CHILD, repo: REPO, quarantine: w.quarantine, targets: TARGETS.map((t) => path.join(w.ws, t)) });
  expect(rep.child.status, rep.child.stderr).toBe(0);
  const out = JSON.parse(rep.child.stdout);
  expect(out.result.status).toBe('done');
  expect(out.result.moved.map((m: any) => [path.relative(w.ws, m.origin), m.via])).toEqual(TARGETS.map((t) => [t, tmpfs ? 'copy' : 'rename']));
  expect(out.kinds).toEqual(['tx-start', ...TARGETS.flatMap(() => ['relocate-intent', 'relocate'])]);
  expect(rep.restores).toHaveLength(1);
  expect(rep.restores[0].exitCode).toBe(0);
  for (const t of TARGETS) expect(listing(path.join(w.ws, t), w.ws)).toEqual(before[t]);
  return out.counts;
}

describeSandboxed('durability: SIGKILL at every step of a relocation', () => {
  itSandboxed('control, same filesystem: the patched fs functions are the ones relocate calls', () => {
    const counts = controlRun(false);
    expect(counts).toMatchObject({ writeSync: 6, renameSync: 3, copyFileSync: 0, symlinkSync: 0, unlinkSync: 0 });
  });
  SAME_FS.forEach((p, i) => itSandboxed(`same filesystem: killed ${p.name}`, () => crashPoint(p, i, false)));

  itSandboxed('control, across filesystems (tmpfs quarantine): every entry is copied', () => {
    const counts = controlRun(true);
    // Each target's rename fails (EXDEV) first; files and links are then copied one by one; the
    // unlinks counted are the source removals (every file and link of build, then link, notes.txt).
    expect(counts).toMatchObject({ writeSync: 6, copyFileSync: POPULATED_FILES + 1, symlinkSync: POPULATED_LINKS + 1, unlinkSync: POPULATED_FILES + POPULATED_LINKS + 2 });
    expect(counts.renameSync).toBeGreaterThanOrEqual(3);
    expect(counts.rmSync).toBe(3);
  });
  CROSS_FS.forEach((p, i) => itSandboxed(`across filesystems: killed ${p.name}`, () => crashPoint(p, i, true)));

  itSandboxed('across filesystems, no kill: removing the source fails halfway (EACCES) — the copy is reported moved and restore brings back the whole tree', () => {
    crashPoint({ name: 'source removal fails', hook: { fn: 'unlinkSync', n: 3, when: 'throw' }, quarantined: ['build'], remnant: 'part' }, CROSS_FS.length, true);
  });

  itSandboxed('killed while making the quarantine, before its nested-repository marker is complete: the next relocation completes it, and git clean -fdx leaves the quarantine alone', () => {
    const w = world('marker');
    fs.mkdirSync(path.join(w.ws, 'first'));
    fs.writeFileSync(path.join(w.ws, 'first/f.txt'), 'first\n');
    const rep = drive(w, { kind: 'crash', bin: BIN, ws: w.ws, env: w.env, child: CHILD, repo: REPO, quarantine: w.quarantine, targets: [path.join(w.ws, 'first')], hook: { fn: 'writeFileSync', n: 1, when: 'before' } });
    expect(rep.child.signal).toBe('SIGKILL');
    expect(rep.child.stderr).toContain(`HOOK FIRED writeFileSync#1 before ${JSON.stringify(path.join(w.quarantine, '.git/HEAD'))}`);
    expect(rep.list1.json.transactions).toEqual([]);
    expect(fs.existsSync(path.join(w.quarantine, '.git/objects'))).toBe(true);
    expect(fs.existsSync(path.join(w.quarantine, '.git/HEAD'))).toBe(false);
    expect(fs.readFileSync(path.join(w.ws, 'first/f.txt'), 'utf8')).toBe('first\n');
    // The next relocation (the real CLI) must leave a complete marker...
    fs.mkdirSync(path.join(w.ws, 'second'));
    fs.writeFileSync(path.join(w.ws, 'second/s.txt'), 'second\n');
    const c = runSandboxed(rw, [process.execPath, BIN, 'check', '--enforce', '--json', '--', 'rm -rf second'], { cwd: w.ws, env: w.env });
    expect(c.exitCode, c.stderr).toBe(0);
    const txid = JSON.parse(c.stdout).compensations[0].txid;
    expect(fs.readFileSync(path.join(w.quarantine, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    // ...so that git clean -fdx, which removes ignored files, treats it as a nested repository.
    expect(runSandboxed(rw, ['git', 'clean', '-fdx'], { cwd: w.ws, env: w.env }).exitCode).toBe(0);
    const back = runSandboxed(rw, [process.execPath, BIN, 'restore', txid, '--json'], { cwd: w.ws, env: w.env });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'second/s.txt'), 'utf8')).toBe('second\n');
  });
});

describeSandboxed('durability: concurrent relocations into one quarantine', () => {
  itSandboxed('8 processes relocating 4 targets each at the same time: every record parses, txids are distinct, everything restores byte-identical', () => {
    const N = 8;
    const w = world('parallel');
    fs.mkdirSync(path.join(w.ws, 'deep/er'), { recursive: true });
    const targets: string[][] = [];
    for (let i = 0; i < N; i++) {
      populate(path.join(w.ws, `tree-${i}`), `p${i}`);
      fs.writeFileSync(path.join(w.ws, `file-${i}.bin`), crypto.randomBytes(1000 + i));
      fs.symlinkSync(`file-${i}.bin`, path.join(w.ws, `link-${i}`));
      fs.mkdirSync(path.join(w.ws, `deep/er/d-${i}`));
      fs.writeFileSync(path.join(w.ws, `deep/er/d-${i}/x`), `deep ${i}\n`);
      targets.push([`tree-${i}`, `file-${i}.bin`, `link-${i}`, `deep/er/d-${i}`].map((t) => path.join(w.ws, t)));
    }
    const before = listing(w.ws).filter((l) => !l.startsWith('".git'));
    const barrier = path.join(rw, 'parallel', 'barrier');
    fs.mkdirSync(barrier);
    const runs = drive(null, { kind: 'parallel', child: CHILD, repo: REPO, dir: barrier, specs: targets.map((t) => ({ root: w.ws, quarantine: w.quarantine, targets: t })) }, { timeoutMs: 90_000 });
    expect(runs).toHaveLength(N);
    const outs = runs.map((r: any) => {
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    });
    for (const o of outs) expect(o.result).toMatchObject({ status: 'done', skipped: [] });
    expect(outs.map((o: any) => o.result.moved.length)).toEqual(Array(N).fill(4));
    // They really ran at the same time: each relocation overlapped another one (all 8 at one
    // instant is not guaranteed on a loaded 2-core machine: a relocation takes a few ms, a wake-up
    // from the barrier can take longer); the records' interleaving is checked below too.
    for (const o of outs) expect(outs.some((p: any) => p !== o && p.t0 < o.t1 && o.t0 < p.t1)).toBe(true);
    // All targets are gone from the workspace.
    for (const t of targets.flat()) expect(fs.existsSync(t) || isLink(t)).toBe(false);
    // The manifest: every line parses, 8 distinct transactions of 9 records each, all interleaved.
    const { records, corrupt } = readRecords(path.join(w.quarantine, 'manifest.jsonl'));
    expect(corrupt).toEqual([]);
    expect(records).toHaveLength(N * 9);
    const txids = outs.map((o: any) => o.result.txid);
    expect(new Set(txids).size).toBe(N);
    for (const txid of txids) {
      const own = records.filter((r) => r.txid === txid);
      expect(own.map((r) => r.kind).sort()).toEqual(['relocate', 'relocate', 'relocate', 'relocate', 'relocate-intent', 'relocate-intent', 'relocate-intent', 'relocate-intent', 'tx-start']);
      expect(new Set(own.map((r) => r.pid)).size).toBe(1);
    }
    const switches = records.filter((r, i) => i > 0 && r.pid !== records[i - 1]!.pid).length;
    expect(switches).toBeGreaterThan(N - 1); // not one process after the other
    // Every transaction restores, 8 restores at once as well.
    const outDir = path.join(rw, 'parallel', 'restores');
    fs.mkdirSync(outDir);
    const r = runSandboxed(rw, ['sh', '-c', 'bin=$1 out=$2; shift 2; for t in "$@"; do "$0" "$bin" restore "$t" --json > "$out/$t.json" 2>&1 & done; wait', process.execPath, BIN, outDir, ...txids], { cwd: w.ws, env: w.env, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(0);
    for (const txid of txids) {
      const res = JSON.parse(fs.readFileSync(path.join(outDir, `${txid}.json`), 'utf8'));
      expect(res.restored).toHaveLength(4);
      expect(res.skipped).toEqual([]);
    }
    expect(listing(w.ws).filter((l) => !l.startsWith('".git') && !l.startsWith('".agent-trash'))).toEqual(before);
    const after = readRecords(path.join(w.quarantine, 'manifest.jsonl'));
    expect(after.corrupt).toEqual([]);
    expect(after.records.filter((rec) => rec.kind === 'restore').map((rec) => rec.txid).sort()).toEqual([...txids].sort());
    const list = runSandboxed(rw, [process.execPath, BIN, 'restore', 'list', '--json'], { cwd: w.ws, env: w.env });
    expect(JSON.parse(list.stdout).transactions.map((t: any) => t.state)).toEqual(Array(N).fill('RESTORED'));
  }, 120_000);
});

describeSandboxed('durability: a quarantine on another filesystem (tmpfs)', () => {
  itSandboxed('relocates a tree by copy (modes, symlinks, empty dirs, odd names, timestamps) and restores it byte-identical', () => {
    const w = world('exdev', true);
    const build = path.join(w.ws, 'build');
    populate(build, 'exdev');
    const before = listing(build, w.ws);
    const times = mtimes(build);
    const q = (p: string): string => path.join(w.quarantine, p);
    const steps = drive(w, {
      kind: 'steps',
      bin: BIN,
      ws: w.ws,
      env: w.env,
      steps: [
        { df: w.quarantine },
        { df: w.ws },
        { run: ['check', '--enforce', '--json', '--', 'rm -rf build'] },
        { listing: q('{txid}/build'), base: q('{txid}') },
        { paths: q('{txid}') },
        { listing: build, base: w.ws },
        { run: ['restore', 'list', '--json'] },
        { run: ['restore', '{txid}', '--json'] },
        { run: ['restore', 'list', '--json'] },
        { paths: q('{txid}') },
      ],
    });
    const [dfQ, dfWs, check, inQ, txPaths, originAfter, list1, back, list2, txAfter] = steps;
    expect(dfQ.type).toBe(TMPFS_MAGIC);
    expect(dfQ.dev).not.toBe(dfWs.dev);
    expect(check.exitCode, check.stderr).toBe(0);
    expect(check.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_TREE' });
    const comp = check.json.compensations[0];
    expect(comp).toMatchObject({ strategy: 'relocate', status: 'done', moved: [{ origin: build, dest: q(`${comp.txid}/build`), type: 'dir', via: 'copy' }] });
    expect(inQ).toEqual(before);
    expect(txPaths.every((p: string) => within(p, 'build'))).toBe(true);
    expect(originAfter).toEqual([]);
    expect(list1.json.transactions.map((t: any) => [t.txid, t.state])).toEqual([[comp.txid, 'RESTORABLE']]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.json).toMatchObject({ restored: [build], skipped: [] });
    expect(list2.json.transactions.map((t: any) => t.state)).toEqual(['RESTORED']);
    expect(txAfter).toEqual([]);
    expect(listing(build, w.ws)).toEqual(before);
    // Node passes timestamps to utimes(2) as a double of seconds (about 0.24 µs apart today): two
    // copies (there and back) keep them to a few microseconds; a Date would cut them to the ms.
    const now = mtimes(build);
    expect(Object.keys(now)).toEqual(Object.keys(times));
    for (const [p, t] of Object.entries(times)) expect(Math.abs(now[p]! - t), p).toBeLessThan(0.005);
  });

  itSandboxed('a full quarantine (64k tmpfs): BLOCK RELOCATE_FAILED_STORAGE, the target stays complete at its origin, no partial copy is left', () => {
    const w = world('full', true);
    const build = path.join(w.ws, 'build');
    fs.mkdirSync(path.join(build, 'sub'), { recursive: true });
    for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(build, i % 2 ? 'sub' : '', `blob-${i}`), crypto.randomBytes(24 * 1024));
    fs.symlinkSync('blob-0', path.join(build, 'link'));
    const before = listing(build, w.ws);
    const steps = drive(
      w,
      {
        kind: 'steps',
        bin: BIN,
        ws: w.ws,
        env: w.env,
        steps: [
          { df: w.quarantine },
          { run: ['check', '--enforce', '--json', '--', 'rm -rf build'] },
          { paths: w.quarantine },
          { listing: build, base: w.ws },
          { run: ['restore', 'list', '--json'] },
        ],
      },
      { size: '64k' },
    );
    const [df, check, qPaths, origin, list] = steps;
    expect(df.type).toBe(TMPFS_MAGIC);
    expect(df.bytes).toBe(64 * 1024);
    expect(check.exitCode, check.stderr).toBe(2);
    expect(check.json).toMatchObject({ decision: 'BLOCK', code: 'RELOCATE_FAILED_STORAGE' });
    const comp = check.json.compensations[0];
    expect(comp).toMatchObject({ status: 'failed', moved: [] });
    expect(comp.error).toMatch(/build could not be moved to the quarantine: ENOSPC/);
    // The origin is complete (seen inside the sandbox and after it).
    expect(origin).toEqual(before);
    expect(listing(build, w.ws)).toEqual(before);
    // Nothing of the copy is left in the quarantine: the transaction's directory holds no entry.
    expect(qPaths.filter((p: string) => within(p, comp.txid))).toEqual([comp.txid]);
    expect(qPaths.filter((p: string) => !/^(\.git|manifest\.jsonl|audit\.jsonl)(\/|$)/.test(p) && !within(p, comp.txid))).toEqual([]);
    expect(list.json.transactions.map((t: any) => [t.txid, t.state, t.items.map((it: any) => [it.origin, it.present])])).toEqual([[comp.txid, 'FAILED', [[build, false]]]]);
  });
});

/** Modification times (ms) of dir and every entry under it, symlinks excepted (theirs are not kept). */
function mtimes(dir: string): Record<string, number> {
  const entries = [dir, ...allPaths(dir).map((p) => path.join(dir, p))].filter((p) => !fs.lstatSync(p).isSymbolicLink());
  return Object.fromEntries(entries.map((p) => [path.relative(dir, p), fs.lstatSync(p).mtimeMs]));
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
