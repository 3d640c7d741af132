// The checker side of the mv, cp, truncate and rsync shims (shims/shim.sh sends a call here when an
// existing destination may be touched; docs/shims.md): read the argv as the real tool does, find the
// existing entries it replaces, truncates or deletes, keep what is worth keeping (keep.ts), then let
// the real tool run as it is — its output, exit status and what it leaves on disk are its own.
import { quoteArgv } from '../classifier/index.js';
import { EXIT } from '../exit-codes.js';
import type { Env } from '../config.js';
import { explain, type ReasonCode } from '../policy/reasons.js';
import { mvCpTargets, parseRsync, rsyncRemote, rsyncTargets, truncateTargets, Unreadable } from './argv.js';
import { keepOverwritten, type OverwriteTarget } from './keep.js';

export const OVERWRITE_SHIMS = ['mv', 'cp', 'truncate', 'rsync'] as const;
export type OverwriteShim = (typeof OVERWRITE_SHIMS)[number];

/** The directives this side gives (a subset of the shim protocol's). */
export type OverwriteDirective = { kind: 'run' } | { kind: 'exit'; code: number };

export interface OverwriteShimContext {
  env: Env;
  cwd: string;
  io: { stdout(s: string): void; stderr(s: string): void };
}

const run: OverwriteDirective = { kind: 'run' };

function refuse(ctx: OverwriteShimContext, argv: readonly string[], decision: 'BLOCK' | 'ASK', code: ReasonCode, explanation: string): OverwriteDirective {
  ctx.io.stderr(`agent-guard: refused \`${quoteArgv(argv)}\`: ${decision} ${code}: ${explanation}\n`);
  if (decision === 'ASK') ctx.io.stderr('agent-guard: a human must authorize this one execution: ask the user to run it in their own terminal.\n');
  return { kind: 'exit', code: decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK };
}

/** The entries an rsync call deletes or replaces locally, from a dry run of the same call; null
 *  when there is nothing local to guard (a dry run, a server or daemon side, a remote or missing
 *  destination) or the real rsync will fail on its argv anyway. */
function rsyncPlan(real: string, args: readonly string[], ctx: OverwriteShimContext): OverwriteTarget[] | null {
  const p = parseRsync(args);
  if (p.dryRun || p.passive || p.operands.length < 2) return null;
  const dest = p.operands[p.operands.length - 1]!;
  if (rsyncRemote(dest)) return null;
  const fs = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  if (!fs.lstatSync(path.resolve(ctx.cwd, dest), { throwIfNoEntry: false })) return null; // nothing there to replace
  // The same call as a dry run that lists each change: the user's quiet and output options left out
  // (they would hide or redirect the listing), everything else as given.
  const filtered = args.flatMap((a, i) => (p.output.has(i) ? [] : [p.unquiet.get(i) ?? a]));
  const dry = process.getBuiltinModule('node:child_process').spawnSync(real, ['--dry-run', '--itemize-changes', '--out-format=%i %n', ...filtered], {
    cwd: ctx.cwd,
    env: ctx.env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  // 23/24: a partial transfer (some files vanished or unreadable): the listing holds the rest.
  if (dry.status === 0 || dry.status === 23 || dry.status === 24) return rsyncTargets(dry.stdout, dest, ctx.cwd);
  if (dry.status === 1) return null; // a syntax or usage error: the real rsync stops on it as well, before any change
  throw new Unreadable(`rsync --dry-run could not list what this call changes (exit ${dry.status ?? dry.signal}): ${(dry.stderr ?? dry.error?.message ?? '').trim().slice(0, 300)}`);
}

/** Decides one call of mv, cp, truncate or rsync: keep what it overwrites, then `run`; or refuse. */
export function shimOverwrite(name: OverwriteShim, real: string, args: readonly string[], ctx: OverwriteShimContext): OverwriteDirective {
  const argv = [name, ...args];
  let targets: OverwriteTarget[] | null;
  try {
    if (name === 'mv' || name === 'cp') targets = mvCpTargets(name, args, ctx.cwd, ctx.env);
    else if (name === 'truncate') targets = truncateTargets(args, ctx.cwd, ctx.env);
    else targets = rsyncPlan(real, args, ctx);
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    const code: ReasonCode = 'BLOCK_UNDETERMINABLE_EFFECT';
    return refuse(ctx, argv, 'BLOCK', code, explain(code, `${err.message}: what it would overwrite cannot be read from its argv`));
  }
  if (!targets || targets.length === 0) return run;
  const v = keepOverwritten({ targets, cwd: ctx.cwd, env: ctx.env, command: quoteArgv(argv), via: 'shim', program: name }, ctx.io.stderr);
  if (v.action === 'refuse') return refuse(ctx, argv, v.decision, v.code, v.explanation);
  return run;
}
