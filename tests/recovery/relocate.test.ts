// Relocation end to end, inside the read-only sandbox: `check --enforce` quarantines, the real
// command runs and finds nothing, `restore` brings back a byte-identical tree. Everything outside
// the test's temp directory is read-only while these run; a canary outside it must survive.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runGuardSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { listing as snapshot, populate } from '../helpers/tree.mjs';
import { world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-relocate');

/** A fresh workspace (git repo) in the writable area. */
const world = (name: string): World => makeWorld(path.join(area.rw(), name, 'home'));

function guard(w: World, args: string[]) {
  return runGuardSandboxed(area.rw(), BIN, args, { cwd: w.ws, env: w.env });
}

describeSandboxed('relocation', () => {
  itSandboxed('quarantines a tree, lets rm run, and restores it byte-identical', () => {
    const w = world('roundtrip');
    populate(path.join(w.ws, 'build'));
    const before = snapshot(path.join(w.ws, 'build'));
    const c = guard(w, ['check', '--enforce', '--json', '--', 'rm -rf build missing']);
    expect(c.exitCode).toBe(0);
    expect(c.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_TREE' });
    const comp = c.json.compensations[0];
    expect(comp).toMatchObject({ strategy: 'relocate', status: 'done', op: 0 });
    expect(comp.moved).toHaveLength(1);
    expect(comp.skipped).toEqual([{ origin: path.join(w.ws, 'missing'), reason: 'missing' }]);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
    // The real command runs next and finds nothing: effect preserved.
    expect(runSandboxed(area.rw(), ['rm', '-rf', 'build', 'missing'], { cwd: w.ws }).exitCode).toBe(0);
    // The quarantine stays out of git.
    expect(fs.readFileSync(path.join(w.ws, '.git/info/exclude'), 'utf8')).toContain('/.agent-trash/');
    const list = guard(w, ['restore', 'list', '--json']);
    expect(list.json.transactions.map((t: any) => [t.txid, t.state])).toEqual([[comp.txid, 'RESTORABLE']]);
    const back = guard(w, ['restore', comp.txid, '--json']);
    expect(back.exitCode).toBe(0);
    expect(back.json.restored).toEqual([path.join(w.ws, 'build')]);
    expect(snapshot(path.join(w.ws, 'build'))).toEqual(before);
    expect(guard(w, ['restore', 'list', '--json']).json.transactions[0].state).toBe('RESTORED');
  });

  itSandboxed('a transaction of one target holds it by its name; one of several by their paths; both restore, parents made again', () => {
    const w = world('layout');
    fs.mkdirSync(path.join(w.ws, 'd', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(w.ws, 'd', 'sub', 'x.txt'), 'one\n');
    for (const d of ['a', 'b']) {
      fs.mkdirSync(path.join(w.ws, d));
      fs.writeFileSync(path.join(w.ws, d, 'x'), `${d}\n`);
    }
    const q = path.join(w.ws, '.agent-trash');
    const one = guard(w, ['check', '--enforce', '--json', '--', 'rm d/sub/x.txt']);
    expect(one.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_PATHS' });
    const c1 = one.json.compensations[0];
    expect(c1.moved).toEqual([{ origin: path.join(w.ws, 'd/sub/x.txt'), dest: path.join(q, c1.txid, 'x.txt'), type: 'file', via: 'rename' }]);
    expect(fs.readdirSync(path.join(q, c1.txid))).toEqual(['x.txt']);
    const two = guard(w, ['check', '--enforce', '--json', '--', 'rm a/x b/x']);
    const c2 = two.json.compensations[0];
    expect(c2.moved.map((m: any) => m.dest)).toEqual([path.join(q, c2.txid, 'a/x'), path.join(q, c2.txid, 'b/x')]);
    // The parents of the single file are gone before the restore: it makes them again.
    expect(runSandboxed(area.rw(), ['rmdir', 'd/sub', 'd', 'a', 'b'], { cwd: w.ws }).exitCode).toBe(0);
    const list = guard(w, ['restore', 'list', '--json']).json.transactions;
    expect(list.map((t: any) => [t.txid, t.state])).toEqual([[c1.txid, 'RESTORABLE'], [c2.txid, 'RESTORABLE']]);
    expect(guard(w, ['restore', c1.txid, '--json']).exitCode).toBe(0);
    expect(guard(w, ['restore', c2.txid, '--json']).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'd', 'sub', 'x.txt'), 'utf8')).toBe('one\n');
    for (const d of ['a', 'b']) expect(fs.readFileSync(path.join(w.ws, d, 'x'), 'utf8')).toBe(`${d}\n`);
    // A directory as the only target: held by its name, and one path inside it restores alone.
    fs.mkdirSync(path.join(w.ws, 'p', 'q', 'r'), { recursive: true });
    fs.writeFileSync(path.join(w.ws, 'p', 'q', 'r', 'c.txt'), 'c\n');
    fs.writeFileSync(path.join(w.ws, 'p', 'q', 'e.txt'), 'e\n');
    const three = guard(w, ['check', '--enforce', '--json', '--', 'rm -rf p/q']);
    const c3 = three.json.compensations[0];
    expect(c3.moved.map((m: any) => m.dest)).toEqual([path.join(q, c3.txid, 'q')]);
    expect(runSandboxed(area.rw(), ['rmdir', 'p'], { cwd: w.ws }).exitCode).toBe(0);
    const part = guard(w, ['restore', c3.txid, 'p/q/r/c.txt', '--json']);
    expect(part.exitCode, part.stderr).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'p', 'q', 'r', 'c.txt'), 'utf8')).toBe('c\n');
    expect(fs.existsSync(path.join(w.ws, 'p', 'q', 'e.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(q, c3.txid, 'q', 'e.txt'), 'utf8')).toBe('e\n');
  });

  itSandboxed('relocates named files with odd names exactly', () => {
    const w = world('names');
    populate(path.join(w.ws, 'd'));
    const before = snapshot(path.join(w.ws, 'd'));
    const c = guard(w, ['check', '--enforce', '--json', '--', 'rm', '-f', '--', 'd/-dash', 'd/new\nline', 'd/ünï cødé', 'd/link-to-a', 'd/dangling']);
    expect(c.exitCode).toBe(0);
    expect(c.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_PATHS' });
    expect(c.json.compensations[0].moved).toHaveLength(5);
    for (const n of ['-dash', 'new\nline', 'ünï cødé', 'link-to-a', 'dangling']) expect(fs.existsSync(path.join(w.ws, 'd', n)) || isLink(path.join(w.ws, 'd', n))).toBe(false);
    const back = guard(w, ['restore', c.json.compensations[0].txid, '--json']);
    expect(back.exitCode).toBe(0);
    expect(snapshot(path.join(w.ws, 'd'))).toEqual(before);
  });

  itSandboxed('never overwrites at restore unless --force, and then quarantines the occupant', () => {
    const w = world('clobber');
    fs.mkdirSync(path.join(w.ws, 'out'));
    fs.writeFileSync(path.join(w.ws, 'out/f.txt'), 'original\n');
    const c = guard(w, ['check', '--enforce', '--json', '--', 'rm -r out']);
    const txid = c.json.compensations[0].txid;
    fs.mkdirSync(path.join(w.ws, 'out'));
    fs.writeFileSync(path.join(w.ws, 'out/f.txt'), 'newer\n');
    const refused = guard(w, ['restore', txid, '--json']);
    expect(refused.exitCode).toBe(1);
    expect(refused.json.restored).toEqual([]);
    expect(fs.readFileSync(path.join(w.ws, 'out/f.txt'), 'utf8')).toBe('newer\n');
    const forced = guard(w, ['restore', txid, '--force', '--json']);
    expect(forced.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'out/f.txt'), 'utf8')).toBe('original\n');
    const aside = guard(w, ['restore', 'list', '--json']).json.transactions.find((t: any) => t.txid === forced.json.displaced);
    expect(aside.state).toBe('RESTORABLE');
  });

  itSandboxed('refuses a restore through a symlink planted on the origin path', () => {
    const w = world('planted');
    fs.mkdirSync(path.join(w.ws, 'dir'));
    fs.writeFileSync(path.join(w.ws, 'dir/f.txt'), 'x\n');
    const c = guard(w, ['check', '--enforce', '--json', '--', 'rm dir/f.txt']);
    fs.rmdirSync(path.join(w.ws, 'dir'));
    fs.symlinkSync(area.canary(), path.join(w.ws, 'dir'));
    const r = guard(w, ['restore', c.json.compensations[0].txid, '--json']);
    expect(r.json.restored).toEqual([]);
    expect(r.json.skipped).toHaveLength(1);
    expect(fs.readdirSync(area.canary())).toEqual(['keep.txt']);
  });

  itSandboxed('blocks with RELOCATE_FAILED_STORAGE when the quarantine cannot take the target', () => {
    const w = world('storage');
    fs.mkdirSync(path.join(w.ws, 'build'));
    fs.writeFileSync(path.join(w.ws, 'build/x'), 'x\n');
    // Outside the writable area: read-only inside the sandbox.
    const trash = path.join(area.canary(), 'trash');
    const c = runSandboxed(area.rw(), [process.execPath, BIN, 'check', '--enforce', '--json', '--', 'rm -rf build'], { cwd: w.ws, env: { ...w.env, AGENT_GUARD_TRASH: trash } });
    expect(c.exitCode).toBe(2);
    expect(JSON.parse(c.stdout)).toMatchObject({ decision: 'BLOCK', code: 'RELOCATE_FAILED_STORAGE' });
    expect(fs.readFileSync(path.join(w.ws, 'build/x'), 'utf8')).toBe('x\n');
  });

  itSandboxed('git clean -fdx: relocates what git would remove, and the real command leaves the quarantine alone', () => {
    const w = world('clean');
    const git = (args: string[]) => expect(spawnSync('git', args, { cwd: w.ws, env: { ...process.env, ...w.env } }).status).toBe(0);
    fs.writeFileSync(path.join(w.ws, '.gitignore'), 'node_modules/\n');
    fs.writeFileSync(path.join(w.ws, 'tracked.txt'), 't\n');
    git(['add', '-A']);
    git(['commit', '-qm', 'init']);
    // An earlier transaction in the quarantine, which git clean -fdx must not wipe.
    fs.mkdirSync(path.join(w.ws, 'old'));
    fs.writeFileSync(path.join(w.ws, 'old/keep.txt'), 'keep\n');
    const first = guard(w, ['check', '--enforce', '--json', '--', 'rm -r old']);
    expect(first.exitCode).toBe(0);
    populate(path.join(w.ws, 'scratch'));
    fs.mkdirSync(path.join(w.ws, 'node_modules/x'), { recursive: true });
    fs.writeFileSync(path.join(w.ws, 'node_modules/x/i.js'), 'dep\n');
    fs.writeFileSync(path.join(w.ws, 'notes.md'), 'untracked notes\n');
    const before = snapshot(w.ws).filter((l) => !l.startsWith('".git') && !l.startsWith('".agent-trash'));
    const c = guard(w, ['check', '--enforce', '--json', '--', 'git clean -fdx']);
    expect(c.exitCode).toBe(0);
    expect(c.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_VIA_CLEAN_ENUMERATE' });
    expect(c.json.compensations[0]).toMatchObject({ strategy: 'clean-enumerate', status: 'done' });
    const real = runSandboxed(area.rw(), ['git', 'clean', '-fdx'], { cwd: w.ws, env: w.env });
    expect(real.exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, '.agent-trash/manifest.jsonl'))).toBe(true);
    const states = guard(w, ['restore', 'list', '--json']).json.transactions.map((t: any) => t.state);
    expect(states).toEqual(['RESTORABLE', 'RESTORABLE']);
    expect(guard(w, ['restore', c.json.compensations[0].txid, '--json']).exitCode).toBe(0);
    expect(snapshot(w.ws).filter((l) => !l.startsWith('".git') && !l.startsWith('".agent-trash'))).toEqual(before);
  });

  itSandboxed('git reset --hard: snapshots tracked changes first, restore re-applies them', () => {
    const w = world('reset');
    const git = (args: string[]) => spawnSync('git', args, { cwd: w.ws, env: { ...process.env, ...w.env }, encoding: 'utf8' });
    fs.writeFileSync(path.join(w.ws, 'a.txt'), 'committed\n');
    expect(git(['add', '-A']).status).toBe(0);
    expect(git(['commit', '-qm', 'init']).status).toBe(0);
    fs.writeFileSync(path.join(w.ws, 'a.txt'), 'work in progress\n');
    const c = guard(w, ['check', '--enforce', '--json', '--', 'git reset --hard']);
    expect(c.exitCode).toBe(0);
    expect(c.json).toMatchObject({ decision: 'ALLOW', code: 'SNAPSHOT_GIT_STASH' });
    const comp = c.json.compensations[0];
    expect(comp).toMatchObject({ strategy: 'snapshot', status: 'done' });
    expect(comp.stash).toMatch(/^[0-9a-f]{40}$/);
    // Kept under agent-guard's own ref, never in the user's stash.
    expect(git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/agent-guard']).stdout).toBe(`${comp.stash} refs/agent-guard/${comp.txid}/snapshot\n`);
    expect(git(['stash', 'list']).stdout).toBe('');
    expect(runSandboxed(area.rw(), ['git', 'reset', '-q', '--hard'], { cwd: w.ws, env: w.env }).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'a.txt'), 'utf8')).toBe('committed\n');
    const back = guard(w, ['restore', comp.txid, '--json']);
    expect(back.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'a.txt'), 'utf8')).toBe('work in progress\n');
  });
});

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
