// Tampering means tampering (issue 14): loading a builtin is refused only when it would take a
// guarded program past the shims or break the hook; the tool managers' `enable -f … realpath`
// runs. Decided in process (no command runs); the real hook under `agent-guard run`: tamper-run.test.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GUARDED_BUILTINS, tampering } from '../../src/enforce/tamper.js';
import { enableCommands } from '../../src/shell-hooks/toolmanagers.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const REAL_LINES = fs
  .readFileSync(path.join(FIXTURES, 'tool-manager-lines.txt'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));
const GUARD_BASH = path.resolve(import.meta.dirname, '../../shell/guard-rest.bash');

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
    // the shell's command hash table, read or left to PATH; a name no shim covers
    'hash -r',
    'hash rm',
    'hash -t git >/dev/null',
    'hash -d proj=/home/me/proj',
    'hash -p /opt/tool/bin/mytool mytool',
    'hash=$(git rev-parse HEAD)',
    'echo "${BASH_CMDS[rm]-}" ${#BASH_CMDS[@]} $BASH_CMDS',
    'commands=(build test lint); for c in "${commands[@]}"; do make "$c"; done',
    'echo $commands[git]',
    'commands[mytool]=/opt/tool/bin/mytool',
    // POSIXLY_CORRECT for one command (a nested bash in POSIX mode is decided as unhooked), read, unset
    'POSIXLY_CORRECT=1 ls -l',
    'echo "$POSIXLY_CORRECT"',
    'unset POSIXLY_CORRECT',
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
    // a guarded name bound to a path in the command hash table: run without a PATH lookup
    'hash -p /usr/bin/rm rm',
    'hash -p /bin/true true rm',
    'hash -p "$p" "$n"',
    'true; hash -p /usr/bin/git git 2>/dev/null',
    'hash rm=/usr/bin/rm',
    "hash 'find'=/usr/bin/find",
    'BASH_CMDS[rm]=/usr/bin/rm',
    'BASH_CMDS[rm]=$r',
    'BASH_CMDS+=([git]=/usr/bin/git)',
    'declare -A BASH_CMDS=([rm]=/bin/rm)',
    'printf -v "BASH_CMDS[rm]" %s /bin/rm',
    'declare -n t=BASH_CMDS',
    'commands[rm]=/usr/bin/rm',
    "commands['git']=$g",
    'commands[$n]=$p',
    'commands=(rm /bin/rm)',
    // every bash started from then on reads no BASH_ENV (POSIX mode)
    'export POSIXLY_CORRECT=1',
    'export PATH POSIXLY_CORRECT',
    'POSIXLY_CORRECT=1; bash -c "$x"',
    'declare -x POSIXLY_CORRECT=y',
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
