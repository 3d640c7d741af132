// The check of a command text, for every text entry point (the bash/zsh hooks, src/shell-hooks/; the
// harness adapters, src/harness/): decide the text, then compensate, refuse, or — with the PATH
// shims first on PATH — defer what the shims will see with its concrete argv: an operation run by a
// bare name that has a shim, with no bypass in the line. What bypasses the shims (`/bin/rm`,
// `command -p rm`, `env -i …`, `PATH=… rm`, `busybox rm`, `sudo rm`) is compensated here when its
// effect is known and refused when not, and what no shim can see (the compound shapes of the line)
// is refused here. docs/shell-hooks.md, docs/harnesses.md.
import { loadConfig, runtimeGuards, type Env } from '../config.js';
import type { CheckResult, OpResult } from '../engine.js';
import type { UndeterminableReason } from '../classifier/types.js';
import { DYNAMIC_PROGRAM, readShellArgs } from '../classifier/index.js';
import { explain, type ReasonCode } from '../policy/reasons.js';
import { settleAsk, type AskPolicy } from '../grants/settle.js';
import { decideLine, enforce, needsCompensation, relocatesRegenerable } from './index.js';
import { SHIMMED, tampering } from './tamper.js';

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

/** Does this op reach a shim by name, so the shim will decide it on its concrete argv? */
function reachesShim(o: OpResult): boolean {
  if (o.argv[0] === undefined || o.argv[0].includes('/')) return false;
  if (SHIMMED.has(o.program)) return true;
  // xargs / parallel run their program by PATH lookup: the first bare word that has a shim.
  if (o.kind === 'stdin-fed') return o.argv.slice(1).some((a) => SHIMMED.has(a));
  return false;
}

/** A Python or Node program whose own deletion calls the runtime guard decides and compensates when
 *  they happen, on the real paths (`run` and `shell-init` put the Node preload in NODE_OPTIONS and
 *  the Python guard first on PYTHONPATH; the command inherits this environment). A deletion call read
 *  in its code is left to it: relocating the target first would make the program's own call fail on
 *  a missing path. What it hands to a shell is judged as before (a computed command line could name
 *  a program by its path, past the shims). */
function runtimeGuarded(program: string, env: Env): boolean {
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (/^python(\d+(\.\d+)*)?$/.test(name)) return runtimeGuards(env).python;
  return (name === 'node' || name === 'nodejs') && runtimeGuards(env).node;
}

/** Interpreters whose commands pass the hooks again when they run: `eval` and `source` in the same
 *  shell, and nested bash/zsh (BASH_ENV, the ZDOTDIR wrapper). `sh -c` (dash) reads neither. */
const HOOKED = new Set(['eval', 'source', '.', 'bash', 'zsh']);

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
function leftToShims(o: OpResult, input: TextInput, env: Env): boolean | 'inner' {
  if (o.kind === 'fs-delete' && runtimeGuarded(o.program, env)) {
    return o.decision === 'RELOCATE' || relocatesRegenerable(o) || SHAPES.has(o.code) || o.undeterminable !== undefined;
  }
  if (reachesShim(o)) return o.decision === 'RELOCATE' || o.decision === 'SNAPSHOT' || relocatesRegenerable(o) || SHAPES.has(o.code) || settledByArgv(o);
  if (o.kind === 'indirect' && o.inner) {
    // A trap's handler runs later, past the hooks: only the shims will see it then, so it is left to
    // them only when each of its deleting commands reaches a shim by its name.
    if (o.program === 'trap') return !o.inner.dynamic && handlerReachesShims(o.inner.text, input, env);
    if (input.hooked && HOOKED.has(o.program) && readsHook(o, input, env)) return true;
    return o.inner.dynamic || o.cwd === null ? false : 'inner';
  }
  // Compound commands a hooked shell hands over whole (zsh's `if … fi`, `{ … }`): their commands
  // come through the hook one by one. Not a zsh trap function's (`TRAPEXIT() { … }`): it runs as a
  // trap handler, past the hook, so its body is read as a `trap` handler is.
  if (input.hooked === true && o.kind === 'opaque' && o.undeterminable === 'opaque-syntax') {
    const trapFn = /(?:^|[\s;&|(`{])(?:function\s+)?TRAP[A-Z0-9]+\s*(?:\(\s*\))?\s*\{([\s\S]*)\}/.exec(input.text);
    return trapFn === null || handlerReachesShims(trapFn[1]!, input, env);
  }
  return false;
}

/** Does a nested bash or zsh load its hook? bash reads no BASH_ENV in POSIX mode (`--posix`, `-o
 *  posix`, POSIXLY_CORRECT in the environment or assigned on the line) or privileged mode (`-p`, `-o
 *  privileged`), and an interactive one (`-i`) reads ~/.bashrc instead; zsh without its start-up files
 *  (`-f`, `--no-rcs`, `-o no_rcs`, `+o rcs`, `--emulate …`) reads no ZDOTDIR. Each deleted a directory
 *  past both layers under `agent-guard run` (`bash --posix -c '/usr/bin/rm -rf keep'`). */
function readsHook(o: OpResult, input: TextInput, env: Env): boolean {
  // (the options as the classifier read them: `-pc` is `-p` and `-c`, `-oc posix` holds `-o posix`)
  const opts = readShellArgs(o.argv.slice(1).map((value) => ({ value, dynamic: false }))).options;
  if (o.program === 'bash') {
    if (env.POSIXLY_CORRECT !== undefined || /\bPOSIXLY_CORRECT\b/.test(input.text)) return false;
    return !opts.some((a) => a === '--posix' || a === '-p' || a === '-i' || /^-o (posix|privileged)$/.test(a));
  }
  if (o.program === 'zsh') {
    // (zsh option names ignore case and underscores: NO_RCS, norcs, --no-rcs)
    return !opts.some((a) => a === '-f' || /^--(no[-_]?rcs|emulate)/i.test(a) || /^-o no_?rcs$|^\+o _?rcs$/i.test(a));
  }
  return true;
}

/** Does every command of a trap's handler that is not ALLOW reach a shim by its bare name? */
function handlerReachesShims(text: string, input: TextInput, env: Env): boolean {
  if (BYPASS.test(text) || DYNAMIC_PROGRAM.test(text)) return false;
  const r = decideLine({ text, config: loadConfig(env, input.cwd), mode: 'NORMAL', cwdUnknown: true });
  return r.dialect === 'posix' && r.ops.every((o) => (o.decision === 'ALLOW' && !relocatesRegenerable(o)) || reachesShim(o));
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
    const left = pending.map((o) => leftToShims(o, input, env));
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
