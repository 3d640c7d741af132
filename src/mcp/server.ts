// `agent-guard mcp`: the stdio MCP server (docs/mcp.md), on the official SDK's protocol layer. It
// lists the tools of tools.ts, validates each call's input against the tool's schema, and answers
// every failure — bad input included — as a tool error carrying a code, never a protocol crash.
// The project directory is the client's first root (roots/list) when the client has roots, else the
// server's working directory. Bundled apart (dist/agent-guard-mcp.cjs, src/mcp/entry.ts), so the
// checker's start-up never loads the SDK.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, RootsListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Env } from '../config.js';
import { TOOLS, type ToolSpec } from './tools.js';
import { fail, type Outcome } from './outcome.js';
import { SERVER_INSTRUCTIONS } from './text.js';

export interface McpOptions {
  env: Env;
  /** The server's working directory: the project directory when the client has no roots. */
  cwd: string;
  version: string;
  /** Diagnostics (stderr): stdout belongs to the protocol. */
  log(line: string): void;
}

/** How long the client may take to answer roots/list. */
const ROOTS_TIMEOUT_MS = 5000;

type Where = { cwd: string; warning?: string } | { error: Outcome };

const isDir = (p: string): boolean => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** The project directory from the client's roots: the first local directory among them. A client
 *  that lists roots none of which is usable gets an error rather than a guess. */
function fromRoots(roots: { uri: string }[], cwd: string): Where {
  if (roots.length === 0) return { cwd };
  for (const r of roots) {
    if (!r.uri.startsWith('file:')) continue;
    let p: string;
    try {
      p = fileURLToPath(r.uri);
    } catch {
      continue;
    }
    if (isDir(p)) return { cwd: p };
  }
  return { error: fail('NO_WORKSPACE', `none of the client's roots is a local directory: ${roots.map((r) => r.uri).join(', ')}`) };
}

/** A tool's answer as MCP sends it: the JSON as text (what a model reads) and as structured content. */
function answer(o: Outcome): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(o) }], structuredContent: o, ...(o.ok ? {} : { isError: true }) };
}

function listing(t: ToolSpec): Tool {
  const { $schema: _s, ...schema } = z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>;
  return { name: t.name, title: t.title, description: t.description, inputSchema: schema as Tool['inputSchema'], annotations: { title: t.title, ...t.annotations } };
}

/** Builds the server (not connected). */
export function createServer(opts: McpOptions): Server {
  // The low-level Server: McpServer answers a schema violation with its own text; ours carries a code.
  const server = new Server({ name: 'agent-guard', title: 'agent-guard', version: opts.version }, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS });
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  let where: Promise<Where> | null = null;

  const project = (): Promise<Where> => {
    if (!server.getClientCapabilities()?.roots) return Promise.resolve({ cwd: opts.cwd });
    where ??= server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS }).then(
      (r) => fromRoots(r.roots, opts.cwd),
      (err: unknown) => ({ cwd: opts.cwd, warning: `the client did not answer roots/list (${err instanceof Error ? err.message : String(err)}): working in ${opts.cwd}` }),
    );
    return where;
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    where = null;
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const spec = byName.get(req.params.name);
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `no tool ${JSON.stringify(req.params.name)} (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
    const parsed = spec.input.safeParse(req.params.arguments ?? {});
    if (!parsed.success) return answer(fail('INVALID_INPUT', parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')));
    const at = await project();
    if ('error' in at) return answer(at.error);
    try {
      const o = spec.run(parsed.data as Record<string, unknown>, { cwd: at.cwd, env: opts.env });
      if (at.warning) return answer({ ...o, warnings: [at.warning, ...((o.warnings as string[] | undefined) ?? [])] });
      return answer(o);
    } catch (err) {
      // Fail closed: whatever threw, the call is an error, and the server goes on.
      const msg = err instanceof Error ? err.message : String(err);
      opts.log(`agent-guard mcp: ${spec.name} failed: ${err instanceof Error ? (err.stack ?? msg) : msg}`);
      return answer(fail('INTERNAL_ERROR', msg));
    }
  });
  return server;
}

/** Serves on stdin/stdout until the client closes stdin; resolves with the exit status. */
export async function runMcp(opts: McpOptions): Promise<number> {
  const server = createServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  server.onerror = (err) => opts.log(`agent-guard mcp: ${err.message}`);
  process.stdin.on('end', () => void server.close());
  await server.connect(transport);
  await closed;
  return 0;
}
