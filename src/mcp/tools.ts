// The MCP server's tools (docs/mcp.md): each a thin door onto what the CLI already does, called
// in-process with its `--json` output captured, so an agent gets the same decision and the same
// reason code as `agent-guard delete`, `check`, `restore` and `status` would give. No SDK import
// here: the server (server.ts) lists these and validates the input against their schemas.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import type { CommandContext } from '../context.js';
import type { Env } from '../config.js';
import { runDelete } from '../commands/delete.js';
import { runCheck } from '../commands/check.js';
import { runRestore } from '../commands/restore.js';
import { runStatus } from '../commands/status.js';
import type { CheckResult } from '../engine.js';
import { hasPattern } from '../recovery/glob.js';
import { REASONS, type ReasonCode } from '../policy/reasons.js';
import { requestPermission } from './permission.js';
import { fail, type Outcome } from './outcome.js';

/** Where a call runs: the workspace directory (the client's first root, else the server's cwd). */
export interface Place {
  cwd: string;
  env: Env;
}


export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  annotations: Annotations;
  run(args: Record<string, unknown>, at: Place): Outcome;
}

function tool<S extends z.ZodObject>(spec: Omit<ToolSpec, 'input' | 'run'> & { input: S; run(args: z.infer<S>, at: Place): Outcome }): ToolSpec {
  return spec as unknown as ToolSpec;
}


/** Runs a CLI command in-process with its output captured; its JSON answer parsed when there is one. */
function capture(at: Place, run: (ctx: CommandContext) => number): { status: number; json: Record<string, unknown> | null; stderr: string } {
  let out = '';
  let err = '';
  const ctx: CommandContext = { env: at.env, cwd: at.cwd, io: { stdout: (s) => (out += s), stderr: (s) => (err += s) }, exitCode: 0, interactive: false };
  const status = run(ctx);
  let json: Record<string, unknown> | null = null;
  try {
    const v = JSON.parse(out) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) json = v as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status, json, stderr: err };
}

/** The CLI's own message (`agent-guard restore: …`), without its prefix; warnings apart. */
function message(stderr: string): { message: string; warnings: string[] } {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const warnings = lines.filter((l) => l.startsWith('warning: ')).map((l) => l.slice('warning: '.length));
  const rest = lines.filter((l) => !l.startsWith('warning: ')).map((l) => l.replace(/^agent-guard [a-z-]+: /, ''));
  return { message: rest.join('\n') || 'failed', warnings };
}

const withWarnings = (o: Outcome, warnings: string[]): Outcome => (warnings.length > 0 ? { ...o, warnings } : o);

/** A path or a command line: text without NUL (no file name or shell word holds one). */
const text = (what: string, max: number) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(max)
    .refine((s) => !s.includes('\0'), `${what} holds a NUL byte`);

const HINTS: Partial<Record<ReasonCode, string>> = {
  BLOCK_WILDCARD: 'The safe_delete tool takes paths and patterns: it expands them itself and quarantines each match.',
  BLOCK_UNDETERMINABLE_EFFECT: 'To delete files, name them to the safe_delete tool: it enumerates first and quarantines each one.',
  COMPOUND_CWD_DELETE: 'Or call request_permission with this exact command and why: a human grants it once with `agent-guard allow <id>`, then run the same command unchanged in the same directory.',
  COMPOUND_CREATE_DELETE: 'Or call request_permission with this exact command and why: a human grants it once with `agent-guard allow <id>`, then run the same command unchanged in the same directory.',
};

/** What the decision means for whoever runs the line, and what to do instead of a refused one. */
export function adviceFor(r: Pick<CheckResult, 'decision' | 'code'>): { effect: string; instead: string | null } {
  const extra = HINTS[r.code] ? ` ${HINTS[r.code]}` : '';
  switch (r.decision) {
    case 'ALLOW':
      return { effect: r.code === 'ALLOW_REGENERABLE' || r.code === 'ALLOW_TRASH_GC' ? 'It runs unchanged; what it deletes is not kept (regenerable build output, or the quarantine itself).' : 'It runs unchanged: nothing is deleted or overwritten.', instead: null };
    case 'RELOCATE':
      return { effect: 'It runs: what it deletes is moved to the quarantine first, restorable with the restore tool.', instead: null };
    case 'SNAPSHOT':
      return { effect: 'It runs: the changes git would overwrite are snapshotted first, restorable with the restore tool.', instead: null };
    case 'ASK':
      return { effect: 'Refused unless a human authorizes this one execution.', instead: `${REASONS[r.code].remediation}${extra}` };
    case 'BLOCK':
      return { effect: 'Refused: nothing runs, and no grant can change that.', instead: `${REASONS[r.code].remediation}${extra}` };
  }
}

const safeDelete = tool({
  name: 'safe_delete',
  title: 'Delete paths (restorably)',
  description:
    'Delete files or directories by moving them to the quarantine, where they can be restored (`restore`). ' +
    "Paths are relative to the project directory (the client's root) or absolute; patterns (*, ?, [...]) are expanded here and each match is checked. " +
    'Prefer this to `rm`. Refused with a reason code for paths outside the workspace, the workspace root, .git and other protected paths.',
  input: z.strictObject({
    paths: z.array(text('a path', 4096)).min(1).max(1000).describe('paths or patterns to delete'),
    reason: text('the reason', 500).describe('why they are deleted (kept with the transaction)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    // A path that names nothing is bad input, as a pattern that matches nothing is (the CLI skips it).
    const missing = args.paths.filter((p) => !hasPattern(p) && !fs.lstatSync(path.resolve(at.cwd, p), { throwIfNoEntry: false }));
    if (missing.length > 0) return fail('NO_MATCH', `no such file or directory: ${missing.join(' ')} (relative paths are from ${at.cwd}); nothing was moved`, { paths: missing });
    const r = capture(at, (ctx) => runDelete(args.paths, { reason: args.reason, json: true }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    const j = r.json;
    if (r.status === 0 && j) {
      const { version: _v, ...rest } = j;
      return withWarnings({ ok: true, ...rest, undo: { tool: 'restore', txid: j.txid } }, warnings);
    }
    if (j?.error === 'no match') return withWarnings(fail('NO_MATCH', `nothing matches ${(j.patterns as string[]).join(' ')} (relative paths are from ${at.cwd}); nothing was moved`, { patterns: j.patterns }), warnings);
    if (j && typeof j.code === 'string') {
      const code = j.code as ReasonCode;
      const why = typeof j.explanation === 'string' ? j.explanation : code;
      const hint = j.decision === 'ALLOW' ? ' safe_delete only moves paths to the quarantine; these need no safe delete.' : '';
      const { version: _v, ...rest } = j;
      return withWarnings(fail(code, why + hint, { ...rest }), warnings);
    }
    return withWarnings(fail('DELETE_FAILED', msg), warnings);
  },
});

const explainTool = tool({
  name: 'explain',
  title: 'Explain a command',
  description:
    "What agent-guard decides for a shell command line, and what to do instead when it refuses; runs nothing. " +
    'Decisions: ALLOW (runs unchanged), RELOCATE / SNAPSHOT (runs, what it deletes or overwrites is kept first), ASK (a human must authorize it once), BLOCK (refused).',
  input: z.strictObject({
    command: text('the command', 100_000).describe('the command line, as the shell would get it'),
    cwd: text('cwd', 4096).optional().describe('directory it would run in (relative to the project directory, which is the default)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    const r = capture(at, (ctx) => runCheck([args.command], { json: true, ...(args.cwd !== undefined ? { cwd: args.cwd } : {}) }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    if (r.status !== 0 || !r.json) return withWarnings(fail(/not a directory/.test(msg) ? 'BAD_CWD' : 'CHECK_FAILED', msg), warnings);
    const c = r.json as unknown as CheckResult;
    const ops = c.ops.map((o) => ({ command: [...o.wrappers, ...o.argv].join(' '), decision: o.decision, code: o.code, detail: o.detail, targets: o.targets.filter((t) => t.role !== 'scope').map((t) => t.path ?? t.raw) }));
    return withWarnings({ ok: true, decision: c.decision, code: c.code, explanation: c.explanation, ...adviceFor(c), cwd: c.cwd, workspace: c.workspace?.root ?? null, mode: c.mode, ops }, [...warnings, ...c.warnings]);
  },
});

const LIST_DEFAULT = 50;

const restoreList = tool({
  name: 'restore_list',
  title: 'List quarantine transactions',
  description: 'The transactions in the quarantine, newest first: id (txid), state, when, the command, how many entries and the first paths. RESTORABLE ones can be restored.',
  input: z.strictObject({ limit: z.number().int().min(1).max(1000).optional().describe(`how many, newest first (default ${LIST_DEFAULT})`) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    const r = capture(at, (ctx) => runRestore('list', [], { json: true }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    if (r.status !== 0 || !r.json) return withWarnings(fail('RESTORE_FAILED', msg), warnings);
    type Tx = { txid: string; ts: string; state: string; command: string | null; itemCount: number; items: { origin: string }[]; snapshot?: unknown };
    const rows = (txs: Tx[], zone?: string) => txs.map((t) => ({ txid: t.txid, ts: t.ts, state: t.state, command: t.command, entries: t.itemCount, paths: t.items.slice(0, 5).map((i) => i.origin), ...(t.snapshot ? { snapshot: true } : {}), ...(zone ? { zone } : {}) }));
    const zones = (r.json.zones as { zone: string; transactions: Tx[] }[] | undefined) ?? [];
    const all = [...rows(r.json.transactions as Tx[]), ...zones.flatMap((z) => rows(z.transactions, z.zone))].sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
    const limit = args.limit ?? LIST_DEFAULT;
    return withWarnings({ ok: true, quarantine: r.json.quarantine, total: all.length, transactions: all.slice(0, limit), ...(all.length > limit ? { more: all.length - limit } : {}) }, warnings);
  },
});

/** RestoreError codes and the CLI's usage errors, as `restore --json` reports them. */
function restoreFailure(j: Record<string, unknown> | null, msg: string): { code: string; message: string } {
  return { code: typeof j?.code === 'string' ? j.code : 'RESTORE_FAILED', message: typeof j?.error === 'string' ? j.error : msg };
}

const SHOW_MAX = 1000;

const restoreShow = tool({
  name: 'restore_show',
  title: 'Show a quarantine transaction',
  description: 'What one transaction holds, entry by entry: the path (relative to `root`, as `restore` takes it), where it goes back to, its type and size, and whether it is still in the quarantine.',
  input: z.strictObject({ txid: text('the txid', 64).describe('the transaction id, e.g. 20261202T113000Z-1a2b3c4d') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    const r = capture(at, (ctx) => runRestore('show', [args.txid], { json: true }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    if (r.status !== 0 || !r.json || r.json.error !== undefined) {
      const f = restoreFailure(r.json, msg);
      return withWarnings(fail(f.code, f.message), warnings);
    }
    const { version: _v, items, ...rest } = r.json as Record<string, unknown> & { items: unknown[] };
    return withWarnings({ ok: true, ...rest, entries: items.length, items: items.slice(0, SHOW_MAX), ...(items.length > SHOW_MAX ? { more: items.length - SHOW_MAX } : {}) }, warnings);
  },
});

const restoreTool = tool({
  name: 'restore',
  title: 'Restore from the quarantine',
  description:
    'Move a transaction (or some of its paths) back to where it came from. Never overwrites: a path that exists again is skipped and reported. ' +
    'Paths are as `restore_show` lists them (relative to its `root`) or absolute, not patterns; a directory restores what is below it.',
  input: z.strictObject({
    txid: text('the txid', 64).describe('the transaction id (from safe_delete, restore_list)'),
    paths: z.array(text('a path', 4096)).min(1).max(1000).optional().describe('only these paths of the transaction (default: all of it)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    // Relative paths are read as restore_show lists them: from the transaction's root (the workspace,
    // or a scratch zone), which need not be the project directory.
    let paths = args.paths ?? [];
    if (paths.some((p) => !path.isAbsolute(p))) {
      const shown = capture(at, (ctx) => runRestore('show', [args.txid], { json: true }, ctx));
      if (shown.status !== 0 || typeof shown.json?.root !== 'string') {
        const f = restoreFailure(shown.json, message(shown.stderr).message);
        return fail(f.code, f.message);
      }
      const root = shown.json.root;
      paths = paths.map((p) => path.resolve(root, p));
    }
    const r = capture(at, (ctx) => runRestore(args.txid, paths, { json: true }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    const j = r.json;
    if (j && j.error === undefined && Array.isArray(j.restored)) {
      const { version: _v, ...rest } = j;
      if (r.status === 0) return withWarnings({ ok: true, ...rest }, warnings);
      return withWarnings(fail('NOTHING_RESTORED', 'nothing was restored: every path was skipped (see skipped)', { ...rest }), warnings);
    }
    const f = restoreFailure(j, msg);
    if (f.code === 'UNKNOWN_PATH' && (args.paths ?? []).some(hasPattern)) return withWarnings(fail('PATTERN_NOT_ALLOWED', `restore takes the paths restore_show lists, not patterns: ${f.message}`), warnings);
    return withWarnings(fail(f.code, f.message), warnings);
  },
});

const statusTool = tool({
  name: 'status',
  title: 'Guard status',
  description: 'The session mode (NORMAL or RESTRICTED), the workspace and its quarantine, transaction counts and sizes, the latest transactions, and what gc would purge.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(_args, at) {
    const r = capture(at, (ctx) => runStatus({ json: true }, ctx));
    const { message: msg, warnings } = message(r.stderr);
    if (r.status !== 0 || !r.json) return withWarnings(fail('STATUS_FAILED', msg), warnings);
    const { version: _v, ...rest } = r.json;
    return withWarnings({ ok: true, ...rest }, warnings);
  },
});

const requestTool = tool({
  name: 'request_permission',
  title: 'Ask a human to allow a command once',
  description:
    'For a command refused with ASK: records a request that a human can grant, once, by typing `agent-guard allow <id>` in their own terminal. ' +
    'It never grants anything itself. Tell the user the id and why; once granted, run exactly the same command in the same directory (within 10 minutes). ' +
    'A BLOCK is never granted: do what its explanation says instead.',
  input: z.strictObject({
    command: text('the command', 100_000).describe('the exact command line that was refused'),
    why: text('why', 500).describe('why it is needed (shown to the human)'),
    cwd: text('cwd', 4096).optional().describe('directory it will run in (relative to the project directory, which is the default)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run(args, at) {
    const cwd = path.resolve(at.cwd, args.cwd ?? '.');
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) return fail('BAD_CWD', `${cwd} is not a directory`);
    return requestPermission(args.command, args.why, cwd, at.env);
  },
});

export const TOOLS: readonly ToolSpec[] = [safeDelete, explainTool, restoreList, restoreShow, restoreTool, statusTool, requestTool];
