// How `run` and `shell-init` name a session's warm checker (pure functions: no process, no file).
import { describe, expect, it } from 'vitest';
import { guardEnv } from '../../src/commands/run.js';
import { renderSnippet } from '../../src/commands/shell-init.js';

const layout = {
  bundle: '/opt/ag/lib/agent-guard.cjs',
  shimDir: '/opt/ag/shims',
  guardBash: '/opt/ag/shell/guard.bash',
  guardZsh: '/opt/ag/shell/guard.zsh',
  zdotdir: '/opt/ag/shell/zsh',
};

describe('the session environment names its warm checker', () => {
  it('run: its own checker directory and its own pid as the owner; a parent session’s is replaced, none is inherited when there is none', () => {
    const env = guardEnv({ PATH: '/usr/bin', AGENT_GUARD_CHECKER: '/run/user/1/agent-guard/parent', AGENT_GUARD_CHECKER_OWNER: '1' }, layout, '/usr/bin/node', 's', { dir: '/run/user/1/agent-guard/0123456789abcdef', owner: 4242 });
    expect(env.AGENT_GUARD_CHECKER).toBe('/run/user/1/agent-guard/0123456789abcdef');
    expect(env.AGENT_GUARD_CHECKER_OWNER).toBe('4242');
    const off = guardEnv({ PATH: '/usr/bin', AGENT_GUARD_CHECKER: '/run/user/1/agent-guard/parent', AGENT_GUARD_CHECKER_OWNER: '1' }, layout, '/usr/bin/node', 's', null);
    expect(off.AGENT_GUARD_CHECKER).toBeUndefined();
    expect(off.AGENT_GUARD_CHECKER_OWNER).toBeUndefined();
  });

  it('shell-init: a new directory and the shell itself ($$) as the owner, unless the shell already has a checker (inside run)', () => {
    for (const shell of ['bash', 'zsh'] as const) {
      const s = renderSnippet(shell, layout, '/usr/bin/node', { PATH: '/usr/bin' }, '/tmp/agent-guard-1/0123456789abcdef');
      expect(s).toContain("export AGENT_GUARD_CHECKER='/tmp/agent-guard-1/0123456789abcdef'\nexport AGENT_GUARD_CHECKER_OWNER=$$\n");
      const inside = renderSnippet(shell, layout, '/usr/bin/node', { PATH: '/usr/bin', AGENT_GUARD_CHECKER: '/run/x/y' }, '/tmp/agent-guard-1/0123456789abcdef');
      expect(inside).not.toContain('AGENT_GUARD_CHECKER');
      expect(renderSnippet(shell, layout, '/usr/bin/node', { PATH: '/usr/bin' }, null)).not.toContain('AGENT_GUARD_CHECKER');
    }
  });
});
