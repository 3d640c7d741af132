// PYTHONPATH with the Python guard (src/runtime/python-path.ts) as `run` and `shell-init` write it:
// first, the user's entries kept, once however often it is applied; and Python itself reads the
// result as meant: the guard's sitecustomize runs, then the one it shadows (the user's, or the
// system's), with the user's entries still on sys.path. Nothing here deletes anything: the Python
// runs only import and print.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardEnv } from '../../src/commands/run.js';
import { renderSnippet } from '../../src/commands/shell-init.js';
import { hasSitecustomizeFirst, PYTHON_DIR_NAME, withSitecustomize } from '../../src/runtime/python-path.js';
import { BASE_PATH, PYTHON, PYTHON_GUARD } from '../helpers/runtime.js';

const D = '/opt/agent guard/lib/agent-guard-python';
const pyIt = PYTHON ? it : (name: string) => it.skip(`${name} (python3 not installed)`, () => {});

describe('PYTHONPATH', () => {
  it('gets the guard first, keeps the user entries after it, and is idempotent', () => {
    expect(withSitecustomize(undefined, D)).toBe(D);
    expect(withSitecustomize('', D)).toBe(D); // no empty entry added: it would put the cwd on sys.path
    expect(withSitecustomize('/u/lib', D)).toBe(`${D}:/u/lib`);
    expect(withSitecustomize(`${D}:/u/lib`, D)).toBe(`${D}:/u/lib`);
    // Empty entries the user has (the cwd, for Python) stay where they were.
    expect(withSitecustomize('/u/lib:', D)).toBe(`${D}:/u/lib:`);
    // Further on, it moves first; another installation's directory goes.
    expect(withSitecustomize(`/u/a:${D}:/u/b`, D)).toBe(`${D}:/u/a:/u/b`);
    expect(withSitecustomize(`/old/lib/${PYTHON_DIR_NAME}/:/u/a`, D)).toBe(`${D}:/u/a`);
    expect(withSitecustomize(`/old/lib/${PYTHON_DIR_NAME}`, D)).toBe(D);
    expect(hasSitecustomizeFirst(`${D}:/u/a`, D)).toBe(true);
    expect(hasSitecustomizeFirst(`/u/a:${D}`, D)).toBe(false);
    expect(hasSitecustomizeFirst(undefined, D)).toBe(false);
  });

  it('run puts it into the environment of the command; without the guard PYTHONPATH is left alone', () => {
    const layout = { bundle: '/i/lib/agent-guard.cjs', shimDir: '/i/shims', guardBash: '/i/shell/guard.bash', zdotdir: '/i/shell/zsh' };
    const env = guardEnv({ PATH: '/usr/bin', PYTHONPATH: '/u/lib' }, { ...layout, python: D }, '/usr/bin/node', 's');
    expect(env.PYTHONPATH).toBe(`${D}:/u/lib`);
    expect(guardEnv({ PATH: '/usr/bin', PYTHONPATH: '/u/lib' }, { ...layout, python: null }, '/usr/bin/node', 's').PYTHONPATH).toBe('/u/lib');
    expect(guardEnv({ PATH: '/usr/bin' }, { ...layout, python: null }, '/usr/bin/node', 's').PYTHONPATH).toBeUndefined();
    // run inside run: unchanged.
    expect(guardEnv(env, { ...layout, python: D }, '/usr/bin/node', 's').PYTHONPATH).toBe(env.PYTHONPATH);
  });

  it('shell-init exports it once: a second eval in a guarded shell writes nothing', () => {
    const layout = { bundle: '/i/lib/agent-guard.cjs', shimDir: '/i/shims', guardBash: '/i/shell/guard.bash', guardZsh: '/i/shell/guard.zsh', zdotdir: '/i/shell/zsh', python: D };
    const first = renderSnippet('bash', layout, '/usr/bin/node', { PATH: '/usr/bin', PYTHONPATH: '/u/lib' });
    expect(first.split('\n').find((l) => l.startsWith('export PYTHONPATH='))).toBe(`export PYTHONPATH='${D}:/u/lib'`);
    const again = renderSnippet('bash', layout, '/usr/bin/node', { PATH: '/i/shims:/usr/bin', PYTHONPATH: `${D}:/u/lib` });
    expect(again).not.toMatch(/PYTHONPATH/);
    expect(renderSnippet('zsh', { ...layout, python: null }, '/usr/bin/node', { PATH: '/usr/bin' })).not.toMatch(/PYTHONPATH/);
  });

  pyIt('Python reads it as meant: the guard, then the sitecustomize it shadows, with the user entries on sys.path', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ag pythonpath '));
    try {
      // A user's sitecustomize in their own PYTHONPATH entry, and a module beside it.
      const user = path.join(dir, 'user lib');
      fs.mkdirSync(user);
      fs.writeFileSync(path.join(user, 'sitecustomize.py'), "import sys\nsys.user_site_ran = ('_agent_guard' in sys.modules, __name__)\n");
      fs.writeFileSync(path.join(user, 'mine.py'), 'X = 1\n');
      const show =
        "import sys, os; import mine; sc = sys.modules['sitecustomize'];" +
        " print(getattr(sys, 'user_site_ran', None), sc.__file__, sys.path.index(os.environ['UL']) > sys.path.index(os.environ['GD']), hasattr(os.remove, '__wrapped__'), sep='\\n')";
      const run = (pythonpath: string): string[] => {
        const r = spawnSync(PYTHON!, ['-c', show], { env: { PATH: BASE_PATH, PYTHONPATH: pythonpath, UL: user, GD: PYTHON_GUARD }, encoding: 'utf8' });
        expect(r.stderr).toBe('');
        return r.stdout.trim().split('\n');
      };
      expect(run(withSitecustomize(user, PYTHON_GUARD))).toEqual(["(True, 'sitecustomize')", path.join(user, 'sitecustomize.py'), 'True', 'True']);
      // Without one of the user's: the system's sitecustomize (if the Python has one) still runs, as
      // it does without the guard.
      const plain = spawnSync(PYTHON!, ['-c', "import sys; m = sys.modules.get('sitecustomize'); print(m and m.__file__)"], { env: { PATH: BASE_PATH }, encoding: 'utf8' });
      const guarded = spawnSync(PYTHON!, ['-c', "import sys, os; m = sys.modules.get('sitecustomize'); print(m and m.__file__); print(hasattr(os.remove, '__wrapped__'))"], {
        env: { PATH: BASE_PATH, PYTHONPATH: PYTHON_GUARD },
        encoding: 'utf8',
      });
      const expected = plain.stdout.trim() === 'None' ? path.join(PYTHON_GUARD, 'sitecustomize.py') : plain.stdout.trim();
      expect(guarded.stdout).toBe(`${expected}\nTrue\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
