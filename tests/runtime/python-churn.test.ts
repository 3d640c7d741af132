// The Python guard's copy of the rule (pass_through in dist/agent-guard-python/agent-guard-delete.py)
// against the rule itself (passThrough, src/runtime/churn.ts): the same answer for every case, on one
// temp tree. Both only read (lstat, realpath, readdir, statx), so no sandbox is needed: nothing is
// deleted. Also the program names refusals and records carry (program_of).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passThrough, type DeleteKind, type DeleteRequest } from '../../src/runtime/churn.js';
import { BASE_PATH, PYTHON, PYTHON_GUARD } from '../helpers/runtime.js';

const IMPL = path.join(PYTHON_GUARD, 'agent-guard-delete.py');
const pyDescribe = PYTHON ? describe : describe.skip;

/** Runs `fn` of the Python guard's second half (loaded as sitecustomize loads it) on each argument list. */
function python(fn: string, calls: unknown[][]): unknown[] {
  const driver = [
    'import json, sys',
    "m = type(sys)('_agent_guard_delete'); m.__file__ = sys.argv[1]",
    "exec(compile(open(sys.argv[1]).read(), sys.argv[1], 'exec'), m.__dict__)",
    'print(json.dumps([getattr(m, sys.argv[2])(*c) for c in json.load(sys.stdin)]))',
  ].join('\n');
  const r = spawnSync(PYTHON!, ['-c', driver, IMPL, fn], { input: JSON.stringify(calls), env: { PATH: BASE_PATH }, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as unknown[];
}

let dir = '';
let home = '';
let ws = '';
let before = 0;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-pychurn-')));
  home = path.join(dir, 'home');
  ws = path.join(dir, 'ws');
  const files = [
    'ws/src/deep/a.py',
    'ws/node_modules/pkg/i.js',
    'ws/.venv/lib/python3.11/site-packages/pkg/m.py',
    'ws/.venv/lib/python3.11/site-packages/pkg-1.0.dist-info/RECORD',
    'ws/.venv/bin/tool',
    'ws/.venv/pyvenv.cfg',
    'usr/lib/python3/dist-packages/deb/x.py',
    'home/.npm/_cacache/tmp/t1',
    'home/.cache/pip/http/v2/a',
    'home/.cache/uv/wheels/w',
    'xdg/pip/selfcheck/s.json',
    'custom-pip/c',
    'home/docs/notes.txt',
    'outside/o.txt',
  ];
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), f);
  }
  fs.symlinkSync(path.join(ws, '.venv/lib/python3.11/site-packages'), path.join(ws, 'sp-link'));
  fs.symlinkSync(path.join(dir, 'outside'), path.join(ws, 'out-link'));
  before = Date.now() + 50;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120); // past `before` on the coarse clock
  fs.mkdirSync(path.join(ws, 'fresh/sub'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'fresh/sub/f'), 'new');
  fs.writeFileSync(path.join(ws, 'fresh.txt'), 'new');
  fs.mkdirSync(path.join(ws, 'mixed'));
  fs.renameSync(path.join(ws, 'src/deep/a.py'), path.join(ws, 'mixed/a.py')); // old, in a new directory
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

pyDescribe("the Python guard's copy of the rule", () => {
  it('answers as passThrough for every case', () => {
    const env = { HOME: home };
    const cases: [DeleteKind, string, Record<string, string>, number | null][] = [
      ['rm-r', 'nothing-here', env, before],
      ['unlink', 'src/missing.py', env, before],
      ['unlink', 'src', env, before],
      ['rm', 'src', env, before],
      ['rmdir-r', 'mixed/a.py', env, before],
      ['rmdir', 'src', env, before],
      ['rm-r', 'src', env, before],
      ['unlink', 'mixed/a.py', env, before],
      ['rm-r', 'src/..', env, before],
      ['rm-r', '.', env, before],
      ['rm-r', 'out-link/', env, before],
      ['unlink', 'out-link', env, before],
      ['unlink', path.join(dir, 'outside/o.txt'), env, before],
      ['rm-r', 'node_modules/pkg', env, before],
      ['rm-r', 'node_modules', env, before],
      ['unlink', '.venv/lib/python3.11/site-packages/pkg/m.py', env, before],
      ['rm-r', '.venv/lib/python3.11/site-packages/pkg-1.0.dist-info', env, before],
      ['rm-r', '.venv/lib/python3.11/site-packages', env, before],
      ['rm-r', 'sp-link/pkg', env, before],
      ['unlink', 'sp-link', env, before],
      ['unlink', '.venv/bin/tool', env, before],
      ['rm-r', '.venv', env, before],
      ['unlink', path.join(dir, 'usr/lib/python3/dist-packages/deb/x.py'), env, before],
      ['rm-r', path.join(home, '.npm/_cacache/tmp'), env, before],
      ['rm-r', path.join(home, '.npm'), env, before],
      ['unlink', path.join(home, '.cache/pip/http/v2/a'), env, before],
      ['rm-r', path.join(home, '.cache/pip'), env, before],
      ['rm-r', path.join(home, '.cache/uv/wheels'), env, before],
      ['unlink', path.join(home, '.cache/pip/http/v2/a'), { HOME: home, XDG_CACHE_HOME: path.join(dir, 'xdg') }, before],
      ['unlink', path.join(dir, 'xdg/pip/selfcheck/s.json'), { HOME: home, XDG_CACHE_HOME: path.join(dir, 'xdg') }, before],
      ['unlink', path.join(dir, 'custom-pip/c'), { HOME: home, PIP_CACHE_DIR: path.join(dir, 'custom-pip') }, before],
      ['unlink', path.join(dir, 'custom-pip/c'), { HOME: home, UV_CACHE_DIR: path.join(dir, 'custom-pip') }, before],
      ['unlink', path.join(dir, 'custom-pip/c'), { HOME: home, PIP_CACHE_DIR: 'relative/pip' }, before],
      ['unlink', path.join(home, 'docs/notes.txt'), env, before],
      ['rm-r', 'fresh', env, before],
      ['unlink', 'fresh.txt', env, before],
      ['rm-r', 'fresh', env, Date.now() + 1000],
      ['rm-r', 'fresh', env, null],
      ['rm-r', 'mixed', env, before],
    ];
    const node = cases.map(([kind, p, e, startedAt]) => passThrough({ runtime: 'python', program: 'python3 -c', api: 'x', kind, path: p, cwd: ws, env: e, startedAt } satisfies DeleteRequest));
    const py = python(
      'pass_through',
      cases.map(([kind, p, e, startedAt]) => [kind, p, ws, e, startedAt]),
    );
    expect(py).toEqual(node);
    // And the rule says what it should (the cases are not all null).
    expect(node).toEqual([
      'missing', 'missing', 'type', 'type', 'type', 'empty-dir', null, null, null, null, null, null, null,
      'node_modules', null,
      'site-packages', 'site-packages', null, 'site-packages', null, null, null, 'site-packages',
      'package-cache', null, 'package-cache', null, 'package-cache', null, 'package-cache', 'package-cache', 'package-cache', null,
      null,
      'own', 'own', null, null, null,
    ]);
  });

  it('names the program as a refusal and a record show it', () => {
    const calls: [string[] | null, string[], string][] = [
      [['python3', '-c', 'x'], ['-c'], '/usr/bin/python3'],
      [['/usr/bin/python3', '-I', '-c', 'x'], ['-c'], '/usr/bin/python3'],
      [['python3', '-Bc', 'x'], ['-c'], '/usr/bin/python3'],
      [['python3', '-m', 'pip', 'install', 'x'], ['/v/pip/__main__.py'], '/v/bin/python3'],
      [['python3', '-mpip'], ['/v/pip/__main__.py'], '/v/bin/python3'],
      [['python3', '-W', 'ignore', '-X', 'dev', 'clean.py', '-c'], ['clean.py', '-c'], '/usr/bin/python3'],
      [['python3', '-Wignore', 'clean.py'], ['clean.py'], '/usr/bin/python3'],
      [['.venv/bin/python', '--', 'tool.py'], ['tool.py'], '/w/.venv/bin/python'],
      [['python3'], [''], '/usr/bin/python3'],
      [['python3', '-'], ['-'], '/usr/bin/python3'],
      [null, ['-c'], '/usr/bin/python3.9'],
      [null, ['/w/clean.py'], '/usr/bin/python3.9'],
      [null, [''], '/usr/bin/python3.9'],
    ];
    expect(python('program_of', calls)).toEqual([
      'python3 -c',
      'python3 -c',
      'python3 -c',
      'python3 -m pip',
      'python3 -m pip',
      'python3 clean.py',
      'python3 clean.py',
      'python tool.py',
      'python3',
      'python3',
      'python3.9 -c',
      'python3.9 /w/clean.py',
      'python3.9',
    ]);
  });
});
