// `agent-guard hook install <harness> [--project|--user] [--remove] [--json]`: merges (or removes)
// the adapter's hook entry in the harness's settings file (src/harness/install.ts,
// docs/harness-install.md). The registered command is this installation's own launcher (or, from
// a checkout, node and the bundle), so the hook runs the same agent-guard.
import path from 'node:path';
import type { Command } from 'commander';
import { HARNESSES, installHook, removeHook, type Harness, type InstallContext, type Scope } from '../harness/install.js';
import { atLeast, claudeVersion, CLAUDE_ON_FAILURE_SINCE } from '../harness/versions.js';
import type { Env } from '../config.js';
import { currentLayout } from '../layout.js';
import { EXIT } from '../exit-codes.js';
import { runHookInstallParts, type PartsOptions } from './agent-parts.js';
import type { CommandContext } from '../context.js';

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
    const h = harness as Harness;
    const ictx: InstallContext = { home: path.resolve(home), projectDir: path.resolve(ctx.cwd), command, env: ctx.env };
    const notes: string[] = [];
    if (h === 'claude' && !opts.remove) {
      const found = claudeVersion(ctx.env.PATH);
      ictx.claudeOnFailure = found !== null && atLeast(found.version, CLAUDE_ON_FAILURE_SINCE);
      notes.push(...claudeNotes(found === null ? null : found.version.join('.'), ictx.claudeOnFailure));
    }
    const res = opts.remove ? removeHook(h, scope, ictx) : installHook(h, scope, ictx);
    if (!opts.remove) notes.push(...installNotes(h, scope, ctx.env));
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, harness, scope, action: opts.remove ? 'remove' : 'install', command, ...res, notes }) + '\n');
    else {
      ctx.io.stdout(`${res.changed ? (opts.remove ? 'removed from' : 'installed in') : 'unchanged:'} ${res.file}${res.backup ? ` (backup: ${res.backup})` : ''}\n`);
      for (const n of notes) ctx.io.stdout(`note: ${n}\n`);
    }
    return EXIT.OK;
  } catch (err) {
    ctx.io.stderr(`agent-guard hook install: ${(err as Error).message}\n`);
    return EXIT.ERROR;
  }
}

/** What `hook install claude` says about `onFailure` (docs/harness/claude.md). */
function claudeNotes(version: string | null, written: boolean): string[] {
  if (written) return [`Claude Code ${version}: onFailure "block" written, so a hook that times out or cannot run blocks the tool call`];
  const since = CLAUDE_ON_FAILURE_SINCE.join('.');
  return [
    `${version === null ? 'no Claude Code installation found on PATH' : `Claude Code ${version} is older than ${since}`}: onFailure "block" not written; ` +
      `a hook that times out lets the command run (re-run this install after installing Claude Code ${since} or newer)`,
  ];
}

/** What the user must still do, or know, after an install (the harness's own trust steps). */
function installNotes(h: Harness, scope: Scope, env: Env): string[] {
  switch (h) {
    case 'codex':
      return [
        'Codex runs this hook only once you trust it: start codex and choose "Trust all and continue" when it lists the new hook ' +
          '(until then Codex runs commands without it; `agent-guard doctor` shows the trust state). A re-install with another ' +
          'agent-guard path, or a change of the hook\'s position in the file, has to be trusted again.',
        ...(scope === 'project' ? ['Codex reads a project\'s .codex/ only for a project it trusts.'] : []),
      ];
    case 'gemini':
      return [
        `With folder trust on, Gemini CLI runs no settings hook (user or project) in a folder it does not trust${env.GEMINI_CLI_TRUST_WORKSPACE === 'false' ? ' (GEMINI_CLI_TRUST_WORKSPACE=false is set here)' : ''}; \`agent-guard doctor\` shows what it can tell.`,
      ];
    case 'copilot':
      return scope === 'project' ? ['Copilot CLI loads a repository\'s .github/hooks only once the folder is trusted; `--user` installs a personal hook (<COPILOT_HOME or ~/.copilot>/hooks) instead.'] : [];
    default:
      return [];
  }
}
