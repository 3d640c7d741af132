// Scratch zones (docs/zones.md) and git's lock files, end to end inside the read-only sandbox:
// through `check --enforce`, the real PATH shims and `delete`; what moved sits in the zone's own
// quarantine, `restore list`/`status`/`gc` see it, `restore` brings it back byte-identical; a zone
// quarantine someone else could control is refused, never used; the zone itself, HOME, the cache
// directory itself and agent-guard's own cache stay refused. TMPDIR, HOME and the cache are inside
// the sandbox's writable area; the canary outside it (in the read-only /tmp) survives everything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { SYSTEM_PATH, world as makeWorld, type World as BaseWorld } from '../helpers/world.js';
import { writeShims } from '../../src/shims/render.js';
import { listing, populate } from '../helpers/tree.mjs';

const area = useSandboxArea('ag-zones');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));
const UID = process.getuid?.() ?? 0;

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

interface World extends BaseWorld {
  tmp: string;
  cache: string;
}

/** HOME with a git workspace (tracked.txt committed) and a cache directory, and a TMPDIR (sticky,
 *  world-writable like /tmp) beside it — all inside the writable area. */
function world(name: string): World {
  const base = path.join(area.rw(), name);
  const w = { ...makeWorld(path.join(base, 'home'), { files: { 'tracked.txt': 't\n' }, commit: true }), tmp: path.join(base, 'tmp'), cache: path.join(base, 'home', '.cache') };
  fs.mkdirSync(w.cache, { recursive: true });
  fs.mkdirSync(w.tmp);
  fs.chmodSync(w.tmp, 0o1777);
  return w;
}

/** Runs a script in the workspace, inside the sandbox; `ag` is the built CLI. */
function sh(w: World, script: string, opts: { shims: boolean; env?: Record<string, string> }): { exitCode: number; stdout: string; stderr: string } {
  const env: Record<string, string> = { ...w.env, TMPDIR: w.tmp, PATH: opts.shims ? `${shims()}:${SYSTEM_PATH}` : SYSTEM_PATH, AGENT_GUARD_SESSION: 'zones', ...opts.env };
  return runSandboxed(area.rw(), ['sh', '-c', `ag() { "${process.execPath}" "${BIN}" "$@"; }\n${script}`], { cwd: w.ws, env, timeoutMs: 60_000 });
}

/** `name=status` lines a script printed with `st NAME` after each step. */
function statuses(out: string): Record<string, number> {
  return Object.fromEntries([...out.matchAll(/^@(\S+)=(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}
const ST = 'st() { echo "@$1=$?"; }\n';

/** Every transaction `restore list --json` shows, the workspace's and the zones'. */
function transactions(w: World): { txid: string; state: string; zone: string | null; quarantine: string; origins: string[] }[] {
  const list = JSON.parse(sh(w, 'ag restore list --json', { shims: false }).stdout);
  const of = (q: string, zone: string | null, txs: any[]) => txs.map((t) => ({ txid: t.txid, state: t.state, zone, quarantine: q, origins: t.items.map((i: any) => i.origin) }));
  // Only this test's zones (the host's own /tmp quarantine, if it has one, is not ours to judge).
  return [...of(list.quarantine, null, list.transactions), ...mine(list.zones ?? []).flatMap((z: any) => of(z.quarantine, z.zone, z.transactions))];
}

const mine = (zones: any[]): any[] => zones.filter((z) => z.root.startsWith(`${area.rw()}/`));
const modeOf = (p: string): number => fs.lstatSync(p).mode & 0o7777;

describeSandboxed('scratch zones through check --enforce: relocated into the zone’s quarantine, restorable byte-identical', () => {
  itSandboxed('TMPDIR and the cache directory; restore list, status, restore, gc', () => {
    const w = world('enforce');
    populate(path.join(w.tmp, 'scratch'), 'tmp');
    populate(path.join(w.cache, 'demo-tool'), 'cache');
    populate(path.join(w.tmp, 'later'), 'later');
    const before = { tmp: listing(path.join(w.tmp, 'scratch')), cache: listing(path.join(w.cache, 'demo-tool')) };
    const r = sh(
      w,
      `${ST}ag check --enforce --json -- 'rm -rf ${w.tmp}/scratch' > enforce-tmp.json; st tmp
ag check --enforce --json -- 'rm -rf ~/.cache/demo-tool' > enforce-cache.json; st cache
ag check --enforce -- 'rm -rf ${w.tmp}/later' 2>/dev/null; st later`,
      { shims: false },
    );
    expect(statuses(r.stdout), r.stderr).toEqual({ tmp: 0, cache: 0, later: 0 });
    const tmpQ = path.join(w.tmp, `.agent-trash-${UID}`);
    const cacheQ = path.join(w.cache, 'agent-guard', 'trash');
    const enforced = JSON.parse(fs.readFileSync(path.join(w.ws, 'enforce-tmp.json'), 'utf8'));
    expect(enforced).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_SCRATCH', compensations: [{ status: 'done', zone: 'temp', quarantine: tmpQ }] });
    expect(JSON.parse(fs.readFileSync(path.join(w.ws, 'enforce-cache.json'), 'utf8'))).toMatchObject({ code: 'RELOCATE_SCRATCH', compensations: [{ zone: 'cache', quarantine: cacheQ }] });
    expect([fs.existsSync(path.join(w.tmp, 'scratch')), fs.existsSync(path.join(w.cache, 'demo-tool'))]).toEqual([false, false]);
    // The zone quarantines: directories of ours, 0700, on the zone's filesystem (moved by rename).
    expect([modeOf(tmpQ), modeOf(cacheQ), fs.lstatSync(tmpQ).uid]).toEqual([0o700, 0o700, UID]);
    expect(enforced.compensations[0].moved[0].via).toBe('rename');
    // Nothing went to the workspace's quarantine.
    const txs = transactions(w);
    expect(txs.map((t) => [t.zone, t.state, t.origins])).toEqual([
      ['temp', 'RESTORABLE', [path.join(w.tmp, 'scratch')]],
      ['temp', 'RESTORABLE', [path.join(w.tmp, 'later')]],
      ['cache', 'RESTORABLE', [path.join(w.cache, 'demo-tool')]],
    ]);
    const status = JSON.parse(sh(w, 'ag status --json', { shims: false }).stdout);
    expect(status.counts.total).toBe(0);
    expect(mine(status.zones).map((z: any) => [z.zone, z.quarantine, z.counts.restorable])).toEqual([
      ['temp', tmpQ, 2],
      ['cache', cacheQ, 1],
    ]);
    // restore finds each transaction in its zone, from the workspace.
    const [scratchTx, laterTx, cacheTx] = txs;
    const back = sh(w, `${ST}ag restore ${scratchTx!.txid}; st a\nag restore ${cacheTx!.txid}; st b`, { shims: false });
    expect(statuses(back.stdout), back.stderr).toEqual({ a: 0, b: 0 });
    expect({ tmp: listing(path.join(w.tmp, 'scratch')), cache: listing(path.join(w.cache, 'demo-tool')) }).toEqual(before);
    // gc covers the zones: with a cap of 0 bytes every restorable transaction is eligible.
    const gc = sh(w, 'ag gc --execute --max-bytes 0 --json', { shims: false });
    expect(gc.exitCode, gc.stderr).toBe(0);
    const purged = JSON.parse(gc.stdout);
    expect(mine(purged.zones).map((z: any) => [z.zone, z.purged.map((p: any) => p.txid)])).toEqual([
      ['temp', [laterTx!.txid]],
      ['cache', []],
    ]);
    expect(fs.existsSync(path.join(tmpQ, laterTx!.txid))).toBe(false);
    expect(transactions(w).map((t) => t.state)).toEqual(['RESTORED', 'PURGED', 'RESTORED']);
  });

  itSandboxed('the zone itself, HOME, the cache directory itself and agent-guard’s cache stay refused', () => {
    const w = world('refused');
    fs.mkdirSync(path.join(w.cache, 'agent-guard', 'abc', 'shims'), { recursive: true });
    fs.writeFileSync(path.join(w.home, 'notes.txt'), 'n\n');
    const r = sh(
      w,
      `${ST}for c in 'rm -rf ${w.tmp}' 'rm -rf ${w.tmp}/' 'rm -rf ~' 'rm -rf ~/.cache' 'rm -rf ~/.cache/agent-guard' 'rm -rf ~/.cache/agent-guard/abc/shims' 'rm ~/notes.txt' 'rm -rf ${area.canary()}' 'rm -rf ${w.tmp}/x /etc/hostname'; do
  ag check --enforce --json -- "$c" | sed -n 's/^{"version":1,"decision":"\\([A-Z]*\\)","code":"\\([A-Z_]*\\)".*/@\\1 \\2/p'
done`,
      { shims: false },
    );
    expect(r.stdout.split('\n').filter((l) => l.startsWith('@')), r.stderr).toEqual([
      '@BLOCK BLOCK_OUT_OF_WORKSPACE', // the zone itself
      '@BLOCK BLOCK_OUT_OF_WORKSPACE',
      '@BLOCK BLOCK_PROTECTED_ANCESTOR', // HOME
      '@BLOCK BLOCK_OUT_OF_WORKSPACE', // the cache zone itself
      '@BLOCK BLOCK_OUT_OF_WORKSPACE', // agent-guard's own cache
      '@BLOCK BLOCK_OUT_OF_WORKSPACE',
      '@BLOCK BLOCK_OUT_OF_WORKSPACE', // HOME is not scratch, even inside /tmp
      '@BLOCK RELOCATE_FAILED_STORAGE', // the canary is in /tmp (a zone), read-only here: never deleted
      '@BLOCK BLOCK_OUT_OF_WORKSPACE', // a scratch target never carries an outside one
    ]);
    expect(fs.existsSync(path.join(w.cache, 'agent-guard', 'abc', 'shims'))).toBe(true);
    expect(fs.readFileSync(path.join(w.home, 'notes.txt'), 'utf8')).toBe('n\n');
  });

  itSandboxed('a workspace inside TMPDIR keeps its own quarantine; its siblings are scratch', () => {
    const w = world('inside');
    const ws = path.join(w.tmp, 'proj');
    fs.mkdirSync(path.join(ws, 'build'), { recursive: true });
    fs.mkdirSync(path.join(w.tmp, 'sibling'));
    expect(spawnSync('git', ['init', '-q'], { cwd: ws }).status).toBe(0);
    const r = runSandboxed(area.rw(), ['sh', '-c', `${ST}n() { "${process.execPath}" "${BIN}" "$@"; }
n check --enforce -- 'rm -rf build' 2>/dev/null; st build
n check --enforce -- 'rm -rf ../sibling' 2>/dev/null; st sibling
n check --enforce -- 'rm -rf ..' 2>/dev/null; st parent`], { cwd: ws, env: { ...w.env, TMPDIR: w.tmp, PATH: SYSTEM_PATH } });
    expect(statuses(r.stdout), r.stderr).toEqual({ build: 0, sibling: 0, parent: 2 });
    expect(fs.readdirSync(path.join(ws, '.agent-trash')).some((n) => /^\d{8}T/.test(n))).toBe(true);
    expect(fs.readdirSync(path.join(w.tmp, `.agent-trash-${UID}`)).filter((n) => /^\d{8}T/.test(n))).toHaveLength(1);
    expect(fs.existsSync(path.join(w.tmp, 'proj'))).toBe(true);
  });
});

describeSandboxed('git’s lock files through check --enforce', () => {
  itSandboxed('rm -f .git/index.lock is relocated (git works again, restore brings it back); a directory named x.lock and .git stay refused', () => {
    const w = world('lock');
    fs.writeFileSync(path.join(w.ws, '.git', 'index.lock'), 'stale\n');
    fs.mkdirSync(path.join(w.ws, '.git', 'dir.lock'));
    const r = sh(
      w,
      `${ST}echo t2 > tracked.txt && git add tracked.txt 2>/dev/null; st locked
ag check --enforce --json -- 'rm -f .git/index.lock' > lock.json; st enforce
rm -f .git/index.lock; git add tracked.txt; st unlocked
ag check --enforce -- 'rm -rf .git/dir.lock' 2>/dev/null; st dir
ag check --enforce -- 'rm -f .git/index.lock .git/HEAD' 2>/dev/null; st mixed
ag check --enforce -- 'rm -rf .git' 2>/dev/null; st git`,
      { shims: false },
    );
    expect(statuses(r.stdout), r.stderr).toEqual({ locked: 128, enforce: 0, unlocked: 0, dir: 2, mixed: 2, git: 2 });
    expect(JSON.parse(fs.readFileSync(path.join(w.ws, 'lock.json'), 'utf8'))).toMatchObject({ code: 'RELOCATE_GIT_LOCK', compensations: [{ status: 'done', moved: [{ type: 'file' }] }] });
    expect(fs.existsSync(path.join(w.ws, '.git', 'dir.lock')) && fs.existsSync(path.join(w.ws, '.git', 'HEAD'))).toBe(true);
    const [tx] = transactions(w);
    expect(tx!.origins).toEqual([path.join(w.ws, '.git', 'index.lock')]);
    expect(sh(w, `ag restore ${tx!.txid}`, { shims: false }).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, '.git', 'index.lock'), 'utf8')).toBe('stale\n');
  });
});

describeSandboxed('scratch zones and git locks through the real shims and delete', () => {
  itSandboxed('mktemp -d; rm -rf "$T", mkdir -p "$TMPDIR/scratch" … rm -rf, ~/.cache, find -delete, unlink, .git/index.lock: restorable', () => {
    const w = world('shims');
    fs.mkdirSync(path.join(w.cache, 'demo-tool'));
    fs.writeFileSync(path.join(w.cache, 'demo-tool', 'blob'), 'cached\n');
    fs.mkdirSync(path.join(w.tmp, 'objs', 'sub'), { recursive: true });
    for (const f of ['a.o', 'sub/b.o', 'keep.c']) fs.writeFileSync(path.join(w.tmp, 'objs', f), f);
    fs.writeFileSync(path.join(w.tmp, 'u.txt'), 'u\n');
    fs.writeFileSync(path.join(w.ws, '.git', 'index.lock'), '');
    fs.mkdirSync(path.join(w.ws, '.git', 'refs', 'heads', 'dir.lock'));
    const r = sh(
      w,
      `${ST}T=$(mktemp -d) && echo x > "$T/f" && rm -rf "$T" && test ! -e "$T"; st mktemp
mkdir -p "$TMPDIR/scratch" && echo s > "$TMPDIR/scratch/s" && rm -rf "$TMPDIR/scratch" && test ! -e "$TMPDIR/scratch"; st scratch
rm -rf ~/.cache/demo-tool; st cache
find "$TMPDIR/objs" -name '*.o' -delete; st find
unlink "$TMPDIR/u.txt"; st unlink
echo t2 > tracked.txt && git add tracked.txt 2>/dev/null; st locked
rm -f .git/index.lock; st lock
git add tracked.txt; st unlocked
rm -f .git/index.lock; st lockagain
rm -rf .git/refs/heads/dir.lock 2>/dev/null; st lockdir
rm -rf .git 2>/dev/null; st git
rm -rf "$TMPDIR" 2>/dev/null; st zone
rm -rf ~/.cache 2>/dev/null; st cachezone
rm -rf ${area.canary()} 2>/dev/null; st canary`,
      { shims: true },
    );
    expect(statuses(r.stdout), r.stderr).toEqual({ mktemp: 0, scratch: 0, cache: 0, find: 0, unlink: 0, locked: 128, lock: 0, unlocked: 0, lockagain: 0, lockdir: 2, git: 2, zone: 2, cachezone: 2, canary: 2 });
    expect(fs.readdirSync(path.join(w.tmp, 'objs'), { recursive: true }).map(String).sort()).toEqual(['keep.c', 'sub']);
    expect(fs.existsSync(path.join(w.ws, '.git', 'refs', 'heads', 'dir.lock'))).toBe(true);
    const txs = transactions(w);
    const rel = (t: (typeof txs)[number]): string[] => t.origins.map((o) => path.relative(t.zone === 'cache' ? w.cache : t.zone ? w.tmp : w.ws, o));
    expect(txs.map((t) => [t.zone, rel(t)])).toEqual([
      [null, ['.git/index.lock']],
      ['temp', [expect.stringMatching(/^tmp\.\w+$/)]],
      ['temp', ['scratch']],
      ['temp', ['objs/a.o', 'objs/sub/b.o']],
      ['temp', ['u.txt']],
      ['cache', ['demo-tool']],
    ]);
    // Everything comes back where it was.
    const back = sh(w, `${ST}${txs.map((t, i) => `ag restore ${t.txid} >/dev/null; st r${i}`).join('\n')}`, { shims: false });
    expect(Object.values(statuses(back.stdout)), back.stderr).toEqual(txs.map(() => 0));
    expect(fs.readFileSync(path.join(w.tmp, 'scratch', 's'), 'utf8')).toBe('s\n');
    expect(fs.readFileSync(path.join(w.cache, 'demo-tool', 'blob'), 'utf8')).toBe('cached\n');
    expect(fs.readdirSync(path.join(w.tmp, 'objs'), { recursive: true }).map(String).sort()).toEqual(['a.o', 'keep.c', 'sub', 'sub/b.o']);
    expect(fs.existsSync(path.join(w.tmp, 'u.txt')) && fs.existsSync(path.join(w.ws, '.git', 'index.lock'))).toBe(true);
  });

  itSandboxed('delete PATH in a scratch zone and in the workspace: one transaction per quarantine', () => {
    const w = world('delete');
    fs.writeFileSync(path.join(w.tmp, 'a.log'), 'a\n');
    fs.writeFileSync(path.join(w.ws, 'b.log'), 'b\n');
    const r = sh(w, `ag delete ${w.tmp}/a.log b.log --json`, { shims: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.txids).toHaveLength(2);
    expect(out.zones).toEqual([{ txid: out.txids[1], zone: 'temp', quarantine: path.join(w.tmp, `.agent-trash-${UID}`) }]);
    expect(fs.existsSync(path.join(w.tmp, 'a.log')) || fs.existsSync(path.join(w.ws, 'b.log'))).toBe(false);
  });
});

describeSandboxed('a zone quarantine someone else could control is refused, never used', () => {
  itSandboxed('owned by another user, a symlink, group-writable, or in a zone others may rename in', () => {
    const w = world('unsafe');
    const zones = ['owner', 'link', 'group', 'nosticky'].map((n) => {
      const z = path.join(area.rw(), 'unsafe', `z-${n}`);
      fs.mkdirSync(path.join(z, 'victim'), { recursive: true });
      fs.writeFileSync(path.join(z, 'victim', 'f'), n);
      fs.chmodSync(z, n === 'nosticky' ? 0o777 : 0o1777);
      return z;
    });
    const q = (z: string): string => path.join(z, `.agent-trash-${UID}`);
    fs.mkdirSync(q(zones[0]!), { mode: 0o700 });
    fs.chownSync(q(zones[0]!), 1234, 1234);
    const elsewhere = path.join(area.rw(), 'unsafe', 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.symlinkSync(elsewhere, q(zones[1]!));
    fs.mkdirSync(q(zones[2]!));
    fs.chmodSync(q(zones[2]!), 0o770);
    const lines = zones.map((z, i) => `TMPDIR=${z} ag check --enforce --json -- 'rm -rf ${z}/victim' | grep -o '"code":"[A-Z_]*"' | head -1; TMPDIR=${z} rm -rf ${z}/victim 2>/dev/null; st shim${i}`);
    const r = sh(w, `${ST}${lines.join('\n')}`, { shims: true });
    expect(r.stdout.split('\n').filter((l) => l.startsWith('"code"')), r.stderr).toEqual(zones.map(() => '"code":"RELOCATE_FAILED_STORAGE"'));
    expect(statuses(r.stdout)).toEqual({ shim0: 2, shim1: 2, shim2: 2, shim3: 2 });
    for (const z of zones) expect(fs.readFileSync(path.join(z, 'victim', 'f'), 'utf8')).toBe(path.basename(z).slice(2));
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.existsSync(q(zones[3]!))).toBe(false);
    // restore list leaves the foreign quarantine alone and says so.
    const list = sh(w, `TMPDIR=${zones[0]} ag restore list --json`, { shims: false });
    expect((JSON.parse(list.stdout).zones ?? []).map((z: any) => z.root)).not.toContain(zones[0]);
    expect(list.stderr).toMatch(/owned by uid 1234/);
  });
});
