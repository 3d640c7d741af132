// Harness hook install/remove: pure file operations in a temp HOME and project, never real paths.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  installHook,
  registeredCommand,
  removeHook,
  settingsPath,
  wiredHarnesses,
  type Harness,
  type InstallContext,
  type Scope,
} from '../../src/harness/install.js';

let root: string;
let ctx: InstallContext;
const BIN = '/usr/local/agent-guard/bin/agent-guard';

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ag-install-'));
  mkdirSync(join(root, 'home'));
  mkdirSync(join(root, 'proj'));
  ctx = { home: join(root, 'home'), projectDir: join(root, 'proj'), command: '' };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function c(h: Harness, bin = BIN): InstallContext {
  return { ...ctx, command: `${bin} hook ${h}` };
}
/** wiredHarnesses without the entries (their positions are asserted where they matter). */
const where = (ws: { harness: Harness; scope: Scope; file: string }[]) => ws.map(({ harness, scope, file }) => ({ harness, scope, file }));
function read(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}
function put(file: string, value: unknown): string {
  mkdirSync(dirname(file), { recursive: true });
  const text = JSON.stringify(value, null, 2) + '\n';
  writeFileSync(file, text);
  return text;
}

interface Case {
  h: Harness;
  scope: Scope;
  rel: string;
  ours: (cmd: string) => unknown;
  /** A file with other settings and other hooks, including a foreign hook on the same event/tool. */
  others: () => Record<string, unknown>;
  /** `others()` with our entry merged the way the installer should merge it. */
  merged: (cmd: string) => unknown;
}

const claudeLike = (h: 'claude' | 'codex', scope: Scope, rel: string): Case => ({
  h,
  scope,
  rel,
  ours: (cmd) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: cmd, timeout: 30 }] }] } }),
  others: () => ({
    model: 'x',
    permissions: { allow: ['Bash(ls:*)'], deny: [] },
    hooks: {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: '/opt/other/lint-bash.sh', timeout: 5 }] },
        { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'fmt' }] },
      ],
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'log' }] }],
    },
    zLast: true,
  }),
  merged: (cmd) => ({
    model: 'x',
    permissions: { allow: ['Bash(ls:*)'], deny: [] },
    hooks: {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: '/opt/other/lint-bash.sh', timeout: 5 }] },
        { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'fmt' }] },
        { matcher: 'Bash', hooks: [{ type: 'command', command: cmd, timeout: 30 }] },
      ],
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'log' }] }],
    },
    zLast: true,
  }),
});

const CASES: Case[] = [
  claudeLike('claude', 'user', 'home/.claude/settings.json'),
  claudeLike('claude', 'project', 'proj/.claude/settings.json'),
  claudeLike('codex', 'user', 'home/.codex/hooks.json'),
  claudeLike('codex', 'project', 'proj/.codex/hooks.json'),
  ...(['user', 'project'] as const).map(
    (scope): Case => ({
      h: 'gemini',
      scope,
      rel: `${scope === 'user' ? 'home' : 'proj'}/.gemini/settings.json`,
      ours: (cmd) => ({
        hooks: {
          BeforeTool: [
            { matcher: 'run_shell_command', hooks: [{ type: 'command', command: cmd, name: 'agent-guard', timeout: 30000 }] },
          ],
        },
      }),
      others: () => ({
        theme: 'dark',
        hooks: {
          BeforeTool: [{ matcher: 'run_shell_command', sequential: false, hooks: [{ type: 'command', command: 'audit', name: 'audit' }] }],
        },
      }),
      merged: (cmd) => ({
        theme: 'dark',
        hooks: {
          BeforeTool: [
            { matcher: 'run_shell_command', sequential: false, hooks: [{ type: 'command', command: 'audit', name: 'audit' }] },
            { matcher: 'run_shell_command', hooks: [{ type: 'command', command: cmd, name: 'agent-guard', timeout: 30000 }] },
          ],
        },
      }),
    }),
  ),
  ...([
    ['project', 'proj/.github/hooks/agent-guard.json'],
    ['user', 'home/.copilot/hooks/agent-guard.json'],
  ] as const).map(([scope, rel]): Case => ({
    h: 'copilot',
    scope,
    rel,
    ours: (cmd) => ({ version: 1, hooks: { preToolUse: [{ type: 'command', bash: cmd, timeoutSec: 30 }] } }),
    others: () => ({
      version: 1,
      hooks: {
        preToolUse: [{ type: 'command', bash: './scripts/audit.sh', powershell: 'audit.ps1', timeoutSec: 10 }],
        sessionStart: [{ type: 'command', bash: 'echo hi' }],
      },
    }),
    merged: (cmd) => ({
      version: 1,
      hooks: {
        preToolUse: [
          { type: 'command', bash: './scripts/audit.sh', powershell: 'audit.ps1', timeoutSec: 10 },
          { type: 'command', bash: cmd, timeoutSec: 30 },
        ],
        sessionStart: [{ type: 'command', bash: 'echo hi' }],
      },
    }),
  })),
];

describe.each(CASES)('$h ($scope scope)', ({ h, scope, rel, ours, others, merged }) => {
  const file = () => join(root, rel);

  it('settingsPath points at the documented file', () => {
    expect(settingsPath(h, scope, c(h))).toBe(file());
  });

  it('a fresh install creates the file with exactly our entry', () => {
    const r = installHook(h, scope, c(h));
    expect(r).toEqual({ file: file(), changed: true, backup: null });
    expect(read(file())).toEqual(ours(registeredCommand(h, `${BIN} hook ${h}`)));
    const text = readFileSync(file(), 'utf8');
    expect(text).toBe(JSON.stringify(ours(registeredCommand(h, `${BIN} hook ${h}`)), null, 2) + '\n');
    expect(existsSync(file() + '.agent-guard.bak')).toBe(false);
  });

  it('merges into a file with other settings and hooks, keeping them and their order; backup made', () => {
    const before = put(file(), others());
    const r = installHook(h, scope, c(h));
    expect(r).toEqual({ file: file(), changed: true, backup: file() + '.agent-guard.bak' });
    const after = readFileSync(file(), 'utf8');
    // same keys in the same order: compare the serialisations, not just deep equality
    expect(after).toBe(JSON.stringify(merged(registeredCommand(h, `${BIN} hook ${h}`)), null, 2) + '\n');
    expect(readFileSync(file() + '.agent-guard.bak', 'utf8')).toBe(before);
  });

  it('a second install changes nothing and does not touch the file', () => {
    put(file(), others());
    installHook(h, scope, c(h));
    rmSync(file() + '.agent-guard.bak');
    const st = statSync(file());
    const text = readFileSync(file(), 'utf8');
    const r = installHook(h, scope, c(h));
    expect(r).toEqual({ file: file(), changed: false, backup: null });
    const st2 = statSync(file());
    expect(st2.ino).toBe(st.ino);
    expect(st2.mtimeMs).toBe(st.mtimeMs);
    expect(readFileSync(file(), 'utf8')).toBe(text);
    expect(existsSync(file() + '.agent-guard.bak')).toBe(false);
  });

  it('a re-install with another command path replaces ours in place, not a second entry', () => {
    put(file(), others());
    installHook(h, scope, c(h, '/old/place/agent-guard'));
    const r = installHook(h, scope, c(h, "'/new place/node_modules/.bin/agent-guard'"));
    expect(r.changed).toBe(true);
    expect(readFileSync(file(), 'utf8')).toBe(
      JSON.stringify(merged(registeredCommand(h, `'/new place/node_modules/.bin/agent-guard' hook ${h}`)), null, 2) + '\n',
    );
  });

  it('remove takes out only ours, with a backup; a second remove is a no-op', () => {
    const original = put(file(), others());
    installHook(h, scope, c(h));
    const installed = readFileSync(file(), 'utf8');
    const r = removeHook(h, scope, c(h, '/somewhere/else/agent-guard'));
    expect(r).toEqual({ file: file(), changed: true, backup: file() + '.agent-guard.bak' });
    expect(readFileSync(file(), 'utf8')).toBe(original);
    expect(readFileSync(file() + '.agent-guard.bak', 'utf8')).toBe(installed);
    expect(removeHook(h, scope, c(h))).toEqual({ file: file(), changed: false, backup: null });
  });

  it('remove after a fresh install drops the emptied event array and leaves the rest', () => {
    installHook(h, scope, c(h));
    removeHook(h, scope, c(h));
    expect(read(file())).toEqual(h === 'copilot' ? { version: 1, hooks: {} } : { hooks: {} });
  });

  it('remove when there is no file creates nothing', () => {
    expect(removeHook(h, scope, c(h))).toEqual({ file: file(), changed: false, backup: null });
    expect(existsSync(file())).toBe(false);
  });

  it.each([
    ['invalid JSON', '{ "hooks": { '],
    ['an array at the top level', '[]\n'],
    ['a string at the top level', '"x"\n'],
    ['hooks that is not an object', '{"hooks": []}\n'],
  ])('refuses %s and leaves the file unchanged', (_what, content) => {
    mkdirSync(dirname(file()), { recursive: true });
    writeFileSync(file(), content);
    expect(() => installHook(h, scope, c(h))).toThrow(/agent-guard: .*nothing changed/);
    expect(() => removeHook(h, scope, c(h))).toThrow(/nothing changed/);
    expect(readFileSync(file(), 'utf8')).toBe(content);
    expect(existsSync(file() + '.agent-guard.bak')).toBe(false);
  });

  it('keeps the file mode', () => {
    put(file(), others());
    chmodSync(file(), 0o600);
    installHook(h, scope, c(h));
    expect(statSync(file()).mode & 0o777).toBe(0o600);
  });

  it('wiredHarnesses finds it once installed and forgets it once removed', () => {
    expect(wiredHarnesses(c(h))).toEqual([]);
    installHook(h, scope, c(h));
    expect(where(wiredHarnesses(c(h)))).toEqual([{ harness: h, scope, file: file() }]);
    removeHook(h, scope, c(h));
    expect(wiredHarnesses(c(h))).toEqual([]);
  });
});

describe('cross-cutting rules', () => {
  it("--user goes where each harness looks: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME (relative: from the project directory)", () => {
    const env = { CLAUDE_CONFIG_DIR: join(root, 'claude-cfg'), CODEX_HOME: join(root, 'codex-home'), GEMINI_CLI_HOME: join(root, 'gem'), COPILOT_HOME: 'cp-home' };
    const at = (h: Harness) => settingsPath(h, 'user', { ...c(h), env });
    expect(at('claude')).toBe(join(root, 'claude-cfg', 'settings.json'));
    expect(at('codex')).toBe(join(root, 'codex-home', 'hooks.json'));
    expect(at('gemini')).toBe(join(root, 'gem', '.gemini', 'settings.json'));
    expect(at('copilot')).toBe(join(ctx.projectDir, 'cp-home', 'hooks', 'agent-guard.json'));
    // unset or empty: the home directory's
    expect(settingsPath('claude', 'user', { ...c('claude'), env: { CLAUDE_CONFIG_DIR: '' } })).toBe(join(ctx.home, '.claude', 'settings.json'));
    installHook('claude', 'user', { ...c('claude'), env });
    expect(existsSync(join(root, 'claude-cfg', 'settings.json'))).toBe(true);
    expect(existsSync(join(ctx.home, '.claude'))).toBe(false);
    expect(where(wiredHarnesses({ ...c('claude'), env }))).toEqual([{ harness: 'claude', scope: 'user', file: join(root, 'claude-cfg', 'settings.json') }]);
  });

  it('Claude: onFailure "block" only when the install says Claude Code reads it; a later install without it takes it out', () => {
    const file = settingsPath('claude', 'project', c('claude'));
    installHook('claude', 'project', { ...c('claude'), claudeOnFailure: true });
    const cmd = registeredCommand('claude', `${BIN} hook claude`);
    expect(read(file)).toEqual({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: cmd, timeout: 30, onFailure: 'block' }] }] } });
    expect(installHook('claude', 'project', { ...c('claude'), claudeOnFailure: true }).changed).toBe(false);
    expect(installHook('claude', 'project', c('claude')).changed).toBe(true);
    expect(read(file)).toEqual(CASES[1]!.ours(cmd));
  });

  it('Codex: the command is handed to `sh -c` whole (its login shell may be fish); a command with a backslash is refused', () => {
    expect(registeredCommand('codex', `${BIN} hook codex`)).toBe(`sh -c '${registeredCommand('claude', `${BIN} hook codex`)}'`);
    expect(registeredCommand('codex', `'/opt/a b/agent-guard' hook codex`)).toMatch(/^sh -c ''\\''\/opt\/a b\/agent-guard'\\'' hook codex \|\| \{ /);
    expect(() => installHook('codex', 'project', c('codex', '/opt/a\\b/agent-guard'))).toThrow(/backslash/);
    expect(existsSync(join(ctx.projectDir, '.codex'))).toBe(false);
  });

  it('refuses a command it would not recognise as its own later', () => {
    expect(() => installHook('claude', 'user', { ...ctx, command: '/bin/true' })).toThrow(/hook claude/);
    expect(() => installHook('claude', 'user', c('gemini'))).toThrow(/hook claude/);
    expect(existsSync(join(ctx.home, '.claude'))).toBe(false);
  });

  it("does not take another harness's agent-guard hook for its own", () => {
    const file = settingsPath('claude', 'project', c('claude'));
    put(file, { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `${BIN} hook codex` }] }] } });
    installHook('claude', 'project', c('claude'));
    expect(read(file)).toEqual({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: `${BIN} hook codex` }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: registeredCommand('claude', `${BIN} hook claude`), timeout: 30 }] },
        ],
      },
    });
  });

  it('keeps a group it shares with foreign hooks and extra keys on our entry; removes duplicates of ours', () => {
    const file = settingsPath('claude', 'user', c('claude'));
    put(file, {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'before' },
              { type: 'command', command: '/old/agent-guard hook claude', timeout: 99, statusMessage: 'guarding' },
              { type: 'command', command: 'after' },
            ],
          },
          { matcher: 'Bash', hooks: [{ type: 'command', command: '/dup/agent-guard hook claude' }] },
        ],
      },
    });
    expect(installHook('claude', 'user', c('claude')).changed).toBe(true);
    expect(read(file)).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'before' },
              { type: 'command', command: registeredCommand('claude', `${BIN} hook claude`), timeout: 30, statusMessage: 'guarding' },
              { type: 'command', command: 'after' },
            ],
          },
        ],
      },
    });
    removeHook('claude', 'user', c('claude'));
    expect(read(file)).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'before' }, { type: 'command', command: 'after' }] }] },
    });
  });

  it('keeps our entry in a group the user widened to more tools (Bash|PowerShell, *), and does not count one under a matcher that misses the shell tool', () => {
    const file = settingsPath('claude', 'user', c('claude'));
    const widened = { matcher: 'Bash|PowerShell', hooks: [{ type: 'command', command: registeredCommand('claude', `${BIN} hook claude`), timeout: 30 }] };
    put(file, { hooks: { PreToolUse: [widened] } });
    expect(installHook('claude', 'user', c('claude')).changed).toBe(false);
    expect(where(wiredHarnesses(c('claude')))).toEqual([{ harness: 'claude', scope: 'user', file }]);
    put(file, { hooks: { PreToolUse: [{ ...widened, matcher: '*' }] } });
    expect(installHook('claude', 'user', c('claude')).changed).toBe(false);
    // Under `Read` it guards nothing: not wired, and an install moves it to a Bash group.
    put(file, { hooks: { PreToolUse: [{ ...widened, matcher: 'Read' }] } });
    expect(wiredHarnesses(c('claude'))).toEqual([]);
    expect(installHook('claude', 'user', c('claude')).changed).toBe(true);
    expect(read(file)).toEqual(CASES[0]!.ours(registeredCommand('claude', `${BIN} hook claude`)));
  });

  it('overwrites the previous backup on each write', () => {
    const file = settingsPath('gemini', 'user', c('gemini'));
    put(file, { a: 1 });
    installHook('gemini', 'user', c('gemini', '/a/agent-guard'));
    installHook('gemini', 'user', c('gemini', '/b/agent-guard'));
    const bak = read(file + '.agent-guard.bak') as { hooks: { BeforeTool: { hooks: { command: string }[] }[] } };
    expect(bak.hooks.BeforeTool[0]?.hooks[0]?.command).toBe(registeredCommand('gemini', '/a/agent-guard hook gemini'));
  });

  it('writes through a symlinked settings file (dotfile managers) and leaves no temp files', () => {
    const file = settingsPath('claude', 'user', c('claude'));
    const real = join(root, 'dotfiles', 'claude-settings.json');
    put(real, { model: 'x' });
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync(real, file);
    installHook('claude', 'user', c('claude'));
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(read(real)).toEqual({ model: 'x', ...(CASES[0]!.ours(registeredCommand('claude', `${BIN} hook claude`)) as object) });
    expect(read(file + '.agent-guard.bak')).toEqual({ model: 'x' });
    expect(readdirSync(dirname(real))).toEqual(['claude-settings.json']);
    expect(readdirSync(dirname(file)).sort()).toEqual(['settings.json', 'settings.json.agent-guard.bak']);
  });

  it('treats an empty file as an empty object (with a backup of it)', () => {
    const file = settingsPath('claude', 'project', c('claude'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
    const r = installHook('claude', 'project', c('claude'));
    expect(r.backup).toBe(file + '.agent-guard.bak');
    expect(read(file)).toEqual(CASES[1]!.ours(registeredCommand('claude', `${BIN} hook claude`)));
  });

  it('wiredHarnesses lists every wired harness, skips unreadable files, and reports a shared file once', () => {
    installHook('claude', 'user', c('claude'));
    installHook('codex', 'project', c('codex'));
    installHook('copilot', 'project', c('copilot'));
    put(settingsPath('gemini', 'user', c('gemini')), ['not', 'an', 'object']);
    const broken = settingsPath('gemini', 'project', c('gemini'));
    mkdirSync(dirname(broken), { recursive: true });
    writeFileSync(broken, '{ not json');
    expect(where(wiredHarnesses(c('claude')))).toEqual([
      { harness: 'claude', scope: 'user', file: join(ctx.home, '.claude', 'settings.json') },
      { harness: 'codex', scope: 'project', file: join(ctx.projectDir, '.codex', 'hooks.json') },
      { harness: 'copilot', scope: 'project', file: join(ctx.projectDir, '.github', 'hooks', 'agent-guard.json') },
    ]);
    // project dir == home: the same file is one place, reported once
    expect(where(wiredHarnesses({ ...c('claude'), projectDir: ctx.home }).filter((w) => w.harness === 'claude'))).toEqual([
      { harness: 'claude', scope: 'user', file: join(ctx.home, '.claude', 'settings.json') },
    ]);
  });
});
