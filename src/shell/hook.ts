// The checker side of the bash/zsh hooks (shell/guard.bash, shell/guard.zsh; docs/shell-hooks.md):
// `agent-guard hook-shell --shell bash|zsh [--interactive] [--shims] --cwd DIR -- TEXT`, called by
// the DEBUG trap with the command text before it runs (unexpanded). Exit 0: let it run (any
// compensation is done); 2: BLOCK; 3: ASK not authorized (with --interactive the human at /dev/tty
// is asked first; a one-time grant authorizes it too: src/grants/settle.ts); the reason goes to
// stderr. Any other status is treated as a refusal by the hooks (fail closed).
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
import { keptBy, notice } from '../notice.js';
import { settleAsk, type AskPolicy } from '../grants/settle.js';
import { keepRedirected } from '../overwrite/hook.js';

export interface HookInput {
  shell: 'bash' | 'zsh';
  interactive: boolean;
  shims: boolean;
  cwd: string;
  text: string;
  /** Files the text's redirections would truncate (absolute; the hook found them non-empty). */
  overwrites?: readonly string[];
  /** Only keep those: the text itself passed the hook's filter. */
  overwriteOnly?: boolean;
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
const NOT_SETTLED_BY_ARGV = new Set<UndeterminableReason>(['unknown-option', 'git-clean-unsupported', 'git-environment', 'opaque-syntax', 'depth-limit', 'unbalanced', 'foreign-verb', 'recursive-match']);

/** Is a refusal one the shims will settle on the concrete argv? Rule 11a (`git clean -ff`, `-i`, `-e`)
 *  refuses by flag, which no expansion changes. */
function settledByArgv(o: OpResult): boolean {
  if (!CONCRETE.has(o.code) || o.rule === '11a') return false;
  return o.undeterminable === undefined || !NOT_SETTLED_BY_ARGV.has(o.undeterminable);
}

/** Line-level shapes: they guess, from the text, where a later op lands and what it will find. The
 *  shims see the concrete cwd and disk state when the program runs, so under the shims a shape is
 *  theirs to settle. */
const SHAPES = new Set<ReasonCode>(['COMPOUND_CWD_DELETE', 'COMPOUND_CREATE_DELETE']);

/** Text that takes a command past the PATH shims, or turns the guard off. */
const BYPASS = /(^|[\s;&|(`{])(command\s+(-[a-zA-Z]*p|--)|env\s+(-[a-zA-Z]*[iu]|--ignore-environment|--unset|--chdir)|busybox|toybox|sudo|doas|su|runuser|pkexec|hash\s+-p|enable\s|zmodload|builtin\s+rm)(\s|$)|(^|[\s;&|(`{])(export\s+|declare\s+(-\w+\s+)*|typeset\s+(-\w+\s+)*|local\s+)?PATH=(?!"?\$\{?PATH\b)/;

/** Programs that are guarded or that the guard relies on: a builtin of one of these names (bash's
 *  `enable -f LIB NAME`, `enable NAME`) would take it past the shims or break the hook itself. A
 *  loadable builtin of another name (pyenv/rbenv/nodenv's `realpath`) is no concern of the guard. */
export const GUARDED_BUILTINS = new Set([...SHIMMED, 'srm', 'wipe', 'xargs', 'parallel', 'mv', 'cp', 'truncate', 'rsync', 'enable', 'builtin', 'command', 'trap', 'shopt', 'set', 'unset', 'local', 'return', 'exit', 'kill', 'printf', 'eval', 'source', '.', 'declare', 'typeset', 'history', 'hash', 'type', 'exec', 'bash', 'sh', 'zsh', 'env', 'sudo', 'node']);

/** The guard's own machinery: its shim loop tag, its traps, its startup files. */
const TAMPER = /AGENT_GUARD_SHIM_PID|AGENT_GUARD_CHECKER\w*=|\bunset\s+(-v\s+)?AGENT_GUARD_CHECKER|\btrap\s+(?!-[pl]\b)[^;&|\n]*\bDEBUG\b|\bTRAPDEBUG\s*\(|\bunfunction\s+TRAPDEBUG|\bunset\s+(-f\s+)?(TRAPDEBUG|__agent_guard\w*)|\bshopt\s+-u\s+extdebug|\bset\s+\+T\b|\b(unset|export)\s+(BASH_ENV|ZDOTDIR)\b|\b(BASH_ENV|ZDOTDIR)=/;

/** Builtins loaded past the shims: bash's `enable [-f LIB] NAME…` of a guarded name, zsh's
 *  `zmodload zsh/files` (rm, rmdir, mv… as builtins) unless `-F` picks only harmless features. */
function loadsGuardedBuiltin(text: string): string | null {
  for (const m of text.matchAll(/(?:^|[\s;&|(`{])enable\s+([^;&|\n)`]*)/g)) {
    const words = m[1]!.trim().split(/\s+/);
    let names: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!.replace(/^['"]|['"]$/g, '');
      if (w === '--') {
        names = names.concat(words.slice(i + 1));
        break;
      }
      if (/^-[a-zA-Z]*f$/.test(w)) {
        i++; // the library
        continue;
      }
      if (w.startsWith('-')) continue; // -n, -a, -p, -s, -d
      if (/^(\d?[<>]|&>)/.test(w)) {
        if (/^(\d?[<>][>&]?|&>)$/.test(w)) i++; // the redirection's target is the next word
        continue;
      }
      names.push(w);
    }
    const hit = names.map((n) => n.replace(/^['"]|['"]$/g, '')).find((n) => GUARDED_BUILTINS.has(n) || /[^A-Za-z0-9_-]/.test(n));
    if (hit !== undefined) return `enable loads or enables a builtin ${hit}, which no shim would see`;
  }
  for (const m of text.matchAll(/(?:^|[\s;&|(`{])zmodload\s+([^;&|\n)`]*)/g)) {
    const words = m[1]!.trim().split(/\s+/);
    if (!words.includes('zsh/files')) continue;
    const features = words.filter((w) => /^[+-]?b:/.test(w));
    const partial = words.some((w) => /^-[a-zA-Z]*F/.test(w));
    const risky = !partial || features.length === 0 || features.some((f) => /^\+?b:(zf_)?(rm|rmdir|mv|ln|chmod|chown)$/.test(f));
    if (risky) return 'zmodload zsh/files makes rm a builtin, which no shim would see';
  }
  return null;
}

/** Why a text turns the guard off, or null. */
export function tampering(text: string): string | null {
  if (TAMPER.test(text)) return 'the line changes what agent-guard relies on (its traps, startup files or shim tag)';
  return loadsGuardedBuiltin(text);
}

/** Does this op reach a shim by name, so the shim will decide it on its concrete argv? */
function reachesShim(o: OpResult): boolean {
  if (o.argv[0] === undefined || o.argv[0].includes('/')) return false;
  if (SHIMMED.has(o.program)) return true;
  // xargs / parallel run their program by PATH lookup: the first bare word that has a shim.
  if (o.kind === 'stdin-fed') return o.argv.slice(1).some((a) => SHIMMED.has(a));
  return false;
}

/** Interpreters whose commands pass the hooks again when they run: `eval` and `source` in the same
 *  shell, and nested bash/zsh (BASH_ENV, the ZDOTDIR wrapper). `sh -c` (dash) reads neither. */
const HOOKED = new Set(['eval', 'source', '.', 'bash', 'zsh']);

function say(ctx: HookContext, r: { decision: string; code: string; explanation: string; next?: string }, text: string): number {
  ctx.io.stderr(`agent-guard: refused: ${r.decision} ${r.code}: ${r.explanation}\n  command: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}\n`);
  if (r.next) ctx.io.stderr(`agent-guard: ${r.next}\n`);
  else if (r.decision === 'ASK') ctx.io.stderr('agent-guard: this needs a human: ask the user to run it in their own terminal.\n');
  return r.decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK;
}

/** What a text check comes to, for every text entry point (the shell hooks, the harness
 *  adapters): `run` (nothing to refuse; any compensation is done, or left to the shims), or a
 *  refusal with its decision, code, explanation and (`next`) what to do now. `opts.ask`: how an ASK
 *  may reach a human (src/grants/settle.ts); without it an ASK is refused as it is. */
export type TextVerdict =
  | { action: 'run'; r: CheckResult | null; deferred: boolean }
  /** `unknownCwd`: refused because an op depends on the directory, which is not known (TextInput.cwdUnknown). */
  | { action: 'refuse'; decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string; next?: string; unknownCwd?: true };

export interface TextInput {
  text: string;
  cwd: string;
  /** The PATH shims are first on PATH where the text runs. */
  shims: boolean;
  dialect?: unknown;
  /** The text is run by a shell whose hook sees each of its commands again (the bash/zsh hooks):
   *  `eval`, `source`, nested bash/zsh and compound commands are then left to that hook. */
  hooked?: boolean;
  /** `cwd` locates the workspace only: the directory the text really runs in is not known (a harness
   *  payload without the tool's working directory). Relative targets are then undeterminable. */
  cwdUnknown?: boolean;
}

/** With the shims active: can this op be left to the layers that will see it run — the shims with
 *  its concrete argv, cwd and disk; the hook again for the commands of a hooked interpreter? What
 *  the text already shows to be refused (a protected path, a force push, an unknown option) is not.
 *  `inner`: a literal text for an interpreter no hook sees (`sh -c '…'`), to be checked itself. */
function leftToShims(o: OpResult, input: TextInput): boolean | 'inner' {
  if (reachesShim(o)) return o.decision === 'RELOCATE' || o.decision === 'SNAPSHOT' || relocatesRegenerable(o) || SHAPES.has(o.code) || settledByArgv(o);
  if (o.kind === 'indirect' && o.inner) {
    if (input.hooked && HOOKED.has(o.program)) return true;
    return o.inner.dynamic || o.cwd === null ? false : 'inner';
  }
  // Compound commands a hooked shell hands over whole (zsh's `if … fi`, `{ … }`): their commands
  // come through the hook one by one.
  return input.hooked === true && o.kind === 'opaque' && o.undeterminable === 'opaque-syntax';
}

export function checkText(input: TextInput, env: Env, opts: { tamper: boolean; ask?: AskPolicy }): TextVerdict {
  return checkTextAt(input, env, opts, 0);
}

function checkTextAt(input: TextInput, env: Env, opts: { tamper: boolean; ask?: AskPolicy }, depth: number): TextVerdict {
  const tamper = opts.tamper ? tampering(input.text) : null;
  if (tamper !== null) {
    const code: ReasonCode = 'BLOCK_GUARD_TAMPERING';
    return { action: 'refuse', decision: 'BLOCK', code, explanation: explain(code, tamper) };
  }
  // (the probes' bare `git` is looked up past the shim directories by gitRunner)
  const config = loadConfig(env, input.cwd);
  const r: CheckResult = decideLine({ text: input.text, config, mode: 'NORMAL', ...(input.dialect !== undefined ? { dialect: input.dialect } : {}), ...(input.cwdUnknown ? { cwdUnknown: true } : {}) });
  // An ALLOW needs nothing, unless it holds regenerable artifacts: those are relocated too (rule 13).
  if (r.decision === 'ALLOW' && !needsCompensation(r)) return { action: 'run', r, deferred: false };
  // Only POSIX text reaches the PATH shims as processes they see (a PowerShell cmdlet or a cmd builtin
  // never does), so only POSIX text is deferred.
  if (input.shims && r.dialect === 'posix' && !BYPASS.test(input.text)) {
    // Deferred: what the shims will decide on the concrete argv — a SAFE decision (they compensate
    // it), a shape of the line (they see the concrete cwd and disk), or what the text alone cannot
    // know (a variable, a glob, a list fed by stdin). What the text already shows to be refused
    // (a protected path, a force push) is refused here, earlier.
    const pending = r.ops.filter((o) => o.decision !== 'ALLOW' || relocatesRegenerable(o));
    const left = pending.map((o) => leftToShims(o, input));
    let all = pending.length > 0 && left.every((l) => l !== false);
    // The literal texts of unhooked interpreters last, once the rest is known to be deferred: each
    // is decided (and compensated) as its own line, in the op's directory.
    for (let i = 0; all && i < pending.length; i++) {
      const o = pending[i]!;
      if (left[i] !== 'inner' || !o.inner) continue;
      if (depth >= 4) {
        all = false;
        break;
      }
      const v = checkTextAt({ ...input, text: o.inner.text, cwd: o.cwd ?? input.cwd, hooked: false }, env, { tamper: false }, depth + 1);
      if (v.action === 'refuse') return v;
    }
    if (all) return { action: 'run', r, deferred: true };
  }
  if (r.decision === 'ASK' && opts.ask) {
    const s = settleAsk(r, input.text, config, input.cwdUnknown ? { ...opts.ask, cwdUnknown: true } : opts.ask);
    return s.action === 'run' ? { action: 'run', r: s.r, deferred: false } : s;
  }
  if (r.decision === 'BLOCK' || r.decision === 'ASK') {
    const unknownCwd = input.cwdUnknown === true && r.ops.some((o) => o.decision === r.decision && o.undeterminable === 'unknown-cwd');
    return { action: 'refuse', decision: r.decision, code: r.code, explanation: r.explanation, ...(unknownCwd ? { unknownCwd: true as const } : {}) };
  }
  const done = enforce(r, input.text, config);
  if (done.decision === 'BLOCK' || done.decision === 'ASK') return { action: 'refuse', decision: done.decision, code: done.code, explanation: done.explanation };
  return { action: 'run', r: done, deferred: false };
}

export function hookShell(input: HookInput, ctx: HookContext): number {
  // Redirections first: what they would truncate is kept before the command runs.
  if (input.overwrites && input.overwrites.length > 0) {
    const refused = keepRedirected({ shell: input.shell, cwd: input.cwd, text: input.text, overwrites: input.overwrites }, ctx.env, ctx.io.stderr);
    if (refused) return say(ctx, refused, input.text);
    if (input.overwriteOnly) return EXIT.OK;
  }
  // The shells' own text: POSIX whatever AGENT_GUARD_DIALECT says (it selects the dialect of text a
  // harness or `check` is given).
  const v = checkText({ text: input.text, cwd: input.cwd, shims: input.shims, dialect: 'posix', hooked: true }, ctx.env, { tamper: true, ask: { tty: input.interactive, grant: true, entry: 'hook-shell' } });
  if (v.action === 'run') {
    if (v.r && !v.deferred) notice(ctx.env, input.cwd, keptBy(v.r), ctx.io.stderr);
    return EXIT.OK;
  }
  return say(ctx, v, input.text);
}
