// The pre-scanner and the tokenizer: structure, not decisions.
import { describe, expect, it } from 'vitest';
import { scan } from '../../src/classifier/posix/scan.js';
import { quoteArgv, tokenize } from '../../src/classifier/posix/tokenize.js';
import { decodeWord } from '../../src/classifier/posix/words.js';

/** Each simple command of a line as its decoded words (values). */
function commands(text: string): string[][] {
  const s = scan(text);
  return tokenize(s.text).map((c) => c.words.map((w) => decodeWord(w, { scan: s, values: new Map(), home: '/home/u' }).value));
}

describe('separators', () => {
  it.each([
    ['a; b', [['a'], ['b']]],
    ['a && b || c', [['a'], ['b'], ['c']]],
    ['a | b |& c', [['a'], ['b'], ['c']]],
    ['a & b', [['a'], ['b']]],
    ['a\nb', [['a'], ['b']]],
    ['a &&\nb', [['a'], ['b']]],
    ['a |\n  b', [['a'], ['b']]],
    ['a\n\n\nb', [['a'], ['b']]],
    ['(a; b) && { c; }', [['a'], ['b'], ['c']]],
    ['if a; then b; else c; fi', [['a'], ['b'], ['c']]],
    ['while a; do b; done', [['a'], ['b']]],
  ])('%j', (text, expected) => {
    expect(commands(text)).toEqual(expected);
  });
  it('records connectors, depth and scope', () => {
    const s = scan('a && (b; (c)) | d');
    const cmds = tokenize(s.text);
    expect(cmds.map((c) => [c.connector, c.depth])).toEqual([
      ['start', 0],
      ['start', 1],
      ['start', 2],
      ['|', 0],
    ]);
    expect(cmds.map((c) => c.scope.split("/").length)).toEqual([1, 2, 3, 1]);
    expect(cmds[0]!.scope).toBe(cmds[3]!.scope);
  });
});

describe('words', () => {
  it.each([
    ['rm "a b" c', ['rm', 'a b', 'c']],
    [`rm 'a'"b"c`, ['rm', 'abc']],
    ['rm a\\ b', ['rm', 'a b']],
    ['rm x\\\ny', ['rm', 'xy']],
    ['rm "x\\\ny"', ['rm', 'xy']],
    [`rm 'x\\\ny'`, ['rm', 'x\\\ny']],
    ['echo a#b # c', ['echo', 'a#b']],
    ['echo "#" \\#', ['echo', '#', '#']],
    ["echo $'a\\tb'", ['echo', 'a\tb']],
    ['echo "a\\b"', ['echo', 'a\\b']],
    ['echo "\\$x"', ['echo', '$x']],
    // Inside double quotes \` is a literal backquote (the shell drops the backslash).
    ['rm "a\\`b" a\\`b', ['rm', 'a`b', 'a`b']],
    ['rm \\*', ['rm', '*']],
    ['echo $', ['echo', '$']],
    ['rm ~ ~/x "~/y" a~', ['rm', '/home/u', '/home/u/x', '~/y', 'a~']],
  ])('%j', (text, expected) => {
    expect(commands(text)).toEqual([expected]);
  });
  it('marks unquoted patterns only', () => {
    const s = scan(`rm *.log '*.log' a? [ab] "[ab]" {a,b} {} x{1..3} \\*`);
    const words = tokenize(s.text)[0]!.words.map((w) => decodeWord(w, { scan: s, values: new Map(), home: null }));
    expect(words.map((w) => w.glob)).toEqual([false, true, false, true, true, false, true, false, true, false]);
  });
  it('marks expansions dynamic unless the value table settles them', () => {
    const s = scan('rm $A "$B" ${C} "$D/x" $1 $(e) `f` $((1+1))');
    const values = new Map<string, string | null>([['B', 'bee'], ['D', 'a b']]);
    const words = tokenize(s.text)[0]!.words.map((w) => decodeWord(w, { scan: s, values, home: null }));
    expect(words.map((w) => [w.value, w.dynamic])).toEqual([
      ['rm', false], ['', true], ['bee', false], ['', true], ['a b/x', false], ['', true], ['', true], ['', true], ['', true],
    ]);
  });
});

describe('redirections', () => {
  it('keeps the fd of 2> and &> apart from arguments', () => {
    const s = scan('cmd 2 >f 2>&1 &>g 3<h <<<str');
    const c = tokenize(s.text)[0]!;
    expect(c.words).toEqual(['cmd', '2']);
    expect(c.redirects.map((r) => [r.op, r.fd, r.target])).toEqual([
      ['>', null, 'f'],
      ['>&', '2', '1'],
      ['>', '&', 'g'],
      ['<', '3', 'h'],
      ['<<<', null, 'str'],
    ]);
  });
});

describe('substitutions and heredocs', () => {
  it('extracts bodies with their kind, nested and quoted', () => {
    const s = scan('echo $(a "$(b)") `c` <(d) >(e) "$(f)" $((1 + $(g))) ${x:-$(h)}');
    expect(s.subs.map((x) => [x.kind, x.body])).toEqual([
      ['command', 'a "$(b)"'],
      ['backtick', 'c'],
      ['process', 'd'],
      ['process', 'e'],
      ['command', 'f'],
      ['arith', '1 + $(g)'],
      ['param', 'x:-$(h)'],
    ]);
    expect(s.unbalanced).toBe(false);
  });
  it('reads heredoc bodies and keeps them out of the command stream', () => {
    const s = scan("cat <<EOF >out; cat <<-'X'\nline $(a)\nEOF\n\tbody\n\tX\nrm -rf build");
    expect(s.heredocs).toEqual([
      { delimiter: 'EOF', quoted: false, body: 'line $(a)', terminated: true },
      { delimiter: 'X', quoted: true, body: 'body', terminated: true },
    ]);
    expect(commands("cat <<EOF\nrm -rf /\nEOF\nrm -rf build")).toEqual([['cat'], ['rm', '-rf', 'build']]);
  });
  it.each(['echo "abc', "echo 'abc", 'echo $(abc', 'echo `abc', 'echo ${abc', 'cat <(ls', 'cat <<'])('reports %j as unbalanced', (text) => {
    expect(scan(text).unbalanced).toBe(true);
  });
});

describe('opaque structure', () => {
  it.each([
    ['case $x in a) rm y;; esac', 'case'],
    ['f() { rm y; }', 'function'],
    ['function f { rm y; }', 'function'],
  ])('%j', (text, kind) => {
    const cmds = tokenize(scan(text).text);
    expect(cmds.some((c) => c.opaque === kind)).toBe(true);
  });
});

describe('an argv quoted back into text', () => {
  it.each([
    [['rm', '-rf', 'my dir', 'a;b', '*.log', '~/x', '$HOME', "it's", 'say "hi"', 'back\\slash', 'two\nlines', '#tag', '', '{a,b}', '[x]', '!bang', 'tab\there']],
    [['rm', "it's `x`", "a'b`c"]],
  ])('reads back to exactly the same argv', (argv) => {
    const s = scan(quoteArgv(argv));
    const words = tokenize(s.text).flatMap((c) => c.words.map((w) => decodeWord(w, { scan: s, values: new Map(), home: '/home/u' })));
    expect(words.map((w) => w.value)).toEqual(argv);
    expect(words.some((w) => w.glob || w.dynamic)).toBe(false);
  });
});
