// `agent-guard hook install <harness> --mcp --instructions` and `doctor` through the built CLI, in the
// read-only sandbox (docs/mcp.md): the hook and both parts in one run and one JSON answer; the
// registered server is a working MCP server (the SDK's client lists its tools through the very
// command the configuration holds); --no-hook touches only the parts; --remove takes out what the
// flags name; doctor reports the parts per harness.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseToml } from 'smol-toml';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { sandboxedCommand } from '../helpers/sandbox-spawn.js';
import { BIN } from '../helpers/cli.js';

const area = useSandboxArea('ag-parts');
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function world(): { home: string; ws: string; cli: (args: string[]) => { exitCode: number; stdout: string; stderr: string }; env: Record<string, string> } {
  const home = path.join(area.rw(), 'home');
  const ws = path.join(area.rw(), 'ws');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws }).status).toBe(0);
  const env = { HOME: home, PATH: `${path.dirname(process.execPath)}:${PATH}`, XDG_CACHE_HOME: path.join(home, '.cache') };
  const envArgv = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
  const cli = (args: string[]) => runSandboxed(area.rw(), [...envArgv, process.execPath, BIN, ...args], { cwd: ws, timeoutMs: 60_000 });
  return { home, ws, cli, env };
}

describeSandboxed('hook install --mcp --instructions, and doctor', () => {
  itSandboxed(
    'installs the hook, the server and the block in one run; the registered server answers; --no-hook and --remove touch only what they name',
    async () => {
      const w = world();
      const json = (args: string[]) => {
        const r = w.cli(args);
        expect(r.exitCode, r.stderr).toBe(0);
        return JSON.parse(r.stdout);
      };
      const all = json(['hook', 'install', 'claude', '--mcp', '--instructions', '--json']);
      expect(all).toMatchObject({ version: 1, harness: 'claude', scope: 'project', action: 'install', changed: true });
      expect(all.mcp).toMatchObject({ file: path.join(w.ws, '.mcp.json'), changed: true, server: { command: process.execPath, args: [BIN, 'mcp'] } });
      expect(all.instructions).toMatchObject({ file: path.join(w.ws, 'CLAUDE.md'), changed: true });
      expect(fs.existsSync(path.join(w.ws, '.claude', 'settings.json'))).toBe(true);
      const entry = JSON.parse(fs.readFileSync(path.join(w.ws, '.mcp.json'), 'utf8')).mcpServers['agent-guard'];
      expect(entry).toEqual({ type: 'stdio', command: process.execPath, args: [BIN, 'mcp'] });
      expect(fs.readFileSync(path.join(w.ws, 'CLAUDE.md'), 'utf8')).toContain('safe_delete');

      // The command the configuration holds is a working MCP server.
      const { command, args } = sandboxedCommand(area.rw(), [entry.command, ...entry.args], { cwd: w.ws, timeoutS: 60 });
      const client = new Client({ name: 'registration-check', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command, args, env: w.env, stderr: 'pipe' }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('safe_delete');
      } finally {
        await client.close();
      }

      // Again: nothing changes.
      const again = json(['hook', 'install', 'claude', '--mcp', '--instructions', '--json']);
      expect([again.changed, again.mcp.changed, again.instructions.changed]).toEqual([false, false, false]);

      // Codex, the parts only, as a user: config.toml and AGENTS.md in ~/.codex, no hooks.json.
      const codex = json(['hook', 'install', 'codex', '--user', '--mcp', '--instructions', '--no-hook', '--json']);
      expect(codex.changed).toBeUndefined();
      expect(fs.existsSync(path.join(w.home, '.codex', 'hooks.json'))).toBe(false);
      const toml = parseToml(fs.readFileSync(path.join(w.home, '.codex', 'config.toml'), 'utf8')) as any;
      expect(toml.mcp_servers['agent-guard']).toEqual({ command: process.execPath, args: [BIN, 'mcp'] });
      expect(fs.readFileSync(path.join(w.home, '.codex', 'AGENTS.md'), 'utf8')).toContain('agent-guard:begin');

      // doctor: ok where wired; Codex is "installed" now (its directory), so its missing hook warns
      // but its parts are ok; Gemini is not installed: information.
      const doctor = JSON.parse(w.cli(['doctor', '--json']).stdout); // exit 1 outside `run`: the shims are not on PATH
      const status = Object.fromEntries(doctor.checks.map((c: any) => [c.id, c.status]));
      expect(status).toMatchObject({ 'mcp.claude': 'ok', 'instructions.claude': 'ok', 'mcp.codex': 'ok', 'instructions.codex': 'ok', 'mcp.gemini': 'info', 'instructions.gemini': 'info' });
      expect(doctor.checks.find((c: any) => c.id === 'mcp.codex').detail).toContain(path.join(w.home, '.codex', 'config.toml'));

      // Remove only the instructions of Claude: the hook and the server stay.
      const rm = json(['hook', 'install', 'claude', '--remove', '--instructions', '--no-hook', '--json']);
      expect(rm.instructions.changed).toBe(true);
      expect(fs.readFileSync(path.join(w.ws, 'CLAUDE.md'), 'utf8')).toBe('');
      expect(JSON.parse(fs.readFileSync(path.join(w.ws, '.mcp.json'), 'utf8')).mcpServers['agent-guard']).toBeDefined();
      expect(JSON.parse(fs.readFileSync(path.join(w.ws, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse).toHaveLength(1);
      // Remove everything of Claude's.
      const gone = json(['hook', 'install', 'claude', '--remove', '--mcp', '--instructions', '--json']);
      expect([gone.changed, gone.mcp.changed, gone.instructions.changed]).toEqual([true, true, false]);
      expect(JSON.parse(fs.readFileSync(path.join(w.ws, '.mcp.json'), 'utf8'))).toEqual({ mcpServers: {} });

      // Text output and errors.
      const text = w.cli(['hook', 'install', 'gemini', '--mcp', '--no-hook']);
      expect(text.stdout).toBe(`mcp: installed in ${path.join(w.ws, '.gemini', 'settings.json')}\n`);
      expect(w.cli(['hook', 'install', 'gemini', '--no-hook']).exitCode).toBe(1);
      expect(w.cli(['hook', 'install', 'nothing', '--mcp']).exitCode).toBe(1);
      fs.writeFileSync(path.join(w.ws, 'GEMINI.md'), '<!-- agent-guard:begin -->\nno end\n');
      const damaged = w.cli(['hook', 'install', 'gemini', '--instructions', '--no-hook']);
      expect(damaged.exitCode).toBe(1);
      expect(damaged.stderr).toMatch(/damaged/);
    },
    120_000,
  );
});
