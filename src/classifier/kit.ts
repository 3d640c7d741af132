// The kit every dialect's walker builds with: the depth limit, an Op with every fact at its neutral
// value and the opaque/indirect builders on it, a literal Word, operand → target, and the line's
// ops as a Classification. (The one git reader is gitops.ts; the program name lists, names.ts.)
import type { Classification, Op, OpKind, TargetSpec, Undeterminable, UndeterminableReason, Word } from './types.js';
import { followsLink, joinRaw, normalizeAbs } from './paths.js';

/** How deep `bash -c`, `cmd /c`, `pwsh -Command`, eval, substitutions, blocks and git aliases are
 *  followed before the text counts as unreadable. */
export const MAX_DEPTH = 8;

/** Where an op runs and what the line did before it (shapes F1/F2). */
export interface OpPlace {
  cwd: string | null;
  cdBefore: boolean;
  createBefore: boolean;
  wrappers?: readonly string[];
}

export interface OpInit extends OpPlace {
  program: string;
  kind: OpKind;
  argv: string[];
}

export function makeOp(init: OpInit): Op {
  return {
    index: 0,
    program: init.program,
    kind: init.kind,
    argv: init.argv,
    wrappers: init.wrappers ? [...init.wrappers] : [],
    cwd: init.cwd,
    dryRun: false,
    noTargets: false,
    recursive: false,
    targets: [],
    undeterminable: null,
    cdBefore: init.cdBefore,
    createBefore: init.createBefore,
  };
}

/** An op at a place. (Fields are copied one by one: an object spread here is a slow path in V8 once
 *  places of several shapes reach it, measured at several µs per op.) */
export function placedOp(program: string, kind: OpKind, argv: string[], at: OpPlace): Op {
  return makeOp({ program, kind, argv, cwd: at.cwd, cdBefore: at.cdBefore, createBefore: at.createBefore, wrappers: at.wrappers });
}

/** Text that could not be read as commands (or was read and found destructive where its timing or
 *  inputs are unknown): undeterminable, with the text kept as `inner`. */
export function opaqueOp(program: string, text: string, why: Undeterminable, at: OpPlace, argv: string[] = [text]): Op {
  const op = placedOp(program, 'opaque', argv, at);
  op.undeterminable = why;
  op.inner = text;
  return op;
}

/** A program that runs text (`bash -c`, `eval`, `cmd /c`, `Invoke-Expression`, a `!` git alias)
 *  holding a destructive op: undeterminable as a whole. */
export function indirectOp(program: string, inner: string, reason: UndeterminableReason, detail: string, at: OpPlace, argv: string[]): Op {
  const op = placedOp(program, 'indirect', argv, at);
  op.inner = inner;
  op.undeterminable = { reason, detail };
  return op;
}

/** An op that changes or may change data when run (as opposed to a dry run or a call with nothing to do). */
export function isEffective(op: Op): boolean {
  return op.undeterminable !== null || (!op.dryRun && !op.noTargets);
}

/** What a nested text's first effective op reads as, for a message. */
export function describeOp(op: Op): string {
  return op.argv.join(' ') || op.program;
}

export function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

/** A word whose value is known (`dynamic` when it holds a variable or expression the lexer left unresolved). */
export function literalWord(value: string, display: string = value, dynamic = false, glob = false, arg?: number): Word {
  return { value, display, dynamic, glob, subs: [], vars: [], arg };
}

/** Literal words for a concrete argv, each carrying its index. */
export function argvWords(argv: readonly string[]): Word[] {
  return argv.map((a, i) => literalWord(a, a, false, false, i));
}

export function dynamicReason(w: Word): Undeterminable {
  return w.subs.length > 0
    ? { reason: 'substitution', detail: `${w.display} is produced by a command substitution` }
    : { reason: 'variable', detail: `${w.display} depends on a value that is not known before the command runs` };
}

/** A POSIX path operand as a target; an Undeterminable when it cannot be placed. */
export function targetOf(w: Word, cwd: string | null): TargetSpec | Undeterminable {
  if (w.dynamic) return dynamicReason(w);
  const v = w.value;
  if (!v.startsWith('/') && cwd === null) {
    return { reason: 'unknown-cwd', detail: `${w.display} is relative to a directory that is not known before the command runs` };
  }
  const joined = joinRaw(cwd ?? '/', v);
  return { raw: w.display, arg: w.arg, path: normalizeAbs(joined), joined, glob: w.glob, followsLink: followsLink(v) };
}

export function isUndeterminable(x: TargetSpec | Undeterminable): x is Undeterminable {
  return 'reason' in x;
}

/** A line's ops as a Classification, the same for every dialect: ops numbered in order, and a
 *  `git reset --hard` that is not a command of its own (or runs under a wrapper) made undeterminable —
 *  its snapshot is taken for the line, not for that one command. */
export function finishClassification(ops: Op[], commandCount: number, unbalanced: boolean): Classification {
  ops.forEach((o, i) => {
    o.index = i;
    if (o.kind === 'git-reset-hard' && (commandCount > 1 || o.wrappers.length > 0)) {
      o.undeterminable ??= {
        reason: 'reset-not-standalone',
        detail: commandCount > 1 ? 'git reset --hard is compensable only as a command of its own' : `git reset --hard is compensable only unwrapped (not under ${o.wrappers.join(' ')})`,
      };
    }
  });
  return { ops, commandCount, unbalanced };
}
