// Codex's hook trust as agent-guard reads it (src/harness/codex-trust.ts). The expected hashes and
// the config.toml text are what Codex 0.171.0 itself produced (its app-server's `hooks/list`
// `currentHash`, and the file its `config/batchWrite` wrote when trusting a hook), run offline against
// these exact entries: the computation is checked against Codex, not against itself.
import { describe, expect, it } from 'vitest';
import { codexHookHash, codexHookKey, readHookStates, trustStatus } from '../../src/harness/codex-trust.js';
import { registeredCommand } from '../../src/harness/install.js';

const OURS = registeredCommand('codex', '/usr/local/agent-guard/bin/agent-guard hook codex');

describe('codexHookHash: the hash Codex 0.171.0 reports for the same entry', () => {
  it('our registered entry, as `hook install codex` writes it', () => {
    expect(OURS.startsWith("sh -c '")).toBe(true);
    expect(codexHookHash('Bash', { type: 'command', command: OURS, timeout: 30 })).toBe('sha256:a8d58bf6d5db44115cedf125a0bd9c45aa6d6c99cd4ad9ef155c32612550fb57');
  });
  it('a widened matcher and a statusMessage a user added', () => {
    expect(codexHookHash('Bash|PowerShell', { type: 'command', command: OURS, timeout: 30, statusMessage: 'agent-guard' })).toBe(
      'sha256:1e1c9ff1651399a78859d4e313c5104377212101cb383c144b7a4c7dafc67640',
    );
  });
  it('defaults filled in (timeout 600, async false), an old unwrapped command', () => {
    expect(codexHookHash('Read', { type: 'command', command: 'other' })).toBe('sha256:f008061ff739ddaaeb5847e18d830d29660339f44f50a1ab9763a9aa7c5b14f2');
    expect(codexHookHash('Bash', { type: 'command', command: '/opt/ag/bin/agent-guard hook codex', timeout: 30 })).toBe('sha256:728776f8d1be5feb449a115e76a543759a35567c4c6ec41354f20bc2aa7a30b3');
  });
  it('an entry with a field it does not model: no hash (the state is then unknown, not guessed)', () => {
    expect(codexHookHash('Bash', { type: 'command', command: OURS, timeout: 30, commandWindows: 'x' })).toBeNull();
    expect(codexHookHash('Bash', { type: 'command', command: OURS, timeout: 'x' })).toBeNull();
  });
});

describe('readHookStates: config.toml as Codex writes it, and the other TOML shapes', () => {
  const key = codexHookKey('/tmp/h16-cxs/proj/.codex/hooks.json', 1, 1);
  it('the file Codex 0.171.0 wrote when the hook was trusted', () => {
    const written = `[projects."/tmp/h16-cxs/proj"]\ntrust_level = "trusted"\n\n[hooks.state."/tmp/h16-cxs/proj/.codex/hooks.json:pre_tool_use:1:1"]\ntrusted_hash = "sha256:1e1c9ff1651399a78859d4e313c5104377212101cb383c144b7a4c7dafc67640"\n`;
    const states = readHookStates(written)!;
    expect(key).toBe('/tmp/h16-cxs/proj/.codex/hooks.json:pre_tool_use:1:1');
    expect(states.get(key)).toEqual({ trustedHash: 'sha256:1e1c9ff1651399a78859d4e313c5104377212101cb383c144b7a4c7dafc67640' });
  });
  it('inline tables, dotted keys, literal strings, comments, arrays and multi-line strings around them', () => {
    const text = [
      '# user config',
      'model = "gpt-5" # trailing comment',
      'notify = ["a", "b]",',
      '  "c"]',
      'instructions = """',
      '[hooks.state."not-a-header"]',
      '"""',
      '[hooks]',
      `state."/a/hooks.json:pre_tool_use:0:0".trusted_hash = 'sha256:aa'`,
      '[hooks.state]',
      '"/b/hooks.json:pre_tool_use:0:0" = { trusted_hash = "sha256:bb", enabled = false }',
      '[[profiles.list]]',
      'trusted_hash = "ignored"',
      '[hooks.state."/c/hooks.json:pre_tool_use:2:0"]',
      'enabled = true',
      'trusted_hash = "sha256:c\\u0063"',
    ].join('\n');
    const s = readHookStates(text)!;
    expect([...s.keys()].sort()).toEqual(['/a/hooks.json:pre_tool_use:0:0', '/b/hooks.json:pre_tool_use:0:0', '/c/hooks.json:pre_tool_use:2:0']);
    expect(s.get('/a/hooks.json:pre_tool_use:0:0')).toEqual({ trustedHash: 'sha256:aa' });
    expect(s.get('/b/hooks.json:pre_tool_use:0:0')).toEqual({ trustedHash: 'sha256:bb', enabled: false });
    expect(s.get('/c/hooks.json:pre_tool_use:2:0')).toEqual({ trustedHash: 'sha256:cc', enabled: true });
  });
  it('text it cannot read: null (reported as unknown), never a guess', () => {
    expect(readHookStates('[hooks.state."x"\ntrusted_hash = "a"')).toBeNull();
    expect(readHookStates('key = "unterminated')).toBeNull();
    expect(readHookStates('')).toEqual(new Map());
  });
});

describe('trustStatus: as Codex decides (HookTrustStatus)', () => {
  it('trusted, modified, untrusted, disabled, unknown', () => {
    expect(trustStatus('sha256:x', { trustedHash: 'sha256:x' })).toBe('trusted');
    expect(trustStatus('sha256:x', { trustedHash: 'sha256:y' })).toBe('modified');
    expect(trustStatus('sha256:x', undefined)).toBe('untrusted');
    expect(trustStatus('sha256:x', { trustedHash: 'sha256:x', enabled: false })).toBe('disabled');
    expect(trustStatus(null, { trustedHash: 'sha256:x' })).toBe('unknown');
  });
});
