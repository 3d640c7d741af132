// The `agent-guard` launcher (dist/agent-guard, from bin/agent-guard.sh) and its warm path:
// `restore list` and `status` answered by the session's checker (src/checker/cli-request.ts) must be
// byte for byte what the cold CLI prints, under dash, bash and zsh; a transaction made meanwhile by
// a cold process must show up; anything the launcher does not serve, and every checker directory it
// must not trust, goes to Node exactly as before; through npm's bin links it finds its bundle; no
// answer file is left behind. One scenario script (fixtures/scenarios/launcher.sh) runs everything
// under `agent-guard run` inside ONE read-only sandbox; the assertions read what it left.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { committedRepo } from '../helpers/repo.js';

const area = useSandboxArea('ag-launcher');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const LAUNCHER = path.resolve(import.meta.dirname, '../../dist/agent-guard');
const NOBODY = 65534;
/** busybox sh too where busybox is installed (the scenario uses it when it is on PATH). */
const SHELLS = ['dash', 'bash', 'zsh', ...(spawnSync('sh', ['-c', 'command -v busybox']).status === 0 ? ['busybox'] : [])];

let R = '';
const at = (...p: string[]): string => path.join(R, ...p);
const read = (...p: string[]): string => fs.readFileSync(at(...p), 'utf8');


const repo = committedRepo;

interface Side {
  rc: string;
  out: string;
  err: string;
  /** The node starts the call made (the stand-in's log): none when answered warm. */
  node: string;
}
const side = (name: string, s: 'w' | 'c'): Side => ({ rc: read('out', `${name}.${s}.rc`).trim(), out: read('out', `${name}.${s}.out`), err: read('out', `${name}.${s}.err`), node: read('out', `${name}.${s}.node`) });

/** Warm and cold gave the same status, stdout and stderr; the warm one started no node. */
function expectWarm(name: string): Side {
  const w = side(name, 'w');
  const c = side(name, 'c');
  expect({ rc: w.rc, out: w.out, err: w.err }, name).toEqual({ rc: c.rc, out: c.out, err: c.err });
  expect(w.node, `${name}: answered warm (no node started)`).toBe('');
  expect(c.node, `${name}: the cold side ran node`).not.toBe('');
  return w;
}

/** Both sides went to node, with the same result. */
function expectCold(name: string): Side {
  const w = side(name, 'w');
  const c = side(name, 'c');
  expect({ rc: w.rc, out: w.out, err: w.err }, name).toEqual({ rc: c.rc, out: c.out, err: c.err });
  expect(w.node, `${name}: went cold`).not.toBe('');
  return w;
}

function setUp(): void {
  R = area.rw();
  fs.chmodSync(R, 0o755);
  const home = at('home');
  fs.mkdirSync(home);
  fs.mkdirSync(at('run'), { mode: 0o700 });
  fs.mkdirSync(at('out'));
  fs.mkdirSync(at('agv'));
  fs.symlinkSync(BIN, at('agv', 'agent-guard.cjs'));
  repo(at('ws'));
  for (let i = 0; i < 200; i++) fs.writeFileSync(at('ws', `f${i}`), `${i}\n`);
  fs.mkdirSync(at('ws', 'many'));
  for (let i = 0; i < 60; i++) fs.writeFileSync(at('ws', 'many', `file-with-a-longer-name-${i}.txt`), `${i}\n`);
  fs.writeFileSync(at('ws', 'g1'), 'g1\n');
  repo(at('empty'));
  // A node that logs its starts, then runs the real one.
  fs.mkdirSync(at('fakenode'));
  fs.writeFileSync(at('fakenode', 'node'), `#!/bin/sh\nprintf '%s\\n' "$*" >> "$NODE_LOG"\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
  // A dead checker (FIFOs nobody holds), and one of another user (nobody).
  fs.mkdirSync(at('dead', 'd1'), { recursive: true, mode: 0o700 });
  fs.chmodSync(at('dead'), 0o700);
  expect(spawnSync('mkfifo', ['-m', '600', at('dead', 'd1', 's0.q'), at('dead', 'd1', 's0.a')]).status).toBe(0);
  fs.mkdirSync(at('other', 'd1'), { recursive: true, mode: 0o700 });
  fs.chmodSync(at('other'), 0o700);
  expect(spawnSync('mkfifo', ['-m', '600', at('other', 'd1', 's0.q'), at('other', 'd1', 's0.a')]).status).toBe(0);
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, at('other')]);
  // npm's layout: the package's dist/ holds the launcher and the bundle; bin/ links to the launcher.
  const pkg = at('npm', 'lib', 'node_modules', 'agent-guard', 'dist');
  fs.mkdirSync(pkg, { recursive: true });
  fs.copyFileSync(LAUNCHER, path.join(pkg, 'agent-guard'));
  fs.chmodSync(path.join(pkg, 'agent-guard'), 0o755);
  fs.copyFileSync(BIN, path.join(pkg, 'agent-guard.cjs'));
  fs.mkdirSync(at('npm', 'bin'));
  fs.symlinkSync('../lib/node_modules/agent-guard/dist/agent-guard', at('npm', 'bin', 'agent-guard'));
  fs.mkdirSync(at('npm', 'bin2'));
  fs.symlinkSync(at('npm', 'bin', 'agent-guard'), at('npm', 'bin2', 'ag2'));

  const env = {
    HOME: home,
    PATH: SYSTEM_PATH,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: at('run'),
    R,
    BIN,
    L: LAUNCHER,
    LIB: path.join(FIXTURES, 'lib.sh'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
  const r = runSandboxed(R, ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, 'run', '--', 'sh', path.join(FIXTURES, 'scenarios', 'launcher.sh')], { cwd: R, timeoutMs: 300_000 });
  fs.writeFileSync(at('scenario.out'), `exit ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}\n`);
}

describeSandboxed('the agent-guard launcher: restore list and status from the warm checker', () => {
  beforeAll(setUp, 360_000);

  itSandboxed('the scenario ran to its end', () => {
    expect(fs.existsSync(at('finished')), read('scenario.out')).toBe(true);
  });

  itSandboxed('warm answers are byte for byte the cold ones, under dash, bash, zsh (and busybox sh where installed) and through #!/bin/sh; large ones through the answer file', () => {
    for (const sh of SHELLS) {
      const list = expectWarm(`list-${sh}`);
      expect(list.rc).toBe('0');
      expect(list.out.split('\n').filter((l) => / rm f\d+$/.test(l))).toHaveLength(200);
      expect(Buffer.byteLength(list.out)).toBeGreaterThan(8192); // over the framed size: the answer file
      const jsonText = expectWarm(`json-${sh}`).out;
      expect(Buffer.byteLength(jsonText)).toBeGreaterThan(8192);
      const json = JSON.parse(jsonText);
      expect(json.transactions).toHaveLength(201);
      expect(json.transactions.at(-1).items.map((i: { type: string }) => i.type)).toEqual(['dir']);
      expectWarm(`status-${sh}`);
      expect(JSON.parse(expectWarm(`sjson-${sh}`).out).counts.total).toBe(201);
    }
    expectWarm('list');
    expect(expectWarm('status').out).toMatch(/^session /);
  });

  itSandboxed('a transaction made by a cold process, and a cold restore, show up in the next warm answer', () => {
    const before = expectWarm('before');
    const after = expectWarm('after-rm');
    expect(after.out).not.toBe(before.out);
    expect(after.out.split('\n').filter((l) => / rm g1$/.test(l))).toHaveLength(1);
    expect(JSON.parse(expectWarm('after-rm-status').out).counts.total).toBe(202);
    const txid = read('out', 'g1.txid').trim();
    expect(txid).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(read('out', 'restore.rc').trim()).toBe('0');
    const restored = JSON.parse(expectWarm('after-restore').out).transactions.find((t: { txid: string }) => t.txid === txid);
    expect(restored.state).toBe('RESTORED');
  });

  itSandboxed('an empty workspace (no quarantine yet): the same answers warm', () => {
    expect(expectWarm('empty-list').out).toBe('TXID                       STATE       ITEMS  COMMAND\n');
    expect(JSON.parse(expectWarm('empty-json').out).transactions).toEqual([]);
    expectWarm('empty-status');
  });

  itSandboxed('other argv forms, a dead checker, one of another user, a symlinked one and another version go to node, with the same output', () => {
    expect(expectCold('bogus').rc).toBe('1');
    expect(expectCold('extra').rc).toBe('1');
    expect(expectCold('version').out).toMatch(/^\d+\.\d+\.\d+\n$/);
    for (const n of ['dead', 'other', 'link', 'othervers']) expect(expectCold(n).out, n).toMatch(/^session /);
  });

  itSandboxed('through npm bin links (one and two hops, found on PATH) the launcher finds its bundle', () => {
    expect(expectCold('npm-version').out).toMatch(/^\d+\.\d+\.\d+\n$/);
    expectWarm('npm-list');
    const pkgBundle = at('npm', 'lib', 'node_modules', 'agent-guard', 'dist', 'agent-guard.cjs');
    for (const n of ['npm-bogus', 'npm2-bogus']) {
      const w = expectCold(n);
      expect(w.rc).toBe('1');
      const [bundle, ...args] = w.node.trim().split(' ');
      expect(args, n).toEqual(['status', '--bogus']);
      expect(fs.realpathSync(bundle!), n).toBe(fs.realpathSync(pkgBundle));
    }
  });

  itSandboxed('no answer file is left in the checker directory', () => {
    const names = read('out', 'checker.ls').split('\n').filter((n) => n !== '' && n !== '.' && n !== '..');
    expect(names.filter((n) => /\.out$/.test(n))).toEqual([]);
    expect(names).toContain('s0.q'); // it was listed while the checker ran
  });
});
