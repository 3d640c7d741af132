// `agent-guard check` through the bundled binary: output schema, the --enforce exit-code contract,
// dialect selection, argv input, fail-closed errors. Nothing here executes the checked command.
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { runCli } from '../helpers/cli.js';
import { REASON_CODES } from '../../src/policy/reasons.js';

const fixture = useFixture();

const run = (args: string[], env: Record<string, string> = {}, cwd?: string) => runCli(args, { cwd: cwd ?? fixture().ws, env: { ...fixture().env, ...env } });
const json = (args: string[], env: Record<string, string> = {}) => {
  const r = run(['check', '--json', ...args], env);
  return { ...r, result: JSON.parse(r.stdout) as Record<string, any> };
};

describe('advisory check', () => {
  it('decides without acting and exits 0, whatever the decision', () => {
    for (const cmd of ['git status', 'rm -rf build', 'rm -rf /', 'cd src && rm -rf build']) {
      expect(run(['check', '--', cmd]).exitCode).toBe(0);
    }
  });
  it('prints the decision and code first', () => {
    const r = run(['check', '--', 'rm -rf /']);
    expect(r.stdout.split(' ').slice(0, 2)).toEqual(['BLOCK', 'BLOCK_PROTECTED_ANCESTOR:']);
  });
});

describe('--json', () => {
  it('prints one object with the documented fields', () => {
    const { result } = json(['--', 'rm -rf build; git push --force']);
    expect(Object.keys(result).sort()).toEqual(
      ['version', 'decision', 'code', 'explanation', 'decidingOp', 'ops', 'compensations', 'dialect', 'mode', 'cwd', 'workspace', 'warnings'].sort(),
    );
    expect(result).toMatchObject({ version: 1, decision: 'BLOCK', code: 'BLOCK_FORCE_PUSH', decidingOp: 1, compensations: [], dialect: 'posix', mode: 'NORMAL' });
    expect(result.ops).toHaveLength(2);
    expect(result.ops[0]).toMatchObject({ program: 'rm', kind: 'fs-delete', decision: 'RELOCATE', code: 'RELOCATE_TREE', rule: '14' });
    expect(result.ops[0].targets[0]).toMatchObject({ raw: 'build', path: `${fixture().ws}/build`, physical: `${fixture().ws}/build`, type: 'dir' });
    expect(result.ops[1]).toMatchObject({ program: 'git', kind: 'git-push', decision: 'BLOCK', code: 'BLOCK_FORCE_PUSH', rule: '9' });
    expect(result.workspace).toMatchObject({ root: fixture().ws, source: 'git', quarantine: `${fixture().ws}/.agent-trash` });
    expect(typeof result.explanation).toBe('string');
  });
  it('uses only documented reason codes', () => {
    for (const cmd of ['ls', 'rm -rf $X', 'git clean -fd', 'git reset --hard', 'rm *.log']) {
      const { result } = json(['--', cmd]);
      expect(REASON_CODES).toContain(result.code);
    }
  });
  it('reports the undeterminable reason of an op', () => {
    const { result } = json(['--', 'ls | xargs rm']);
    expect(result.ops[0]).toMatchObject({ kind: 'stdin-fed', undeterminable: 'stdin-fed', code: 'BLOCK_UNDETERMINABLE_EFFECT' });
  });
});

describe('--enforce exit codes', () => {
  it.each([
    ['git status', 0, 'ALLOW_NOOP'],
    // (ALLOW_REGENERABLE relocates under --enforce: tests/recovery/regenerable.test.ts, sandboxed)
    ['rm -rf .agent-trash/tx-1', 0, 'ALLOW_TRASH_GC'],
    ['rm -rf /', 2, 'BLOCK_PROTECTED_ANCESTOR'],
    ['rm -rf $D', 2, 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['git push --force', 2, 'BLOCK_FORCE_PUSH'],
    ['cd src && rm -rf build', 3, 'COMPOUND_CWD_DELETE'],
    ['touch f && rm f', 3, 'COMPOUND_CREATE_DELETE'],
  ])('%s -> exit %i (%s)', (cmd, exit, code) => {
    const r = run(['check', '--enforce', '--json', '--', cmd]);
    expect(r.exitCode).toBe(exit);
    expect(JSON.parse(r.stdout).code).toBe(code);
  });
  it('keeps stdout clean and explains on stderr without --json', () => {
    const r = run(['check', '--enforce', '--', 'rm -rf /']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^BLOCK BLOCK_PROTECTED_ANCESTOR:/);
  });
});

describe('dialects', () => {
  it.each([
    [['--dialect', 'fish'], {}, 'BLOCK_DIALECT_UNKNOWN'],
    [['--dialect', 'posix:cmd'], {}, 'BLOCK_DIALECT_INVALID'],
    [['--dialect', ''], {}, 'BLOCK_DIALECT_INVALID'],
    [[], { AGENT_GUARD_DIALECT: 'fish' }, 'BLOCK_DIALECT_UNKNOWN'],
    [[], { AGENT_GUARD_DIALECT: 'bash zsh' }, 'BLOCK_DIALECT_INVALID'],
    [['--dialect', 'cmd;posix'], {}, 'BLOCK_DIALECT_INVALID'],
    [[], { AGENT_GUARD_DIALECT: 'posix:cmd' }, 'BLOCK_DIALECT_INVALID'],
    [['--dialect', 'fish'], { AGENT_GUARD_DIALECT: 'posix' }, 'BLOCK_DIALECT_UNKNOWN'],
  ])('%j with %j -> %s, never a silent POSIX fallback', (flags, env, code) => {
    const r = run(['check', '--enforce', '--json', ...(flags as string[]), '--', 'ls'], env as Record<string, string>);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'BLOCK', code, ops: [] });
  });
  it.each([
    [['--dialect', 'POSIX'], {}],
    [[], { AGENT_GUARD_DIALECT: 'posix' }],
    [[], { AGENT_GUARD_DIALECT: '' }],
    [['--dialect', 'posix'], { AGENT_GUARD_DIALECT: 'fish' }],
  ])('%j with %j is posix', (flags, env) => {
    const r = run(['check', '--json', ...(flags as string[]), '--', 'rm -rf /'], env as Record<string, string>);
    expect(JSON.parse(r.stdout)).toMatchObject({ dialect: 'posix', code: 'BLOCK_PROTECTED_ANCESTOR' });
  });
});

describe('input', () => {
  it('takes an argv after -- and quotes it back exactly', () => {
    const { result } = json(['--', 'rm', '-rf', 'my dir', 'a;b']);
    expect(result.ops).toHaveLength(1);
    expect(result.ops[0].targets.map((t: { raw: string }) => t.raw)).toEqual(['my dir', 'a;b']);
  });
  it('treats a single argument as command text', () => {
    const { result } = json(['--', 'rm -rf a;rm -rf b']);
    expect(result.ops).toHaveLength(2);
  });
  it('decides relative to --cwd', () => {
    const r = run(['check', '--json', '--cwd', 'src', '--', 'rm -rf ..']);
    expect(JSON.parse(r.stdout).code).toBe('BLOCK_PROTECTED_PATH');
  });
  it('takes the session mode', () => {
    const { result } = json(['--mode', 'restricted', '--', 'git clean -fd']);
    expect(result).toMatchObject({ mode: 'RESTRICTED', code: 'BLOCK_RESTRICTED_MODE' });
  });
  it('an empty command is a no-op', () => {
    expect(json(['--', '']).result.code).toBe('ALLOW_NOOP');
  });
});

describe('errors', () => {
  it('exits 1 with a message for a missing command or a bad option value', () => {
    expect(run(['check']).exitCode).toBe(1);
    expect(run(['check', '--mode', 'chaos', '--', 'ls']).exitCode).toBe(1);
    expect(run(['check', '--cwd', '/nonexistent/dir', '--', 'ls']).exitCode).toBe(1);
    expect(run(['frobnicate']).exitCode).toBe(1);
  });
  it('fails closed under --enforce when a destructive-looking line hits an error', () => {
    const r = run(['check', '--enforce', '--json', '--cwd', '/nonexistent/dir', '--', 'rm -rf build']);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'BLOCK', code: 'BLOCK_INTERNAL_ERROR' });
  });
  it('prints help and version', () => {
    expect(run(['--help']).exitCode).toBe(0);
    expect(run(['check', '--help']).stdout).toContain('--enforce');
    expect(run(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
