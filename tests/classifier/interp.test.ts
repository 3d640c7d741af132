// The interpreter readers (src/classifier/interp/), per language: strings (quotes, raw strings,
// template literals, heredocs, quote-like operators), comments and escapes are read exactly, so a
// deletion call written inside a string or a comment is not a call, and one written in code
// (also inside an interpolation, which is code) is. The effects are summarized as short strings:
// `delete <how> <targets>`, `shell <text>`, `exec <argv>`, `chdir <dir>`, `computed`, `unreadable`.
import { describe, expect, it } from 'vitest';
import { analyze, type Effect, type Lang } from '../../src/classifier/interp/index.js';
import { lexJs } from '../../src/classifier/interp/lex-js.js';
import { lexPerl } from '../../src/classifier/interp/lex-perl.js';
import { lexPython } from '../../src/classifier/interp/lex-python.js';
import { lexRuby } from '../../src/classifier/interp/lex-ruby.js';
import type { Lexed, StrTok } from '../../src/classifier/interp/tokens.js';

const arg = (a: { lit: string } | { computed: string }): string => ('lit' in a ? a.lit : '?');

function summary(e: Effect): string {
  switch (e.kind) {
    case 'delete':
      return `delete ${e.how} ${e.targets.map(arg).join(' ')}`.trimEnd();
    case 'shell':
      return `shell ${arg(e.text)}`;
    case 'exec':
      return `exec ${e.argv.map(arg).join(' ')}`;
    case 'chdir':
      return `chdir ${arg(e.dir)}`;
    case 'code':
      return 'code';
    case 'computed':
      return 'computed';
    case 'unreadable':
      return 'unreadable';
  }
}

const effects = (lang: Lang, code: string): string[] => analyze(lang, code).map(summary);

/** The constant values of a lexer's string tokens (null: interpolated). */
const strings = (l: Lexed): (string | null)[] => l.toks.filter((t): t is StrTok => t.k === 'str').map((t) => t.v);

type Case = [code: string, expected: string[]];

function table(lang: Lang, cases: readonly Case[]): void {
  it.each(cases.map(([c, e]) => [c, e] as const))('%s', (code, expected) => {
    expect(effects(lang, code)).toEqual(expected);
  });
}

describe('python', () => {
  describe('lexer: strings and escapes', () => {
    it('reads every string form to its value', () => {
      expect(strings(lexPython(`'a\\'b' "c\\"d" r'e\\f' b'g' u"h" '''i'j''' """k"l"""`))).toEqual(["a'b", 'c"d', 'e\\f', 'g', 'h', "i'j", 'k"l']);
    });
    it('a raw string keeps its backslash but the escaped quote does not end it', () => {
      expect(strings(lexPython(`r'a\\'b'`))).toEqual(["a\\'b"]);
    });
    it('escapes: \\n, \\x41, \\u0041, an octal, an unknown escape kept', () => {
      expect(strings(lexPython(`'\\n\\x41\\u0042\\103\\q'`))).toEqual(['\nABC\\q']);
    });
    it('an f-string is computed and its fields are code; {{ is a brace', () => {
      const t = lexPython(`f'{{x}} {os.remove("a")}'`).toks.find((x): x is StrTok => x.k === 'str')!;
      expect(t.v).toBeNull();
      expect(t.code).toEqual(['os.remove("a")']);
      expect(strings(lexPython(`f'{{literal}}'`))).toEqual(['{literal}']);
    });
    it('a # inside a string is not a comment; a comment ends at the line end', () => {
      expect(strings(lexPython(`x = '#not' # 'comment'\ny = "z"`))).toEqual(['#not', 'z']);
    });
    it('unterminated strings are errors', () => {
      expect(lexPython(`'abc`).error).not.toBeNull();
      expect(lexPython(`'''abc`).error).not.toBeNull();
      expect(lexPython(`'ab\ncd'`).error).not.toBeNull();
    });
  });
  describe('calls', () => {
    table('python', [
      [`import shutil; shutil.rmtree('src')`, ['delete rm-r src']],
      [`import shutil as sh; sh.rmtree("build")`, ['delete rm-r build']],
      [`from shutil import rmtree; rmtree('build')`, ['delete rm-r build']],
      [`import os; os.remove('a'); os.unlink('b'); os.rmdir('c')`, ['delete rm a', 'delete rm b', 'delete rmdir c']],
      [`from pathlib import Path; Path('a.txt').unlink()`, ['delete rm a.txt']],
      [`import os; os.system('rm -rf x')`, ['shell rm -rf x']],
      [`import subprocess; subprocess.run(['rm', '-rf', 'x'])`, ['exec rm -rf x']],
      [`import subprocess; subprocess.run('git clean -fd', shell=True)`, ['shell git clean -fd']],
      // Strings and comments are not calls.
      [`print('shutil.rmtree("src")')`, []],
      [`s = "os.remove('x')"  # os.remove('y')`, []],
      [`'''\nimport shutil\nshutil.rmtree('src')\n'''`, []],
      [`r"os.system('rm -rf /')"`, []],
      [`# import shutil; shutil.rmtree('src')\nprint(1)`, []],
      [`print('it\\'s os.remove("x")')`, []],
      [`print("a\\\\"); import os; os.remove('x')`, ['delete rm x']],
      // An f-string's field is code.
      [`import os; x = f"{os.remove('a')}"`, ['delete rm a']],
      // Computed targets.
      [`import shutil; shutil.rmtree(d)`, ['delete rm-r ?']],
      [`import os; os.remove(f'{d}/x')`, ['delete rm ?']],
      [`import os; os.remove('a' + d)`, ['delete rm ?']],
      // Not deletions.
      [`l = [1]; l.remove(1)`, []],
      [`import json; print(json.load(open('p.json')))`, []],
    ]);
    it('an unterminated string is unreadable', () => {
      expect(effects('python', `import os; os.remove('x)`)).toEqual(['unreadable']);
    });
  });
});

describe('node', () => {
  describe('lexer: strings, templates, regexes, comments', () => {
    it('reads quotes and escapes', () => {
      expect(strings(lexJs(`'a\\'b' "c\\"d" '\\x41\\u0042\\u{43}\\n'`))).toEqual(["a'b", 'c"d', 'ABC\n']);
    });
    it('a template literal without fields is a constant; with fields it is computed and the fields are code', () => {
      expect(strings(lexJs('`plain ${"\\`"}`'))).toEqual([null]);
      expect(strings(lexJs('`plain \\${x}`'))).toEqual(['plain ${x}']);
      const t = lexJs('`a ${fs.rmSync("x")} b`').toks.find((x): x is StrTok => x.k === 'str')!;
      expect(t.v).toBeNull();
      expect(t.code).toEqual(['fs.rmSync("x")']);
    });
    it('comments are dropped; a // inside a string is not a comment', () => {
      expect(strings(lexJs(`// 'a'\n/* 'b' */ 'http://c' /* 'd' */`))).toEqual(['http://c']);
    });
    it('a regex literal is told from division', () => {
      expect(lexJs(`x = a / b / c; y = /'/.test(z)`).error).toBeNull();
      const re = lexJs(`/rm -rf/.exec(s)`).toks.find((x): x is StrTok => x.k === 'str');
      expect(re?.flavor).toBe('regex');
    });
    it('unterminated strings, templates and comments are errors', () => {
      expect(lexJs(`'abc`).error).not.toBeNull();
      expect(lexJs('`abc').error).not.toBeNull();
      expect(lexJs('/* abc').error).not.toBeNull();
    });
  });
  describe('calls', () => {
    table('node', [
      [`require('fs').rmSync('src', {recursive: true, force: true})`, ['delete rm-r src']],
      [`require('fs').rmSync('src', {recursive: true})`, ['delete rm-r src']],
      [`const fs = require('node:fs'); fs.unlinkSync('a.ts')`, ['delete rm a.ts']],
      [`const {rmSync} = require('fs'); rmSync('build', {recursive: true})`, ['delete rm-r build']],
      [`require('fs').promises.rm('src', {recursive: true})`, ['delete rm-r src']],
      [`require('fs-extra').removeSync('src')`, ['delete rm-rf src']],
      [`require('child_process').execSync('git reset --hard')`, ['shell git reset --hard']],
      [`require('child_process').spawnSync('rm', ['-rf', 'x'])`, ['exec rm -rf x']],
      // Strings, templates and comments are not calls.
      [`console.log("require('fs').rmSync('src')")`, []],
      ['console.log(`fs.unlinkSync("a") is ${"text"}`)', []],
      [`// require('fs').rmSync('src')\nconsole.log(1)`, []],
      [`/* require('fs').unlinkSync('a') */ console.log(2)`, []],
      [`const re = /fs.rmSync('x')/; console.log(re)`, []],
      [`console.log('it\\'s fs.rmSync("x")')`, []],
      // A template's field is code.
      ['console.log(`${require("fs").unlinkSync("a")}`)', ['delete rm a']],
      // Computed targets.
      [`require('fs').rmSync(process.argv[1], {recursive: true})`, ['delete rm-r ?']],
      ['require("fs").unlinkSync(`${d}/x`)', ['delete rm ?']],
      // Not deletions.
      [`const s = new Set([1]); s.delete(1)`, []],
      [`console.log(require('fs').readdirSync('.'))`, []],
    ]);
  });
});

describe('perl', () => {
  describe('lexer: quotes, quote-like operators, heredocs, comments', () => {
    it("'…' escapes only \\\\ and \\'; \"…\" resolves escapes", () => {
      expect(strings(lexPerl(`'a\\'b\\n' "c\\td"`))).toEqual(["a'b\\n", 'c\td']);
    });
    it('q{} nests brackets; qq with a variable is computed', () => {
      expect(strings(lexPerl(`q{a{b}c} q(x) qq{$y}`))).toEqual(['a{b}c', 'x', null]);
    });
    it('qw is a word list', () => {
      const t = lexPerl(`qw(a b  c)`).toks.find((x): x is StrTok => x.k === 'str')!;
      expect(t.words).toEqual(['a', 'b', 'c']);
    });
    it('a heredoc body is a string; # in it is not a comment', () => {
      expect(strings(lexPerl(`print <<'EOT';\n# unlink "x"\nEOT\n`))).toEqual(['# unlink "x"\n']);
    });
    it('a # comment ends at the line end; $# is not a comment', () => {
      expect(strings(lexPerl(`# 'a'\nmy $n = $#list; 'b'`))).toEqual(['b']);
    });
    it('an unterminated string or heredoc is an error', () => {
      expect(lexPerl(`'abc`).error).not.toBeNull();
      expect(lexPerl(`q{abc`).error).not.toBeNull();
      expect(lexPerl(`print <<EOT;\nabc\n`).error).not.toBeNull();
    });
  });
  describe('calls', () => {
    table('perl', [
      [`unlink "README.md"`, ['delete rm README.md']],
      [`unlink("a", 'b')`, ['delete rm a b']],
      [`rmdir "src"`, ['delete rmdir src']],
      [`use File::Path qw(rmtree); rmtree("build")`, ['delete rm-r build']],
      [`File::Path::remove_tree("build")`, ['delete rm-r build']],
      [`system("rm -rf src")`, ['shell rm -rf src']],
      [`system("rm", "-rf", "src")`, ['exec rm -rf src']],
      [`print \`git clean -fd\``, ['shell git clean -fd']],
      [`my $x = qx{rm -rf build}`, ['shell rm -rf build']],
      // Strings and comments are not calls.
      [`print "unlink(\\"x\\") deletes\\n"`, []],
      [`my $s = q{unlink "a"}`, []],
      [`# unlink "a"\nprint 1`, []],
      [`print <<'EOT';\nunlink "a";\nEOT\n`, []],
      [`my %h = (s => 1); print $h{s}`, []],
      // Interpolated code is code; a variable is computed.
      [`print "@{[ unlink 'a' ]}"`, ['delete rm a']],
      [`unlink "$dir/x"`, ['delete rm ?']],
    ]);
  });
});

describe('ruby', () => {
  describe('lexer: quotes, % literals, heredocs, comments', () => {
    it("'…' escapes only \\\\ and \\'; \"…\" resolves escapes and interpolates #{}", () => {
      expect(strings(lexRuby(`'a\\'b\\n' "c\\td"`))).toEqual(["a'b\\n", 'c\td']);
      const t = lexRuby(`"x #{File.delete('a')} y"`).toks.find((x): x is StrTok => x.k === 'str')!;
      expect(t.v).toBeNull();
      expect(t.code).toEqual([`File.delete('a')`]);
    });
    it('%q, %Q, %w literals; a bracket delimiter nests', () => {
      expect(strings(lexRuby(`%q{a{b}}; %Q(c)`))).toEqual(['a{b}', 'c']);
      // After a literal value, % is the operator: `'a' %Q(c)` is a format, not a second string.
      expect(strings(lexRuby(`'a' %Q(c)`))).toEqual(['a']);
      const w = lexRuby(`%w[a b]`).toks.find((x): x is StrTok => x.k === 'str')!;
      expect(w.words).toEqual(['a', 'b']);
    });
    it('a heredoc body is a string', () => {
      expect(strings(lexRuby(`puts <<~EOS\n  # FileUtils.rm_rf("x")\nEOS\n`))).toHaveLength(1);
    });
    it('a # comment is dropped; #{ in a single-quoted string is text', () => {
      expect(strings(lexRuby(`# 'a'\nputs '#{b}'`))).toEqual(['#{b}']);
    });
    it('an unterminated string is an error', () => {
      expect(lexRuby(`'abc`).error).not.toBeNull();
      expect(lexRuby(`%q{abc`).error).not.toBeNull();
    });
  });
  describe('calls', () => {
    table('ruby', [
      [`require "fileutils"; FileUtils.rm_rf("src")`, ['delete rm-rf src']],
      [`FileUtils.rm_r "build"`, ['delete rm-r build']],
      [`FileUtils.rm_f %w[a b]`, ['delete rm-f a b']],
      [`File.delete("README.md")`, ['delete rm README.md']],
      [`Dir.rmdir("build")`, ['delete rmdir build']],
      [`system("rm -rf src")`, ['shell rm -rf src']],
      [`system("git", "reset", "--hard")`, ['exec git reset --hard']],
      [`puts %x(git clean -fdx)`, ['shell git clean -fdx']],
      // Strings and comments are not calls.
      [`puts "FileUtils.rm_rf('/') would be bad"`, []],
      [`puts 'File.delete("x")'`, []],
      [`# FileUtils.rm_rf("src")\nputs 1`, []],
      [`puts <<~EOS\n  File.delete("a")\nEOS\n`, []],
      [`h = {a: 1}; h.delete(:a)`, []],
      // Interpolated code is code; an interpolated target is computed.
      [`x = "#{File.delete('a')}"`, ['delete rm a']],
      [`FileUtils.rm_rf("#{d}/build")`, ['delete rm-rf ?']],
    ]);
  });
});
