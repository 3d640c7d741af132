// What every program's shim checker shares (src/shims/checker.ts dispatches): the directive the
// shim execs by, the concrete argv decided as it is (`classify({argv})`, targets carrying their argv
// index), and the refusal every entry point prints.
import { loadConfig, type Config, type Env } from '../config.js';
import { quoteArgv } from '../classifier/index.js';
import { isWithin } from '../classifier/paths.js';
import type { CheckResult } from '../engine.js';
import { decideLine, enforce, type EnforceOptions } from '../enforce/index.js';
import { EXIT } from '../exit-codes.js';
import { explain, type ReasonCode } from '../policy/reasons.js';

export interface ShimIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface ShimContext {
  env: Env;
  cwd: string;
  io: ShimIO;
  /** Opens the controlling terminal for a question (rm -i); null when there is none. */
  ask?: (question: string) => boolean | null;
}

export type Directive = { kind: 'run' } | { kind: 'keep'; indexes: number[] } | { kind: 'exit'; code: number };

export function formatDirective(d: Directive): string {
  if (d.kind === 'run') return 'run\n';
  if (d.kind === 'exit') return `exit ${d.code}\n`;
  return d.indexes.length === 0 ? 'keep\n' : `keep ${d.indexes.join(' ')}\n`;
}

export const run: Directive = { kind: 'run' };
export const exit = (code: number): Directive => ({ kind: 'exit', code });

/** The refusal every entry point prints: decision, code, explanation (with the fix), the command. */
export function refuse(ctx: ShimContext, argv: readonly string[], r: { decision: string; code: string; explanation: string }): Directive {
  ctx.io.stderr(`agent-guard: refused \`${quoteArgv(argv)}\`: ${r.decision} ${r.code}: ${r.explanation}\n`);
  if (r.decision === 'ASK') ctx.io.stderr('agent-guard: a human must authorize this one execution: ask the user to run it in their own terminal.\n');
  return exit(r.decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK);
}

export function blockWith(ctx: ShimContext, argv: readonly string[], code: ReasonCode, detail: string): Directive {
  return refuse(ctx, argv, { decision: 'BLOCK', code, explanation: explain(code, detail) });
}

/** A decided argv: the decision, the argv's text (for the records), the configuration it was decided with. */
export interface Decided {
  r: CheckResult;
  text: string;
  config: Config;
}

/** Decides `argv` (the program and its concrete arguments) in `ctx.cwd`, as it is: no quoting back
 *  into text. The git shim's probes use the real git it found; any other probe's bare `git` is looked
 *  up past the shim directories by gitRunner itself. */
export function decideArgv(argv: readonly string[], ctx: ShimContext, real: string): Decided {
  const base = loadConfig(ctx.env, ctx.cwd);
  const config = argv[0] === 'git' ? { ...base, gitBinary: real } : base;
  const text = quoteArgv(argv);
  return { r: decideLine({ text, argv, config, mode: 'NORMAL', dialect: 'posix' }), text, config };
}

/** enforce() for a shim: audited `via: shim`. */
export function enforceShim(d: Decided, r: CheckResult = d.r, opts: Omit<EnforceOptions, 'via'> = {}, text = d.text): CheckResult {
  return enforce(r, text, d.config, { ...opts, via: { via: 'shim' } });
}

/** The physical target decided for the argument at `arg` (its argv index: args index + 1). */
export function targetAt(r: CheckResult, arg: number): string | null {
  for (const o of r.ops) for (const t of o.targets) if (t.role !== 'scope' && t.arg === arg && t.physical !== null) return t.physical;
  return null;
}

/** Is `physical` quarantined content (inside the quarantine, not the quarantine itself)? The policy
 *  has refused the quarantine, its state and what holds it (rule 5) before this is asked. */
export function inQuarantine(r: CheckResult, physical: string | null): boolean {
  const q = r.workspace?.quarantine;
  return q !== undefined && physical !== null && physical !== q && isWithin(physical, q);
}

/** A shim sees a concrete argv and cannot tell a path typed by hand from one a find, xargs or glob
 *  produced: what the quarantine holds is never deleted and never nested into another transaction.
 *  It stays in place, dropped from the real tool's argv, and one line says so. */
export function leftInQuarantine(ctx: ShimContext, program: string, shown: readonly string[]): void {
  if (shown.length === 0) return;
  const what = shown.length === 1 ? JSON.stringify(shown[0]) : `${shown.length} paths (${JSON.stringify(shown[0])}, …)`;
  ctx.io.stderr(`agent-guard: ${program}: ${what} ${shown.length === 1 ? 'is' : 'are'} in the quarantine: left in place (restore it with agent-guard restore, or purge the quarantine with agent-guard gc)\n`);
}
