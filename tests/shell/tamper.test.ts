// Tampering means tampering (issue 14): loading a builtin is refused only when it would take a
// guarded program past the shims or break the hook; the tool managers' `enable -f … realpath`
// runs. Decided in process (no command runs) and, for the real hook, in the sandbox.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUARDED_BUILTINS, tampering } from '../../src/shell/hook.js';
import { enableCommands, toolManagersOnPath } from '../../src/shell/toolmanagers.js';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const REAL_LINES = fs
  .readFileSync(path.join(FIXTURES, 'tool-manager-lines.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));
const GUARD_BASH = path.resolve(import.meta.dirname, '../../shell/guard.bash');

describe('what counts as tampering', () => {
  it.each(REAL_LINES)('the real tool-manager line runs: %s', (line) => {
    const cmds = enableCommands(line);
    expect(cmds).toHaveLength(1);
    expect(tampering(cmds[0]!)).toBeNull();
    expect(tampering(line)).toBeNull();
  });

  it.each([
    'enable -f /usr/lib/bash/finfo finfo',
    'enable -n echo',
    'enable -f ./realpath.so realpath 2> /dev/null',
    'zmodload -F zsh/files b:zf_mkdir',
    'zmodload zsh/datetime',
    'trap -p DEBUG',
  ])('harmless: %s', (t) => expect(tampering(t)).toBeNull());

  it.each([
    'enable -f /x/rm.so rm',
    'enable rm',
    'enable -f ./lib.so realpath rmdir',
    'enable -f lib.so $name',
    'enable -n builtin',
    'enable -f lib.so trap',
    'zmodload zsh/files',
    'zmodload -F zsh/files b:zf_rm',
    'zmodload -F zsh/files +b:rm',
    'trap - DEBUG',
    'unset BASH_ENV',
    'AGENT_GUARD_SHIM_PID="$$ 1" rm x',
    'AGENT_GUARD_CHECKER=/tmp/fake rm -rf src',
    'export AGENT_GUARD_CHECKER=/tmp/fake',
  ])('tampering: %s', (t) => expect(tampering(t)).not.toBeNull());

  it("the bash hook's list of guarded builtin names is the checker's", () => {
    const text = fs.readFileSync(GUARD_BASH, 'utf8');
    const m = /^__agent_guard_guarded='@\(([^)]*)\)'$/m.exec(text);
    expect(m).not.toBeNull();
    expect(new Set(m![1]!.split('|'))).toEqual(GUARDED_BUILTINS);
  });

  it("the bash hook's own pre-check agrees with the checker on every line", () => {
    const lines = [...REAL_LINES.flatMap(enableCommands), 'enable -f /x/rm.so rm', 'enable rm', 'enable -n echo', 'enable -f lib.so $x', 'enable -f lib.so realpath > /tmp/x rm'];
    const script = `source <(sed -n "/^__agent_guard_guarded=/p;/^__agent_guard_enableok() {/,/^}/p" ${JSON.stringify(GUARD_BASH)})\nfor t in "$@"; do __agent_guard_enableok "$t" && echo ok || echo check; done`;
    const r = spawnSync('bash', ['-c', script, 'bash', ...lines], { encoding: 'utf8' });
    expect(r.stdout.trim().split('\n')).toEqual(lines.map((l) => (tampering(l) === null ? 'ok' : 'check')));
  });
});

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
    const r = runSandboxed(area.rw(), ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, 'run', '--', 'bash', '-c', 'python3 -c "print(1)"; echo "st=$?"'], { cwd: home });
    expect(r.stderr).not.toMatch(/BLOCK_GUARD_TAMPERING/);
    expect(r).toMatchObject({ exitCode: 0, stdout: 'no-builtin\nran python3 -c print(1)\nst=0\n' });
    expect(toolManagersOnPath(env.PATH)).toEqual([{ manager: 'pyenv', shims: path.join(root, 'shims'), lines: [{ file: path.join(root, 'libexec', 'pyenv'), text: enableCommands(REAL_LINES[0]!)[0], refusal: null }] }]);
    const d = runSandboxed(area.rw(), ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, 'run', '--', process.execPath, BIN, 'doctor', '--json'], { cwd: home });
    const checks = JSON.parse(d.stdout).checks as { id: string; status: string }[];
    expect(checks.find((c) => c.id === 'toolmanager.pyenv')?.status).toBe('ok');
  });
});
