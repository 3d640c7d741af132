// Building blocks for the dialect front ends (cmd.ts, powershell.ts): an Op with every fact at its
// neutral value, and a literal Word for reusing the POSIX-side readers (classifyGit) on words a
// Windows lexer produced.
import type { Classification, Op, OpKind } from './types.js';
import type { Word } from './words.js';

export interface OpInit {
  program: string;
  kind: OpKind;
  argv: string[];
  cwd: string | null;
  cdBefore: boolean;
  createBefore: boolean;
}

export function makeOp(init: OpInit): Op {
  return {
    index: 0,
    program: init.program,
    kind: init.kind,
    argv: init.argv,
    wrappers: [],
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

/** A word whose value is known (`dynamic` when it holds a variable or expression the lexer left unresolved). */
export function literalWord(value: string, display: string = value, dynamic = false, glob = false): Word {
  return { value, display, dynamic, glob, subs: [], vars: [] };
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
