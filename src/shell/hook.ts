// The checker side of the bash/zsh hooks (shell/guard.bash, shell/guard.zsh; docs/shell-hooks.md):
// `agent-guard hook-shell --shell bash|zsh [--interactive] [--shims] --cwd DIR -- TEXT`, called by
// the DEBUG trap with the command text before it runs (unexpanded). Exit 0: let it run (any
// compensation is done); 2: BLOCK; 3: ASK; the reason goes to stderr. Any other status is treated
// as a refusal by the hooks (fail closed).
//
// With --shims (the PATH shims are first on PATH), the text check defers what the shims will see
// with its concrete argv — an operation run by a bare name that has a shim, with no bypass in the
// line — and itself decides everything else: what bypasses the shims (`/bin/rm`, `command -p rm`,
// `env -i …`, `PATH=… rm`, `busybox rm`, `sudo rm`) is compensated here when its effect is known and
// refused when not, and what no shim can see (the compound shapes of the line) is refused here.
import { loadConfig, type Env } from '../config.js';
import { type CheckResult, type OpResult } from '../engine.js';
import { decideLine, enforce } from '../enforce.js';
import { needsCompensation, relocatesRegenerable } from '../recovery/compensate.js';
import { EXIT } from '../exit-codes.js';
import { explain } from '../engine.js';
import type { ReasonCode } from '../policy/reasons.js';
import type { UndeterminableReason } from '../classifier/types.js';

export interface HookInput {
  shell: 'bash' | 'zsh';
  interactive: boolean;
  shims: boolean;
  cwd: string;
  text: string;
}

export interface HookContext {
  env: Env;
  io: { stderr(s: string): void };
}

/** The programs with a shim (src/shell/shims.ts). */
const SHIMMED = new Set(['rm', 'rmdir', 'unlink', 'shred', 'git', 'find']);

/** Refusals that the concrete argv settles: the shims decide these. */
const CONCRETE = new Set<ReasonCode>(['BLOCK_UNDETERMINABLE_EFFECT', 'BLOCK_WILDCARD']);

/** Why an effect is unknown where the concrete argv would not tell either (an option, a git clean
 *  flag, a shape of the text): refused by the text check itself, not left to the shims. */
const NOT_SETTLED_BY_ARGV = new Set<UndeterminableReason>(['unknown-option', 'git-clean-unsupported', 'reset-not-standalone', 'git-environment', 'opaque-syntax', 'depth-limit', 'unbalanced', 'foreign-verb', 'recursive-match']);

/** Is a refusal one the shims will settle on the concrete argv? Rule 11a (`git clean -ff`, `-i`, `-e`)
 *  refuses by flag, which no expansion changes. */
function settledByArgv(o: OpResult): boolean {
  if (!CONCRETE.has(o.code) || o.rule === '11a') return false;
  return o.undeterminable === undefined || !NOT_SETTLED_BY_ARGV.has(o.undeterminable);
}

/** Line-level shapes: only the whole line shows them; no shim can. */
const SHAPES = new Set<ReasonCode>(['COMPOUND_CWD_DELETE', 'COMPOUND_CREATE_DELETE']);

/** Text that takes a command past the PATH shims, or turns the guard off. */
const BYPASS = /(^|[\s;&|(`{])(command\s+(-[a-zA-Z]*p|--)|env\s+(-[a-zA-Z]*[iu]|--ignore-environment|--unset|--chdir)|busybox|toybox|sudo|doas|su|runuser|hash\s+-p|enable\s|zmodload|builtin\s+rm)(\s|$)|(^|[\s;&|(`{])(export\s+|declare\s+(-\w+\s+)*|typeset\s+(-\w+\s+)*|local\s+)?PATH\+?=/;

/** Turning the guard itself off: its shim loop tag, its traps, its startup files, or builtin
 *  `rm`s that no shim sees (`zmodload zsh/files`, bash's `enable -f … rm`). */
const TAMPER = /AGENT_GUARD_SHIM_PID|\btrap\s+(?!-[pl]\b)[^;&|\n]*\bDEBUG\b|\bTRAPDEBUG\s*\(|\bunfunction\s+TRAPDEBUG|\bunset\s+(-f\s+)?(TRAPDEBUG|__agent_guard\w*)|\bshopt\s+-u\s+extdebug|\bset\s+\+T\b|\b(unset|export)\s+(BASH_ENV|ZDOTDIR)\b|\b(BASH_ENV|ZDOTDIR)=|\bzmodload\b[^;&|\n]*\bzsh\/files\b|\benable\s+(-\w+\s+)*-\w*f/;

/** Does this op reach a shim by name, so the shim will decide it on its concrete argv? */
function reachesShim(o: OpResult): boolean {
  if (o.argv[0] === undefined || o.argv[0].includes('/')) return false;
  if (SHIMMED.has(o.program)) return true;
  // xargs / parallel run their program by PATH lookup: the first bare word that has a shim.
  if (o.kind === 'stdin-fed') return o.argv.slice(1).some((a) => SHIMMED.has(a));
  return false;
}

function say(ctx: HookContext, r: { decision: string; code: string; explanation: string }, text: string): number {
  ctx.io.stderr(`agent-guard: refused: ${r.decision} ${r.code}: ${r.explanation}\n  command: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}\n`);
  if (r.decision === 'ASK') ctx.io.stderr('agent-guard: this needs a human: ask the user to run it in their own terminal.\n');
  return r.decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK;
}

/** What a text check comes to, for every text entry point (the shell hooks, the harness
 *  adapters): `run` (nothing to refuse; any compensation is done, or left to the shims), or a
 *  refusal with its decision, code and explanation. */
export type TextVerdict = { action: 'run'; r: CheckResult | null; deferred: boolean } | { action: 'refuse'; decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string };

export function checkText(input: { text: string; cwd: string; shims: boolean; dialect?: unknown }, env: Env, opts: { tamper: boolean }): TextVerdict {
  if (opts.tamper && TAMPER.test(input.text)) {
    const code: ReasonCode = 'BLOCK_GUARD_TAMPERING';
    return { action: 'refuse', decision: 'BLOCK', code, explanation: explain(code, 'the line changes what agent-guard relies on (its traps, startup files or shim tag)') };
  }
  // (the probes' bare `git` is looked up past the shim directories by gitRunner)
  const config = loadConfig(env, input.cwd);
  const r: CheckResult = decideLine({ text: input.text, config, mode: 'NORMAL', ...(input.dialect !== undefined ? { dialect: input.dialect } : {}) });
  // An ALLOW needs nothing, unless it holds regenerable artifacts: those are relocated too (rule 13).
  if (r.decision === 'ALLOW' && !needsCompensation(r)) return { action: 'run', r, deferred: false };
  // Only POSIX text reaches the PATH shims as processes they see (a PowerShell cmdlet or a cmd builtin
  // never does), so only POSIX text is deferred.
  if (input.shims && r.dialect === 'posix' && !SHAPES.has(r.code) && !BYPASS.test(input.text)) {
    // Deferred: what the shims will decide on the concrete argv — a SAFE decision (they compensate
    // it), or what the text alone cannot know (a variable, a glob, a list fed by stdin). What the
    // text already shows to be refused (a protected path, a force push) is refused here, earlier.
    const pending = r.ops.filter((o) => o.decision !== 'ALLOW' || relocatesRegenerable(o));
    const deferrable = (o: OpResult): boolean => reachesShim(o) && (o.decision === 'RELOCATE' || o.decision === 'SNAPSHOT' || relocatesRegenerable(o) || settledByArgv(o));
    if (pending.length > 0 && pending.every(deferrable)) return { action: 'run', r, deferred: true };
  }
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return { action: 'refuse', decision: r.decision, code: r.code, explanation: r.explanation };
  const done = enforce(r, input.text, config);
  if (done.decision === 'BLOCK' || done.decision === 'ASK') return { action: 'refuse', decision: done.decision, code: done.code, explanation: done.explanation };
  return { action: 'run', r: done, deferred: false };
}

export function hookShell(input: HookInput, ctx: HookContext): number {
  // The shells' own text: POSIX whatever AGENT_GUARD_DIALECT says (it selects the dialect of text a
  // harness or `check` is given).
  const v = checkText({ text: input.text, cwd: input.cwd, shims: input.shims, dialect: 'posix' }, ctx.env, { tamper: true });
  if (v.action === 'run') return EXIT.OK;
  return say(ctx, v, input.text);
}
