// Tampering means tampering (issue 14), with the real hook: a tool manager's `enable -f … realpath`
// line runs under `agent-guard run` (bash hook), and doctor reports the manager as fine; a guarded
// name bound to a path in the shell's command hash table is refused. In the sandbox. What counts as
// tampering, decided in process: tamper.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { enableCommands, toolManagersOnPath } from '../../src/shell-hooks/toolmanagers.js';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxedExact, useSandboxArea } from '../helpers/sandbox.js';
import { SYSTEM_PATH, world } from '../helpers/world.js';

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

  // Each of these took `rm -rf keep` past the shims and deleted keep for good (measured on main
  // before the fix): bash and zsh look a hashed name up in their table, not on PATH.
  const HAS_ZSH = fs.existsSync('/usr/bin/zsh') || fs.existsSync('/bin/zsh');
  const binds: [string, string][] = [
    ['bash', 'hash -p /usr/bin/rm rm; rm -rf keep; echo "st=$?"'],
    ['bash', 'r=/usr/bin/rm; BASH_CMDS[rm]=$r; rm -rf keep; echo "st=$?"'],
    ...(HAS_ZSH
      ? ([
          ['zsh', 'hash rm=/usr/bin/rm; rm -rf keep; echo "st=$?"'],
          ['zsh', 'r=/usr/bin/rm; commands[rm]=$r; rm -rf keep; echo "st=$?"'],
        ] as [string, string][])
      : []),
  ];
  binds.forEach(([shell, line], i) => itSandboxed(`${shell}: binding rm to a path in the command hash table is refused (BLOCK_GUARD_TAMPERING) and keep stays: ${line}`, () => {
    const w = world(path.join(area.rw(), `bind-${i}`), { files: { 'keep/f': 'data' } });
    const canary = path.join(area.rw(), 'canary');
    fs.writeFileSync(canary, 'canary');
    const env = { HOME: w.home, PATH: SYSTEM_PATH, AGENT_GUARD_SESSION: 'tamper-bind' };
    const r = runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', shell, '-c', line], { cwd: w.ws });
    expect(r.stderr).toMatch(/BLOCK_GUARD_TAMPERING/);
    expect(r.exitCode).toBe(126);
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(path.join(w.ws, 'keep', 'f'), 'utf8')).toBe('data');
    expect(fs.readFileSync(canary, 'utf8')).toBe('canary');
  }));

  itSandboxed('bash and zsh: reading the table, resetting it and variables named hash or commands run, and rm still reaches its shim', () => {
    for (const [shell, line] of [
      ['bash', 'hash=1; hash -r; hash rm; echo "${BASH_CMDS[rm]-none}" >/dev/null; commands=(a b); rm -rf keep; echo "st=$?"'],
      ...(HAS_ZSH ? [['zsh', 'hash=1; hash -r; hash -d p=/tmp; commands=(a b); rm -rf keep; echo "st=$?"']] : []),
    ] as [string, string][]) {
      const w = world(path.join(area.rw(), `read-${shell}`), { files: { 'keep/f': 'data' } });
      const env = { HOME: w.home, PATH: SYSTEM_PATH, AGENT_GUARD_SESSION: 'tamper-read' };
      const r = runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', shell, '-c', line], { cwd: w.ws });
      expect([shell, r.exitCode, r.stdout], r.stderr).toEqual([shell, 0, 'st=0\n']);
      expect(fs.existsSync(path.join(w.ws, 'keep'))).toBe(false);
      // (quarantined by the rm shim: one transaction holding keep)
      const q = path.join(w.ws, '.agent-trash');
      expect(fs.readdirSync(q).filter((n) => /^\d{8}T/.test(n)).flatMap((tx) => fs.readdirSync(path.join(q, tx)))).toEqual(['keep']);
    }
  });
});
