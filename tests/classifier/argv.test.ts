// Argv as a first-class input: `classify({ argv, cwd })` reads a concrete argv (what a PATH shim
// receives) without quoting it back into text, and every target carries its argv index (`arg`, the
// shim's `keep` index). It must give the same ops as `classify(quoteArgv(argv))` wherever that text
// means the same argv; where it does not, the argv reading is the exact one.
import { describe, expect, it } from 'vitest';
import { classify, quoteArgv } from '../../src/classifier/index.js';
import type { Classification, ClassifyOptions, Op } from '../../src/classifier/types.js';
import { scan } from '../../src/classifier/posix/scan.js';
import { tokenize } from '../../src/classifier/posix/tokenize.js';
import { assignmentName, decodeWord } from '../../src/classifier/posix/words.js';
import { languageOf } from '../../src/classifier/interp/index.js';
import { README_TABLE, RULE_TABLE } from '../corpus/reference.js';
import * as tricky from '../corpus/tricky.js';
import type { Case } from '../corpus/types.js';
import { FIXTURE_OPERANDS, Grammar, Rng, SEED_CORPUS, mutate, weirdName } from '../helpers/fuzz-gen.js';

const opts: ClassifyOptions = { cwd: '/ws', home: '/home/u', resolveGitAlias: (n) => ({ nuke: 'clean -fdx', bang: '!rm -rf x' })[n] ?? null };

/** Words a shell reads as syntax in command position (argv[0] as a program is not syntax). */
const RESERVED = new Set(['!', '{', '}', 'then', 'else', 'elif', 'do', 'if', 'while', 'until', 'fi', 'done', 'case', 'function', 'coproc', 'for', 'select', '[[', 'time']);

/** The argvs of a line's simple commands whose words are all literal (what a shim would receive). */
function literalArgvs(line: string): string[][] {
  const sr = scan(line);
  if (sr.unbalanced || sr.foreignMarkers) return [];
  const out: string[][] = [];
  for (const cmd of tokenize(sr.text)) {
    if (cmd.opaque || cmd.loopVar !== undefined) continue;
    let k = 0;
    while (k < cmd.words.length && assignmentName(cmd.words[k]!) !== null) k++;
    const words = cmd.words.slice(k).map((raw) => decodeWord(raw, { scan: sr, values: new Map(), home: null }));
    if (words.length === 0 || words.some((w) => w.dynamic || w.glob || w.subs.length > 0)) continue;
    out.push(words.map((w) => w.value));
  }
  return out;
}

/** The argv reading and the text reading agree only where quoteArgv's text means the argv: a
 *  reserved word in program position is syntax to the shell (shell-quote does not quote it). */
function textMeansArgv(argv: readonly string[]): boolean {
  return argv.length > 0 && !RESERVED.has(argv[0]!);
}

function comparable(c: Classification): unknown {
  return c.ops.map((o: Op) => ({ ...o, undeterminable: o.undeterminable?.reason ?? null }));
}

function corpusArgvs(): string[][] {
  const cases: Case[] = [...README_TABLE, ...RULE_TABLE, ...Object.values(tricky).flat()];
  return [...cases.map((c) => c.cmd), ...SEED_CORPUS].flatMap(literalArgvs);
}

function fuzzArgvs(seed: number, count: number): string[][] {
  const rng = new Rng(seed);
  const g = new Grammar(rng);
  const out: string[][] = [];
  const programs = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'sudo', 'env', 'xargs', 'bash', 'sh', 'nice', 'timeout', 'cd'];
  const options = ['-r', '-f', '-rf', '-R', '-d', '-v', '-p', '-n', '-c', '-C', '--', '-', '--recursive', '--force', '--help', '--parents', '-fdx', 'clean', 'reset', '--hard', 'checkout', 'worktree', 'remove', 'push', '-delete', '-exec', '{}', ';'];
  for (let i = 0; i < count; i++) {
    out.push(...literalArgvs(i % 2 === 0 ? g.line(rng.range(0, 2)) : mutate(rng, rng.pick(SEED_CORPUS))));
    const argv = [rng.pick(programs)];
    for (let j = 0, n = rng.range(0, 5); j < n; j++) {
      const k = rng.int(4);
      argv.push(k === 0 ? rng.pick(options) : k === 1 ? weirdName(rng) : rng.pick(FIXTURE_OPERANDS));
    }
    out.push(argv);
  }
  return out;
}

function expectSameAsText(argvs: string[][]): number {
  let compared = 0;
  const differ: string[] = [];
  for (const argv of argvs) {
    if (!textMeansArgv(argv)) continue;
    compared++;
    const a = comparable(classify({ argv }, opts));
    const t = comparable(classify(quoteArgv(argv), opts));
    if (JSON.stringify(a) !== JSON.stringify(t)) differ.push(JSON.stringify(argv));
  }
  expect(differ.slice(0, 10)).toEqual([]);
  return compared;
}

/** Every target a word names carries that word's index. A path written inside an interpreter's code
 *  (`python3 -c "os.remove('x')"`) is named by no word: it carries none. */
function expectArgIndexes(argvs: string[][]): void {
  const bad: string[] = [];
  for (const argv of argvs) {
    for (const o of classify({ argv }, opts).ops) {
      const fromCode = languageOf(o.program.slice(o.program.lastIndexOf('/') + 1)) !== null;
      for (const t of o.targets) {
        if (t.role === 'scope') continue;
        if (fromCode) {
          if (t.arg !== undefined) bad.push(`${JSON.stringify(argv)}: ${t.raw} (in code) at ${t.arg}`);
          continue;
        }
        const word = t.arg === undefined ? undefined : argv[t.arg];
        if (word === undefined || !word.startsWith(t.raw)) bad.push(`${JSON.stringify(argv)}: ${t.raw} at ${t.arg}`);
      }
    }
  }
  expect(bad.slice(0, 10)).toEqual([]);
}

describe('classify({ argv }) gives the ops classify(quoteArgv(argv)) gives', () => {
  it('over the corpus', () => {
    const argvs = corpusArgvs();
    expect(expectSameAsText(argvs)).toBeGreaterThan(400);
    expectArgIndexes(argvs);
  });
  it('over the fuzz generator', () => {
    const argvs = fuzzArgvs(0x5eed, 1500);
    expect(expectSameAsText(argvs)).toBeGreaterThan(1500);
    expectArgIndexes(argvs);
  });
});

describe('argv input', () => {
  const targets = (argv: string[], o: ClassifyOptions = opts): [string, string | null, number | undefined][] =>
    classify({ argv }, o).ops.flatMap((op) => op.targets.filter((t) => t.role !== 'scope').map((t) => [t.raw, t.path, t.arg] as [string, string | null, number | undefined]));

  it('each target carries the index of its word (wrappers included), the shim keep index', () => {
    expect(targets(['sudo', 'rm', '-rf', '--', 'a', '-b'])).toEqual([
      ['a', '/ws/a', 4],
      ['-b', '/ws/-b', 5],
    ]);
    expect(targets(['rmdir', '-p', 'a/b'])).toEqual([
      ['a/b', '/ws/a/b', 2],
      ['a', '/ws/a', 2],
    ]);
    expect(targets(['git', 'worktree', 'remove', '-f', 'trees/wt'])).toEqual([['trees/wt', '/ws/trees/wt', 4]]);
    expect(targets(['find', 'build', '-delete'])).toEqual([['build', '/ws/build', 1]]);
  });
  it('the same indexes from text, counted from the program word', () => {
    const c = classify('X=1 sudo rm -rf a b', opts);
    expect(c.ops[0]!.targets.map((t) => t.arg)).toEqual([3, 4]);
  });
  it('its cwd replaces the options’ one', () => {
    expect(targets(['rm', 'x'], opts)).toEqual([['x', '/ws/x', 1]]);
    expect(classify({ argv: ['rm', 'x'], cwd: '/other' }, opts).ops[0]!.targets[0]!.path).toBe('/other/x');
  });
  it('reads words literally: no expansion, no pattern, no syntax', () => {
    // A shim receives `~`, `*` and `$X` only when the shell left them as they are: they are names.
    expect(targets(['rm', '~', '*', '$X'])).toEqual([
      ['~', '/ws/~', 1],
      ['*', '/ws/*', 2],
      ['$X', '/ws/$X', 3],
    ]);
    expect(classify({ argv: ['rm', '*'] }, opts).ops[0]!.targets[0]!.glob).toBe(false);
    // A reserved word as argv[0] is a program name, not syntax (`then` is no command).
    expect(classify({ argv: ['then', 'rm', '-rf', '/'] }, opts).ops).toEqual([]);
    expect(classify({ argv: ['X=1', 'rm', 'a'] }, opts).ops).toEqual([]);
  });
  it('reads nested text and git the same way', () => {
    expect(classify({ argv: ['bash', '-c', 'rm -rf /'] }, opts).ops.map((o) => [o.kind, o.undeterminable?.reason])).toEqual([['indirect', 'indirect-shell']]);
    expect(classify({ argv: ['git', 'nuke'] }, opts).ops.map((o) => [o.kind, o.recursive])).toEqual([['git-clean', true]]);
    expect(classify({ argv: [] }, opts)).toEqual({ ops: [], commandCount: 0, unbalanced: false });
  });
});
