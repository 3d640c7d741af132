// `agent-guard uninstall [--json]`: removes what this agent-guard wrote for the user outside its own
// directory, the per-user shims of a package or a checkout (src/layout.ts), so that
// `npm uninstall -g agent-guard` afterwards leaves nothing behind but the quarantines
// (docs/distribution.md). Only the files agent-guard writes there are removed, then the directories
// if they are empty. It refuses inside a guarded environment: the shells and agents that have those
// shims on PATH would run the real programs. An install.sh prefix is removed by
// `install.sh --uninstall`, which this command names.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { sessionVars } from '../config.js';
import { wiredHarnesses } from '../harness/install.js';
import { currentLayout, INSTALL_HINT, sameFile, userDataDir } from '../layout.js';
import { SHIM_MARKER, SHIM_NAMES } from '../shims/render.js';

interface UninstallOptions {
  json?: boolean;
}

export interface UninstallReport {
  version: 1;
  removed: string[];
  /** Directories left because something else is in them. */
  kept: string[];
  /** Harness settings that still run agent-guard's hook, and the command that takes it out. */
  harnessHooks: { harness: string; file: string; remove: string }[];
}

export function configureUninstall(program: Command, ctx: CommandContext): void {
  program
    .command('uninstall')
    .description("remove this user's files of this agent-guard (the shims of a package or checkout); then npm uninstall -g agent-guard leaves only the quarantines")
    .option('--json', 'print the result as one JSON object')
    .action((opts: UninstallOptions) => {
      ctx.exitCode = runUninstall(opts, ctx);
    });
}

// What writeShims leaves in a shim directory: the shims, the marker, and the temporary file of a
// write that was interrupted (`.<name>.tmp-<pid>-<time>-<n>`).
const OURS = new Set<string>([...SHIM_NAMES, SHIM_MARKER]);
const isTemp = (f: string): boolean => {
  const m = /^\.(.+)\.tmp-\d+-\d+-\d+$/.exec(f);
  return m !== null && OURS.has(m[1]!);
};

export function runUninstall(opts: UninstallOptions, ctx: CommandContext): number {
  const fail = (msg: string): number => {
    ctx.io.stderr(`agent-guard uninstall: ${msg}\n`);
    return 1;
  };
  let layout;
  try {
    layout = currentLayout(ctx.env);
  } catch (err) {
    return fail(`${(err as Error).message} (${INSTALL_HINT})`);
  }
  if (!layout.userShims) {
    return fail(`${layout.root} is an installation made by install.sh: remove it with 'sh install.sh --uninstall --prefix ${layout.root}' (the install.sh of a clone or of the npm package)`);
  }
  const dir = layout.shimDir;
  const onPath = (ctx.env.PATH ?? '').split(':').some((e) => e === dir || (path.isAbsolute(e) && sameFile(e, dir)));
  const shims = sessionVars(ctx.env).shims;
  const guarding = shims ? sameFile(shims, dir) : false;
  if (onPath || guarding) {
    return fail(`refusing inside a guarded environment: ${dir} is ${onPath ? 'on PATH' : 'AGENT_GUARD_SHIMS'} here. Take the 'agent-guard shell-init' line out of your rc file, then run this in a new shell (not under 'agent-guard run')`);
  }

  const removed: string[] = [];
  const kept: string[] = [];
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return fail(`${dir}: ${(err as Error).message}`);
  }
  // The shims first, the marker last: the directory is never an unmarked shim directory.
  const files = entries.filter((f) => (OURS.has(f) || isTemp(f)) && f !== SHIM_MARKER);
  if (entries.includes(SHIM_MARKER)) files.push(SHIM_MARKER);
  try {
    for (const f of files) {
      const p = path.join(dir, f);
      const st = fs.lstatSync(p);
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      fs.unlinkSync(p);
      removed.push(p);
    }
    // Then the directories, only when empty: shims/, <hash>/, and agent-guard/ in the data directory.
    for (const d of [dir, path.dirname(dir), userDataDir(ctx.env)]) {
      if (!fs.existsSync(d)) continue;
      const left = fs.readdirSync(d);
      if (left.length > 0) {
        kept.push(d);
        break;
      }
      fs.rmdirSync(d);
      removed.push(d);
    }
  } catch (err) {
    return fail(`${(err as Error).message} (removed so far: ${removed.join(', ') || 'nothing'})`);
  }

  const home = ctx.env.HOME;
  const harnessHooks = home
    ? wiredHarnesses({ home: path.resolve(home), projectDir: path.resolve(ctx.cwd), command: '' }).map((w) => ({
        harness: w.harness,
        file: w.file,
        remove: `agent-guard hook install ${w.harness} --remove${w.scope === 'user' ? ' --user' : ''}`,
      }))
    : [];
  if (opts.json) {
    const report: UninstallReport = { version: 1, removed, kept, harnessHooks };
    ctx.io.stdout(JSON.stringify(report) + '\n');
    return 0;
  }
  const out: string[] = [];
  if (removed.length === 0 && kept.length === 0) out.push(`nothing to remove: ${dir} does not exist`);
  for (const r of removed) out.push(`removed ${r}`);
  for (const k of kept) out.push(`kept ${k} (not empty)`);
  for (const h of harnessHooks) out.push(`note: ${h.file} still runs agent-guard's ${h.harness} hook: take it out with '${h.remove}' first`);
  out.push(
    layout.kind === 'package'
      ? `now remove the package itself (npm uninstall -g agent-guard, for a global install); the quarantines stay`
      : `the checkout ${layout.root} itself is yours to delete; the quarantines stay`,
  );
  ctx.io.stdout(out.join('\n') + '\n');
  return 0;
}
