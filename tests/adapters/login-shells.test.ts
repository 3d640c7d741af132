// Codex 0.171.0 runs a hook as `$SHELL -lc <command>` (codex-rs/hooks command_runner.rs): the
// user's login shell, its login profile read first. The command `hook install codex` registers must
// refuse the same way under every login shell, whatever the profile prints: bash, zsh, dash and fish,
// each with a profile that writes to stdout, in the read-only sandbox. A refusal is exit 2 with the
// reason on stderr (Codex blocks on that whatever stdout holds); a command that may run is exit 0.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { registeredCommand } from '../../src/harness/install.js';

const area = useSandboxArea('ag-login-shells');
const SHELLS = ['bash', 'zsh', 'dash', 'fish'] as const;
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const inCI = !!process.env.CI && !/^(0|false)$/i.test(process.env.CI);

const which = (name: string): string | null => {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
};

/** Codex's payload for its shell tool (0.171.0: every shell tool arrives as `Bash`). */
const payload = (command: string, cwd: string): string =>
  JSON.stringify({ session_id: 's1', turn_id: 't1', transcript_path: null, cwd, hook_event_name: 'PreToolUse', model: 'gpt-5', permission_mode: 'default', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'call_1' });

describeSandboxed('the registered Codex hook under each login shell ($SHELL -lc), with a login profile that prints to stdout', () => {
  itSandboxed('bash, zsh, dash, fish: BLOCK and a runner that cannot start refuse with exit 2 + stderr; a command that may run exits 0; the SAFE one is compensated', () => {
    const home = path.join(area.rw(), 'home');
    const ws = path.join(home, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws }).status).toBe(0);
    // Every login profile these shells read prints a line to stdout (nvm, motd, greeters do).
    const noisy = 'echo "profile: hello from the login profile"\n';
    for (const f of ['.profile', '.bash_profile', '.zprofile', '.zshenv', '.zlogin']) fs.writeFileSync(path.join(home, f), noisy);
    fs.mkdirSync(path.join(home, '.config', 'fish'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'fish', 'config.fish'), 'echo "profile: hello from config.fish"\n');

    const working = registeredCommand('codex', `'${process.execPath}' '${BIN}' hook codex`);
    const missing = registeredCommand('codex', `${path.join(area.rw(), 'nowhere', 'agent-guard')} hook codex`);
    for (const name of SHELLS) {
      const shell = which(name);
      if (shell === null && !inCI) {
        console.warn(`SKIPPED: ${name} is not installed (.ci/run installs it)`);
        continue;
      }
      expect(shell, `${name} must be installed (.ci/run installs it)`).not.toBeNull();
      const run = (cmd: string, command: string) =>
        runSandboxed(area.rw(), ['env', '-i', `HOME=${home}`, `PATH=${PATH}`, `SHELL=${shell}`, shell!, '-lc', cmd], { cwd: ws, input: payload(command, ws), timeoutMs: 60_000 });
      fs.mkdirSync(path.join(ws, 'build'), { recursive: true });
      const block = run(working, 'rm -rf /');
      expect([block.exitCode, name], block.stdout + block.stderr).toEqual([2, name]);
      expect(block.stderr).toMatch(/agent-guard: BLOCK BLOCK_PROTECTED_ANCESTOR: /);
      const cannot = run(missing, 'ls');
      expect([cannot.exitCode, name], cannot.stdout + cannot.stderr).toEqual([2, name]);
      expect(cannot.stderr).toMatch(/agent-guard: the hook could not run \(status 127\)/);
      const ls = run(working, 'ls -la');
      expect([ls.exitCode, ls.stderr, name]).toEqual([0, '', name]);
      const safe = run(working, `rm -rf ${ws}/build`);
      expect([safe.exitCode, name], safe.stderr).toEqual([0, name]);
      expect(fs.existsSync(path.join(ws, 'build')), name).toBe(false);
      // The profile's line is on stdout each time: it does not change the answer.
      expect(ls.stdout, name).toMatch(/profile: hello/);
    }
  }, 240_000);
});
