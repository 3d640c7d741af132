// The argv of `find … -delete` as GNU findutils splits it (leading options, starting points, the
// expression), every expression token classified: what planFindDelete (find-plan.ts) can plan for,
// and what it refuses. Pure: nothing is read or run here. docs/find-delete.md.

export type Follow = 'P' | 'H' | 'L';
/** attr: times, link count, size (change when find deletes entries of a directory or another
 *  hard link of a file); link: -xtype and the access tests, which follow symlinks (change when a
 *  link's target is deleted); empty: -empty (changes when a directory is emptied). */
type SensitiveKind = 'attr' | 'link' | 'empty';

export interface FindArgs {
  /** Leading options as given (-H -L -P -D x -Ox --). */
  leading: string[];
  /** Starting points as given (empty: find uses "."). */
  starts: string[];
  expression: string[];
  follow: Follow;
  /** Indices in `expression` of the -delete actions. */
  deletes: number[];
  /** Tests whose value -delete itself can change, with their index and token count in `expression`. */
  sensitive: { at: number; width: number; kind: SensitiveKind; name: string; inode: boolean }[];
  /** Files named by -newer, -anewer, -cnewer, -newerXY (Y not t) and -samefile: find reads them
   *  when it starts, so a rerun needs them where they were. */
  references: string[];
  prune: boolean;
  /** -depth or -d given explicitly (find refuses -prune with -delete without it). */
  explicitDepth: boolean;
  xdev: boolean;
}

export type ParsedFind = { ok: true; find: FindArgs } | { ok: false; reason: string; hasDelete: boolean };

const OPERATORS = new Set(['(', ')', '!', '-not', '-a', '-and', '-o', '-or', ',']);
const TESTS_0 = new Set(['-empty', '-readable', '-writable', '-executable', '-true', '-false', '-prune', '-nouser', '-nogroup']);
const TESTS_1 = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname',
  '-type', '-xtype', '-size', '-newer', '-anewer', '-cnewer', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin',
  '-used', '-user', '-group', '-uid', '-gid', '-perm', '-links', '-inum', '-samefile', '-fstype',
]);
export const NEWER_XY = /^-newer[aBcm][aBcmt]$/;
const OPTIONS_0 = new Set(['-depth', '-d', '-xdev', '-mount', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-daystart', '-warn', '-nowarn']);
const OPTIONS_1 = new Set(['-maxdepth', '-mindepth', '-regextype']);
const ATTR_TESTS = new Set(['-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-used', '-newer', '-anewer', '-cnewer', '-links', '-size']);
const LINK_TESTS = new Set(['-xtype', '-readable', '-writable', '-executable']);
/** The attr tests that also change for a file when find deletes another hard link of it (its link
 *  count and ctime); -newerXY when X is c. */
const INODE_TESTS = new Set(['-ctime', '-cmin', '-cnewer', '-used', '-links']);
const inodeSensitive = (t: string): boolean => INODE_TESTS.has(t) || (NEWER_XY.test(t) && t[6] === 'c');

/** Actions and options that are refused, with their argument count and why. */
const REFUSED: Record<string, { args: number; why: string }> = {
  '-print': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-print0': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-printf': { args: 1, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-ls': { args: 0, why: 'it prints, and the enumeration would have to produce that output a second time' },
  '-fprint': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fprint0': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fls': { args: 1, why: 'it writes a file, a side effect that would happen twice' },
  '-fprintf': { args: 2, why: 'it writes a file, a side effect that would happen twice' },
  '-quit': { args: 0, why: 'it stops the traversal at a point the enumeration cannot reproduce' },
  '-follow': { args: 0, why: 'find would delete while following symbolic links' },
  '-files0-from': { args: 1, why: 'the starting points are read from a file, not from the command line' },
  '-help': { args: 0, why: 'it prints help instead of searching' },
  '--help': { args: 0, why: 'it prints help instead of searching' },
  '-version': { args: 0, why: 'it prints the version instead of searching' },
  '--version': { args: 0, why: 'it prints the version instead of searching' },
};
const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** GNU find's looks_like_expression(arg, leading=true): where the starting points end. "-" alone,
 *  ")" and "," are file names there; "!" and "(" (alone) and any "-x" start the expression. */
function startsExpression(arg: string): boolean {
  if (arg.startsWith('-')) return arg.length > 1;
  return arg === '!' || arg === '(';
}

/** Splits find's argv (without the program name) the way GNU findutils does and classifies every
 *  expression token. Refuses (ok:false) what planFindDelete cannot plan for; hasDelete tells a
 *  refusal from "no -delete here" (a command that is not ours to compensate). */
export function parseFindArgs(args: readonly string[]): ParsedFind {
  let follow: Follow = 'P';
  let i = 0;
  let leadingProblem: string | null = null;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-H' || a === '-L' || a === '-P') follow = a[1] as Follow;
    else if (a === '--') {
      i++;
      break;
    } else if (a === '-D') {
      if (i + 1 >= args.length) {
        leadingProblem ??= 'find -D needs an argument';
        i++;
        break;
      }
      leadingProblem ??= `find -D ${args[i + 1]} prints debugging output that the enumeration cannot reproduce`;
      i++;
    } else if (a.startsWith('-O')) {
      // optimisation level: no effect on what is matched (find itself rejects bad levels)
    } else break;
  }
  const leading = args.slice(0, i);
  const firstStart = i;
  while (i < args.length && !startsExpression(args[i]!)) i++;
  const starts = args.slice(firstStart, i);
  const expression = args.slice(i);

  const deletes: number[] = [];
  const sensitive: FindArgs['sensitive'] = [];
  let problem: string | null = null;
  let prune = false;
  let explicitDepth = false;
  let xdev = false;
  const references: string[] = [];
  let deleteLater = false; // a literal -delete after an unknown primary (its arity unknown)
  for (let j = 0; j < expression.length; ) {
    const t = expression[j]!;
    if (OPERATORS.has(t)) j++;
    else if (t === '-delete') {
      deletes.push(j);
      j++;
    } else if (TESTS_0.has(t) || OPTIONS_0.has(t)) {
      if (t === '-prune') prune = true;
      if (t === '-depth' || t === '-d') explicitDepth = true;
      if (t === '-xdev' || t === '-mount') xdev = true;
      if (t === '-empty') sensitive.push({ at: j, width: 1, kind: 'empty', name: t, inode: false });
      if (LINK_TESTS.has(t)) sensitive.push({ at: j, width: 1, kind: 'link', name: t, inode: false });
      j++;
    } else if (TESTS_1.has(t) || OPTIONS_1.has(t) || NEWER_XY.test(t)) {
      if (j + 1 >= expression.length) {
        problem ??= `missing argument to ${t}`;
        j++;
        continue;
      }
      if (ATTR_TESTS.has(t) || NEWER_XY.test(t)) sensitive.push({ at: j, width: 2, kind: 'attr', name: t, inode: inodeSensitive(t) });
      if (LINK_TESTS.has(t)) sensitive.push({ at: j, width: 2, kind: 'link', name: t, inode: false });
      if (t === '-newer' || t === '-anewer' || t === '-cnewer' || t === '-samefile' || (NEWER_XY.test(t) && !t.endsWith('t'))) references.push(expression[j + 1]!);
      j += 2;
    } else if (EXEC_ACTIONS.has(t)) {
      problem ??= `${t} runs a command, a side effect the enumeration would repeat (an rm it runs reaches the rm shim by itself)`;
      let k = j + 1;
      while (k < expression.length && !(expression[k] === ';' || (expression[k] === '+' && expression[k - 1] === '{}'))) k++;
      j = k + 1;
    } else if (t in REFUSED) {
      const r = REFUSED[t]!;
      problem ??= `${t}: ${r.why}`;
      j += 1 + r.args;
    } else {
      problem ??= t.startsWith('-')
        ? `unknown or unsupported find primary ${JSON.stringify(t)}`
        : `unexpected argument ${JSON.stringify(t)} in the expression (find wants the starting points before the expression)`;
      deleteLater = expression.slice(j + 1).includes('-delete');
      break;
    }
  }
  const hasDelete = deletes.length > 0 || deleteLater;
  if (!hasDelete) return { ok: false, hasDelete: false, reason: 'no -delete in the expression: not a find -delete command' };
  if (follow === 'L') leadingProblem ??= 'find -L would delete while following symbolic links';
  const reason = leadingProblem ?? problem;
  if (reason !== null) return { ok: false, hasDelete: true, reason: `cannot compensate this find -delete: ${reason}` };
  return { ok: true, find: { leading, starts, expression, follow, deletes, sensitive, references, prune, explicitDepth, xdev } };
}
