// `agent-guard mcp` driven by the SDK's own Client over stdio (docs/mcp.md). The server — the built
// CLI, `node dist/agent-guard.cjs mcp` — runs inside the read-only sandbox (it deletes and
// restores); the client runs here and only reads the disk. One server per client set-up:
// - a client without roots: the project directory is the server's cwd (the workspace);
// - a client with roots: the server works in the client's first root, not its own cwd, and reads
//   the roots again after roots/list_changed; roots none of which is a directory are refused.
// Assertions are on tool results (ok / isError, codes), trees and the grant store.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeSandboxed, runGuardSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { sandboxedCommand } from '../helpers/sandbox-spawn.js';
import { BIN, runCli } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { findRequest, grantRequest, grantStore, ID_PATTERN, listRequests } from '../../src/grants/store.js';

const area = useSandboxArea('ag-mcp');
// The sandbox script needs unshare, mount and chroot (sbin) on the PATH it is started with.
const BASE_PATH = [...new Set([path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'])].join(':');

interface World {
  dir: string;
  home: string;
  ws: string;
  other: string;
  env: Record<string, string>;
}

/** A temp HOME, a git workspace with some files, a second workspace, and a file outside both. The
 *  sandbox area is in /tmp, a scratch zone (docs/zones.md): what must be outside every workspace
 *  and not scratch is in HOME, which stays HOME inside a zone. */
function world(): World {
  const dir = area.rw();
  const home = path.join(dir, 'home');
  const ws = path.join(dir, 'ws');
  const other = path.join(home, 'other');
  const files: Record<string, string> = {
    'a.txt': 'a\n',
    'dir/b.txt': 'b\n',
    'dir/sub/c.txt': 'c\n',
    'x.log': 'x\n',
    'y.log': 'y\n',
    'keep.md': 'keep\n',
    'src/build/o.o': 'o\n',
  };
  for (const [f, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
    fs.writeFileSync(path.join(ws, f), c);
  }
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(path.join(other, 'o'), { recursive: true });
  fs.writeFileSync(path.join(other, 'o', 'z.txt'), 'z\n');
  fs.writeFileSync(path.join(home, 'outside.txt'), 'outside\n');
  for (const w of [ws, other]) expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: w }).status).toBe(0);
  return { dir, home, ws, other, env: { HOME: home, PATH: BASE_PATH, GIT_CONFIG_NOSYSTEM: '1', TMPDIR: '/dev/shm' } };
}

type Roots = { uris: string[] } | null;

/** A client connected to a sandboxed server started in `cwd`; with `roots`, the client has roots. */
async function connect(w: World, cwd: string, roots: Roots): Promise<{ client: Client; stderr: () => string; setRoots(uris: string[]): Promise<void> }> {
  const { command, args } = sandboxedCommand(w.dir, [process.execPath, BIN, 'mcp'], { cwd });
  const transport = new StdioClientTransport({ command, args, env: w.env, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'agent-guard-test', version: '1.0.0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  let uris = roots?.uris ?? [];
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: uris.map((uri) => ({ uri, name: 'project' })) }));
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    async setRoots(next) {
      uris = next;
      await client.sendRootsListChanged();
    },
  };
}

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text?: string }[] };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; r: Record<string, any> }> {
  const res = (await client.callTool({ name, arguments: args })) as Result;
  const text = res.content.find((c) => c.type === 'text')?.text ?? '';
  const r = JSON.parse(text) as Record<string, any>;
  expect(res.structuredContent).toEqual(r); // the same answer for a model (text) and a program
  return { isError: res.isError === true, r };
}

const exists = (p: string): boolean => fs.existsSync(p);
const read = (p: string): string => fs.readFileSync(p, 'utf8');

describeSandboxed('agent-guard mcp over stdio, with the SDK client', () => {
  let w: World;
  let plain: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    w = world();
    plain = await connect(w, w.ws, null);
  });
  afterAll(async () => {
    await plain?.client.close();
  });

  it('lists the seven tools with truthful annotations and their input schemas', async () => {
    const { tools } = await plain.client.listTools();
    const by = new Map(tools.map((t) => [t.name, t]));
    expect([...by.keys()].sort()).toEqual(['explain', 'request_permission', 'restore', 'restore_list', 'restore_show', 'safe_delete', 'status']);
    const hints = (n: string) => {
      const a = by.get(n)!.annotations!;
      return [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint];
    };
    for (const n of ['explain', 'restore_list', 'restore_show', 'status']) expect(hints(n), n).toEqual([true, false, true, false]);
    expect(hints('safe_delete')).toEqual([false, true, true, false]);
    expect(hints('restore')).toEqual([false, false, true, false]);
    expect(hints('request_permission')).toEqual([false, false, true, false]);
    expect(by.get('safe_delete')!.inputSchema).toMatchObject({ type: 'object', required: ['paths', 'reason'], additionalProperties: false });
    expect(by.get('restore')!.inputSchema.required).toEqual(['txid']);
    expect(by.get('request_permission')!.inputSchema.required).toEqual(['command', 'why']);
    const init = plain.client.getInstructions();
    expect(init).toMatch(/safe_delete/);
  });

  it('safe_delete quarantines, restore_list / restore_show find it, restore brings it back', async () => {
    const del = await call(plain.client, 'safe_delete', { paths: ['a.txt', 'dir'], reason: 'cleanup' });
    expect(del.isError).toBe(false);
    expect(del.r).toMatchObject({ ok: true, decision: 'RELOCATE', undo: { tool: 'restore', txid: del.r.txid } });
    expect(del.r.txid).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(exists(path.join(w.ws, 'a.txt')) || exists(path.join(w.ws, 'dir'))).toBe(false);
    expect(del.r.moved).toHaveLength(2);

    const list = await call(plain.client, 'restore_list', {});
    expect(list.r.transactions[0]).toMatchObject({ txid: del.r.txid, state: 'RESTORABLE', entries: 2 });
    expect(list.r.transactions[0].paths.sort()).toEqual([path.join(w.ws, 'a.txt'), path.join(w.ws, 'dir')]);
    expect(list.r.transactions[0].command).toContain('# cleanup');

    const shown = await call(plain.client, 'restore_show', { txid: del.r.txid });
    expect(shown.r.items.map((i: any) => i.path).sort()).toEqual(['a.txt', 'dir']);

    // Part of it by the path restore_show gives, then the rest.
    const part = await call(plain.client, 'restore', { txid: del.r.txid, paths: ['dir/sub'] });
    expect(part.r).toMatchObject({ ok: true });
    expect(read(path.join(w.ws, 'dir/sub/c.txt'))).toBe('c\n');
    expect(exists(path.join(w.ws, 'a.txt'))).toBe(false);
    const rest = await call(plain.client, 'restore', { txid: del.r.txid });
    expect(rest.isError).toBe(false);
    expect(read(path.join(w.ws, 'a.txt'))).toBe('a\n');
    expect(read(path.join(w.ws, 'dir/b.txt'))).toBe('b\n');
    // Again: nothing left to restore is a tool error, and nothing changes.
    const again = await call(plain.client, 'restore', { txid: del.r.txid });
    expect(again.isError).toBe(true);
  });

  it('safe_delete expands patterns itself; every match comes back', async () => {
    const del = await call(plain.client, 'safe_delete', { paths: ['*.log'], reason: 'logs' });
    expect(del.r.ok).toBe(true);
    expect(exists(path.join(w.ws, 'x.log')) || exists(path.join(w.ws, 'y.log'))).toBe(false);
    expect(exists(path.join(w.ws, 'keep.md'))).toBe(true);
    const back = await call(plain.client, 'restore', { txid: del.r.txid, paths: [path.join(w.ws, 'x.log'), 'y.log'] });
    expect(back.r.ok).toBe(true);
    expect(read(path.join(w.ws, 'x.log')) + read(path.join(w.ws, 'y.log'))).toBe('x\ny\n');
  });

  it('bad input is a tool error with a code, and nothing moves', async () => {
    const before = fs.readdirSync(w.ws).sort();
    const code = async (name: string, args: Record<string, unknown>) => {
      const c = await call(plain.client, name, args);
      expect(c.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(c.r.ok).toBe(false);
      return c.r.code as string;
    };
    expect(await code('safe_delete', { paths: ['../home/outside.txt'], reason: 'r' })).toBe('BLOCK_OUT_OF_WORKSPACE');
    expect(await code('safe_delete', { paths: [path.join(w.other, 'o')], reason: 'r' })).toBe('BLOCK_OUT_OF_WORKSPACE');
    expect(await code('safe_delete', { paths: ['.git'], reason: 'r' })).toBe('BLOCK_PROTECTED_PATH');
    expect(await code('safe_delete', { paths: ['.'], reason: 'r' })).toBe('BLOCK_PROTECTED_PATH');
    expect(await code('safe_delete', { paths: ['/'], reason: 'r' })).toBe('BLOCK_PROTECTED_ANCESTOR');
    expect(await code('safe_delete', { paths: ['missing.txt'], reason: 'r' })).toBe('NO_MATCH');
    expect(await code('safe_delete', { paths: ['*.nothing'], reason: 'r' })).toBe('NO_MATCH');
    expect(await code('safe_delete', { paths: [], reason: 'r' })).toBe('INVALID_INPUT');
    expect(await code('safe_delete', { paths: ['a.txt'] })).toBe('INVALID_INPUT');
    expect(await code('safe_delete', { paths: 'a.txt', reason: 'r' })).toBe('INVALID_INPUT');
    expect(await code('safe_delete', { paths: ['a\0b'], reason: 'r' })).toBe('INVALID_INPUT');
    expect(await code('safe_delete', { paths: ['a.txt'], reason: 'r', force: true })).toBe('INVALID_INPUT');
    expect(await code('restore', { txid: 'nope' })).toBe('BAD_TXID');
    expect(await code('restore', { txid: '20200101T000000Z-00000000' })).toBe('UNKNOWN_TXID');
    expect(await code('restore_show', { txid: '20200101T000000Z-00000000' })).toBe('UNKNOWN_TXID');
    expect(await code('explain', { command: 'rm x', cwd: 'no/such/dir' })).toBe('BAD_CWD');
    expect(await code('request_permission', { command: 'rm -rf x' })).toBe('INVALID_INPUT');
    expect(await code('restore_list', { limit: 0 })).toBe('INVALID_INPUT');
    expect(await code('status', { verbose: true })).toBe('INVALID_INPUT');
    expect(await code('explain', { command: '' })).toBe('INVALID_INPUT');
    expect(fs.readdirSync(w.ws).sort()).toEqual(before);
    expect(read(path.join(w.home, 'outside.txt'))).toBe('outside\n');
    expect(read(path.join(w.other, 'o', 'z.txt'))).toBe('z\n');

    // A pattern where restore takes paths.
    const del = await call(plain.client, 'safe_delete', { paths: ['keep.md'], reason: 'r' });
    expect(await code('restore', { txid: del.r.txid, paths: ['*.md'] })).toBe('PATTERN_NOT_ALLOWED');
    expect(await code('restore', { txid: del.r.txid, paths: ['a.txt'] })).toBe('UNKNOWN_PATH');
    expect(exists(path.join(w.ws, 'keep.md'))).toBe(false);
    expect((await call(plain.client, 'restore', { txid: del.r.txid })).r.ok).toBe(true);
    expect(read(path.join(w.ws, 'keep.md'))).toBe('keep\n');

    // An unknown tool is a protocol error (the spec's), not a crash: the server still answers.
    await expect(plain.client.callTool({ name: 'rm', arguments: {} })).rejects.toThrow(/no tool/);
    expect((await call(plain.client, 'status', {})).r.ok).toBe(true);
  });

  it('explain decides without running anything', async () => {
    const ex = async (command: string, cwd?: string) => (await call(plain.client, 'explain', { command, ...(cwd ? { cwd } : {}) })).r;
    expect(await ex('rm -rf src/build')).toMatchObject({ ok: true, decision: 'RELOCATE', code: 'RELOCATE_TREE', instead: null, workspace: w.ws });
    expect(exists(path.join(w.ws, 'src/build/o.o'))).toBe(true);
    const ask = await ex('cd src && rm -rf build');
    expect(ask).toMatchObject({ decision: 'ASK', code: 'COMPOUND_CWD_DELETE' });
    expect(ask.instead).toMatch(/request_permission/);
    expect(await ex('rm -rf *.log')).toMatchObject({ decision: 'BLOCK', code: 'BLOCK_WILDCARD' });
    expect((await ex('rm -rf *.log')).instead).toMatch(/safe_delete/);
    expect(await ex('git push --force origin main')).toMatchObject({ decision: 'BLOCK', code: 'BLOCK_FORCE_PUSH' });
    expect(await ex('rm -rf build', 'src')).toMatchObject({ decision: 'RELOCATE', cwd: path.join(w.ws, 'src') });
    expect(await ex('ls -la')).toMatchObject({ decision: 'ALLOW', code: 'ALLOW_NOOP' });
    expect(exists(path.join(w.ws, 'src/build/o.o'))).toBe(true);
  });

  it('request_permission records a request a human grants with allow; it never grants', async () => {
    const config = loadConfig({ HOME: w.home }, w.ws);
    const store = grantStore(config)!;
    const req = await call(plain.client, 'request_permission', { command: 'cd src && rm -rf build', why: 'the build dir is stale' });
    expect(req.r).toMatchObject({ ok: true, requested: true, decision: 'ASK', code: 'COMPOUND_CWD_DELETE', cwd: w.ws, allow: `agent-guard allow ${req.r.id}` });
    expect(req.r.id).toMatch(ID_PATTERN);
    const pending = listRequests(store, Date.now());
    expect(pending.map((p) => [p.id, p.text, p.cwd, p.entry, p.why])).toEqual([[req.r.id, 'cd src && rm -rf build', w.ws, 'mcp', 'the build dir is stale']]);
    expect(fs.existsSync(store.granted) ? fs.readdirSync(store.granted).filter((e) => e.endsWith('.json')) : []).toEqual([]);
    // `allow` (here without an id: the list, no terminal needed) shows the agent's reason.
    const listed = runCli(['allow', '--json'], { cwd: w.ws, env: w.env });
    expect(JSON.parse(listed.stdout).requests).toEqual([expect.objectContaining({ id: req.r.id, why: 'the build dir is stale' })]);
    // Asked again: the same request, the same id.
    expect((await call(plain.client, 'request_permission', { command: 'cd src && rm -rf build', why: 'again' })).r.id).toBe(req.r.id);
    // Without the grant, the line is still refused; once a human grants the request (as `allow`
    // does), exactly that line runs, compensated.
    const check = () => runGuardSandboxed(w.dir, BIN, ['check', '--enforce', '--json', '--', 'cd src && rm -rf build'], { cwd: w.ws, env: w.env });
    expect(check().exitCode).toBe(3);
    const found = findRequest(store, req.r.id, Date.now());
    expect(found.ok).toBe(true);
    if (found.ok) grantRequest(store, found.req, Date.now());
    const ran = check();
    expect(ran.exitCode).toBe(0);
    expect(ran.json.authorizedBy).toEqual({ by: 'grant', id: expect.any(String) });
    // A BLOCK is refused with its code; a SAFE line needs nothing.
    const block = await call(plain.client, 'request_permission', { command: 'rm -rf /', why: 'please' });
    expect(block).toMatchObject({ isError: true, r: { code: 'BLOCK_PROTECTED_ANCESTOR', decision: 'BLOCK' } });
    const safe = await call(plain.client, 'request_permission', { command: 'rm -rf x.log', why: 'tidy' });
    expect(safe).toMatchObject({ isError: false, r: { requested: false, decision: 'RELOCATE' } });
    expect(listRequests(store, Date.now())).toEqual([]);
  });

  it('status reports the workspace and its transactions; restore_list takes a limit, newest first', async () => {
    const s = (await call(plain.client, 'status', {})).r;
    expect(s).toMatchObject({ ok: true, mode: 'NORMAL', workspace: w.ws, quarantine: path.join(w.ws, '.agent-trash') });
    expect(s.counts.total).toBeGreaterThanOrEqual(2);
    const one = (await call(plain.client, 'restore_list', { limit: 1 })).r;
    expect(one.transactions).toHaveLength(1);
    expect(one.transactions[0].txid).toBe(s.recent[0].txid);
    expect(one.more).toBe(s.counts.total - 1);
  });

  it("works in the client's first root, not its own cwd, and follows roots/list_changed", async () => {
    const c = await connect(w, w.dir, { uris: [pathToFileURL(path.join(w.dir, 'no-such-dir')).href, pathToFileURL(w.other).href, pathToFileURL(w.ws).href] });
    try {
      const st = (await call(c.client, 'status', {})).r;
      expect(st.workspace, JSON.stringify(st)).toBe(w.other);
      const del = await call(c.client, 'safe_delete', { paths: ['o'], reason: 'in the root' });
      expect(del.r.ok).toBe(true);
      expect(exists(path.join(w.other, 'o'))).toBe(false);
      expect(exists(path.join(w.other, '.agent-trash'))).toBe(true);
      expect((await call(c.client, 'restore', { txid: del.r.txid })).r.ok).toBe(true);
      expect(read(path.join(w.other, 'o', 'z.txt'))).toBe('z\n');
      await c.setRoots([pathToFileURL(w.ws).href]);
      await expect.poll(async () => (await call(c.client, 'status', {})).r.workspace).toBe(w.ws);
      await c.setRoots([pathToFileURL(path.join(w.dir, 'gone')).href]);
      await expect.poll(async () => (await call(c.client, 'status', {})).r.code).toBe('NO_WORKSPACE');
      const refused = await call(c.client, 'safe_delete', { paths: ['keep.md'], reason: 'r' });
      expect(refused).toMatchObject({ isError: true, r: { code: 'NO_WORKSPACE' } });
      expect(exists(path.join(w.ws, 'keep.md'))).toBe(true);
    } finally {
      await c.client.close();
    }
  });
});
