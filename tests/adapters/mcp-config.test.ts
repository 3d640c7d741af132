// `hook install <harness> --mcp` (src/harness/mcp-config.ts, docs/mcp.md): merging agent-guard's
// MCP server into each harness's configuration — pure file operations in a temp HOME and project.
// Per harness and scope: create, idempotence (nothing written), merge with other servers and keys,
// update in place, backup, removal, refusals; Codex's TOML edited in place with comments, other
// tables and tricky values kept byte for byte, the result checked by a real TOML parser.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installMcp, mcpConfigPath, mcpWired, removeMcp, type PartsContext, type Scope, type ServerCommand } from '../../src/harness/mcp-config.js';
import { removeTable, scanToml, setTableKeys } from '../../src/harness/toml-table.js';
import type { Harness } from '../../src/harness/answers.js';

let root: string;
let ctx: PartsContext;
const SERVER: ServerCommand = { command: '/opt/agent-guard/bin/agent-guard', args: ['mcp'] };
const MOVED: ServerCommand = { command: '/usr/bin/node', args: ['/home/me/src/agent-guard/dist/agent-guard.cjs', 'mcp'] };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ag-mcp-config-'));
  mkdirSync(join(root, 'home'));
  mkdirSync(join(root, 'proj'));
  ctx = { home: join(root, 'home'), projectDir: join(root, 'proj'), env: {} };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const put = (file: string, text: string): string => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return text;
};
const text = (file: string): string => readFileSync(file, 'utf8');
const json = (file: string): any => JSON.parse(text(file));

const JSON_CASES: { h: Exclude<Harness, 'codex'>; scope: Scope; rel: string; entry: (s: ServerCommand) => unknown }[] = [
  { h: 'claude', scope: 'project', rel: 'proj/.mcp.json', entry: (s) => ({ type: 'stdio', ...s }) },
  { h: 'claude', scope: 'user', rel: 'home/.claude.json', entry: (s) => ({ type: 'stdio', ...s }) },
  { h: 'gemini', scope: 'project', rel: 'proj/.gemini/settings.json', entry: (s) => ({ ...s }) },
  { h: 'gemini', scope: 'user', rel: 'home/.gemini/settings.json', entry: (s) => ({ ...s }) },
  { h: 'copilot', scope: 'project', rel: 'proj/.github/mcp.json', entry: (s) => ({ type: 'stdio', ...s, tools: ['*'] }) },
  { h: 'copilot', scope: 'user', rel: 'home/.copilot/mcp-config.json', entry: (s) => ({ type: 'stdio', ...s, tools: ['*'] }) },
];

describe.each(JSON_CASES)('$h --$scope: $rel', ({ h, scope, rel, entry }) => {
  const file = () => join(root, rel);

  it('creates the file with our server; a second install writes nothing', () => {
    expect(mcpConfigPath(h, scope, ctx)).toBe(file());
    expect(mcpWired(h, scope, ctx)).toBe(false);
    const r = installMcp(h, scope, ctx, SERVER);
    expect(r).toEqual({ file: file(), changed: true, backup: null });
    expect(json(file())).toEqual({ mcpServers: { 'agent-guard': entry(SERVER) } });
    expect(text(file()).endsWith('}\n')).toBe(true);
    expect(mcpWired(h, scope, ctx)).toBe(true);
    const before = statSync(file());
    expect(installMcp(h, scope, ctx, SERVER)).toEqual({ file: file(), changed: false, backup: null });
    const after = statSync(file());
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('merges: other servers and keys stay in order, the old file is the backup; remove restores the rest', () => {
    const old = put(file(), JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'other-mcp', args: [] } }, hooks: { X: [] } }, null, 2) + '\n');
    const r = installMcp(h, scope, ctx, SERVER);
    expect(r.changed).toBe(true);
    expect(r.backup).toBe(`${file()}.agent-guard.bak`);
    expect(text(r.backup!)).toBe(old);
    const now = json(file());
    expect(Object.keys(now)).toEqual(['theme', 'mcpServers', 'hooks']);
    expect(Object.keys(now.mcpServers)).toEqual(['other', 'agent-guard']);
    expect(now.mcpServers['agent-guard']).toEqual(entry(SERVER));
    const rm = removeMcp(h, scope, ctx);
    expect(rm.changed).toBe(true);
    expect(json(file())).toEqual(JSON.parse(old));
    expect(removeMcp(h, scope, ctx)).toEqual({ file: file(), changed: false, backup: null });
  });

  it('a re-install from another place updates our entry in place and keeps keys a user added', () => {
    put(file(), JSON.stringify({ mcpServers: { 'agent-guard': { ...(entry(SERVER) as object), env: { A: '1' }, timeout: 5 }, z: { command: 'z' } } }));
    installMcp(h, scope, ctx, MOVED);
    const s = json(file()).mcpServers;
    expect(Object.keys(s)).toEqual(['agent-guard', 'z']);
    expect(s['agent-guard']).toEqual({ ...(entry(MOVED) as object), env: { A: '1' }, timeout: 5 });
  });

  it('refuses what it cannot read, writing nothing; remove without a file writes nothing', () => {
    expect(removeMcp(h, scope, ctx)).toEqual({ file: file(), changed: false, backup: null });
    expect(existsSync(file())).toBe(false);
    for (const bad of ['{ "mcpServers": ', '[1, 2]', '{"mcpServers": []}', '{"mcpServers": "x"}']) {
      put(file(), bad);
      expect(() => installMcp(h, scope, ctx, SERVER)).toThrow(/nothing changed/);
      expect(() => removeMcp(h, scope, ctx)).toThrow(/nothing changed/);
      expect(text(file())).toBe(bad);
      expect(mcpWired(h, scope, ctx)).toBe(null);
      expect(existsSync(`${file()}.agent-guard.bak`)).toBe(false);
    }
  });

  it('rewrites the target of a symlinked file, keeping the link', () => {
    const real = join(root, 'dotfiles', 'config.json');
    put(real, '{}');
    mkdirSync(dirname(file()), { recursive: true });
    symlinkSync(real, file());
    installMcp(h, scope, ctx, SERVER);
    expect(lstatSync(file()).isSymbolicLink()).toBe(true);
    expect(json(real).mcpServers['agent-guard']).toEqual(entry(SERVER));
  });
});

describe('the directories the harnesses take from the environment', () => {
  it('CLAUDE_CONFIG_DIR, CODEX_HOME and COPILOT_HOME move the user files (absolute values only)', () => {
    const env = { CLAUDE_CONFIG_DIR: join(root, 'cc'), CODEX_HOME: join(root, 'cx'), COPILOT_HOME: join(root, 'cp') };
    const e = { ...ctx, env };
    expect(mcpConfigPath('claude', 'user', e)).toBe(join(root, 'cc', '.claude.json'));
    expect(mcpConfigPath('codex', 'user', e)).toBe(join(root, 'cx', 'config.toml'));
    expect(mcpConfigPath('copilot', 'user', e)).toBe(join(root, 'cp', 'mcp-config.json'));
    expect(mcpConfigPath('codex', 'user', { ...ctx, env: { CODEX_HOME: 'relative' } })).toBe(join(ctx.home, '.codex', 'config.toml'));
    expect(mcpConfigPath('codex', 'project', e)).toBe(join(ctx.projectDir, '.codex', 'config.toml'));
  });
});

// A config.toml with what a real one holds and what trips a line-based editor: comments, other
// servers, a multi-line string and an array whose lines start with `[`, the table name in a string.
const CODEX = `# Codex configuration
model = "gpt-5" # inline comment
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { KEY = "v", "quoted key" = 'lit' }

[profiles.fast]
notes = """
[mcp_servers.agent-guard]
command = "not a header: inside a string"
"""
matrix = [
  [1, 2],
  [3, 4], # a comment in an array
]
literal = '''C:\\path\\[x]'''

[tools]
web_search = true
`;

describe('codex: [mcp_servers.agent-guard] in config.toml', () => {
  const file = () => join(root, 'home/.codex/config.toml');
  const table = (t: string) => (parseToml(t) as any).mcp_servers?.['agent-guard'];

  it('creates the file; a second install writes nothing; remove leaves an empty file', () => {
    const r = installMcp('codex', 'user', ctx, SERVER);
    expect(r).toEqual({ file: file(), changed: true, backup: null });
    expect(text(file())).toBe('[mcp_servers.agent-guard]\ncommand = "/opt/agent-guard/bin/agent-guard"\nargs = ["mcp"]\n');
    expect(installMcp('codex', 'user', ctx, SERVER).changed).toBe(false);
    expect(mcpWired('codex', 'user', ctx)).toBe(true);
    expect(removeMcp('codex', 'user', ctx).changed).toBe(true);
    expect(text(file())).toBe('');
    expect(mcpWired('codex', 'user', ctx)).toBe(false);
  });

  it('appends the table, keeping every byte before it; remove gives the original back exactly', () => {
    put(file(), CODEX);
    const r = installMcp('codex', 'user', ctx, SERVER);
    expect(r.changed).toBe(true);
    expect(text(r.backup!)).toBe(CODEX);
    const now = text(file());
    expect(now.startsWith(CODEX)).toBe(true);
    const parsed = parseToml(now) as any;
    expect(parsed.mcp_servers['agent-guard']).toEqual({ command: SERVER.command, args: ['mcp'] });
    expect(parsed.mcp_servers.docs.env).toEqual({ KEY: 'v', 'quoted key': 'lit' });
    expect(parsed.profiles.fast.notes).toContain('[mcp_servers.agent-guard]');
    expect(parsed.model).toBe('gpt-5');
    expect(installMcp('codex', 'user', ctx, SERVER).changed).toBe(false);
    removeMcp('codex', 'user', ctx);
    expect(text(file())).toBe(CODEX);
  });

  it('updates command and args in place; other keys, comments and sub-tables of ours stay; remove cuts ours and its sub-tables', () => {
    const mine = `${CODEX}
# agent-guard, moved by hand
[mcp_servers.agent-guard]
# where it runs
command = "/old/agent-guard"
args = [
  "old", # a comment
]
startup_timeout_sec = 20

[mcp_servers.agent-guard.env]
AGENT_GUARD_SESSION = "codex"

[after]
x = 1
`;
    put(file(), mine);
    installMcp('codex', 'user', ctx, MOVED);
    const now = text(file());
    expect(table(now)).toEqual({ command: MOVED.command, args: MOVED.args, startup_timeout_sec: 20, env: { AGENT_GUARD_SESSION: 'codex' } });
    expect(now).toContain('# where it runs\ncommand = "/usr/bin/node"\nargs = ["/home/me/src/agent-guard/dist/agent-guard.cjs", "mcp"]\nstartup_timeout_sec = 20\n');
    expect(now.startsWith(CODEX)).toBe(true);
    removeMcp('codex', 'user', ctx);
    const gone = text(file());
    expect(table(gone)).toBeUndefined();
    expect((parseToml(gone) as any).after).toEqual({ x: 1 });
    expect(gone).toBe(`${CODEX}\n# agent-guard, moved by hand\n\n[after]\nx = 1\n`);
  });

  it('reads a file that starts with a byte order mark', () => {
    put(file(), '\uFEFFmodel = "x"\n');
    installMcp('codex', 'user', ctx, SERVER);
    expect(text(file()).startsWith('\uFEFFmodel = "x"\n\n[mcp_servers.agent-guard]\n')).toBe(true);
  });

  it('adds a missing command or args right after the header', () => {
    put(file(), '[mcp_servers.agent-guard]\nenabled = true\n');
    installMcp('codex', 'user', ctx, SERVER);
    expect(text(file())).toBe('[mcp_servers.agent-guard]\ncommand = "/opt/agent-guard/bin/agent-guard"\nargs = ["mcp"]\nenabled = true\n');
  });

  it('keeps CRLF line ends and quotes what TOML needs quoted', () => {
    put(file(), 'a = 1\r\n\r\n[x]\r\ny = "z"\r\n');
    installMcp('codex', 'user', ctx, { command: '/p/a "b"\\c\x7f', args: ['mcp'] });
    const now = text(file());
    expect(now).toBe('a = 1\r\n\r\n[x]\r\ny = "z"\r\n\r\n[mcp_servers.agent-guard]\r\ncommand = "/p/a \\"b\\"\\\\c\\u007F"\r\nargs = ["mcp"]\r\n');
    expect(table(now).command).toBe('/p/a "b"\\c\x7f');
    removeMcp('codex', 'user', ctx);
    expect(text(file())).toBe('a = 1\r\n\r\n[x]\r\ny = "z"\r\n');
  });

  it('refuses forms it does not edit, and what it cannot read, writing nothing', () => {
    const bad = [
      '[mcp_servers]\nagent-guard = { command = "x" }\n', // inline table under [mcp_servers]
      '[mcp_servers]\nagent-guard.command = "x"\n', // dotted keys
      'mcp_servers.agent-guard.command = "x"\n', // dotted keys at the top
      'mcp_servers = { docs = { command = "npx" } }\n', // an inline mcp_servers: no table can be added
      '[[mcp_servers]]\nname = "x"\n', // an array of tables
      '[mcp_servers.agent-guard]\ncommand = "a"\n[mcp_servers.agent-guard]\ncommand = "b"\n', // defined twice
      'a = "unterminated\n', // not TOML
      'a = """never closed\n',
      '[x\n',
    ];
    for (const t of bad) {
      put(file(), t);
      expect(() => installMcp('codex', 'user', ctx, SERVER), t).toThrow(/nothing changed/);
      expect(text(file())).toBe(t);
    }
    put(file(), 'a = "unterminated\n');
    expect(() => removeMcp('codex', 'user', ctx)).toThrow(/nothing changed/);
    expect(mcpWired('codex', 'user', ctx)).toBe(null);
  });
});

describe('the TOML scan', () => {
  it('finds headers and key spans across multi-line values, and only at statement starts', () => {
    const kinds = scanToml(CODEX).map((s) => `${s.kind}:${[...(s.kind === 'keyval' ? s.table : []), ...s.path].join('.')}`);
    expect(kinds).toEqual([
      'keyval:model',
      'keyval:approval_policy',
      'header:mcp_servers.docs',
      'keyval:mcp_servers.docs.command',
      'keyval:mcp_servers.docs.args',
      'keyval:mcp_servers.docs.env',
      'header:profiles.fast',
      'keyval:profiles.fast.notes',
      'keyval:profiles.fast.matrix',
      'keyval:profiles.fast.literal',
      'header:tools',
      'keyval:tools.web_search',
    ]);
  });

  it('setTableKeys and removeTable on quoted table names', () => {
    const t = '[mcp_servers."agent-guard"]\ncommand = "x"\n';
    expect(setTableKeys(t, ['mcp_servers', 'agent-guard'], [['command', '"y"']]).text).toBe('[mcp_servers."agent-guard"]\ncommand = "y"\n');
    expect(removeTable(t, ['mcp_servers', 'agent-guard']).text).toBe('');
  });
});
