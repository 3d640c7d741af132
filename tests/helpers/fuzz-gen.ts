// Generators for the fuzz test (tests/fuzz.test.ts): a seeded PRNG, a grammar of POSIX command
// lines, a mutator, pathological inputs, and an independent (deliberately simple) lexer that says
// where the end of a line stands: inside a quote, a comment, a pending heredoc or a continuation.
// Nothing here runs a command; it only builds strings.

// ---------------------------------------------------------------------------------------------
// PRNG

/** mulberry32: a small, fast, seedable 32-bit PRNG. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A non-negative integer from the environment (decimal or 0x-hex), or the fallback when unset. */
export function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return fallback;
  const n = v.trim().toLowerCase().startsWith('0x') ? parseInt(v.trim(), 16) : parseInt(v.trim(), 10);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${v} is not a non-negative integer`);
  return n;
}

export class Rng {
  private readonly f: () => number;
  constructor(readonly seed: number) {
    this.f = mulberry32(seed);
  }
  next(): number {
    return this.f();
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.f() * n);
  }
  /** Integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.f() < p;
  }
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('pick from an empty list');
    return xs[this.int(xs.length)]!;
  }
  /** Picks `n` items (with repetition). */
  some<T>(xs: readonly T[], n: number): T[] {
    return Array.from({ length: n }, () => this.pick(xs));
  }
  /** A child generator with its own stream (so one generator's changes do not shift another's). */
  fork(salt: number): Rng {
    return new Rng((Math.imul(this.seed ^ 0x9e3779b9, 31) + salt * 0x85ebca6b) >>> 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Quoting

export function singleQuote(s: string): string {
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

export function doubleQuote(s: string): string {
  return '"' + s.replace(/(["\\$`])/g, '\\$1') + '"';
}

export function ansiQuote(s: string): string {
  let out = "$'";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\' || ch === "'") out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + "'";
}

/** Backslash-escapes every shell metacharacter (newline becomes a quoted newline). */
export function backslashQuote(s: string): string {
  if (s === '') return "''";
  return s.replace(/\n/g, "'\n'").replace(/([^A-Za-z0-9_\-./,:=@%+\n'\u0080-\uffff])/g, '\\$1');
}

export function anyQuote(r: Rng, s: string): string {
  switch (r.int(4)) {
    case 0:
      return singleQuote(s);
    case 1:
      return doubleQuote(s);
    case 2:
      return ansiQuote(s);
    default:
      return backslashQuote(s);
  }
}

// ---------------------------------------------------------------------------------------------
// The grammar

const CHARSETS = {
  plain: 'abcdefghijklmnopqrstuvwxyz0123456789_-.',
  weird: ' \t\n\r\x01\x07\x1b\x7f*?[]{}~#!$`"\'\\;&|<>()=%^,:@+',
  unicode: ['é', 'ß', 'λ', 'Ж', '中', '文', '😀', '\u200b', '\u202e', '\u00a0', '\ufeff', 'ﬁ', '\u0301', '\ud800'],
};

/** A file name with spaces, newlines, unicode or control characters (unquoted). */
export function weirdName(r: Rng): string {
  const n = r.range(1, 10);
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 5) s += r.pick([...CHARSETS.plain]);
    else if (k < 8) s += r.pick([...CHARSETS.weird]);
    else s += r.pick(CHARSETS.unicode);
  }
  return s;
}

/** Names that exist (or matter) in the fixture workspace (tests/helpers/fixture.ts). */
export const FIXTURE_OPERANDS: readonly string[] = [
  'build', 'build/out.js', 'src', 'src/a.ts', 'dist', 'node_modules', 'node_modules/x', 'old.txt', 'untracked.txt', 'empty',
  'link-out', 'link-out/', 'link-out/canary.txt', 'nogit', 'pkg/node_modules/.cache', '.agent-trash/tx-1', '.agent-trash/tx-1/file',
  '.agent-trash', '.agent-trash/audit.jsonl', 'README.md', '.gitignore', '../outside', '~/other', '../ws', './', '.git/hooks',
];

const SIMPLE_OPERANDS: readonly string[] = [
  'build', './x', '../x', '/', '/etc', '~', '~/x', '~user', '.', '..', '.git', '.agent-trash/tx', '*.log', 'a?b', '[ab]', '{a,b}',
  '$VAR', '"$VAR/x"', '${X:-y}', "'quoted word'", '"dq $x"', "$'ansi\\n'", '""', "''", '-', '--', 'x\\ y', '$HOME', '"$HOME"/x',
  '${HOME}/build', '$PWD/build', '$1', '"$@"', '$?', '${#X}', '${X%/*}', '~+', '~-', 'build/', './build/.', '/tmp', '/usr/local/x',
  '//', '/./etc/', 'a\\*b', '"*.log"', "'*'", 'build/*', 'src/{a,b}.ts', '{build,dist}', 'dist{,.bak}', '"$(pwd)"/build',
];

const SUB_CMDS: readonly string[] = ['cat list', 'git status', 'ls', 'echo build', 'pwd', 'find . -name x', 'rm -rf build', 'mktemp -d'];

interface Piece {
  text: string;
  /** Heredoc bodies (each ending with its delimiter line) the next newline must be followed by. */
  bodies: string[];
}

export type InterpLang = 'python' | 'node' | 'perl' | 'ruby';

export const INTERP_PROGRAMS: Readonly<Record<InterpLang, readonly string[]>> = {
  python: ['python3', 'python', 'python3.12', '/usr/bin/python3'],
  node: ['node', 'nodejs', '/usr/bin/node'],
  perl: ['perl', 'perl5'],
  ruby: ['ruby'],
};
const INTERP_FLAGS: Readonly<Record<InterpLang, readonly string[]>> = {
  python: ['-B', '-u', '-I', '-E', '-W ignore', '-X dev', '-O', '-V', '-m json.tool'],
  node: ['--no-warnings', '--input-type=module', '-r ./x.js', '--trace-warnings', '--check', '-v'],
  perl: ['-w', '-l', '-n', '-p', '-i.bak', '-MFile::Path', '-Mstrict', '-0777', '-F,', '-a', '-c'],
  ruby: ['-w', '-rfileutils', '-n', '-p', '-I lib', '-C src', '-Ku', '-W0', '-c'],
};
export const INTERP_CODE_FLAGS: Readonly<Record<InterpLang, readonly string[]>> = {
  python: ['-c', '-c', '-Bc', '-uc'],
  node: ['-e', '-e', '-p', '--eval', '-pe'],
  perl: ['-e', '-e', '-E', '-le', '-ne'],
  ruby: ['-e', '-e', '-ne'],
};
const INTERP_COMPUTED: Readonly<Record<InterpLang, readonly string[]>> = {
  python: ['d', "f'{d}'", "'a' + d", 'os.getcwd()', 'sys.argv[1]', "os.path.join('a', 'b')", "Path('x') / 'y'"],
  node: ['d', '`${d}/x`', "'a' + d", 'process.cwd()', 'process.argv[1]', "require('path').join('a', 'b')"],
  perl: ['$d', '"$d/x"', '$ARGV[0]', '@files', 'glob("*.o")', '<*.tmp>'],
  ruby: ['d', '"#{d}/x"', 'ARGV[0]', 'Dir.home', 'Dir["*.o"]', '%w[a b]'],
};
/** Statements with a target T and a shell string S. */
const INTERP_STATEMENTS: Readonly<Record<InterpLang, readonly string[]>> = {
  python: [
    'import shutil, os, subprocess, sys', 'shutil.rmtree(T)', 'os.remove(T)', 'os.unlink(T)', 'os.rmdir(T)', 'os.removedirs(T)', 'pathlib.Path(T).unlink()', 'Path(T).rmdir()',
    'print(T)', 'os.system(S)', 'subprocess.run(S, shell=True)', 'subprocess.run(["rm", "-rf", T])', 'subprocess.check_call(["git", "status"])', '# shutil.rmtree(T)',
    "s = 'shutil.rmtree(T)'", 'for f in os.listdir("."): os.remove(f)', 'exec("import os; os.remove(T)")', 'os.chdir(T)', 'x = f"{os.remove(T)}"', 'open(T).read()',
    '"""os.remove(T)"""', "r'\\\\'", 'l.remove(T)', 'getattr(os, "remove")(T)', 'list(map(os.remove, [T]))', 'from os import *; remove(T)',
  ],
  node: [
    "const fs = require('fs')", 'fs.rmSync(T, {recursive: true})', "require('fs').unlinkSync(T)", 'fs.promises.rm(T)', "require('child_process').execSync(S)",
    'console.log(T)', '// fs.rmSync(T)', '/* fs.unlinkSync(T) */', '`${fs.rmSync(T)}`', "require('fs-extra').removeSync(T)", 'process.chdir(T)', '[T].forEach(fs.unlinkSync)',
    '/rm -rf/.exec(T)', "const {rmSync: r} = require('fs'); r(T)", "import('fs/promises').then(m => m.rm(T))", "require('rimraf').sync(T)", 'x = 1 / 2 / 3',
    "require('child_process').spawnSync('rm', ['-rf', T])",
  ],
  perl: [
    'unlink T', 'unlink(T)', 'rmdir T', 'rmtree(T)', 'File::Path::remove_tree(T)', 'system(S)', 'system("rm", "-rf", T)', 'print qx{ls}', 'print "unlink x\\n"', '# unlink T',
    'my $x = q{unlink T}', 'unlink glob "*.o"', 'chdir T', 's/a/b/g', '$h{s} = 1', 'print `git status`', 'my @a = qw(a b)', 'print <<EOT;\nunlink T\nEOT', 'unlink', '$x / 2',
  ],
  ruby: [
    'FileUtils.rm_rf(T)', 'File.delete(T)', 'Dir.rmdir(T)', 'system(S)', '`ls`', '%x(git status)', 'puts T', '# FileUtils.rm_rf(T)', 'x = "#{File.delete(T)}"',
    'Pathname.new(T).rmtree', 'Dir.chdir(T)', '%w[a b].each { |f| File.delete(f) }', 'FileUtils.rm_r T', "s = 'File.delete(T)'", 'puts <<~EOS\n  rm_rf T\nEOS', 'h.delete(:a)',
    'x = a ? b : c',
  ],
};

export class Grammar {
  constructor(private readonly r: Rng) {}

  operand(depth: number): string {
    const r = this.r;
    const k = r.int(20);
    if (k < 7) return r.pick(SIMPLE_OPERANDS);
    if (k < 12) return r.pick(FIXTURE_OPERANDS);
    if (k < 14) return anyQuote(r, weirdName(r));
    if (k === 14) return weirdName(r); // raw: splits, globs, may even open a quote
    if (k === 15) return this.substitution(depth);
    if (k === 16) return r.pick(['"', "'", '']) + r.pick(FIXTURE_OPERANDS) + '/' + r.pick(['*', '?', '[ab]', '{x,y}', '**']);
    if (k === 17) return (r.chance(0.5) ? '"' : '') + '$' + r.pick(['X', 'D', 'HOME', 'PWD', 'OLDPWD', 'TMPDIR', '{D}', '{D:-build}', '{D:?}']) + '/' + r.pick(['build', 'x', '', '*']) + (r.chance(0.5) ? '"' : '');
    if (k === 18) return r.pick(['/', '~', '.', '..', '/etc', '/usr', '/home', '/var/tmp', '/tmp']) + r.pick(['', '/', '/.', '/..', '/x', '/*']);
    return r.pick(['a b', 'x y z', 'f.o', 'node_modules/.cache', 'coverage', '__pycache__', 'a.pyc', 'target']);
  }

  subCmd(depth: number): string {
    if (depth <= 0 || this.r.chance(0.5)) return this.r.pick(SUB_CMDS);
    return this.list(depth - 1, false).text.replace(/\n+$/, '');
  }

  substitution(depth: number): string {
    const r = this.r;
    const body = this.subCmd(depth);
    switch (r.int(5)) {
      case 0:
        return '$(' + body + ')';
      case 1:
        return '"$(' + body + ')"';
      case 2:
        return '`' + body.replace(/([\\`$])/g, '\\$1') + '`';
      case 3:
        return '<(' + body + ')';
      default:
        return '"x$(' + body + ')y"';
    }
  }

  operands(depth: number, max = 3): string[] {
    return Array.from({ length: this.r.int(max + 1) }, () => this.operand(depth));
  }

  flags(list: readonly string[], max = 2): string[] {
    return Array.from({ length: this.r.int(max + 1) }, () => this.r.pick(list));
  }

  gitGlobals(): string[] {
    const r = this.r;
    const out: string[] = [];
    const n = r.chance(0.7) ? 0 : r.range(1, 3);
    for (let i = 0; i < n; i++) {
      out.push(
        r.pick([
          '-C ' + r.pick(['src', '..', '/', '../outside', 'nogit', '.', '"$D"', '~', 'link-out']),
          '-c ' + r.pick(['core.worktree=/', 'alias.x=clean', 'user.name=x', 'color.ui=never', 'clean.requireForce=false']),
          '--git-dir=' + r.pick(['.git', '/tmp/x', '$G']),
          '--git-dir ' + r.pick(['.git', '../outside']),
          '--work-tree=' + r.pick(['.', '/', '..']),
          '--work-tree ' + r.pick(['.', 'src']),
          '--no-pager',
          '-P',
          '--bare',
          '--literal-pathspecs',
        ]),
      );
    }
    return out;
  }

  git(depth: number): string {
    const r = this.r;
    const sub = r.pick(['clean', 'reset', 'restore', 'checkout', 'switch', 'push', 'status', 'log', 'stash', 'rm', 'branch', 'x', 'add', 'commit']);
    const words: string[] = ['git', ...this.gitGlobals(), sub];
    switch (sub) {
      case 'clean':
        words.push(...this.flags(['-n', '-f', '-fd', '-fdx', '-ffd', '-fdX', '-e pat', '-i', '-q', '--dry-run', '--force', '-x', '-d', '-nfd', '--exclude=x'], 3));
        if (r.chance(0.3)) words.push('--', ...this.operands(depth, 2));
        break;
      case 'reset':
        words.push(...this.flags(['--hard', '--soft', '--mixed', '--keep', '--merge', '-q', 'HEAD', 'HEAD~1', 'origin/main', '--', 'src/a.ts'], 3));
        break;
      case 'restore':
        words.push(...this.flags(['--staged', '--worktree', '-s HEAD', '--source=HEAD~1', '.', 'src/a.ts', '--', '-p', '-W', '-S'], 3));
        break;
      case 'checkout':
        words.push(...this.flags(['-f', '--', '.', 'main', '-b x', 'src/a.ts', 'HEAD~1', '--force', '-B y', 'old.txt', '-p', '-q'], 3));
        break;
      case 'switch':
        words.push(...this.flags(['-c x', '--discard-changes', '-f', 'main', '--force', '-C y', '-', '--detach HEAD~1'], 2));
        break;
      case 'push':
        words.push(...this.flags(['--force', '-f', '--force-with-lease', '--mirror', '--delete', '--dry-run', '-n', 'origin', 'main', '+main', ':old', 'origin/main:main', '-q', '--tags', '-d'], 3));
        break;
      case 'stash':
        words.push(...this.flags(['push', 'pop', 'drop', 'clear', 'list', '-u', 'apply', '-k'], 2));
        break;
      default:
        words.push(...this.flags(['-s', '--porcelain', '--oneline', '-n 3', '-q', '-f', '-r', '.'], 2));
    }
    if (r.chance(0.15)) words.push(...this.operands(depth, 2));
    return words.join(' ');
  }

  find(depth: number): string {
    const r = this.r;
    const words = ['find', ...this.flags(['-L', '-H', '-P'], 1), ...this.operands(depth, 2)];
    const exprs = [
      "-name '*.o'", '-name *.log', '-type f', '-type d', '-delete', '-exec rm {} \\;', '-exec rm -rf {} +', "-execdir rm {} ';'", '-ok rm {} \\;',
      '-print', '-maxdepth 1', '-mtime +3', '-prune -o', '-exec echo {} \\;', '-print0', '-exec sh -c \'rm "$1"\' _ {} \\;', '-exec git rm {} +',
      '-newer x', '\\( -name a -o -name b \\)', '! -name keep', '-exec', '-exec rm',
    ];
    words.push(...this.flags(exprs, 3));
    return words.join(' ');
  }

  wrapperPrefix(): string {
    const r = this.r;
    return r.pick([
      'sudo', 'sudo -u root', 'sudo -E', 'sudo -n', 'sudo -i', 'sudo -s', 'sudo --', 'env', 'env -i', 'env -u X', 'env -C src', 'env -C /', 'env NAME=v',
      'env -- X=1', 'nice', 'nice -n 5', 'nice -10', 'nohup', 'command', 'command -p', 'command -v', 'time', 'time -p', 'timeout 5', 'timeout -s KILL 5',
      'timeout --kill-after=2 5', 'stdbuf -oL', 'stdbuf -i0 -e0', 'exec', 'exec -a name', 'exec -c', 'builtin', 'doas', 'busybox', 'env -S',
    ]);
  }

  /** A simple command (no separators): optional assignments, wrappers, program, arguments. */
  simple(depth: number): Piece {
    const r = this.r;
    if (r.chance(0.06)) return this.interp(depth);
    const bodies: string[] = [];
    const words: string[] = [];
    if (r.chance(0.1)) words.push(r.pick(['X=build', 'D=./build', 'D=/', 'D="$HOME"', 'GIT_DIR=/tmp/x', 'IFS=', 'A=1 B=2', 'D=$(pwd)']));
    const nw = r.chance(0.75) ? 0 : r.range(1, 3);
    for (let i = 0; i < nw; i++) words.push(this.wrapperPrefix());
    words.push(this.command(depth));
    const piece: Piece = { text: words.join(' '), bodies };
    this.redirections(piece, depth);
    return piece;
  }

  /** The program and its arguments. */
  command(depth: number): string {
    const r = this.r;
    const k = r.int(30);
    const ops = (max = 3): string => this.operands(depth, max).join(' ');
    if (k < 6) {
      const prog = r.pick(['rm', 'rm', 'rm', 'rmdir', 'unlink', 'shred', '/bin/rm', '\\rm', "'rm'", 'r""m', '/usr/bin/rm']);
      const flagSets: Record<string, readonly string[]> = {
        rmdir: ['-p', '-v', '--ignore-fail-on-non-empty', '--parents'],
        unlink: ['--', '--help'],
        shred: ['-u', '-n 3', '-z', '--remove', '-f', '-uz', '--iterations=2'],
      };
      const flags = flagSets[prog] ?? ['-rf', '-fr', '-r', '-f', '-R', '-i', '-v', '--force', '--recursive', '-d', '--', '--no-preserve-root', '-rfv', '--help', '-rI', '--recur', '-x', '-Z', '--dry-run', '-n'];
      return [prog, ...this.flags(flags, 2), ops()].filter((w) => w !== '').join(' ');
    }
    if (k < 10) return this.git(depth);
    if (k < 12) return this.find(depth);
    if (k === 12) return ['xargs', ...this.flags(['-0', '-n 1', '-I {}', '-r', '-P 2', '-d "\\n"', '--null'], 2), r.pick(['rm', 'rm -rf', 'echo', 'git rm', 'sh -c "rm $1"', 'shred -u', 'grep x', ''])].join(' ');
    if (k === 13) return ['parallel', r.pick(['rm', 'rm -rf {}', 'echo {}', 'git clean -fd']), ':::', ops(2)].join(' ');
    if (k < 17) return this.shell(depth);
    if (k === 17) {
      const inner = depth > 0 ? this.line(depth - 1) : r.pick(['rm -rf build', 'ls', 'echo hi']);
      return 'eval ' + (r.chance(0.7) ? anyQuote(r, inner) : inner.replace(/\n/g, ' '));
    }
    if (k === 18) return r.pick(['source', '.']) + ' ' + r.pick(['./x.sh', 'env.sh', '~/.bashrc', '"$F"', 'rm.sh', '/dev/stdin']);
    if (k < 21) return r.pick(['cd', 'pushd', 'popd', 'cd -P', 'cd --']) + ' ' + (r.chance(0.8) ? this.operand(depth) : '');
    if (k < 24) {
      const prog = r.pick(['touch', 'mkdir', 'mkdir -p', 'cp', 'cp -r', 'mv', 'mv -f', 'ln -s', 'tee', 'install -d']);
      return prog + ' ' + ops();
    }
    if (k < 28) return r.pick(['echo', 'cat', 'ls', 'ls -la', 'printf %s', 'grep -r rm', 'true', ':', 'test -f', '[ -d', 'wc -l']) + ' ' + ops();
    if (k === 28) return r.pick(['export X=build', 'export D=/', 'unset D', 'read D', 'local x=1', 'declare -a A', 'X=1', 'D=build', 'readonly R=/']);
    return r.pick(['exit', 'exit 1', 'return', 'shift', 'set -e', 'set -- a b', 'trap "rm -rf x" EXIT', 'alias rm=ls', 'wait', 'jobs', 'history -c', 'watch rm x', 'watch -n 1 ls']);
  }

  shell(depth: number): string {
    const r = this.r;
    const sh = r.pick(['bash', 'sh', 'zsh', 'dash', '/bin/sh', 'ksh']);
    const k = r.int(8);
    const inner = depth > 0 ? this.line(depth - 1) : r.pick(['rm -rf build', 'ls -la', 'echo "$(git status)"', 'git clean -fdx']);
    if (k < 4) return `${sh} ${r.pick(['-c', '-c', '-ec', '-xc', '-e -c', '--norc -c', '-lc', '-o pipefail -c', '-c --'])} ${anyQuote(r, inner)}${r.chance(0.2) ? ' _ ' + this.operand(depth) : ''}`;
    if (k === 4) return `${sh} ${r.pick(['-c', '-c'])} ${inner.includes('\n') ? anyQuote(r, inner) : '"' + inner.replace(/"/g, "'") + '"'}`;
    if (k === 5) return `${sh} ${r.pick(['script.sh', '-s', '-', '-x', '', '-s -- a', 'rm.sh'])}`;
    if (k === 6) return `${sh} <<< ${anyQuote(r, inner)}`;
    return `${sh} -c "$(${r.pick(['cat f', 'echo ' + singleQuote(inner.replace(/\n/g, ' ')), 'curl x'])})"`;
  }

  redirections(piece: Piece, depth: number): void {
    const r = this.r;
    if (!r.chance(0.25)) return;
    const n = r.range(1, 2);
    for (let i = 0; i < n; i++) {
      const k = r.int(16);
      if (k < 4) {
        // A heredoc: the body follows the next newline.
        const delim = r.pick(['EOF', 'END', 'X', 'E_1', 'EOF2']);
        const style = r.int(4);
        const op = r.chance(0.2) ? '<<-' : '<<';
        const word = style === 0 ? delim : style === 1 ? `'${delim}'` : style === 2 ? `"${delim}"` : `\\${delim}`;
        piece.text += ` ${op}${r.chance(0.5) ? '' : ' '}${word}`;
        const lines: string[] = [];
        const nl = r.range(0, 3);
        for (let j = 0; j < nl; j++) {
          lines.push(
            r.pick([
              'rm -rf build',
              'hello $USER',
              'it\'s "quoted"',
              '$(rm -rf build)',
              '`git clean -fdx`',
              depth > 0 ? this.line(depth - 1).replace(new RegExp(`^${delim}$`, 'gm'), 'x') : 'ls',
              '\tindented',
              'cd /; rm -rf *',
            ]),
          );
        }
        piece.bodies.push([...lines, (op === '<<-' && r.chance(0.5) ? '\t' : '') + delim].join('\n'));
        continue;
      }
      piece.text += ' ' + r.pick(['> f', '>> f', '2>&1', '&> f', '< f', '<<< str', '<<< "rm -rf x"', '3>f', '>|f', '2>/dev/null', '>/dev/null', '<>f', '>&2', '> "$OUT"', '>build/x', '1>&-', '2> >(cat)', '< <(ls)']);
    }
  }

  pipeline(depth: number): Piece {
    const r = this.r;
    const first = this.compound(depth);
    const out: Piece = { text: (r.chance(0.05) ? '! ' : '') + first.text, bodies: [...first.bodies] };
    const n = r.chance(0.8) ? 0 : r.range(1, 2);
    for (let i = 0; i < n; i++) {
      const next = this.compound(depth);
      out.text += r.pick([' | ', ' |& ', '|']) + next.text;
      out.bodies.push(...next.bodies);
    }
    return out;
  }

  compound(depth: number): Piece {
    const r = this.r;
    if (depth <= 0 || r.chance(0.78)) return this.simple(depth);
    const inner = (): string => this.list(depth - 1, true).text;
    const term = (t: string): string => (t.endsWith('\n') ? t : t + '; ');
    switch (r.int(9)) {
      case 0:
        return { text: '( ' + inner() + ' )', bodies: [] };
      case 1:
        return { text: '{ ' + term(inner()) + '}', bodies: [] };
      case 2:
        return { text: 'if ' + term(inner()) + 'then ' + term(inner()) + (r.chance(0.3) ? 'else ' + term(inner()) : '') + 'fi', bodies: [] };
      case 3:
        return { text: `for ${r.pick(['x', 'f', 'D'])} in ${this.operands(depth, 3).join(' ')}; do ` + term(inner()) + 'done', bodies: [] };
      case 4:
        return { text: `while ${r.pick(['false', 'read -r f', 'true'])}; do ` + term(inner()) + 'done', bodies: [] };
      case 5:
        return { text: `case ${r.pick(['$x', 'a', '"$1"'])} in ${r.pick(['a', '*', 'a|b'])}) ` + term(inner()) + ';; esac', bodies: [] };
      case 6:
        return { text: `${r.pick(['f', 'cleanup', 'rm'])}() { ` + term(inner()) + '}', bodies: [] };
      case 7:
        return { text: `function ${r.pick(['g', 'x'])} { ` + term(inner()) + '}', bodies: [] };
      default:
        return { text: '[[ -d build ]] && ' + this.simple(depth).text, bodies: [] };
    }
  }

  /** A list: pipelines joined by separators; heredoc bodies are flushed at newlines and at the end.
   *  When the list ends with flushed bodies its text ends with a newline. */
  list(depth: number, nested: boolean): Piece {
    const r = this.r;
    const n = r.chance(0.5) ? 1 : r.range(2, 4);
    let text = '';
    let pending: string[] = [];
    for (let i = 0; i < n; i++) {
      const p = this.pipeline(depth);
      text += p.text;
      pending.push(...p.bodies);
      if (i === n - 1) break;
      const sep = r.pick([' ; ', '; ', ' && ', ' || ', ' & ', '\n', ' &&\n', '|\n', ';\n', ' & ']);
      text += sep;
      if (sep.endsWith('\n') && pending.length > 0) {
        text += pending.join('\n') + '\n';
        pending = [];
      }
    }
    if (r.chance(0.1)) text += ' ' + r.pick(['# comment', '# rm -rf /', "# it's", '#', '#"']);
    if (pending.length > 0) {
      text += '\n' + pending.join('\n') + (nested ? '\n' : r.chance(0.5) ? '\n' : '');
    }
    if (r.chance(0.05)) text += r.pick([' ;', ' &', '\n']);
    return { text, bodies: [] };
  }

  /** A target as code: a literal in the language's quotes, or something computed. */
  interpTarget(lang: InterpLang): string {
    const r = this.r;
    const lit = r.pick([...FIXTURE_OPERANDS, '/etc/passwd', '/', '..', '.', '~', '/tmp/x', 'a b', weirdName(r)]);
    const k = r.int(10);
    if (k < 5) return JSON.stringify(lit);
    if (k < 7) return `'${lit.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    return r.pick(INTERP_COMPUTED[lang]);
  }

  /** A shell command string as code. */
  interpShell(depth: number): string {
    const r = this.r;
    if (r.chance(0.2)) return 'cmd';
    return JSON.stringify(depth > 0 && r.chance(0.4) ? this.line(depth - 1) : r.pick(['rm -rf build', 'ls -la', 'git reset --hard', 'git status', 'echo "rm -rf /"', 'git clean -fdx', 'rm -f src/a.ts']));
  }

  /** A few statements of a language: deletions, shell hand-offs, prints, comments, strings. */
  interpCode(lang: InterpLang, depth: number): string {
    const r = this.r;
    const n = r.range(1, 4);
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = this.interpTarget(lang);
      const sh = this.interpShell(depth);
      out.push(r.pick(INTERP_STATEMENTS[lang]).replace(/\bT\b/g, () => t).replace(/\bS\b/g, () => sh));
    }
    return out.join(r.pick(['; ', ';\n', '\n']));
  }

  /** An interpreter given its program: -c/-e text, a here-string, a heredoc, or a pipe. */
  interp(depth: number): Piece {
    const r = this.r;
    const lang = r.pick(['python', 'node', 'perl', 'ruby'] as const);
    const prog = [r.pick(INTERP_PROGRAMS[lang]), ...this.flags(INTERP_FLAGS[lang], 2)].join(' ');
    const code = this.interpCode(lang, depth);
    const k = r.int(10);
    if (k < 6) return { text: `${prog} ${r.pick(INTERP_CODE_FLAGS[lang])} ${anyQuote(r, code)}${r.chance(0.2) ? ' ' + this.operand(depth) : ''}`, bodies: [] };
    if (k === 6) return { text: `${prog} <<< ${anyQuote(r, code)}`, bodies: [] };
    if (k === 7) return { text: `printf '%s\\n' ${anyQuote(r, code)} | ${prog}`, bodies: [] };
    const delim = r.pick(['EOF', 'PY', 'JS', 'END']);
    const body = code.replace(new RegExp(`^${delim}$`, 'gm'), 'x');
    return { text: `${prog}${lang === 'python' && r.chance(0.5) ? ' -' : ''} <<${r.chance(0.6) ? `'${delim}'` : delim}`, bodies: [`${body}\n${delim}`] };
  }

  /** A whole command line. */
  line(depth: number): string {
    let text = this.list(depth, false).text;
    const r = this.r;
    if (r.chance(0.1)) text = continuations(r, text);
    return text;
  }
}

/** Replaces some blanks by backslash-newline (line continuations). */
export function continuations(r: Rng, text: string): string {
  return text.replace(/ /g, (m) => (r.chance(0.15) ? ' \\\n' : m));
}

/** A destructive simple command whose program is a real executable (not a builtin or keyword), so
 *  that wrappers such as sudo or nice run it exactly. */
export function destructiveSimple(r: Rng): string {
  const g = new Grammar(r);
  const k = r.int(10);
  const operand = (): string => (r.chance(0.7) ? r.pick(FIXTURE_OPERANDS) : g.operand(1));
  if (k < 5) return [r.pick(['rm', 'rm', 'rmdir', 'unlink', 'shred -u', 'rm -rf', 'rm -f', 'rm -r', 'rm -fr', 'rm --recursive --force']), operand(), ...(r.chance(0.3) ? [operand()] : [])].join(' ');
  if (k < 7) return r.pick(['git clean -fdx', 'git clean -fd', 'git clean -ffd', 'git reset --hard', 'git reset --hard HEAD~1', 'git push --force', 'git push origin :old', 'git checkout -- .', 'git restore src/a.ts', 'git switch -f main', 'git checkout -f main', 'git clean -fdx -e keep', 'git -C src clean -fd']);
  if (k === 7) return r.pick(["find . -name '*.o' -delete", 'find build -exec rm {} \\;', 'find . -type f -exec rm -rf {} +']);
  if (k === 8) return r.pick(['xargs rm', 'xargs -0 rm -rf', 'parallel rm ::: a b']);
  return r.pick(['bash', 'sh', 'zsh']) + ' -c ' + anyQuote(r, r.pick(['rm -rf build', 'git clean -fdx', 'rm -rf /', 'cd src && rm -rf x']));
}

// ---------------------------------------------------------------------------------------------
// Mutation

export const SEED_CORPUS: readonly string[] = [
  'rm -rf build',
  'rm -rf /',
  'rm -rf ~',
  'rm -rf ./dist node_modules',
  'git clean -fdx',
  'git reset --hard HEAD~1',
  'git push --force origin main',
  'git checkout -- .',
  'git -C src clean -fd',
  'cd src && rm -rf dist',
  'cd /tmp; rm -rf *',
  "find . -name '*.o' -exec rm {} \\;",
  'find build -type f -delete',
  'echo "$(git status)"',
  'ls | xargs rm -f',
  "bash -c 'rm -rf build'",
  'sh -c "cd src && rm -rf \\"$HOME/x\\""',
  'eval "$(cat cmds)"',
  'sudo -u root env -i nice -n 5 rm -rf /var/log',
  'timeout 5 nohup rm -rf ./build &',
  'D=./build; rm -rf "$D"',
  'for f in *.log; do rm "$f"; done',
  'if [ -d build ]; then rm -rf build; fi',
  'case $x in a) rm -rf a;; esac',
  'cleanup() { rm -rf "$TMP"; }; cleanup',
  'cat <<EOF > out.txt\nhello $USER\nEOF\nrm -rf out.txt',
  "bash <<'EOF'\nrm -rf build\nEOF",
  'cat <<-EOF\n\trm -rf x\n\tEOF',
  'bash <<< "rm -rf build"',
  'rm -rf $(cat list.txt)',
  'rm -rf `cat list`',
  'diff <(ls a) <(ls b) && rm -rf a',
  'rm -rf "$HOME"/.cache # clean up',
  'rm -rf \\\n  build \\\n  dist',
  "rm -rf $'build\\n'",
  'echo rm -rf / > script.sh; sh script.sh',
  'git stash && git checkout main && git stash pop',
  '( cd build && rm -rf * )',
  '{ rm -rf build; } 2>&1 | tee log',
  'touch f && rm f',
  'mkdir -p out && rm -rf out',
  'echo "rm -rf x',
  "echo 'unterminated",
  'env -C /tmp rm -rf x',
  'command rm -rf /etc',
  'exec rm -rf build',
  '. ./cleanup.sh',
  'git push --mirror',
  'shred -u secrets.txt',
  'rmdir -p a/b/c',
  'unlink link-out',
  'rm -rf link-out/',
  'rm -rf .agent-trash/tx-1',
  'xargs -I{} rm -rf {} < list',
  'parallel rm ::: a b c',
  'rm -rf ${D:-/}',
  'rm -rf "${X}"/*',
  'git clean -n && git clean -f',
  `python3 -c "import shutil; shutil.rmtree('build')"`,
  `python3 -c 'import os; os.remove("/etc/passwd")'`,
  "python3 - <<'EOF'\nimport shutil\nshutil.rmtree(f'{d}')\nEOF",
  `node -e "require('fs').rmSync('src', {recursive: true, force: true})"`,
  'node -e \'console.log(`${require("fs").unlinkSync("x")}`)\'',
  `perl -e 'unlink "a", q{b}; system("rm -rf c")'`,
  `ruby -e 'FileUtils.rm_rf %w[a b]; puts "#{x}"'`,
  `python3 -c "print('shutil.rmtree(\\"src\\")')  # os.remove('x')"`,
  'echo "import os; os.remove(\'x\')" | python3',
];

const SPECIALS: readonly string[] = [
  "'", '"', '$', '`', '(', ')', '{', '}', '\\', '\n', '\0', '#', ';', '&', '|', '<', '>', ' ', '*', '?', '[', ']', '~', '=', '-', '!',
  '$(', '<<', '<<EOF\n', '\\\n', '&&', '||', '${', "$'", '\r', '\t',
];

function privateUse(r: Rng): string {
  return String.fromCharCode(0xe000 + r.int(0x100));
}

/** One random mutation of `s`. */
export function mutateOnce(r: Rng, s: string): string {
  const pos = (): number => r.int(s.length + 1);
  const k = r.int(11);
  switch (k) {
    case 0: {
      // insert a random printable or special character
      const p = pos();
      const c = r.chance(0.5) ? r.pick(SPECIALS) : String.fromCharCode(r.range(1, 126));
      return s.slice(0, p) + c + s.slice(p);
    }
    case 1: {
      if (s.length === 0) return s;
      const p = r.int(s.length);
      const n = r.range(1, 3);
      return s.slice(0, p) + s.slice(p + n);
    }
    case 2: {
      // duplicate a segment
      if (s.length === 0) return s;
      const a = r.int(s.length);
      const b = Math.min(s.length, a + r.range(1, 12));
      return s.slice(0, b) + s.slice(a, b) + s.slice(b);
    }
    case 3: {
      // swap two adjacent characters
      if (s.length < 2) return s;
      const p = r.int(s.length - 1);
      return s.slice(0, p) + s[p + 1] + s[p] + s.slice(p + 2);
    }
    case 4: {
      const p = pos();
      return s.slice(0, p) + privateUse(r) + s.slice(p);
    }
    case 5:
      return s.slice(0, pos());
    case 6: {
      // repeat a segment several times
      if (s.length === 0) return s;
      const a = r.int(s.length);
      const b = Math.min(s.length, a + r.range(1, 8));
      return s.slice(0, b) + s.slice(a, b).repeat(r.range(2, 20)) + s.slice(b);
    }
    case 7: {
      // splice in a piece of another corpus line
      const o = r.pick(SEED_CORPUS);
      const a = r.int(o.length);
      const p = pos();
      return s.slice(0, p) + o.slice(a, a + r.range(1, 15)) + s.slice(p);
    }
    case 8: {
      // replace a character with a special one
      if (s.length === 0) return s;
      const p = r.int(s.length);
      return s.slice(0, p) + r.pick(SPECIALS) + s.slice(p + 1);
    }
    case 9: {
      // non-ASCII: unicode, a control character, or a lone surrogate
      const p = pos();
      return s.slice(0, p) + r.pick([...CHARSETS.unicode, '\x01', '\x1b', '\x7f', '\udfff', '\u2028']) + s.slice(p);
    }
    default: {
      // insert a whole special construct
      const p = pos();
      return s.slice(0, p) + r.pick([' $(rm -rf x) ', '`', ' <<EOF ', ' \\\n', ' # ', ' ; ', ' && ', " '", ' "', ' ( ', ' ) ', ' { ', ' } ', ' | xargs rm ', ' sudo ', ' bash -c ']) + s.slice(p);
    }
  }
}

export function mutate(r: Rng, s: string): string {
  let out = s;
  const n = r.range(1, 5);
  for (let i = 0; i < n; i++) out = mutateOnce(r, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pathological inputs

export interface Pathological {
  name: string;
  text: string;
  /** `not-allow`: the line certainly runs something destructive; `block`: it also leaves a quote
   *  open (6d). Absent: only validity is checked (bash would reject it, or rm is only data). */
  expect?: 'not-allow' | 'block';
}

export function pathological(): Pathological[] {
  const heredocNest = (n: number): string =>
    Array.from({ length: n }, (_, i) => `bash <<'E${i}'`).join('\n') + '\nrm -rf /\n' + Array.from({ length: n }, (_, i) => `E${n - 1 - i}`).join('\n');
  // 1,000 levels of bash -c whose quoting is exact at every level: each level's text sits inside a
  // command substitution, where quoting starts afresh, so the size grows linearly.
  let subNest = 'echo rm -rf /';
  for (let i = 0; i < 1000; i++) subNest = `bash -c "$(${subNest})"`;
  // The same with literal quoting (exponential escaping), as deep as stays small.
  let quoted = 'rm -rf /';
  for (let i = 0; i < 8; i++) quoted = `bash -c ${singleQuote(quoted)}`;
  let dq = 'rm -rf /';
  for (let i = 0; i < 8; i++) dq = `sh -c ${doubleQuote(dq)}`;
  // 1,000 textual levels alternating quote characters (not valid nesting beyond two levels: the
  // nested texts are unbalanced and bash rejects them).
  let alt = 'rm -rf /';
  for (let i = 0; i < 1000; i++) alt = i % 2 ? `bash -c '${alt}'` : `bash -c "${alt}"`;
  const bigHeredocBody = 'line $x `y` $(z) "q\' \\\n'.repeat(5000);
  const D = 'not-allow' as const;
  return [
    { name: '5,000 nested $(', text: '$('.repeat(5000) },
    { name: '5,000 nested $( closed', text: '$('.repeat(5000) + 'rm -rf x' + ')'.repeat(5000), expect: D },
    { name: '5,000 nested ( unterminated', text: '('.repeat(5000) + 'rm -rf /' },
    { name: '5,000 nested ( closed', text: '('.repeat(5000) + 'rm -rf /' + ')'.repeat(5000), expect: D },
    { name: '5,000 )', text: 'rm -rf /' + ')'.repeat(5000) },
    { name: '5,000 nested ${', text: '${'.repeat(5000) + 'rm', expect: 'block' },
    { name: '5,001 backticks', text: '`'.repeat(5001) + 'rm', expect: 'block' },
    { name: '5,000 nested { }', text: '{ '.repeat(5000) + 'rm -rf /; ' + '}; '.repeat(5000), expect: D },
    { name: '2,000 nested "$( )"', text: '"$('.repeat(2000) + 'rm -rf /' + ')"'.repeat(2000), expect: D },
    { name: '10,000 backslashes', text: '\\'.repeat(10000) },
    { name: '10,001 backslashes then rm', text: '\\'.repeat(10001) + 'rm -rf /' },
    { name: '3,000 backslash-newlines', text: 'rm -rf \\\n'.repeat(3000) + '/', expect: D },
    { name: '100 KB of a words', text: 'a '.repeat(50000) },
    { name: '100 KB single word', text: 'a'.repeat(100000) },
    { name: '5,000 rm operands', text: 'rm -rf ' + 'x '.repeat(5000), expect: D },
    { name: '2,000 &&-joined rm commands', text: Array.from({ length: 2000 }, (_, i) => `rm -rf b${i}`).join(' && '), expect: D },
    { name: '60 newline-joined cd/rm pairs', text: Array.from({ length: 60 }, (_, i) => `cd d${i}\nrm -rf b${i}`).join('\n'), expect: D },
    { name: '1,000 nested bash -c (exact, via $( ))', text: subNest, expect: D },
    { name: '8 nested bash -c (single-quote escaping)', text: quoted, expect: D },
    { name: '8 nested sh -c (double-quote escaping)', text: dq, expect: D },
    { name: '1,000 nested bash -c (alternating quotes)', text: alt },
    { name: '1,000 nested heredoc shells', text: heredocNest(1000), expect: D },
    { name: '1,000 eval', text: 'eval '.repeat(1000) + 'rm -rf /', expect: D },
    { name: '1,000 sudo', text: 'sudo '.repeat(1000) + 'rm -rf /', expect: D },
    { name: '1,000 wrappers mixed', text: Array.from({ length: 1000 }, (_, i) => ['env', 'nice', 'nohup', 'command', 'time', 'timeout 5'][i % 6]).join(' ') + ' rm -rf /', expect: D },
    { name: 'very long heredoc, then rm', text: 'cat <<EOF\n' + bigHeredocBody + 'EOF\nrm -rf /', expect: D },
    { name: 'very long heredoc into a shell', text: 'bash <<EOF\n' + 'echo $x\n'.repeat(20000) + 'rm -rf /\nEOF', expect: D },
    { name: 'very long unterminated heredoc', text: 'cat <<EOF\n' + 'rm -rf /\n'.repeat(20000) },
    { name: '2,000 heredocs on one line', text: 'cat' + ' <<E'.repeat(2000) + '\n' + 'x\nE\n'.repeat(2000) + 'rm -rf /', expect: D },
    { name: 'unterminated single quote', text: "rm -rf '/" + 'x'.repeat(50000), expect: 'block' },
    { name: 'unterminated double quote', text: 'rm -rf "/' + '$x'.repeat(20000), expect: 'block' },
    { name: 'unterminated $( )', text: 'echo $(rm -rf /', expect: 'block' },
    { name: 'unterminated backtick', text: 'echo `rm -rf /', expect: 'block' },
    { name: 'unterminated ${', text: 'echo ${rm -rf /', expect: 'block' },
    { name: "unterminated $'", text: "echo $'rm -rf /", expect: 'block' },
    { name: 'unterminated <(', text: 'diff <(rm -rf /', expect: 'block' },
    { name: 'unterminated heredoc delimiter quote', text: "cat <<'EOF\nrm -rf /", expect: 'block' },
    { name: 'unterminated everything', text: 'echo "$(`${\'$\'<(' + 'rm -rf /', expect: 'block' },
    { name: '20,000 pipes', text: 'ls' + ' | cat'.repeat(20000) + ' | xargs rm', expect: D },
    { name: '20,000 semicolons', text: ';'.repeat(20000) + 'rm -rf /' },
    { name: '20,000 comment lines', text: '# x\n'.repeat(20000) + 'rm -rf /', expect: D },
    { name: '10,000 variables', text: 'rm -rf ' + '$X'.repeat(10000), expect: D },
    { name: '4,000 assignments', text: 'X=1 '.repeat(4000) + 'rm -rf /', expect: D },
    { name: '5,000 brace groups in a word', text: 'rm -rf ' + '{a,'.repeat(5000) + 'b' + '}'.repeat(5000), expect: D },
    { name: '5,000 arithmetic', text: 'echo ' + '$(('.repeat(5000) + '1' + '))'.repeat(5000) },
    { name: '2,000 case clauses', text: 'case x in ' + 'a) rm -rf /;; '.repeat(2000) + 'esac' },
    { name: 'private-use flood', text: Array.from({ length: 20000 }, (_, i) => String.fromCharCode(0xe000 + (i % 256))).join('') + ' rm -rf /' },
    // A shell reading the line from a stream (bash -s, a pipe) drops NUL bytes: this runs rm -rf /.
    { name: 'NUL flood', text: '\0'.repeat(50000) + 'rm -rf /', expect: D },
    { name: 'find with 5,000 -exec', text: 'find .' + ' -exec rm {} \\;'.repeat(5000), expect: D },
    { name: 'git with 2,000 -C', text: 'git' + ' -C src'.repeat(2000) + ' clean -fdx', expect: D },
    { name: '3,000 xargs', text: 'ls' + ' | xargs'.repeat(3000) + ' rm', expect: D },
    // A target 15,000 directories deep; spelled r''m so that no destructive smell masks an exception.
    { name: "r''m of a 15,000-level path", text: "r''m " + 'a/'.repeat(15000) + 'b', expect: D },
    { name: 'rm -rf of a 15,000-level path', text: 'rm -rf ' + 'a/'.repeat(15000) + 'b', expect: D },
    // Inputs that made the destructive smell quadratic (a 256 KiB option cluster took about 65 s;
    // `git`/`find` repeated, 8–12 s): each reaches the smell through an unterminated quote.
    // Interpreter code (src/classifier/interp/): deep brackets, long strings, nested interpolation.
    { name: 'python -c with 5,000 nested (', text: `python3 -c "${'('.repeat(5000)}import shutil; shutil.rmtree('x')${')'.repeat(5000)}"`, expect: D },
    { name: 'python -c with 5,000 unclosed (', text: `python3 -c "shutil.rmtree${'('.repeat(5000)}'x'"`, expect: D },
    { name: 'python -c with a 200 KB string', text: `python3 -c "s = '${'a'.repeat(200000)}'; import os; os.remove('x')"`, expect: D },
    { name: 'python -c with an unterminated 100 KB triple quote', text: `python3 -c "import os; os.remove('x'); s = '''${'x\n'.repeat(50000)}"`, expect: D },
    // 2,000 ops: 20,000 (540 KB) took about 8 s in this test, nearly all of it probing and deciding the ops.
    { name: 'python -c with 2,000 deletions', text: `python3 -c "${"import os; os.remove('x'); ".repeat(2000)}"`, expect: D },
    { name: 'python f-strings nested 40 deep', text: `python3 -c '${'f"{'.repeat(40)}shutil.rmtree(x)${'}"'.repeat(40)}'`, expect: D },
    { name: 'node -e with 3,000 nested template fields', text: `node -e '${'`${'.repeat(3000)}require("fs").rmSync("x")${'}`'.repeat(3000)}'`, expect: D },
    { name: 'node -e with 5,000 nested {', text: `node -e '${'{'.repeat(5000)}require("fs").rmSync("x")${'}'.repeat(5000)}'`, expect: D },
    { name: 'node -e with 10,000 regex literals', text: `node -e '${'/a/; '.repeat(10000)}require("fs").rmSync("x")'`, expect: D },
    { name: 'perl -e with 5,000 nested q{ }', text: `perl -e 'my $s = q${'{'.repeat(5000)}x${'}'.repeat(5000)}; unlink "y"'`, expect: D },
    { name: 'perl -e with 10,000 heredocs', text: `perl -e '${'print <<E;\n'.repeat(10000)}${'x\nE\n'.repeat(10000)}unlink "y"'`, expect: D },
    { name: 'ruby -e with 3,000 nested #{ }', text: `ruby -e 'x = ${'"#{'.repeat(3000)}File.delete("y")${'}"'.repeat(3000)}'`, expect: D },
    { name: 'ruby -e with 5,000 %w literals', text: `ruby -e '${'%w[a b]; '.repeat(5000)}FileUtils.rm_rf("y")'`, expect: D },
    { name: 'a 100 KB python heredoc', text: "python3 - <<'EOF'\n" + 'print(1)\n'.repeat(20000) + "import shutil; shutil.rmtree('x')\nEOF", expect: D },
    { name: '256 KiB option cluster, unterminated', text: 'echo "x -' + 'r'.repeat(256 * 1024) },
    { name: '64 Ki times git, unterminated', text: 'echo "' + 'git '.repeat(64 * 1024) },
    { name: '52 Ki times find, unterminated', text: 'echo "' + 'find '.repeat(52 * 1024) },
    { name: '85 Ki short options, unterminated', text: 'echo "' + ' -r'.repeat(85 * 1024) },
  ];
}

// ---------------------------------------------------------------------------------------------
// An independent lexer for the oracles

export interface EndState {
  /** The text ends inside a quote or an expansion: '…', "…", `…`, $'…', ${…} or $(…). */
  unterminated: boolean;
  /** The text ends inside a comment. */
  inComment: boolean;
  /** The text ends with an unquoted backslash (a newline appended would be a continuation). */
  trailingBackslash: boolean;
  /** A heredoc whose operator is on the last line: its body starts at the next newline. */
  heredocPending: boolean;
  /** A heredoc body has started and its delimiter line has not come. */
  inHeredocBody: boolean;
  /** The text ends with a heredoc's delimiter line (no newline after it): text appended on the same
   *  line turns it into a body line. */
  onDelimiterLine: boolean;
  /** The last significant top-level character: `;`, `&`, `|`, `(`, a newline (also at the very
   *  start), or `w` for anything that ends a word or a quote. A `;` after any but `w` is a syntax
   *  error, which makes bash reject the whole line. */
  lastTop: string;
}

type Ctx = 'top' | 'sq' | 'dq' | 'bt' | 'ansi' | 'brace' | 'sub' | 'paren';

const BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** Where the end of `s` stands, read the way a POSIX shell reads it (simplified, independently of
 *  src/classifier/scan.ts). */
export function endState(s: string): EndState {
  const st: EndState = { unterminated: false, inComment: false, trailingBackslash: false, heredocPending: false, inHeredocBody: false, onDelimiterLine: false, lastTop: '\n' };
  const stack: Ctx[] = ['top'];
  let pending: { delim: string; strip: boolean }[] = [];
  let i = 0;
  const top = (): Ctx => stack[stack.length - 1]!;
  const prevBreaks = (): boolean => i === 0 || BREAK.has(s[i - 1]!);
  while (i < s.length) {
    const c = s[i]!;
    const ctx = top();
    if (ctx === 'top' || ctx === 'sub' || ctx === 'paren') {
      if (ctx === 'top' && c !== ' ' && c !== '\t' && !(c === '#' && prevBreaks()) && !(c === '\\' && s[i + 1] === '\n')) {
        st.lastTop = c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' ? c : 'w';
      }
      if (c === '\\') {
        if (i + 1 >= s.length) {
          st.trailingBackslash = true;
          i++;
          continue;
        }
        i += 2;
        continue;
      }
      if (c === "'") stack.push('sq');
      else if (c === '"') stack.push('dq');
      else if (c === '`') stack.push('bt');
      else if (c === '$' && s[i + 1] === "'") {
        stack.push('ansi');
        i++;
      } else if (c === '$' && s[i + 1] === '(') {
        stack.push('sub');
        i++;
      } else if (c === '$' && s[i + 1] === '{') {
        stack.push('brace');
        i++;
      } else if ((c === '<' || c === '>') && s[i + 1] === '(') {
        stack.push('sub');
        i++;
      } else if (c === '(' && ctx !== 'top') stack.push('paren');
      else if (c === ')' && ctx !== 'top') stack.pop();
      else if (c === '#' && prevBreaks()) {
        while (i < s.length && s[i] !== '\n') i++;
        if (i >= s.length) {
          st.inComment = true;
          break;
        }
        continue;
      } else if (c === '<' && s[i + 1] === '<' && s[i + 2] !== '<') {
        let j = i + 2;
        let strip = false;
        if (s[j] === '-') {
          strip = true;
          j++;
        }
        while (s[j] === ' ' || s[j] === '\t') j++;
        let delim = '';
        let open = false;
        while (j < s.length && !BREAK.has(s[j]!)) {
          const d = s[j]!;
          if (d === "'" || d === '"') {
            let close = j + 1;
            while (close < s.length && s[close] !== d) close += d === '"' && s[close] === '\\' ? 2 : 1;
            if (close >= s.length) close = -1;
            if (close < 0) {
              open = true;
              break;
            }
            delim += d === '"' ? s.slice(j + 1, close).replace(/\\([\\"$`])/g, '$1') : s.slice(j + 1, close);
            j = close + 1;
          } else if (d === '\\') {
            if (s[j + 1] !== '\n') delim += s[j + 1] ?? ''; // backslash-newline is a continuation
            j += 2;
          } else {
            delim += d;
            j++;
          }
        }
        if (open) {
          st.unterminated = true;
          return st;
        }
        if (delim !== '') pending.push({ delim, strip });
        i = j;
        continue;
      } else if (c === '<' && s[i + 1] === '<' && s[i + 2] === '<') {
        i += 3;
        continue;
      } else if (c === '\n' && pending.length > 0) {
        i++;
        for (const h of pending) {
          let found = false;
          while (i < s.length) {
            let end = s.indexOf('\n', i);
            if (end < 0) end = s.length;
            let line = s.slice(i, end);
            i = end + 1;
            if (h.strip) line = line.replace(/^\t+/, '');
            if (line === h.delim) {
              found = true;
              break;
            }
          }
          if (!found) {
            st.inHeredocBody = true;
            return st;
          }
        }
        pending = [];
        if (i > s.length) {
          st.onDelimiterLine = true;
          return st;
        }
        continue;
      }
      i++;
      continue;
    }
    if (ctx === 'sq') {
      if (c === "'") stack.pop();
      i++;
      continue;
    }
    if (ctx === 'ansi') {
      if (c === '\\') i += 2;
      else {
        if (c === "'") stack.pop();
        i++;
      }
      continue;
    }
    if (ctx === 'bt') {
      if (c === '\\') i += 2;
      else {
        if (c === '`') stack.pop();
        i++;
      }
      continue;
    }
    // dq and brace
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (ctx === 'dq' && c === '"') stack.pop();
    else if (ctx === 'brace' && c === '}') stack.pop();
    else if (ctx === 'brace' && c === '{') stack.push('brace'); // bash matches nested braces in ${…}
    else if (ctx === 'brace' && c === "'") stack.push('sq');
    else if (ctx === 'brace' && c === '"') stack.push('dq');
    else if (c === '`') stack.push('bt');
    else if (c === '$' && s[i + 1] === '(') {
      stack.push('sub');
      i++;
    } else if (c === '$' && s[i + 1] === '{') {
      stack.push('brace');
      i++;
    }
    i++;
  }
  if (stack.length > 1) st.unterminated = true;
  if (pending.length > 0) st.heredocPending = true;
  return st;
}

/** Does the text hold the word `rm` (delimited as the shell delimits words)? */
export function hasRmWord(s: string): boolean {
  return /(^|[\s;&|()<>'"`{}])rm($|[\s;&|()<>'"`{}])/.test(s);
}
