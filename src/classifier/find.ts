// find: starting points, then the expression. `-delete` and `-exec`/`-execdir`/`-ok`/`-okdir` running a
// destructive program make the effect depend on what find matches at run time (rule 2).
import type { TargetSpec, Undeterminable, Word } from './types.js';
import { isUndeterminable, targetOf } from './kit.js';

export interface FindFacts {
  deletes: boolean;
  /** The program an -exec-family action runs, when that program is destructive. */
  execDestructive: string | null;
  startingPoints: TargetSpec[];
  undeterminable: Undeterminable | null;
}

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export function classifyFind(args: Word[], cwd: string | null, isDestructive: (words: Word[]) => string | null): FindFacts {
  const res: FindFacts = { deletes: false, execDestructive: null, startingPoints: [], undeterminable: null };
  let k = 0;
  // leading options -H -L -P -D debugopts -Olevel
  while (k < args.length && /^-(H|L|P|D|O\d*)$/.test(args[k]!.value)) k += args[k]!.value === '-D' ? 2 : 1;
  for (; k < args.length; k++) {
    const w = args[k]!;
    if (!w.dynamic && (w.value.startsWith('-') || w.value === '(' || w.value === '!' || w.value === ',')) break;
    const t = targetOf(w, cwd);
    if (isUndeterminable(t)) res.undeterminable ??= t;
    else res.startingPoints.push(t);
  }
  for (; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === '-delete') res.deletes = true;
    if (EXEC_ACTIONS.has(v)) {
      const cmd: Word[] = [];
      let j = k + 1;
      for (; j < args.length; j++) {
        const x = args[j]!.value;
        if (x === ';' || (x === '+' && args[j - 1]?.value === '{}')) break;
        cmd.push(args[j]!);
      }
      const program = isDestructive(cmd);
      if (program !== null) res.execDestructive ??= program;
      k = j;
    }
  }
  return res;
}
