// The bash hook's cheap first test (plain `case` patterns: "first substrings every bypass must
// contain") must let through every text the bypass pattern matches; it is only there to spare the
// extended pattern on the texts that cannot match it. Checked by running the patterns as they are
// written in shell/guard.bash (pattern tests only: nothing is executed but bash's matching) over a
// generated corpus. And the narrow path test: an absolute path that names no guarded program
// (a harness's snapshot, /usr/share, /tmp/…) is not a first substring.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SHELL = path.resolve(import.meta.dirname, '../../shell');
const guardBash = fs.readFileSync(path.join(SHELL, 'guard.bash'), 'utf8');

/** The `__agent_guard_bypass='…'` assignment, as written (several quoted parts joined by `\`). */
function bypassAssignment(src: string): string {
  const m = /^__agent_guard_bypass='[\s\S]*?\*\)'\n/m.exec(src);
  if (!m) throw new Error('no __agent_guard_bypass assignment in guard.bash');
  return m[0];
}

/** The first-substring patterns of the trap's common case (the `case $BASH_COMMAND in` branch
 *  after the `$`-program one), as written. */
function firstSubstrings(src: string): string {
  const m = /case \$BASH_COMMAND in\n\s*\\\$\* \| \\"\\\$\*\) __agent_guard_hit=1 ;;\n([\s\S]*?)\)\n/.exec(src);
  if (!m) throw new Error('no first-substring case in guard.bash');
  return m[1]!;
}

const PROGRAMS = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'xargs', 'parallel', 'srm', 'wipe'];
const DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/opt/x/', './', '../', '/'];
const OTHER_PATHS = ['/root/.claude/shell-snapshots/snapshot-bash-1.sh', '/usr/share/doc', '/proc/self/fd', '/tmp/ph/zt.x/c-1-cwd', '/srv/data', '/usr/bin/python3', '/work/app/src/index.ts', '/var/www/w'];
/** Near misses: the cheap test lets them through (a name's prefix, `env` inside `.pyenv`), the
 *  bypass pattern does not match them. */
const NEAR = ['/gitx', '/bin/rmx', '/find-me', '/home/u/.pyenv/shims/python3'];
const WRAPS: [string, string][] = [['', ''], ['x; ', ''], ['true && ', ' -rf x'], ['( ', ' )'], ['echo ', ' | cat'], ['"', '" -f x'], ["'", "'"], ['`', '`'], ['{ ', '; }'], ['cd d && ', ' 2>/dev/null']];
const OTHERS = ['sudo rm x', 'x; doas ls', 'su -c ls', 'runuser -u a ls', 'pkexec ls', 'busybox rm x', 'toybox rm x', 'enable -f x.so rm', 'zmodload zsh/files', 'command -p rm x', 'hash -p /bin/rm rm', 'env -i rm x', 'PATH=/usr/bin rm x', 'unset PATH', 'trap - DEBUG', 'export BASH_ENV=x', 'ZDOTDIR=x zsh', 'AGENT_GUARD_SHIMS= ls', 'shopt -u extdebug', 'set +T', "trap '' DEBUG", 'ls -la', 'git status', 'rm -rf build', 'command -v git', 'env LC_ALL=C true', 'pwd -P >| /tmp/claude-1-cwd'];

function corpus(): string[] {
  const out = new Set<string>(OTHERS);
  for (const [a, b] of WRAPS) {
    for (const d of DIRS) for (const p of PROGRAMS) out.add(`${a}${d}${p}${b}`);
    for (const p of [...OTHER_PATHS, ...NEAR]) {
      out.add(`${a}${p}${b}`);
      out.add(`source ${p} 2>/dev/null || true${b}`);
      out.add(`ls ${a}${p}${b}`);
    }
  }
  return [...out];
}

/** Runs the two tests of guard.bash on each text: [bypass matched, first substring found]. */
function classify(texts: readonly string[]): Map<string, [boolean, boolean]> {
  const script = [
    'shopt -s extglob',
    bypassAssignment(guardBash),
    `pre() {\n  case $1 in\n${firstSubstrings(guardBash)})\n    return 0 ;;\n  esac\n  return 1\n}`,
    'while IFS= read -r -d "" t; do',
    '  b=0; [[ $t == $__agent_guard_bypass ]] && b=1',
    '  p=0; pre "$t" && p=1',
    '  printf "%s%s%s\\0" "$b" "$p" "$t"',
    'done',
  ].join('\n');
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { input: texts.map((t) => `${t}\0`).join(''), encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  if (r.status !== 0) throw new Error(`bash failed: ${r.stderr}`);
  const out = new Map<string, [boolean, boolean]>();
  for (const rec of r.stdout.split('\0').filter(Boolean)) out.set(rec.slice(2), [rec[0] === '1', rec[1] === '1']);
  expect(out.size).toBe(texts.length);
  return out;
}

describe('the bash hook: first substrings and the bypass pattern', () => {
  it('every text the bypass pattern matches has a first substring (the cheap test never hides a bypass)', () => {
    const texts = corpus();
    const seen = classify(texts);
    const missed = [...seen].filter(([, [b, p]]) => b && !p).map(([t]) => t);
    expect(missed).toEqual([]);
    // The corpus holds bypasses of every kind: each program named by a path, and the others.
    for (const d of ['/bin/', './']) for (const p of PROGRAMS) expect(seen.get(`${d}${p}`)?.[0], `${d}${p}`).toBe(true);
    expect(seen.get('sudo rm x')?.[0]).toBe(true);
    expect(seen.get('env -i rm x')?.[0]).toBe(true);
    for (const p of NEAR) expect(seen.get(p), p).toEqual([false, true]);
  });

  it('a path that names no guarded program is no first substring: a harness snapshot, /usr/share, /tmp, /proc', () => {
    const seen = classify(OTHER_PATHS.flatMap((p) => [p, `source ${p} 2>/dev/null || true`, `ls ${p}`, `pwd -P >| ${p}`]));
    const hit = [...seen].filter(([, [, p]]) => p).map(([t]) => t);
    expect(hit).toEqual([]);
  });

  it('the rest of the hook and the zsh hook use the same path test', () => {
    const paths = '*/rm* | */unlink* | */shred* | */git* | */find* | */xargs* | */parallel* | */srm* | */wipe* |';
    expect(firstSubstrings(guardBash)).toContain(paths);
    expect(fs.readFileSync(path.join(SHELL, 'guard-rest.bash'), 'utf8')).toContain(paths);
    expect(fs.readFileSync(path.join(SHELL, 'guard.zsh'), 'utf8')).toContain(`(${paths}`);
  });
});
