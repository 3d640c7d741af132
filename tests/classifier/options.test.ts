// The one option reader (src/classifier/options.ts): getopt_long's grammar over spec tables.
import { describe, expect, it } from 'vitest';
import { OptionReader, type OptionItem, type OptionSpec } from '../../src/classifier/options.js';
import { gitSubcommandIndex } from '../../src/classifier/git.js';
import { readRm } from '../../src/classifier/rm.js';
import { readShellArgs } from '../../src/classifier/shells.js';

/** Items in a compact form: `-x`, `-n=3@2` (value and its word), `--name`, `--name=v`, `op:x`, `--`. */
function read(words: string[], spec: OptionSpec): string[] {
  return new OptionReader(words, spec).all().map((i: OptionItem) => {
    if (i.kind === 'operand') return `op:${i.value}`;
    if (i.kind === 'end') return '--';
    const head = i.kind === 'short' ? `${i.sign}${i.name}${i.known ? '' : '?'}` : `--${i.name}${i.status === 'ok' ? '' : `(${i.status})`}`;
    const value = i.value === undefined ? '' : `=${i.value}${i.valueWord === undefined ? '' : `@${i.valueWord}`}`;
    return head + value;
  });
}

const GNU: OptionSpec = { shortFlags: 'rfv', shortValues: 'n', longFlags: ['recursive', 'force', 'verbose', 'version'], longValues: ['size'], longOptional: ['interactive'], permute: true, abbreviations: true };

describe('short options', () => {
  it('cluster; a value takes the rest of the cluster or the next word', () => {
    expect(read(['-rf', '-n3', '-vn', '4', 'x'], GNU)).toEqual(['-r', '-f', '-n=3', '-v', '-n=4@3', 'op:x']);
  });
  it('an unknown letter is reported and the cluster goes on', () => {
    expect(read(['-rzf'], GNU)).toEqual(['-r', '-z?', '-f']);
  });
  it('a value at the end of the words is missing', () => {
    expect(read(['-n'], GNU)).toEqual(['-n']);
  });
  it('without clusters a short option is a word of its own (git global options)', () => {
    expect(read(['-C', 'dir', '-Cdir', '-pP'], { shortFlags: 'pP', shortValues: 'C', clusters: false })).toEqual(['-C=dir@1', '-Cdir?', '-pP?']);
  });
  it('a next-word value is the next word wherever the letter sits (bash -oc NAME TEXT)', () => {
    expect(read(['-oc', 'posix', 'text'], { shortFlags: 'c', nextWordValues: 'o' })).toEqual(['-o=posix@1', '-c', 'op:text']);
    expect(read(['+o', 'posix', '-c', 'text'], { shortFlags: 'c', nextWordValues: 'o', plus: true })).toEqual(['+o=posix@1', '-c', 'op:text']);
  });
});

describe('long options', () => {
  it('take `=value` or the next word when they need a value; an optional value only with `=`', () => {
    expect(read(['--size=3', '--size', '4', '--interactive', 'x', '--interactive=never'], GNU)).toEqual(['--size=3', '--size=4@2', '--interactive', 'op:x', '--interactive=never']);
  });
  it('a flag given a value is reported (getopt refuses the call)', () => {
    expect(read(['--force=1'], GNU)).toEqual(['--force(unexpected-value)=1']);
  });
  it('abbreviate to an unambiguous prefix; an exact name wins; an ambiguous one is reported', () => {
    expect(read(['--recur', '--fo', '--si', '5'], GNU)).toEqual(['--recursive', '--force', '--size=5@3']);
    expect(read(['--ver'], GNU)).toEqual(['----ver(ambiguous)']);
    expect(read(['--verbose'], { ...GNU, longFlags: ['verbose', 'verbose-all'] })).toEqual(['--verbose']);
  });
  it('abbreviations only where the program allows them', () => {
    expect(read(['--recur'], { ...GNU, abbreviations: false })).toEqual(['----recur(unknown)']);
  });
  it('a value option at the end of the words is missing its value', () => {
    expect(read(['--size'], GNU)).toEqual(['--size(missing-value)']);
  });
});

describe('operands', () => {
  it('`--` ends the options; `-` is an operand', () => {
    expect(read(['-r', '--', '-f', '-'], GNU)).toEqual(['-r', '--', 'op:-f', 'op:-']);
    expect(read(['-', '-r'], GNU)).toEqual(['op:-', '-r']);
  });
  it('GNU permutation reads options after operands; without it the first operand ends them', () => {
    expect(read(['x', '-r'], GNU)).toEqual(['op:x', '-r']);
    expect(read(['x', '-r'], { ...GNU, permute: false })).toEqual(['op:x', 'op:-r']);
  });
  it('the caller can peek and skip whole words (an expansion, `nice -10`)', () => {
    const r = new OptionReader(['-10', '-r', 'x'], GNU);
    expect(r.peek()).toBe('-10');
    r.skip();
    expect(r.next()).toMatchObject({ kind: 'short', name: 'r', word: 1 });
    expect(r.index).toBe(2);
  });
});

describe('what the shims need from a concrete argv', () => {
  it('readRm: option words, operands, and the flags that change what rm does', () => {
    expect(readRm(['-rf', 'a', '--', '-b'])).toEqual({ options: [0, 2], operands: [{ i: 1, value: 'a' }, { i: 3, value: '-b' }], recursive: true, dir: false, interactive: false, verbose: false, unknown: false });
    expect(readRm(['-i', 'a', '-f'])).toMatchObject({ interactive: false });
    expect(readRm(['--interactive=never', '--recur', '-d', 'a'])).toMatchObject({ interactive: false, recursive: true, dir: true, unknown: false });
    expect(readRm(['-z', 'a'])).toMatchObject({ unknown: true });
  });
  it('gitSubcommandIndex: past the global options; none when git would run nothing', () => {
    expect(gitSubcommandIndex(['-C', 'x', '-c', 'a=b', '--git-dir=/g', '--no-pager', 'clean', '-fd'])).toBe(6);
    expect(gitSubcommandIndex(['--work-tree', 'w', 'reset'])).toBe(2);
    expect(gitSubcommandIndex(['--version'])).toBe(-1);
    expect(gitSubcommandIndex(['-Cx', 'clean'])).toBe(-1);
  });
  it('readShellArgs: -c text, a script, or standard input', () => {
    const w = (...v: string[]) => v.map((value) => ({ value, dynamic: false }));
    expect(readShellArgs(w('-c', 'rm x'))).toEqual({ mode: 'command', at: 1, options: ['-c'] });
    expect(readShellArgs(w('-oc', 'posix', 'rm x'))).toEqual({ mode: 'command', at: 2, options: ['-o posix', '-c'] });
    expect(readShellArgs(w('-e', '--rcfile', 'rc', 'script.sh'))).toEqual({ mode: 'script', at: 3, options: ['-e', '--rcfile rc'] });
    expect(readShellArgs(w('-s', 'arg'))).toEqual({ mode: 'stdin', at: 1, options: ['-s'] });
    expect(readShellArgs(w('--command=rm x'))).toEqual({ mode: 'command', at: 0, text: 'rm x', options: ['--command rm x'] });
    // (zsh's --emulate takes its value; +o NAME; a cluster is one entry per letter)
    expect(readShellArgs(w('--emulate', 'sh', '-c', 'x'))).toEqual({ mode: 'command', at: 3, options: ['--emulate sh', '-c'] });
    expect(readShellArgs(w('+o', 'rcs', '-pc', 'x'))).toEqual({ mode: 'command', at: 3, options: ['+o rcs', '-p', '-c'] });
  });
});
