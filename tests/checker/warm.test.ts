// The warm checker (src/checker/, docs/shims.md "Warm path") with the real shims, the real bundle and
// `agent-guard run`, all inside ONE read-only sandbox: a master script runs every scenario, each in
// its own directory, and the assertions read what they left behind. A call served warm is told
// apart from a cold one by the pid in its records (the server's, for every call it serves).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { committedRepo, gitT } from '../helpers/repo.js';

const area = useSandboxArea('ag-warm');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const NOBODY = 65534;
const TXID = /\d{8}T\d{6}Z-[0-9a-f]{8}/g;
/** Files in the tree the mid-relocation scenario copies across filesystems (long enough to kill). */
const MID_FILES = 6000;

let R = '';
const at = (...p: string[]): string => path.join(R, ...p);
const read = (...p: string[]): string => fs.readFileSync(at(...p), 'utf8');
const readTrim = (...p: string[]): string => read(...p).trim();


const repo = committedRepo;

interface Rec {
  kind: string;
  txid: string | null;
  pid: number;
  session: string | null;
  [k: string]: unknown;
}

/** Every line of a records file, each of which must parse. */
function records(file: string): Rec[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);
}

/** Files and links under `dir` (relative; .git and the quarantine left out), with their content.
 *  Names are read as bytes (one case has a name that is not UTF-8) and shown as latin1. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const root = Buffer.from(dir);
  const walk = (d: Buffer): void => {
    for (const n of fs.readdirSync(d, { encoding: 'buffer' }).sort(Buffer.compare)) {
      const name = n.toString('latin1');
      if (d === root && (name === '.git' || name === '.agent-trash')) continue;
      const p = Buffer.concat([d, Buffer.from('/'), n]);
      const st = fs.lstatSync(p);
      const rel = JSON.stringify(p.subarray(root.length + 1).toString('latin1'));
      if (st.isDirectory()) {
        out.push(`${rel}/`);
        walk(p);
      } else out.push(`${rel} ${st.isSymbolicLink() ? 'link' : fs.readFileSync(p, 'latin1')}`);
    }
  };
  walk(root);
  return out;
}

const TX_DIR = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;

/** What a quarantine holds: paths inside each transaction directory, transaction ids left out. */
function quarantined(q: string): string[] {
  if (!fs.existsSync(q)) return [];
  return fs
    .readdirSync(q)
    .filter((n) => TX_DIR.test(n))
    .flatMap((tx) => tree(path.join(q, tx)))
    .sort();
}

// ---------------------------------------------------------------------------------------------
// The equivalence cases: each runs once cold (AGENT_GUARD_CHECKER emptied) and once warm, on two
// copies of one workspace; everything observable must be the same.

interface Case {
  cmd: string;
  /** Served with a transaction: its records must carry the server's pid (warm) or not (cold). */
  relocates?: boolean;
  /** The real rm (a logging stand-in on PATH) must not run: every operand was relocated. */
  noExec?: boolean;
}

const BAD_NAME = Buffer.from([0x62, 0x61, 0x64, 0xff]);

const CASES: Case[] = [
  { cmd: 'rm a.txt', relocates: true, noExec: true },
  { cmd: 'rm missing.txt' },
  { cmd: 'rm -v a.txt dir/b.txt', relocates: true, noExec: true },
  { cmd: 'rm dir' },
  { cmd: 'rm -r dir', relocates: true, noExec: true },
  { cmd: 'rm -rv dir', relocates: true },
  { cmd: 'rm -rf .git' },
  { cmd: 'rm -f nothere a.txt', relocates: true },
  { cmd: 'rmdir empty' },
  { cmd: 'unlink a.txt', relocates: true },
  { cmd: 'git clean -f', relocates: true },
  { cmd: "find . -name '*.tmp' -delete", relocates: true },
  { cmd: 'rm -i a.txt' },
  { cmd: `rm "$(printf 'bad\\377')"` },
  { cmd: 'echo changed > README && git reset --hard', relocates: true },
  { cmd: 'git branch -D feature', relocates: true },
  { cmd: 'shred -u a.txt', relocates: true },
  { cmd: 'printf "%s\\n" a.txt dir/b.txt x.tmp | xargs -n1 rm', relocates: true },
  // The overwrite shims (src/overwrite/): served warm like the deleters.
  { cmd: 'mv x.tmp a.txt', relocates: true },
  { cmd: 'cp dir/b.txt a.txt', relocates: true },
  { cmd: 'truncate -s 0 a.txt', relocates: true },
  { cmd: 'rsync -a --delete empty/ dir/', relocates: true },
  { cmd: 'mv a.txt new.txt' },
];

function equivTemplate(dir: string): void {
  repo(dir);
  gitT(dir, 'branch', 'feature');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  fs.mkdirSync(path.join(dir, 'dir'));
  fs.writeFileSync(path.join(dir, 'dir', 'b.txt'), 'b\n');
  fs.writeFileSync(path.join(dir, 'dir', 'y.tmp'), 'y\n');
  fs.writeFileSync(path.join(dir, 'x.tmp'), 'x\n');
  fs.mkdirSync(path.join(dir, 'empty'));
}

/** A file whose name is not UTF-8 (made in each copy: copying cannot carry such a name). */
function badName(dir: string): void {
  fs.writeFileSync(Buffer.concat([Buffer.from(dir + '/'), BAD_NAME]), 'latin1 name\n');
}

// Perl, to exec the real rm as `rm` (its messages then read as without the stand-in); not bash,
// which would load the guard's hook.
const FAKE_RM = '#!/usr/bin/perl\nmy $f;\nopen($f, ">>", $ENV{FAKE_LOG}) and print $f join(" ", @ARGV), "\\n";\nclose($f) if $f;\nexec { "/usr/bin/rm" } "rm", @ARGV or die;\n';

// The scenario scripts are fixtures/scenarios/*.sh (run by dash under `agent-guard run`, or by
// master.sh itself), each in its own directory under the sandbox area.













/** The hook scenario's texts (fixtures/scenarios/hooks.sh), run by `bash -c` (`zsh:` by `zsh -c`):
 *  each is one the hook decides itself — a redirection over a file that holds data, a guarded
 *  program by its path, a PATH prefix. */
const HOOK_CASES = ['echo new > data.txt', '/bin/rm -rf build', '/bin/rm -rf .git', 'PATH=/usr/bin:$PATH git status --short', 'zsh:echo new > data.txt', 'zsh:/bin/rm -rf build'];

function tools(): string {
  const dir = path.join(area.rw(), 'tools');
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.copyFileSync(BIN, path.join(dir, 'agent-guard.cjs'));
  fs.copyFileSync(process.execPath, path.join(dir, 'node'));
  fs.chmodSync(path.join(dir, 'node'), 0o755);
  return dir;
}

function setUp(): void {
  R = area.rw();
  fs.chmodSync(R, 0o755);
  const home = at('home');
  const runtime = at('run');
  fs.mkdirSync(home);
  fs.mkdirSync(runtime, { mode: 0o700 });
  // equiv: one template, copied (same commits) per case and side; a logging rm first on PATH.
  const tpl = at('equiv', 'tpl');
  equivTemplate(tpl);
  fs.mkdirSync(at('fakebin'));
  fs.writeFileSync(at('fakebin', 'rm'), FAKE_RM, { mode: 0o755 });
  CASES.forEach((c, n) => {
    fs.writeFileSync(at('equiv', `case-${n}.sh`), c.cmd + '\n');
    for (const side of ['c', 'w']) {
      fs.cpSync(tpl, at('equiv', `${side}-${n}`), { recursive: true });
      badName(at('equiv', `${side}-${n}`));
    }
  });

  // hooks: the bash/zsh hook's own checks (shell/hook-client.sh), cold and warm, one copy each.
  repo(at('hooks', 'tpl'));
  fs.writeFileSync(at('hooks', 'tpl', 'data.txt'), 'old\n');
  fs.mkdirSync(at('hooks', 'tpl', 'build', 'sub'), { recursive: true });
  fs.writeFileSync(at('hooks', 'tpl', 'build', 'sub', 'x.o'), 'x\n');
  HOOK_CASES.forEach((t, n) => {
    fs.writeFileSync(at('hooks', `case-${n}.txt`), t);
    for (const side of ['c', 'w']) fs.cpSync(at('hooks', 'tpl'), at('hooks', `${side}-${n}`), { recursive: true });
  });
  fs.cpSync(at('hooks', 'tpl'), at('hooks', 'w-dead'), { recursive: true });

  repo(at('fake', 'ws'));
  for (const sh of ['dash', 'bash', 'zsh']) for (const m of ['cold', 'eof']) fs.writeFileSync(at('fake', 'ws', `${m}-${sh}.txt`), `${m}\n`);
  fs.writeFileSync(at('fake', 'ws', 'badnode.txt'), 'kept\n');
  for (const k of ['kill-before-decide', 'kill-after-compensate', 'kill-after-answer', 'stale', 'idle', 'owner']) {
    repo(at(k, 'ws'));
    for (const f of ['f1', 'f2', 'f3']) fs.writeFileSync(at(k, 'ws', f), `${f}\n`);
  }
  repo(at('mid', 'ws'));
  for (let i = 0; i < MID_FILES; i++) {
    const d = at('mid', 'ws', 'big', `d${Math.floor(i / 200)}`);
    if (i % 200 === 0) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, `${i}.o`), `${i}\n`);
  }
  for (const s of ['a', 'b']) {
    repo(at('two', s, 'ws'));
    fs.mkdirSync(at('two', s, 'ws', 'objs'));
    for (let i = 0; i < 20; i++) fs.writeFileSync(at('two', s, 'ws', 'objs', `${i}.o`), `${s}${i}\n`);
  }
  repo(at('xargs', 'ws'));
  fs.mkdirSync(at('xargs', 'ws', 'objs'));
  for (let i = 0; i < 200; i++) fs.writeFileSync(at('xargs', 'ws', 'objs', `${i}.o`), `${i}\n`);

  // other: a checker directory of another user (nobody), and one of root that nobody may not serve.
  const t = tools();
  repo(at('other', 'ws'));
  fs.writeFileSync(at('other', 'ws', 'f1'), 'f1\n');
  fs.mkdirSync(at('other', 'base', 'd1'), { recursive: true, mode: 0o700 });
  fs.chmodSync(at('other', 'base'), 0o700);
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, at('other', 'base')]);
  fs.mkdirSync(at('other', 'rootbase', 'd1'), { recursive: true, mode: 0o700 });

  const env = {
    HOME: home,
    PATH: SYSTEM_PATH,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: runtime,
    R,
    BIN,
    LIB: path.join(FIXTURES, 'lib.sh'),
    FIX: path.join(FIXTURES, 'scenarios'),
    NOBODY: String(NOBODY),
    FAKE_SERVER: path.join(FIXTURES, 'fake-server.mjs'),
    TOOLS: t,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  const r = runSandboxed(R, ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'sh', path.join(FIXTURES, 'scenarios', 'master.sh')], { cwd: R, timeoutMs: 300_000 });
  fs.writeFileSync(at('master.out'), `exit ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}\n`);
}

const pids = (file: string): number[] => records(file).filter((r) => r.kind === 'tx-start').map((r) => r.pid);

describeSandboxed('warm checker: one per session, same decisions, records and output as the cold path', () => {
  beforeAll(setUp, 360_000);

  itSandboxed('each hook check gives the same status, messages, tree and quarantine warm as cold; the warm ones are the server\'s', () => {
    expect(fs.existsSync(at('hooks', 'w-dead.rc')), read('master.out')).toBe(true);
    const server = Number(readTrim('hooks', 'server.pid'));
    expect(readTrim('hooks', 'server.after')).toBe('alive');
    HOOK_CASES.forEach((t, n) => {
      const side = (s: string) => ({
        rc: readTrim('hooks', `${s}-${n}.rc`),
        out: read('hooks', `${s}-${n}.out`),
        err: read('hooks', `${s}-${n}.err`).replace(TXID, 'TX'),
        tree: tree(at('hooks', `${s}-${n}`)),
        quarantine: quarantined(at('hooks', `${s}-${n}`, '.agent-trash')),
      });
      expect(side('w'), t).toEqual(side('c'));
      const wp = pids(at('hooks', `w-${n}`, '.agent-trash', 'manifest.jsonl'));
      const cp = pids(at('hooks', `c-${n}`, '.agent-trash', 'manifest.jsonl'));
      expect(wp.every((p) => p === server), t).toBe(true);
      expect(cp.includes(server), t).toBe(false);
    });
    const rc = (n: number): string => readTrim('hooks', `w-${n}.rc`);
    // What each case did (the same cold): kept and overwritten, relocated, refused, run.
    for (const n of [0, 4]) {
      expect(rc(n), HOOK_CASES[n]).toBe('0');
      expect(read('hooks', `w-${n}`, 'data.txt')).toBe('new\n');
      expect(quarantined(at('hooks', `w-${n}`, '.agent-trash'))).toContain('"data.txt" old\n');
      expect(pids(at('hooks', `w-${n}`, '.agent-trash', 'manifest.jsonl'))).toHaveLength(1);
    }
    for (const n of [1, 5]) {
      expect(rc(n), HOOK_CASES[n]).toBe('0');
      expect(fs.existsSync(at('hooks', `w-${n}`, 'build'))).toBe(false);
      expect(quarantined(at('hooks', `w-${n}`, '.agent-trash'))).toContain('"build/sub/x.o" x\n');
    }
    expect(rc(2)).toBe('126');
    expect(fs.existsSync(at('hooks', 'w-2', '.git', 'HEAD'))).toBe(true);
    expect(rc(3)).toBe('0');
    expect(read('hooks', 'w-3.out')).toBe('?? build/\n?? data.txt\n');
    // With the checker gone, the hook decides cold: the same outcome, nothing lost.
    expect(readTrim('hooks', 'w-dead.rc')).toBe('0');
    expect(read('hooks', 'w-dead', 'data.txt')).toBe('new\n');
    expect(quarantined(at('hooks', 'w-dead', '.agent-trash'))).toContain('"data.txt" old\n');
    const dp = pids(at('hooks', 'w-dead', '.agent-trash', 'manifest.jsonl'));
    expect(dp).toHaveLength(1);
    expect(dp[0]).not.toBe(server);
  });

  itSandboxed('the master script ran every scenario', () => {
    expect(fs.existsSync(at('finished')), read('master.out')).toBe(true);
  });

  itSandboxed('every case gives the same status, output, tree and quarantine warm as cold; warm ones are served by the server', () => {
    const server = Number(readTrim('equiv', 'server.pid'));
    expect(readTrim('equiv', 'server.after')).toBe('alive');
    CASES.forEach((c, n) => {
      const side = (s: string) => ({
        rc: readTrim('equiv', `${s}-${n}.rc`),
        out: read('equiv', `${s}-${n}.out`).replace(TXID, 'TX'),
        err: read('equiv', `${s}-${n}.err`).replace(TXID, 'TX'),
        calls: read('equiv', `${s}-${n}.calls`),
        tree: tree(at('equiv', `${s}-${n}`)),
        quarantine: quarantined(at('equiv', `${s}-${n}`, '.agent-trash')),
      });
      const cold = side('c');
      const warm = side('w');
      expect(warm, c.cmd).toEqual(cold);
      const wp = pids(at('equiv', `w-${n}`, '.agent-trash', 'manifest.jsonl'));
      const cp = pids(at('equiv', `c-${n}`, '.agent-trash', 'manifest.jsonl'));
      if (c.relocates) {
        expect(wp.length, c.cmd).toBeGreaterThan(0);
        expect(wp.every((p) => p === server), `${c.cmd}: served warm`).toBe(true);
        expect(cp.every((p) => p !== server), `${c.cmd}: cold`).toBe(true);
      } else expect(wp, c.cmd).toEqual([]);
      if (c.noExec) expect(warm.calls, `${c.cmd}: the real rm did not run`).toBe('');
    });
    // A few outcomes spelled out (both sides are equal, so the warm one stands for both).
    const rc = (n: number): string => readTrim('equiv', `w-${n}.rc`);
    expect(rc(1), read('equiv', 'w-1.err')).toBe('1'); // rm missing.txt: the real rm's error
    expect(read('equiv', 'w-1.err')).toBe("rm: cannot remove 'missing.txt': No such file or directory\n");
    expect(read('equiv', 'w-2.out')).toBe("removed 'a.txt'\nremoved 'dir/b.txt'\n");
    expect(rc(6)).toBe('2'); // rm -rf .git: refused
    expect(rc(12)).toBe('3'); // rm -i without a terminal: ASK (the server answered cold: no terminal here)
    expect(rc(13)).toBe('2'); // an argument that is not UTF-8: refused, as by the cold path
    expect(read('equiv', 'w-10.out')).toContain('Removing a.txt\n');
  });

  itSandboxed('the client relays frames byte for byte under dash, bash and zsh; keep, bad, cold and end-of-file answers', () => {
    for (const sh of ['dash', 'bash', 'zsh']) {
      expect(readTrim('fake', `${sh}-frames.rc`), `${sh}: ${read('fake', `${sh}-frames.err`)}`).toBe('7');
      expect(read('fake', `${sh}-frames.out`), sh).toBe('plain line\n  leading and trailing spaces  \n-n\n\\c %s %d \\n backslashes\ttab\n\nno newline: still stdout\n');
      expect(read('fake', `${sh}-frames.err`), sh).toBe('to stderr\npartial err!\n');
      const log = JSON.parse(read('fake', `${sh}-frames.log`));
      const [pid, argc, name, real] = (log.request as string).split(' ');
      expect([argc, name, real]).toEqual(['4', 'rm', at('fakebin', 'rm')]);
      expect(log.done).toBe(`done ${pid}`);
      const argv = Buffer.from(log.cmdline, 'base64').toString('utf8').split('\0').slice(0, -1);
      expect(argv.slice(-5)).toEqual([path.join(path.dirname(argv.at(-5)!), 'rm'), '-x', 'a b', 'c\nd', '']);
      expect(readTrim('fake', `${sh}-keep.rc`)).toBe('0');
      expect(read('fake', `${sh}-keep.out`)).toMatch(/^rm \(GNU coreutils\)/);
      expect(readTrim('fake', `${sh}-bad.rc`)).toBe('126');
      expect(read('fake', `${sh}-bad.err`)).toMatch(/refusing to run rm: the checker gave an invalid directive/);
      for (const m of ['cold', 'eof']) {
        expect(readTrim('fake', `${sh}-${m}.rc`), `${sh} ${m}`).toBe('0');
        expect(fs.existsSync(at('fake', 'ws', `${m}-${sh}.txt`)), `${sh} ${m}: the cold path moved it`).toBe(false);
      }
    }
    expect(quarantined(at('fake', 'ws', '.agent-trash')).filter((l) => /(cold|eof)-/.test(l))).toHaveLength(6);
    // Warm checker unreachable (end-of-file) and a cold path that cannot start: refused, 126.
    expect(readTrim('fake', 'badnode.rc')).toBe('126');
    expect(read('fake', 'badnode.err')).toMatch(/refusing to run rm: the checker could not start: \/nonexistent\/node is missing/);
    expect(fs.existsSync(at('fake', 'ws', 'badnode.txt'))).toBe(true);
  });

  itSandboxed('kill -9 before it decides: the client takes the cold path, which does the work', () => {
    const p = Number(readTrim('kill-before-decide', 'server.pid'));
    expect(readTrim('kill-before-decide', 'rc1')).toBe('0');
    expect(readTrim('kill-before-decide', 'gone')).toBe('0');
    const recs = records(at('kill-before-decide', 'ws', '.agent-trash', 'manifest.jsonl'));
    const f1 = recs.filter((r) => r.kind === 'relocate' && (r.origin as { path: string }).path === 'f1');
    expect(f1).toHaveLength(1);
    expect(f1[0]!.pid).not.toBe(p);
    expect(fs.existsSync(at('kill-before-decide', 'ws', 'f1'))).toBe(false);
  });

  itSandboxed('kill -9 after the relocation, before the answer: nothing lost (the move is recorded), the cold path decides on the disk as it is', () => {
    const K = 'kill-after-compensate';
    const p = Number(readTrim(K, 'server.pid'));
    const recs = records(at(K, 'ws', '.agent-trash', 'manifest.jsonl'));
    // The durable intent was written before the move; the completion record is written after the
    // answer (deferred), so the kill left the intent alone — which keeps the move restorable.
    const intents = recs.filter((r) => r.kind === 'relocate-intent' && (r.origin as { path: string }).path === 'f1');
    expect(intents).toHaveLength(1);
    expect(intents[0]!.pid).toBe(p);
    expect(recs.filter((r) => r.kind === 'relocate' && (r.origin as { path: string }).path === 'f1')).toEqual([]);
    // f1 was already in the quarantine: the real rm (never unchecked) reports it missing.
    expect(readTrim(K, 'rc1'), read(K, 'err1')).toBe('1');
    expect(read(K, 'err1')).toBe("rm: cannot remove 'f1': No such file or directory\n");
    expect(quarantined(at(K, 'ws', '.agent-trash'))).toContain('"f1" f1\n');
    // The next call finds the endpoint stale (cold), and starts a new server, which serves f3.
    expect(readTrim(K, 'gone')).toBe('0');
    expect(readTrim(K, 'rc2')).toBe('0');
    expect(readTrim(K, 'rc3')).toBe('1'); // the new server has the same hook: f3 moved, then the same
    const p2 = Number(readTrim(K, 'server2.pid'));
    expect(p2).not.toBe(p);
    const by = (f: string, kind = 'relocate'): number[] => recs.filter((r) => r.kind === kind && (r.origin as { path: string }).path === f).map((r) => r.pid);
    expect(by('f2').every((x) => x !== p && x !== p2)).toBe(true);
    expect(by('f3', 'relocate-intent')).toEqual([p2]);
  });

  itSandboxed('kill -9 right after the answer: the call completed; the stale endpoint is detected and replaced', () => {
    const K = 'kill-after-answer';
    const p = Number(readTrim(K, 'server.pid'));
    const p2 = Number(readTrim(K, 'server2.pid'));
    for (const f of ['rc1', 'rc2', 'rc3', 'gone']) expect(readTrim(K, f), f).toBe('0');
    expect(p2).not.toBe(p);
    const recs = records(at(K, 'ws', '.agent-trash', 'manifest.jsonl'));
    const by = (f: string): number[] => recs.filter((r) => r.kind === 'relocate' && (r.origin as { path: string }).path === f).map((r) => r.pid);
    expect(by('f1')).toEqual([p]);
    expect(by('f2')).toHaveLength(1);
    expect(by('f2')[0]).not.toBe(p);
    expect(by('f2')[0]).not.toBe(p2);
    expect(by('f3')).toEqual([p2]);
    expect(tree(at(K, 'ws'))).toEqual(['"README" readme\n']);
    // The spare directory it made right after answering is left; gc lists it (its process is gone)
    // and removes it, and nothing else of the quarantine.
    expect(readTrim(K, 'spares-dead')).toBe('1');
    expect(JSON.parse(read(K, 'gc.json')).spares).toBeGreaterThanOrEqual(1);
    const gcx = JSON.parse(read(K, 'gcx.json'));
    expect(gcx.sparesRemoved).toBeGreaterThanOrEqual(1);
    expect(gcx.purged).toEqual([]);
    expect(readTrim(K, 'spares-dead-after')).toBe('0');
    expect(quarantined(at(K, 'ws', '.agent-trash'))).toEqual(['"f1" f1\n', '"f2" f2\n', '"f3" f3\n']);
  });

  itSandboxed('kill -9 in the middle of a relocation (a cross-filesystem copy): every file is in the quarantine, the client never ran rm unchecked', () => {
    expect(fs.existsSync(at('mid', 'state')), read('master.out')).toBe(true);
    expect(readTrim('mid', 'state')).toBe('copying');
    expect(readTrim('mid', 'rc')).toBe('0');
    expect(fs.existsSync(at('mid', 'ws', 'big'))).toBe(false);
    const recs = records(at('mid', 'manifest.jsonl'));
    const p = Number(readTrim('mid', 'server.pid'));
    expect(recs.some((r) => r.kind === 'relocate-intent' && r.pid === p)).toBe(true);
    // Outside staging copies (what the killed server left), every one of the 12,000 files is there.
    const files = read('mid', 'qfiles')
      .split('\n')
      .filter((l) => l !== '' && !l.includes('/.agent-guard-copy-'))
      .map((l) => path.basename(l));
    const have = new Set(files);
    for (let i = 0; i < MID_FILES; i++) expect(have.has(`${i}.o`), `${i}.o`).toBe(true);
  });

  itSandboxed('a stale endpoint (server killed while idle): the next call is cold and replaces it; the one after is warm', () => {
    expect(read('stale', 'left')).toMatch(/s0\.q/); // its FIFOs were left behind
    expect(readTrim('stale', 'rc1')).toBe('0');
    expect(readTrim('stale', 'rc2')).toBe('0');
    const p = Number(readTrim('stale', 'server.pid'));
    const p2 = Number(readTrim('stale', 'server2.pid'));
    expect(p2).not.toBe(p);
    const recs = records(at('stale', 'ws', '.agent-trash', 'manifest.jsonl')).filter((r) => r.kind === 'relocate');
    expect(recs.map((r) => (r.origin as { path: string }).path)).toEqual(['f1', 'f2']);
    expect(recs[0]!.pid).not.toBe(p2);
    expect(recs[1]!.pid).toBe(p2);
  });

  itSandboxed('two sessions side by side: one server each, each call recorded in its own session; both gone when their run ends', () => {
    const server = { a: Number(readTrim('two', 'a', 'server.pid')), b: Number(readTrim('two', 'b', 'server.pid')) };
    expect(server.a).not.toBe(server.b);
    for (const s of ['a', 'b'] as const) {
      expect(readTrim('two', s, 'rc')).toBe('0');
      const recs = records(at('two', s, 'ws', '.agent-trash', 'manifest.jsonl')).filter((r) => r.kind === 'tx-start');
      expect(recs).toHaveLength(20);
      expect(new Set(recs.map((r) => r.session))).toEqual(new Set([s === 'a' ? 'S-A' : 'S-B']));
      expect(new Set(recs.map((r) => r.pid))).toEqual(new Set([server[s]]));
      expect(readTrim('two', s, 'gone')).toBe('0');
      expect(readTrim('two', s, 'dir-after')).toBe('absent');
    }
  });

  itSandboxed('xargs -P8 -n1 rm over 200 files from a cold start: one server, every file quarantined once and restorable, every record parses', () => {
    expect(readTrim('xargs', 'rc')).toBe('0');
    expect(readTrim('xargs', 'servers')).toBe('1');
    expect(fs.readdirSync(at('xargs', 'ws', 'objs'))).toEqual([]);
    const recs = records(at('xargs', 'ws', '.agent-trash', 'manifest.jsonl'));
    expect(records(at('xargs', 'ws', '.agent-trash', 'audit.jsonl')).length).toBeGreaterThanOrEqual(200);
    const moved = recs.filter((r) => r.kind === 'relocate');
    expect(moved).toHaveLength(200);
    expect(new Set(moved.map((r) => (r.origin as { path: string }).path)).size).toBe(200);
    const p = Number(readTrim('xargs', 'server.pid'));
    expect(moved.filter((r) => r.pid === p).length, 'calls served warm').toBeGreaterThan(20);
    const list = JSON.parse(read('xargs', 'list.json'));
    const txs = (list.transactions ?? list) as { txid: string; state: string }[];
    expect(txs).toHaveLength(200);
    expect(txs.every((t) => t.state === 'RESTORABLE')).toBe(true);
    // Each file is the only entry of its transaction, held by its name, with its content.
    for (const r of moved) {
      const origin = (r.origin as { path: string }).path;
      const dest = (r.dest as { path: string }).path;
      expect(dest).toBe(`${r.txid as string}/${path.basename(origin)}`);
      expect(fs.readFileSync(at('xargs', 'ws', '.agent-trash', dest), 'utf8')).toBe(`${/^objs\/(\d+)\.o$/.exec(origin)![1]}\n`);
    }
  });

  itSandboxed('it exits when idle (its directory removed, its spare transaction directory too), and the next call starts again', () => {
    expect(readTrim('idle', 'server.pid')).toMatch(/^[1-9]\d*$/); // there was a server
    expect(readTrim('idle', 'rc2')).toBe('0');
    expect(readTrim('idle', 'spares-live')).toBe('1');
    expect(readTrim('idle', 'gone')).toBe('0');
    expect(readTrim('idle', 'dir')).toBe('absent');
    expect(readTrim('idle', 'spares-after')).toBe('0');
    expect(readTrim('idle', 'rc1')).toBe('0');
  });

  itSandboxed('it exits when the session owner is killed (kill -9 of run), removing its directory', () => {
    expect(readTrim('owner', 'server.pid')).toMatch(/^[1-9]\d*$/); // there was a server
    expect(readTrim('owner', 'dir')).toMatch(/\/agent-guard\/[0-9a-f]{16}$/);
    expect(readTrim('owner', 'gone')).toBe('0');
    expect(readTrim('owner', 'dir-after')).toBe('absent');
  });

  itSandboxed("another user's checker: the client does not use it, it refuses a root request and any other line, and serves no directory not its own", () => {
    expect(readTrim('other', 'rc-notmine')).toBe('1');
    expect(readTrim('other', 'rc1')).toBe('0'); // served cold
    expect(readTrim('other', 'lock-made')).toBe('no');
    const p = Number(readTrim('other', 'server.pid'));
    expect(pids(at('other', 'ws', '.agent-trash', 'manifest.jsonl')).every((x) => x !== p)).toBe(true);
    expect(read('other', 'answers')).toBe('request=c\ngarbage=c\n');
    expect(readTrim('other', 'gone')).toBe('0');
  });
});
