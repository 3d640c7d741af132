// Registering agent-guard's MCP server (`agent-guard mcp`, docs/mcp.md) in each harness's MCP
// configuration: `hook install <harness> --mcp`. The server is the entry named `agent-guard`; the
// name is ours, so a re-install updates its command and arguments in place and keeps any other
// keys a user put on it (env, timeouts); every other server and setting stays as it is. The file
// contract (refusals, backup, atomic write, no write without a change) is files.ts's. Formats, as
// the harnesses read them (docs/mcp.md gives the versions):
//
//   claude   <project>/.mcp.json, ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)   mcpServers.agent-guard {type, command, args}
//   codex    <project>/.codex/config.toml, $CODEX_HOME/config.toml (~/.codex)          [mcp_servers.agent-guard] command, args
//   gemini   <project>/.gemini/settings.json, ~/.gemini/settings.json               mcpServers.agent-guard {command, args}
//   copilot  <project>/.github/mcp.json, $COPILOT_HOME/mcp-config.json (~/.copilot)   mcpServers.agent-guard {type, command, args, tools}
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Env } from '../config.js';
import type { Harness } from './answers.js';
import { isObject, jsonText, parseJsonObject, readText, writeText, type FileChange, type JsonObject } from './files.js';
import { hasTable, removeTable, setTableKeys, tomlString } from './toml-table.js';

export type Scope = 'user' | 'project';

export interface PartsContext {
  home: string;
  projectDir: string;
  /** CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME. */
  env: Env;
}

/** The server's command line, as an argv (no shell in between). */
export interface ServerCommand {
  command: string;
  args: string[];
}

export const MCP_SERVER_NAME = 'agent-guard';
const TOML_TABLE = ['mcp_servers', MCP_SERVER_NAME];

/** A directory named by the environment (absolute only), else the default. */
export function envDir(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v && path.isAbsolute(v) ? path.resolve(v) : fallback;
}

export function mcpConfigPath(h: Harness, scope: Scope, ctx: PartsContext): string {
  const user = scope === 'user';
  switch (h) {
    case 'claude':
      return user ? path.join(envDir(ctx.env, 'CLAUDE_CONFIG_DIR', ctx.home), '.claude.json') : path.join(ctx.projectDir, '.mcp.json');
    case 'codex':
      return path.join(user ? envDir(ctx.env, 'CODEX_HOME', path.join(ctx.home, '.codex')) : path.join(ctx.projectDir, '.codex'), 'config.toml');
    case 'gemini':
      return path.join(user ? ctx.home : ctx.projectDir, '.gemini', 'settings.json');
    case 'copilot':
      return user ? path.join(envDir(ctx.env, 'COPILOT_HOME', path.join(ctx.home, '.copilot')), 'mcp-config.json') : path.join(ctx.projectDir, '.github', 'mcp.json');
  }
}

/** Our entry in a JSON configuration (the keys we set; others on it stay). */
function jsonEntry(h: Harness, s: ServerCommand): JsonObject {
  if (h === 'claude') return { type: 'stdio', command: s.command, args: s.args };
  if (h === 'copilot') return { type: 'stdio', command: s.command, args: s.args, tools: ['*'] };
  return { command: s.command, args: s.args };
}

const refused = (file: string, why: string): Error => new Error(`agent-guard: ${file}: ${why}; nothing changed`);

function servers(file: string, settings: JsonObject): JsonObject | undefined {
  const s = settings['mcpServers'];
  if (s !== undefined && !isObject(s)) throw refused(file, '"mcpServers" is not an object');
  return s;
}

function applyJson(h: Harness, file: string, server: ServerCommand | null): FileChange {
  const old = readText(file);
  const current = old === null ? null : parseJsonObject(file, old);
  const unchanged = { file, changed: false, backup: null };
  if (current === null && server === null) return unchanged;
  const settings = current ?? {};
  const all = servers(file, settings);
  const existing = all?.[MCP_SERVER_NAME];
  let next: JsonObject;
  if (server !== null) {
    const entry = isObject(existing) ? { ...existing, ...jsonEntry(h, server) } : jsonEntry(h, server);
    if (existing !== undefined && isDeepStrictEqual(existing, entry)) return unchanged;
    next = { ...(all ?? {}), [MCP_SERVER_NAME]: entry };
  } else {
    if (all === undefined || existing === undefined) return unchanged;
    const { [MCP_SERVER_NAME]: _ours, ...rest } = all;
    next = rest;
  }
  return writeText(file, jsonText({ ...settings, mcpServers: next }), old);
}

function applyToml(file: string, server: ServerCommand | null): FileChange {
  const old = readText(file);
  if (old === null && server === null) return { file, changed: false, backup: null };
  try {
    const edit =
      server !== null
        ? setTableKeys(old ?? '', TOML_TABLE, [
            ['command', tomlString(server.command)],
            ['args', `[${server.args.map(tomlString).join(', ')}]`],
          ])
        : removeTable(old ?? '', TOML_TABLE);
    return writeText(file, edit.text, old);
  } catch (e) {
    if ((e as Error).message.startsWith('agent-guard:')) throw e;
    throw refused(file, (e as Error).message);
  }
}

/** Adds (or updates) our server in the harness's MCP configuration; the file is created if missing. */
export function installMcp(h: Harness, scope: Scope, ctx: PartsContext, server: ServerCommand): FileChange {
  const file = mcpConfigPath(h, scope, ctx);
  return h === 'codex' ? applyToml(file, server) : applyJson(h, file, server);
}

/** Takes our server out again; everything else stays (an emptied `mcpServers` too). */
export function removeMcp(h: Harness, scope: Scope, ctx: PartsContext): FileChange {
  const file = mcpConfigPath(h, scope, ctx);
  return h === 'codex' ? applyToml(file, null) : applyJson(h, file, null);
}

/** Is our server registered there? null: the file cannot be read or parsed. */
export function mcpWired(h: Harness, scope: Scope, ctx: PartsContext): boolean | null {
  const file = mcpConfigPath(h, scope, ctx);
  try {
    const text = readText(file);
    if (text === null) return false;
    if (h === 'codex') return hasTable(text, TOML_TABLE);
    const all = servers(file, parseJsonObject(file, text));
    return all !== undefined && isObject(all[MCP_SERVER_NAME]);
  } catch {
    return null;
  }
}
