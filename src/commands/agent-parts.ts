// The agent-facing parts of `agent-guard hook install <harness>` (docs/mcp.md): `--mcp` registers the
// MCP server in the harness's MCP configuration, `--instructions` writes agent-guard's block into its
// instruction file; `--remove` takes out what the flags name. The hook stays part of every
// install and removal unless `--no-hook` (the hook itself is hook-install.ts's). And the `doctor`
// rows that say whether the parts are wired, per harness.
import fs from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../context.js';
import type { Env } from '../config.js';
import { HARNESSES, type Harness } from '../harness/answers.js';
import type { FileChange } from '../harness/files.js';
import { installInstructions, instructionsPath, instructionsWired, removeInstructions } from '../harness/instructions.js';
import { installMcp, mcpConfigPath, mcpWired, removeMcp, type PartsContext, type Scope, type ServerCommand } from '../harness/mcp-config.js';
import { currentLayout } from '../layout.js';
import { EXIT } from '../exit-codes.js';
import { MCP_BUNDLE_NAME } from './mcp.js';

export interface PartsOptions {
  project?: boolean;
  user?: boolean;
  remove?: boolean;
  json?: boolean;
  mcp?: boolean;
  instructions?: boolean;
  /** false with --no-hook. */
  hook?: boolean;
}

type RunHook = (harness: string, opts: PartsOptions, ctx: CommandContext) => number;

/** This installation's MCP server command: its launcher, or (a checkout) node and the bundle. The
 *  MCP bundle must be beside the CLI bundle. */
export function serverCommand(env: Env): ServerCommand {
  const layout = currentLayout(env);
  const mcp = path.join(path.dirname(layout.bundle), MCP_BUNDLE_NAME);
  if (!fs.existsSync(mcp)) throw new Error(`the MCP server's bundle ${mcp} is missing (npm run build, or install again)`);
  return layout.launcher ? { command: layout.launcher, args: ['mcp'] } : { command: process.execPath, args: [layout.bundle, 'mcp'] };
}

function summary(part: string, remove: boolean, r: FileChange): string {
  return `${part}: ${r.changed ? (remove ? 'removed from' : 'installed in') : 'unchanged:'} ${r.file}${r.backup ? ` (backup: ${r.backup})` : ''}\n`;
}

/** `hook install` with its parts: the hook (unless --no-hook), then the MCP server and the
 *  instructions as asked. Without --mcp and --instructions it is the hook installer as it was. */
export function runHookInstallParts(harness: string, opts: PartsOptions, ctx: CommandContext, runHook: RunHook): number {
  if (!opts.mcp && !opts.instructions) {
    if (opts.hook === false) {
      ctx.io.stderr('agent-guard hook install: --no-hook leaves nothing to do without --mcp or --instructions\n');
      return EXIT.ERROR;
    }
    return runHook(harness, opts, ctx);
  }
  const fail = (msg: string): number => {
    ctx.io.stderr(`agent-guard hook install: ${msg}\n`);
    return EXIT.ERROR;
  };
  if (!(HARNESSES as readonly string[]).includes(harness)) return fail(`unknown harness ${JSON.stringify(harness)} (one of ${HARNESSES.join(', ')})`);
  if (opts.project && opts.user) return fail('--project or --user, not both');
  if (!ctx.env.HOME) return fail('HOME is not set');
  const h = harness as Harness;
  const scope: Scope = opts.user ? 'user' : 'project';
  const remove = opts.remove === true;
  let out: Record<string, unknown> = { version: 1, harness, scope, action: remove ? 'remove' : 'install' };
  if (opts.hook !== false) {
    // The hook first; with --json its one object becomes the base of ours.
    let captured = '';
    const io = opts.json ? { stdout: (s: string) => (captured += s), stderr: ctx.io.stderr } : ctx.io;
    const status = runHook(harness, opts, { ...ctx, io });
    if (status !== EXIT.OK) return status;
    if (opts.json) out = { ...out, ...(JSON.parse(captured) as Record<string, unknown>) };
  }
  const pctx: PartsContext = { home: path.resolve(ctx.env.HOME), projectDir: path.resolve(ctx.cwd), env: ctx.env };
  try {
    if (opts.mcp) {
      const server = remove ? null : serverCommand(ctx.env);
      const r = server ? installMcp(h, scope, pctx, server) : removeMcp(h, scope, pctx);
      out.mcp = { ...r, ...(server ? { server } : {}) };
      if (!opts.json) ctx.io.stdout(summary('mcp', remove, r));
    }
    if (opts.instructions) {
      const r = remove ? removeInstructions(h, scope, pctx) : installInstructions(h, scope, pctx);
      out.instructions = r;
      if (!opts.json) ctx.io.stdout(summary('instructions', remove, r));
    }
  } catch (err) {
    return fail((err as Error).message.replace(/^agent-guard: /, ''));
  }
  if (opts.json) ctx.io.stdout(JSON.stringify(out) + '\n');
  return EXIT.OK;
}

/** A doctor row (doctor.ts's Check). */
export interface PartCheck {
  id: string;
  status: 'ok' | 'info' | 'warn';
  detail: string;
  fix: string | null;
}

/** Per harness: is the MCP server registered, are the instructions written (user, or the project in
 *  cwd)? `installed(h)`: the harness shows that it is installed (doctor's hook rows decide); a part
 *  missing for an installed harness is a warning, for one that is not installed information. */
export function partChecks(env: Env, cwd: string, installed: (h: Harness) => boolean): PartCheck[] {
  if (!env.HOME) return [];
  const ctx: PartsContext = { home: path.resolve(env.HOME), projectDir: path.resolve(cwd), env };
  const rows: PartCheck[] = [];
  const parts = [
    { id: 'mcp', flag: '--mcp', what: 'MCP server', wired: mcpWired, file: mcpConfigPath },
    { id: 'instructions', flag: '--instructions', what: 'agent-guard block', wired: instructionsWired, file: instructionsPath },
  ] as const;
  for (const part of parts) {
    for (const h of HARNESSES) {
      const found: string[] = [];
      const damaged: string[] = [];
      const seen = new Set<string>();
      for (const scope of ['user', 'project'] as const) {
        const file = part.file(h, scope, ctx);
        if (seen.has(file)) continue;
        seen.add(file);
        const w = part.wired(h, scope, ctx);
        if (w === true) found.push(`${scope}: ${file}`);
        else if (w === null) damaged.push(file);
      }
      const id = `${part.id}.${h}`;
      const fix = `agent-guard hook install ${h} ${part.flag} --no-hook [--user]`;
      const note = damaged.length > 0 ? ` (unreadable: ${damaged.join(', ')})` : '';
      if (found.length > 0) rows.push({ id, status: 'ok', detail: found.join('; ') + note, fix: null });
      else if (!installed(h)) rows.push({ id, status: 'info', detail: `${h} is not installed: no ${part.what} needed${note}`, fix });
      else rows.push({ id, status: 'warn', detail: `no ${part.what} for ${h} (user or this project)${note}`, fix });
    }
  }
  return rows;
}
