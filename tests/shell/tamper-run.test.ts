// Tampering means tampering (issue 14), with the real hook: a tool manager's `enable -f … realpath`
// line runs under `agent-guard run` (bash hook), and doctor reports the manager as fine. In the
// sandbox. What counts as tampering, decided in process: tamper.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { enableCommands, toolManagersOnPath } from '../../src/shell-hooks/toolmanagers.js';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxedExact, useSandboxArea } from '../helpers/sandbox.js';

const REAL_LINES = fs
  .readFileSync(path.join(import.meta.dirname, 'fixtures', 'tool-manager-lines.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));

const area = useSandboxArea('ag-tamper');

describeSandboxed('tool managers under agent-guard run', () => {
  itSandboxed('a pyenv-style shim runs its enable -f line under the bash hook, and doctor reports the manager as fine', () => {
    const home = path.join(area.rw(), 'home');
    const root = path.join(home, '.pyenv');
    fs.mkdirSync(path.join(root, 'libexec'), { recursive: true });
    fs.mkdirSync(path.join(root, 'shims'), { recursive: true });
    // libexec/pyenv as pyenv has it (its first lines), then the shim's exec of it.
    fs.writeFileSync(
      path.join(root, 'libexec', 'pyenv'),
      ['#!/usr/bin/env bash', 'set -e', REAL_LINES[0], '  echo builtin-loaded', 'else', '  echo no-builtin', 'fi', 'shift', 'echo "ran $*"', ''].join('\n'),
      { mode: 0o755 },
    );
    fs.writeFileSync(path.join(root, 'shims', 'python3'), `#!/usr/bin/env bash\nset -e\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "\${0##*/}" "$@"\n`, { mode: 0o755 });
    const env = { HOME: home, PATH: `${path.join(root, 'shims')}:/usr/local/bin:/usr/bin:/bin`, AGENT_GUARD_SESSION: 'tamper' };
    const r = runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', 'bash', '-c', 'python3 -c "print(1)"; echo "st=$?"'], { cwd: home });
    expect(r.stderr).not.toMatch(/BLOCK_GUARD_TAMPERING/);
    expect(r).toMatchObject({ exitCode: 0, stdout: 'no-builtin\nran python3 -c print(1)\nst=0\n' });
    expect(toolManagersOnPath(env.PATH)).toEqual([{ manager: 'pyenv', shims: path.join(root, 'shims'), lines: [{ file: path.join(root, 'libexec', 'pyenv'), text: enableCommands(REAL_LINES[0]!)[0], refusal: null }] }]);
    const d = runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', process.execPath, BIN, 'doctor', '--json'], { cwd: home });
    const checks = JSON.parse(d.stdout).checks as { id: string; status: string }[];
    expect(checks.find((c) => c.id === 'toolmanager.pyenv')?.status).toBe('ok');
  });
});
