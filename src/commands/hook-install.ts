// `agent-guard hook install <harness> [--project|--user] [--remove] [--json]`: merges (or removes)
// the adapter's hook entry in the harness's settings file (src/adapters/install.ts,
// docs/harness-install.md). The registered command is this installation's own launcher (or, from
// a checkout, node and the bundle), so the hook runs the same agent-guard.
import path from 'node:path';
import type { Command } from 'commander';
import { HARNESSES, installHook, removeHook, type Harness, type Scope } from '../adapters/install.js';
import { currentLayout } from '../shell/layout.js';
import { EXIT } from '../exit-codes.js';
import { runHookInstallParts, type PartsOptions } from './agent-parts.js';
import type { CommandContext } from '../cli.js';

interface Options {
  project?: boolean;
  user?: boolean;
  remove?: boolean;
  json?: boolean;
}

/** A path for a command line run by sh: single-quoted when it needs quoting. */
const shq = (p: string): string => (/^[A-Za-z0-9_./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

export function configureHookInstall(program: Command, ctx: CommandContext): void {
  const hook = program.command('hook').description('harness hooks: `agent-guard hook <harness>` is the hook itself (payload on stdin); `hook install` wires it');
  hook
    .command('install')
    .description(`merge agent-guard's hook into a harness's settings (${HARNESSES.join(', ')}); a backup is kept`)
    .argument('<harness>', HARNESSES.join('|'))
    .option('--project', 'the settings of the project in the current directory (default)')
    .option('--user', "the user's own settings")
    .option('--remove', 'take the hook out again')
    .option('--json', 'print the result as one JSON object')
    .option('--mcp', "also register agent-guard's MCP server in the harness's MCP configuration")
    .option('--instructions', "also write agent-guard's block into the harness's instruction file")
    .option('--no-hook', 'with --mcp or --instructions: leave the hook alone')
    .action((harness: string, opts: PartsOptions) => {
      ctx.exitCode = runHookInstallParts(harness, opts, ctx, runHookInstall);
    });
}

export function runHookInstall(harness: string, opts: Options, ctx: CommandContext): number {
  if (!(HARNESSES as readonly string[]).includes(harness)) {
    ctx.io.stderr(`agent-guard hook install: unknown harness ${JSON.stringify(harness)} (one of ${HARNESSES.join(', ')})\n`);
    return EXIT.ERROR;
  }
  if (opts.project && opts.user) {
    ctx.io.stderr('agent-guard hook install: --project or --user, not both\n');
    return EXIT.ERROR;
  }
  const scope: Scope = opts.user ? 'user' : 'project';
  const home = ctx.env.HOME;
  if (!home) {
    ctx.io.stderr('agent-guard hook install: HOME is not set\n');
    return EXIT.ERROR;
  }
  try {
    const layout = currentLayout(ctx.env);
    const runner = layout.launcher ? shq(layout.launcher) : `${shq(process.execPath)} ${shq(layout.bundle)}`;
    const command = `${runner} hook ${harness}`;
    const ictx = { home: path.resolve(home), projectDir: path.resolve(ctx.cwd), command };
    const res = opts.remove ? removeHook(harness as Harness, scope, ictx) : installHook(harness as Harness, scope, ictx);
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, harness, scope, action: opts.remove ? 'remove' : 'install', command, ...res }) + '\n');
    else ctx.io.stdout(`${res.changed ? (opts.remove ? 'removed from' : 'installed in') : 'unchanged:'} ${res.file}${res.backup ? ` (backup: ${res.backup})` : ''}\n`);
    return EXIT.OK;
  } catch (err) {
    ctx.io.stderr(`agent-guard hook install: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
}
