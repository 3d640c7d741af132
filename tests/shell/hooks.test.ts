// The bash and zsh hooks (shell/guard.bash, shell/guard.zsh, the shell/zsh ZDOTDIR wrapper), run
// in real shells inside the read-only sandbox with a temp HOME. The checker is a fake
// (fixtures/fake-checker.sh standing in for "node <bundle>"): it logs its argv and answers by the
// text (BLOCKME -> 2, ASKME -> 3, CRASHME -> 9, else 0). The shims are logging stand-ins that run
// the real program. Assertions are on statuses, files, checker calls and shim calls.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea, type SandboxResult } from '../helpers/sandbox.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const GUARD_BASH = path.join(REPO, 'shell/guard.bash');
const ZDOTDIR = path.join(REPO, 'shell/zsh');
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SHIM_NAMES = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'mv', 'cp', 'truncate', 'rsync'];

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} >/dev/null`]).status === 0;
const HAS_ZSH = has('zsh');
const HAS_SCRIPT = has('script');

const area = useSandboxArea('ag-shell-hooks');

interface World {
  dir: string;
  home: string;
  shims: string;
  env: Record<string, string>;
}

let worlds = 0;
// A fresh directory with a temp HOME, the fake checker, a shim dir and the hook environment.
// With shims, the shim dir is first on PATH and AGENT_GUARD_SHIMS names it.
function world(opts: { shims?: boolean } = {}): World {
  const dir = path.join(area.rw(), `w${++worlds}`);
  const home = path.join(dir, 'home');
  const shims = path.join(dir, 'shims');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(shims);
  fs.copyFileSync(path.join(FIXTURES, 'fake-checker.sh'), path.join(dir, 'node'));
  fs.chmodSync(path.join(dir, 'node'), 0o755);
  for (const name of SHIM_NAMES) {
    fs.copyFileSync(path.join(FIXTURES, 'logging-shim.sh'), path.join(shims, name));
    fs.chmodSync(path.join(shims, name), 0o755);
  }
  fs.writeFileSync(path.join(shims, '.agent-guard-shims'), '');
  const env: Record<string, string> = {
    HOME: home,
    PATH: opts.shims ? `${shims}:${BASE_PATH}` : BASE_PATH,
    BASH_ENV: GUARD_BASH,
    AGENT_GUARD_USER_BASH_ENV: '',
    ZDOTDIR,
    AGENT_GUARD_USER_ZDOTDIR: '',
    AGENT_GUARD_NODE: path.join(dir, 'node'),
    AGENT_GUARD_BUNDLE: path.join(dir, 'bundle.cjs'),
    AGENT_GUARD_SHIMS: opts.shims ? shims : '',
    AGENT_GUARD_SESSION: 'hooks-test',
    FAKE_LOG: path.join(dir, 'checker.log'),
    SHIM_LOG: path.join(dir, 'shim.log'),
    NODE_EXTRA_CA_CERTS: path.join(dir, 'no-such-ca.pem'),
    ENV: '',
    PROMPT_COMMAND: '',
    PS0: '',
    TERM: 'dumb',
    HISTFILE: path.join(home, '.history'),
    // runSandboxed's stdin is a socket: a top-level bash -c reads BASH_ENV only with SHLVL >= 1
    // (see the test below), whatever environment the test runner itself got.
    SHLVL: '1',
  };
  return { dir, home, shims, env };
}

// PATH is set inside the sandbox (by env(1)), so that the sandbox's own set-up and clean-up never
// run the test shims.
function run(w: World, argv: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string } = {}): SandboxResult {
  const { PATH, ...env } = { ...w.env, ...opts.env };
  return runSandboxed(area.rw(), ['/usr/bin/env', `PATH=${PATH}`, ...argv], { cwd: opts.cwd ?? w.dir, env, input: opts.input, timeoutMs: 30_000 });
}

// The checker calls recorded in a log, each as its argv (the bundle path first).
function readCalls(log: string): string[][] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\x1e\n')
    .filter((r) => r !== '')
    .map((r) => r.split('\0').slice(0, -1));
}
const readLines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const calls = (w: World) => readCalls(path.join(w.dir, 'checker.log'));
const texts = (w: World) => calls(w).map((c) => c[c.length - 1]);
const shimCalls = (w: World) => readLines(path.join(w.dir, 'shim.log'));

interface CaseResult {
  text: string;
  exitCode: number;
  calls: string[][];
  shimCalls: string[];
}
let caseRuns = 0;
// Runs `shell -c text` for every text, all in one sandbox start (fixtures/cases.sh), each case
// with its own checker and shim logs.
function runCases(w: World, shell: string, textList: string[], env: Record<string, string> = {}): CaseResult[] {
  const out = path.join(w.dir, `cases${++caseRuns}`);
  fs.mkdirSync(out);
  const r = run(w, ['sh', path.join(FIXTURES, 'cases.sh'), out, ...textList], { env: { CASES_SHELL: `${shell} -c`, ...env } });
  expect(r.exitCode).toBe(0);
  return textList.map((text, i) => {
    expect(fs.readFileSync(path.join(out, `${i + 1}.out`), 'utf8')).not.toContain('fake-checker');
    return {
      text,
      exitCode: Number(fs.readFileSync(path.join(out, `${i + 1}.status`), 'utf8')),
      calls: readCalls(path.join(out, `${i + 1}.log`)),
      shimCalls: readLines(path.join(out, `${i + 1}.shim`)),
    };
  });
}
function reset(w: World): void {
  for (const f of ['checker.log', 'checker.log.ca', 'shim.log']) fs.rmSync(path.join(w.dir, f), { force: true });
}
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
// What a checker call must look like (the contract with the Node side).
const checkerArgv = (w: World, shell: string, cwd: string, text: string, flags: string[] = []) => [
  w.env.AGENT_GUARD_BUNDLE,
  'hook-shell',
  '--shell',
  shell,
  ...flags,
  '--cwd',
  cwd,
  '--',
  text,
];
// Each hook run must keep the checker's stdout off the command's stdout: the hooks send it to
// stderr, where it is dropped here so that the tests can compare stderr exactly.
function clean(r: SandboxResult): SandboxResult {
  expect(r.stdout).not.toContain('fake-checker');
  return { ...r, stderr: r.stderr.replace(/^fake-checker: stdout\n/gm, '') };
}

describeSandboxed('bash hook (BASH_ENV), non-interactive', () => {
  itSandboxed('starts no checker for text that cannot be destructive, and keeps $?, $_ and PIPESTATUS', () => {
    const w = world();
    const r = clean(run(w, ['bash', '-c', 'ls >/dev/null; echo hi; X=1; cd .; false; echo "st=$?"; false | true; echo "ps=${PIPESTATUS[*]}"; mkdir -p q && echo "last=$_"; for i in 1 2; do :; done; echo $((1+2))']));
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(r.stdout).toBe('hi\nst=1\nps=1 0\nlast=q\n3\n');
    expect(calls(w)).toEqual([]);
  });

  itSandboxed('sends rm to the checker with the contract argv, checker stdin empty and NODE_EXTRA_CA_CERTS empty', () => {
    const w = world();
    fs.mkdirSync(path.join(w.dir, 'x'));
    const r = clean(run(w, ['bash', '-c', 'rm -rf x; echo "rc=$?"']));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'rc=0\n' });
    expect(fs.existsSync(path.join(w.dir, 'x'))).toBe(false);
    // The whole -c string first, then the command itself.
    expect(calls(w)).toEqual([checkerArgv(w, 'bash', w.dir, 'rm -rf x; echo "rc=$?"'), checkerArgv(w, 'bash', w.dir, 'rm -rf x')]);
    expect(fs.readFileSync(path.join(w.dir, 'checker.log.ca'), 'utf8')).toBe('\n\n');
    // The checker never reads the command's stdin: both lines reach the loop.
    reset(w);
    const r2 = clean(run(w, ['bash', '-c', 'while read -r l; do rm -f "nothing-$l"; echo "got $l"; done'], { input: 'a\nb\n' }));
    expect(r2.stdout).toBe('got a\ngot b\n');
    expect(texts(w).filter((t) => t === 'rm -f "nothing-$l"')).toHaveLength(2);
  });

  itSandboxed('checks the whole BASH_EXECUTION_STRING once, then each command in its own cwd', () => {
    const w = world();
    write(path.join(w.dir, 'sub', 'a.txt'), 'a');
    const r = clean(run(w, ['bash', '-c', 'cd sub && rm -rf *']));
    expect(r.exitCode).toBe(0);
    expect(calls(w)).toEqual([checkerArgv(w, 'bash', w.dir, 'cd sub && rm -rf *'), checkerArgv(w, 'bash', path.join(w.dir, 'sub'), 'rm -rf *')]);
    // A string that is one simple command is checked once, not twice in a row.
    reset(w);
    run(w, ['bash', '-c', 'rm -f nothing']);
    expect(texts(w)).toEqual(['rm -f nothing']);
    // ...but the same command run again later is checked again (each run may need compensation).
    reset(w);
    run(w, ['bash', '-c', 'rm -f nothing; rm -f nothing']);
    expect(texts(w)).toEqual(['rm -f nothing; rm -f nothing', 'rm -f nothing', 'rm -f nothing']);
  });

  itSandboxed('BLOCK: exit 126, nothing after it runs, the target is kept', () => {
    const w = world();
    write(path.join(w.dir, 'keep'), 'k');
    write(path.join(w.dir, 'script.sh'), 'echo before\nrm -f keep BLOCKME\necho after\n');
    const r = clean(run(w, ['bash', 'script.sh']));
    expect(r).toMatchObject({ exitCode: 126, stdout: 'before\n' });
    expect(r.stderr).toContain('fake-checker: BLOCK');
    expect(fs.readFileSync(path.join(w.dir, 'keep'), 'utf8')).toBe('k');
    // bash -c: the whole string is refused before its first command.
    const r2 = clean(run(w, ['bash', '-c', 'echo before; rm -f keep BLOCKME; echo after']));
    expect(r2).toMatchObject({ exitCode: 126, stdout: '' });
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
  });

  itSandboxed('ASK is a refusal without a terminal; a checker crash or a missing node refuses with an agent-guard: line', () => {
    const w = world();
    write(path.join(w.dir, 'keep'), 'k');
    const ask = clean(run(w, ['bash', '-c', 'rm -f keep ASKME; echo after']));
    expect(ask).toMatchObject({ exitCode: 126, stdout: '' });
    expect(ask.stderr).toContain('fake-checker: ASK');
    const crash = clean(run(w, ['bash', '-c', 'rm -f keep CRASHME; echo after']));
    expect(crash).toMatchObject({ exitCode: 126, stdout: '' });
    // One line that says what failed, one with the next step.
    expect(crash.stderr.split('\n').filter((l) => l.startsWith('agent-guard:')).map((l) => l.split(':')[1]!.trim().split(' ')[0])).toEqual(['the', 'next']);
    const noNode = run(w, ['bash', '-c', 'echo ok; rm -f keep'], { env: { AGENT_GUARD_NODE: path.join(w.dir, 'missing-node') } });
    expect(noNode).toMatchObject({ exitCode: 126, stdout: '' });
    expect(noNode.stderr).toMatch(/^agent-guard: /);
    // Text that cannot be destructive still runs without a checker.
    expect(run(w, ['bash', '-c', 'echo ok'], { env: { AGENT_GUARD_NODE: path.join(w.dir, 'missing-node') } })).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
    expect(fs.readFileSync(path.join(w.dir, 'keep'), 'utf8')).toBe('k');
  });

  itSandboxed('nested bash -c, subshells and command substitutions are checked; an inner refusal is that shell\'s 126', () => {
    const w = world();
    fs.mkdirSync(path.join(w.dir, 'x'));
    const r = clean(run(w, ['bash', '-c', 'bash -c "rm -rf x"; echo "after=$?"']));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'after=0\n' });
    expect(texts(w).filter((t) => t === 'rm -rf x')).toHaveLength(1);
    expect(fs.existsSync(path.join(w.dir, 'x'))).toBe(false);
    write(path.join(w.dir, 'keep'), 'k');
    // The outer text hides the word (${T}ME); the inner bash -c string is the literal BLOCKME.
    const r2 = clean(run(w, ['bash', '-c', 'T=BLOCK; bash -c "rm -f keep ${T}ME"; echo "after=$?"']));
    expect(r2).toMatchObject({ exitCode: 0, stdout: 'after=126\n' });
    // A subshell exits 126 alone; so does a command substitution (the function hides the word from
    // the outer text, which would otherwise be refused as a whole).
    write(path.join(w.dir, 'script.sh'), 'f() { rm -f keep BLOCKME; }\n(rm -f keep BLOCKME); echo "sub=$?"\nx=$(f); echo "cs=$?"\n');
    expect(clean(run(w, ['bash', 'script.sh']))).toMatchObject({ exitCode: 0, stdout: 'sub=126\ncs=126\n' });
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
  });

  itSandboxed('the rest of the hook (shell/guard-rest.bash) is read only when a command needs it: without it, ordinary commands run and one that needs the filter is refused (126)', () => {
    const w = world({ shims: true });
    const lone = path.join(w.dir, 'lone');
    fs.mkdirSync(lone);
    fs.copyFileSync(GUARD_BASH, path.join(lone, 'guard.bash'));
    const env = { BASH_ENV: path.join(lone, 'guard.bash') };
    fs.writeFileSync(path.join(w.dir, 'keep'), 'k');
    // Everything settled by the common case: no rest needed (bash -c, a loop, rm reaching its shim,
    // redirections that truncate no file: /dev/null, descriptor copies, appends).
    const ok = clean(run(w, ['bash', '-c', 'true; ls >/dev/null 2>&1; for i in 1 2; do echo $i >&2; done 2>/dev/null; rm -f nothing; echo x >> log.txt; echo "st=$?"'], { env }));
    expect([ok.exitCode, ok.stdout]).toEqual([0, 'st=0\n']);
    // What has a first substring of a bypass but is none, as a harness's command sends it: a path
    // argument, `command -v`, `env VAR=…`, its shell snapshot sourced by its path (re-exporting the
    // PATH with the shims first), and its cwd written to a new file.
    fs.mkdirSync(path.join(w.dir, 'snapshots'));
    fs.writeFileSync(path.join(w.dir, 'snapshots', 'snapshot-bash-1.sh'), `export PATH='${w.shims}:/usr/bin:/bin'\nif ! command -v rg >/dev/null 2>&1; then alias rg='grep -r'; fi\n`);
    const harness = clean(run(w, ['bash', '-c', `source ${w.dir}/snapshots/snapshot-bash-1.sh 2>/dev/null || true && ls /usr/share >/dev/null && env LC_ALL=C true && pwd -P >| ${w.dir}/snapshots/claude-1-cwd; echo "st=$?"`], { env }));
    expect([harness.exitCode, harness.stdout]).toEqual([0, 'st=0\n']);
    expect(fs.readFileSync(path.join(w.dir, 'snapshots', 'claude-1-cwd'), 'utf8')).toBe(`${w.dir}\n`);
    // A redirection that may truncate a file, and a bypass, need the rest: missing, it refuses them
    // (fail closed), nothing runs.
    const bad = clean(run(w, ['bash', '-c', '/bin/rm -f keep; echo ran'], { env }));
    expect([bad.exitCode, bad.stdout]).toEqual([126, '']);
    const trunc = clean(run(w, ['bash', '-c', ': > keep; echo ran'], { env }));
    expect([trunc.exitCode, trunc.stdout]).toEqual([126, '']);
    expect(fs.readFileSync(path.join(w.dir, 'keep'), 'utf8')).toBe('k');
    expect(bad.stderr).toContain('guard-rest.bash');
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
    // With the rest beside it, the same bypass goes to the checker.
    fs.copyFileSync(path.join(path.dirname(GUARD_BASH), 'guard-rest.bash'), path.join(lone, 'guard-rest.bash'));
    const checked = clean(run(w, ['bash', '-c', '/bin/rm -f nothing'], { env }));
    expect(checked.exitCode).toBe(0);
    expect(calls(w)).toEqual([checkerArgv(w, 'bash', w.dir, '/bin/rm -f nothing', ['--shims'])]);
  });

  itSandboxed('with the shims first on PATH, every PATH lookup is left to the shims: only bypasses, builtin loaders and the names of the guard itself reach the checker (one simple command at a time)', () => {
    const w = world({ shims: true });
    fs.mkdirSync(path.join(w.dir, 'x'));
    const r = clean(run(w, ['bash', '-c', 'rm -rf x']));
    expect(r.exitCode).toBe(0);
    expect(calls(w)).toEqual([]);
    expect(shimCalls(w)).toEqual(['rm -rf x']);
    expect(fs.existsSync(path.join(w.dir, 'x'))).toBe(false);
    // No checker at all: each rm/git/find reaches its shim, whatever the line around it.
    const deferred = [
      'rm -f "$HOME/nothing"', 'git --version >/dev/null', 'find . -name nothing', 'X=1 rm -f nothing', 'rm -f nothing 2>&1',
      '\\rm -f nothing', '"rm" -f nothing', '$c -f nothing', 'true && rm -f nothing', 'cd . && rm -f nothing', 'eval "rm -f nothing"',
      'for i in 1; do rm -f nothing; done', 'x=$(rm -f nothing)', 'sh -c "rm -f nothing"', 'PATH="$PATH:/nowhere" rm -f nothing', 'enable -n echo; rm -f nothing',
    ];
    for (const c of runCases(w, 'bash', deferred, { c: 'rm' })) {
      expect([c.text, c.exitCode, c.calls, c.shimCalls.length]).toEqual([c.text, 0, [], 1]);
    }
    // Past the shims: the checker sees the one simple command (not the whole -c string).
    const bypasses = ['/bin/rm -f nothing', 'command -p rm -f nothing', 'env -i rm -f nothing', 'PATH=/usr/bin rm -f nothing', 'busybox rm -f nothing', 'sudo -n true', "sh -c '/bin/rm -f nothing'", 'enable -f /nowhere/rm.so rm'];
    for (const c of runCases(w, 'bash', bypasses)) {
      expect([c.text, c.calls]).toEqual([c.text, [checkerArgv(w, 'bash', w.dir, c.text, ['--shims'])]]);
    }
    // A text the filter passed is remembered only while the shims stay first: once PATH drops them,
    // the same text goes through the prefilter (and the checker) again.
    const [again] = runCases(w, 'bash', ['for i in 1 2; do rm -f nothing; done; PATH=/usr/bin:/bin; rm -f nothing']);
    expect(again?.calls.map((c) => c[c.length - 1])).toEqual(['PATH=/usr/bin:/bin', 'rm -f nothing']);
    const [compound, viaVar, quotedVar] = runCases(w, 'bash', ['true && /bin/rm -f nothing; echo done', '$c -f nothing', '"$c" -f nothing'], { c: '/bin/rm' });
    expect(compound?.calls).toEqual([checkerArgv(w, 'bash', w.dir, '/bin/rm -f nothing', ['--shims'])]);
    // A program held in a variable is resolved by the hook: a path is checked as that path.
    expect(viaVar?.calls).toEqual([checkerArgv(w, 'bash', w.dir, '/bin/rm -f nothing', ['--shims'])]);
    expect(quotedVar?.calls).toEqual([checkerArgv(w, 'bash', w.dir, '/bin/rm -f nothing', ['--shims'])]);
    // Directories put before the shim dir that hold none of the shimmed programs keep the shims
    // first in effect (pyenv's shim: `export PATH="${PYENV_BIN_PATH}:${PATH}"`, then `exec "$X" "$@"`):
    // neither the assignment nor what follows starts the checker. One holding an `rm` does.
    fs.mkdirSync(path.join(w.dir, 'clean'), { recursive: true });
    fs.mkdirSync(path.join(w.dir, 'dirty'), { recursive: true });
    fs.writeFileSync(path.join(w.dir, 'dirty', 'rm'), '#!/bin/sh\n', { mode: 0o755 });
    const [prepended, dirty] = runCases(w, 'bash', ['export PATH="${P}:${PATH}"; rm -f nothing; x=$(command -v ls); "$x" >/dev/null', 'export PATH="$D:$PATH"; rm -f nothing'], {
      P: path.join(w.dir, 'clean'),
      D: path.join(w.dir, 'dirty'),
    });
    expect([prepended?.calls, prepended?.shimCalls.length]).toEqual([[], 1]);
    expect(dirty?.calls.map((c) => c[c.length - 1])).toEqual(['export PATH="$D:$PATH"', 'rm -f nothing']);
    // Any other program named by a path in a variable starts nothing (pyenv's shim runs
    // `"$READLINK" "$1"` on every python3 call): only a resolved text that is a bypass counts.
    const plainVar = runCases(w, 'bash', ['"$c" .', '$c -n .', '"${c}" --version >/dev/null'], { c: '/usr/bin/readlink' });
    expect(plainVar.map((c) => [c.text, c.calls])).toEqual(plainVar.map((c) => [c.text, []]));
  });

  itSandboxed('sourcing is silent and a second source changes nothing; $? survives it', () => {
    const w = world();
    expect(run(w, ['bash', '-c', 'true'])).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    const probe = 'declare -p | grep -v "^declare -[-a-zA-Z]* \\(_\\|BASH_[A-Z]*\\|a\\|b\\)="; declare -f; trap -p; shopt; set -o; echo "$PATH"';
    const r = clean(run(w, ['bash', '-c', `a=$(${probe}); source "$BASH_ENV"; . "$BASH_ENV"; b=$(${probe}); [ "$a" = "$b" ] && echo same; false; source "$BASH_ENV"; echo "st=$?"`]));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'same\nst=1\n', stderr: '' });
  });

  itSandboxed("the user's BASH_ENV is loaded first; its aliases and functions named like builtins do not break the guard; its DEBUG trap is chained", () => {
    const w = world();
    write(
      path.join(w.home, 'userenv.bash'),
      [
        `trap 'echo "$BASH_COMMAND" >> "$HOME/user-trap.log"' DEBUG`,
        'shopt -s expand_aliases',
        'alias builtin=false local=false return=false trap=false',
        'command() { :; }',
        'shopt() { :; }',
        'USER_ENV=loaded',
        '',
      ].join('\n'),
    );
    write(path.join(w.dir, 'keep'), 'k');
    write(path.join(w.dir, 'script.sh'), 'echo "u=$USER_ENV"\nrm -f nothing\nrm -f keep BLOCKME\necho after\n');
    const env = { AGENT_GUARD_USER_BASH_ENV: path.join(w.home, 'userenv.bash') };
    const r = clean(run(w, ['bash', 'script.sh'], { env }));
    expect(r).toMatchObject({ exitCode: 126, stdout: 'u=loaded\n' });
    expect(texts(w)).toEqual(['rm -f nothing', 'rm -f keep BLOCKME']);
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
    const userTrap = fs.readFileSync(path.join(w.home, 'user-trap.log'), 'utf8').split('\n');
    expect(userTrap).toContain('echo "u=$USER_ENV"');
    expect(userTrap).toContain('rm -f nothing');
    expect(userTrap).not.toContain('rm -f keep BLOCKME');
    // It saw no guard code after the line that took it off to chain it.
    expect(userTrap.slice(userTrap.indexOf('echo "u=$USER_ENV"')).filter((l) => l.includes('__agent_guard'))).toEqual([]);
  });

  itSandboxed('bash -lc: a login profile that resets PATH gets the shim dir put back in front', () => {
    const w = world({ shims: true });
    write(path.join(w.home, '.profile'), 'PATH=/usr/bin:/bin\n');
    const r = clean(run(w, ['bash', '-lc', 'echo "$PATH"; rm -f nothing']));
    expect(r).toMatchObject({ exitCode: 0, stdout: `${w.shims}:/usr/bin:/bin\n` });
    // Nothing goes to the checker; the rm is left to the shim.
    expect(texts(w)).toEqual([]);
    expect(shimCalls(w)).toEqual(['rm -f nothing']);
  });

  // A bash fact the launcher must handle: a non-interactive `bash -c` whose stdin is a socket (what
  // Node's spawn with stdio 'pipe' gives) and whose SHLVL is unset or 0 takes bash's "started by
  // rshd" path: it reads ~/.bashrc instead of BASH_ENV. With SHLVL=1 in the environment it reads
  // BASH_ENV. (runSandboxed's stdin is such a socket.)
  itSandboxed('bash -c on a socket stdin reads BASH_ENV only when SHLVL is at least 1', () => {
    const w = world();
    for (const [shlvl, expected] of [['0', 0], ['1', 1]] as const) {
      reset(w);
      run(w, ['bash', '-c', 'rm -f nothing'], { env: { SHLVL: shlvl } });
      expect([shlvl, calls(w).length]).toEqual([shlvl, expected]);
    }
  });

  itSandboxed('set -x shows none of the guard; set -eu scripts run unchanged', () => {
    const w = world();
    const r = clean(run(w, ['bash', '-xc', 'echo a; rm -f nothing; echo b']));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'a\nb\n' });
    expect(r.stderr).toBe('+ echo a\n+ rm -f nothing\n+ echo b\n');
    expect(texts(w)).toEqual(['echo a; rm -f nothing; echo b', 'rm -f nothing']);
    expect(run(w, ['bash', '-euc', 'rm -f nothing; X=${X:-1}; echo ok'])).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
    // `set -x` in the middle: the first command after it shows the hook's first lines once (the
    // trap's inline test, the call, the test that turns the hook quiet), then nothing of the hook,
    // also after `set +x` and a second `set -x`.
    reset(w);
    const mid = clean(run(w, ['bash', '-c', 'echo a; set -x; echo b; rm -f nothing; set +x; echo c; set -x; echo d']));
    expect(mid).toMatchObject({ exitCode: 0, stdout: 'a\nb\nc\nd\n' });
    const lines = mid.stderr.split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('++'))).toEqual(['+ echo b', '+ rm -f nothing', '+ set +x', '+ echo d']);
    expect(lines.filter((l) => l.startsWith('++')).length).toBeLessThanOrEqual(8);
    expect(texts(w)).toEqual(['echo a; set -x; echo b; rm -f nothing; set +x; echo c; set -x; echo d', 'rm -f nothing']);
  });
});

// The prefilter, one table for both shells: which text reaches the checker.
const NOT_DESTRUCTIVE = ['ls >/dev/null', 'echo hi', 'X=1', 'cd .', ':', 'printf "%s\\n" "$HOME" >/dev/null', 'echo $((1+2))', 'ls -lrt >/dev/null', 'a=$HOME; b=${a}/x'];
const MAY_BE_DESTRUCTIVE = ['rm -f nothing', 'echo git', '/bin/true', '$c', 'x=$(true)', 'r\\m -f nothing 2>/dev/null || true', 'true -rf', '. /dev/null', 'source /dev/null', 'eval true', 'env true',
  // turning the guard off: the checker refuses it as tampering, so it must see it
  'trap - DEBUG', 'unset BASH_ENV', 'export ZDOTDIR=/tmp', 'shopt -u extdebug 2>/dev/null || true', 'set +T', 'unfunction TRAPDEBUG 2>/dev/null || true'];

describeSandboxed('prefilter', () => {
  const shells = HAS_ZSH ? ['bash', 'zsh'] : ['bash'];
  for (const shell of shells) {
    itSandboxed(`${shell}: harmless text never starts the checker; the rest does`, () => {
      const w = world();
      for (const c of runCases(w, shell, NOT_DESTRUCTIVE)) expect([c.text, c.exitCode, c.calls]).toEqual([c.text, 0, []]);
      // zsh reprints the text it hands to the trap (blanks normalised): compare without blanks.
      const squeeze = (t: string | undefined) => (t ?? '').replace(/\s+/g, '');
      for (const c of runCases(w, shell, MAY_BE_DESTRUCTIVE, { c: 'true' })) {
        expect([c.text, c.calls.map((a) => squeeze(a[a.length - 1]))]).toEqual([c.text, expect.arrayContaining([squeeze(c.text)])]);
      }
    });
  }
});

const zshIt = HAS_ZSH ? itSandboxed : (name: string) => it.skip(`${name} (zsh not installed)`, () => {});

describeSandboxed('zsh hook (ZDOTDIR wrapper + TRAPDEBUG), non-interactive', () => {
  zshIt("loads the user's .zshenv with ZDOTDIR as the user has it, keeps its typesets global, starts no checker for harmless text", () => {
    const w = world();
    write(path.join(w.home, '.zshenv'), 'USER_ZSHENV=loaded\nUSER_ZDOTDIR=${ZDOTDIR-unset}\ntypeset -U path\ntypeset MYVAR=global\n');
    const r = clean(run(w, ['zsh', '-c', 'print -r -- "$USER_ZSHENV $USER_ZDOTDIR $MYVAR $ZDOTDIR"; ls >/dev/null; X=1; cd .; false; echo "st=$?"']));
    expect(r).toMatchObject({ exitCode: 0, stderr: '', stdout: `loaded unset global ${ZDOTDIR}\nst=1\n` });
    // Only the line that names ZDOTDIR (the guard's machinery: the checker looks for tampering).
    expect(texts(w)).toEqual([expect.stringMatching(/^print -r -- /)]);
  });

  zshIt("chains a TRAPDEBUG of the user's: it runs for every allowed command, never for a refused one", () => {
    const w = world();
    write(path.join(w.home, '.zshenv'), 'TRAPDEBUG() { print -r -- "$ZSH_DEBUG_CMD" >> $HOME/user-trap.log }\n');
    write(path.join(w.dir, 'keep'), 'k');
    const r = clean(run(w, ['zsh', '-c', 'echo a; rm -f nothing; rm -f keep BLOCKME; echo after']));
    expect(r).toMatchObject({ exitCode: 126, stdout: 'a\n' });
    const userTrap = fs.readFileSync(path.join(w.home, 'user-trap.log'), 'utf8').split('\n');
    const first = userTrap.indexOf('echo a');
    expect(userTrap.slice(first)).toEqual(['echo a', 'rm -f nothing', '']);
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
  });

  zshIt('sends a whole sublist to the checker; BLOCK / ASK / crash exit 126 with the target kept', () => {
    const w = world();
    write(path.join(w.dir, 'keep'), 'k');
    fs.mkdirSync(path.join(w.dir, 'x'));
    const r = clean(run(w, ['zsh', '-c', 'true && rm -rf x; echo "rc=$?"']));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'rc=0\n' });
    expect(calls(w)).toEqual([checkerArgv(w, 'zsh', w.dir, 'true && rm -rf x')]);
    expect(fs.existsSync(path.join(w.dir, 'x'))).toBe(false);
    for (const [word, msg] of [['BLOCKME', 'fake-checker: BLOCK'], ['ASKME', 'fake-checker: ASK'], ['CRASHME', 'agent-guard: ']] as const) {
      const b = clean(run(w, ['zsh', '-c', `echo before; rm -f keep ${word}; echo after`]));
      expect([word, b.exitCode, b.stdout]).toEqual([word, 126, 'before\n']);
      expect(b.stderr).toContain(msg);
    }
    expect(fs.readFileSync(path.join(w.dir, 'keep'), 'utf8')).toBe('k');
    // A nested zsh refuses on its own; the outer one goes on.
    const n = clean(run(w, ['zsh', '-c', 'T=BLOCK; zsh -c "rm -f keep ${T}ME"; echo "after=$?"']));
    expect(n).toMatchObject({ exitCode: 0, stdout: 'after=126\n' });
    expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
  });

  zshIt('with the shims first on PATH, every PATH lookup is left to the shims; bypasses reach the checker', () => {
    const w = world({ shims: true });
    fs.mkdirSync(path.join(w.dir, 'x'));
    expect(clean(run(w, ['zsh', '-c', 'rm -rf x; git --version >/dev/null; X=1 rm -f nothing'])).exitCode).toBe(0);
    expect(calls(w)).toEqual([]);
    expect(shimCalls(w)).toEqual(['rm -rf x', 'git --version', 'rm -f nothing']);
    const deferred = ['\\rm -f nothing', '$c -f nothing', 'true && rm -f nothing', 'rm -f nothing | cat', 'eval "rm -f nothing"', 'if true; then rm -f nothing; fi'];
    for (const c of runCases(w, 'zsh', deferred, { c: 'rm' })) {
      expect([c.text, c.exitCode, c.calls, c.shimCalls.length]).toEqual([c.text, 0, [], 1]);
    }
    const bypasses = ['/bin/rm -f nothing', 'command -p rm -f nothing', 'env -i rm -f nothing', 'PATH=/usr/bin rm -f nothing', 'busybox rm -f nothing', 'true && /bin/rm -f nothing', 'path=(/usr/bin) rm -f nothing'];
    for (const c of runCases(w, 'zsh', bypasses)) {
      expect([c.text, c.calls]).toEqual([c.text, [checkerArgv(w, 'zsh', w.dir, c.text, ['--shims'])]]);
    }
    const [viaVar] = runCases(w, 'zsh', ['$c -f nothing'], { c: '/bin/rm' });
    expect(viaVar?.calls).toEqual([checkerArgv(w, 'zsh', w.dir, '/bin/rm -f nothing', ['--shims'])]);
    const plainVar = runCases(w, 'zsh', ['"$c" .', '$c -n .'], { c: '/usr/bin/readlink' });
    expect(plainVar.map((c) => [c.text, c.calls])).toEqual(plainVar.map((c) => [c.text, []]));
    // A directory before the shim dir that holds none of the shimmed programs keeps them first in
    // effect, the assignment included; one holding an `rm` does not.
    fs.mkdirSync(path.join(w.dir, 'clean'), { recursive: true });
    fs.mkdirSync(path.join(w.dir, 'dirty'), { recursive: true });
    fs.writeFileSync(path.join(w.dir, 'dirty', 'rm'), '#!/bin/sh\n', { mode: 0o755 });
    const [prepended, dirty] = runCases(w, 'zsh', ['export PATH="${P}:${PATH}"; rm -f nothing', 'export PATH="$D:$PATH"; rm -f nothing'], { P: path.join(w.dir, 'clean'), D: path.join(w.dir, 'dirty') });
    expect([prepended?.calls, prepended?.shimCalls.length]).toEqual([[], 1]);
    expect(dirty?.calls.map((c) => c[c.length - 1]!.trim())).toEqual(['export PATH="$D:$PATH"', 'rm -f nothing']);
    // A text the filter passed is remembered (__agent_guard_fast) only under the PATH it was passed
    // with: once PATH drops the shims, the same text reaches the checker again; a user's TRAPDEBUG
    // still runs for a remembered text.
    write(path.join(w.home, '.zshenv'), 'TRAPDEBUG() { print -r -- "$ZSH_DEBUG_CMD" >> $HOME/user-trap.log }\n');
    const [again] = runCases(w, 'zsh', ['for i in 1 2 3; do rm -f nothing; done; PATH=/usr/bin:/bin; for i in 1 2; do rm -f nothing; done']);
    const sent = again!.calls.map((c) => c[c.length - 1]!.trim());
    expect(sent[0]).toBe('PATH=/usr/bin:/bin'); // (nothing of the first loop)
    expect(sent.filter((t) => t === 'rm -f nothing')).toHaveLength(2);
    expect(again?.shimCalls.length).toBe(3);
    expect(fs.readFileSync(path.join(w.home, 'user-trap.log'), 'utf8').split('\n').filter((l) => l === 'rm -f nothing')).toHaveLength(5);
    fs.rmSync(path.join(w.home, '.zshenv'));
    // A script under `emulate sh` (sh scripts run by zsh, the shims' own first line) splits words
    // where zsh does not: the trap's first lines run in the caller's options, and say nothing.
    const sh = clean(run(w, ['zsh', '-c', 'emulate sh; set -- a b; for i in 1 2 3; do x="$# $i"; echo "$x $*"; done']));
    expect(sh).toMatchObject({ exitCode: 0, stderr: '', stdout: '2 1 a b\n2 2 a b\n2 3 a b\n' });
  });

  zshIt("zsh -lc: the user's .zprofile resetting PATH gets the shim dir back; a ZDOTDIR moved by the user's .zshenv is followed", () => {
    const w = world({ shims: true });
    write(path.join(w.home, '.zshenv'), 'export ZDOTDIR=$HOME/.config/zsh\n');
    write(path.join(w.home, '.config/zsh/.zprofile'), 'PATH=/usr/bin:/bin\nZPROFILE=xdg\n');
    write(path.join(w.home, '.config/zsh/.zlogin'), 'ZLOGIN=xdg\n');
    const r = clean(run(w, ['zsh', '-lc', 'print -r -- "$PATH $ZPROFILE $ZLOGIN $ZDOTDIR $AGENT_GUARD_USER_ZDOTDIR"; rm -f nothing']));
    expect(r).toMatchObject({ exitCode: 0, stdout: `${w.shims}:/usr/bin:/bin xdg xdg ${ZDOTDIR} ${w.home}/.config/zsh\n` });
    expect(texts(w)).toEqual([expect.stringMatching(/^print -r -- /)]); // it names ZDOTDIR (the guard's own name)
    expect(shimCalls(w)).toEqual(['rm -f nothing']);
  });

  zshIt('sourcing guard.zsh again is silent and changes nothing; $? survives it', () => {
    const w = world();
    const g = path.join(REPO, 'shell/guard.zsh');
    // (__agent_guard_mine/okw: the files this shell's own redirections wrote — p1, p2 — by design)
    const probe = 'typeset -p + | grep -Ev "^(typeset|export)( -[-a-zA-Z0-9]+)* (_|RANDOM|SECONDS|EPOCH[A-Z]*|LINENO|__agent_guard_mine|__agent_guard_okw)="; typeset -f; setopt';
    const r = clean(run(w, ['zsh', '-c', `{ ${probe}; } >$HOME/p1; source ${g}; { ${probe}; } >$HOME/p2; cmp -s $HOME/p1 $HOME/p2 && echo same; false; source ${g}; echo "st=$?"`]));
    expect(r).toMatchObject({ exitCode: 0, stdout: 'same\nst=1\n', stderr: '' });
  });
});

// Interactive shells under a pseudo-terminal (util-linux script), inside the sandbox.
const ptyIt = HAS_SCRIPT ? itSandboxed : (name: string) => it.skip(`${name} (util-linux script not installed: no pseudo-terminal)`, () => {});
const ptyZshIt = HAS_SCRIPT && HAS_ZSH ? itSandboxed : (name: string) => it.skip(`${name} (needs zsh and util-linux script)`, () => {});
const PTY = path.join(FIXTURES, 'pty.sh');
// Typed lines print MARK-<n> only when they run: the echoed input shows MARK-$((...)) unexpanded.
const TYPED = [
  'echo MARK-$((1+1))',
  'touch keep; rm -f keep BLOCKME; echo MARK-$((2+1))',
  'echo MARK-$((3+1)) st=$?',
  'rm -f gone; echo MARK-$((4+1))',
  'cd sub && rm -f ../keep ASKME',
  'echo MARK-$((5+1)) $PWD',
  'exit 0',
  '',
].join('\n');

function expectInteractive(w: World, r: SandboxResult, shell: string): void {
  expect(r.exitCode).toBe(0);
  const out = r.stdout.replace(/\r/g, '');
  expect(out).toContain('MARK-2');
  expect(out).not.toContain('MARK-3'); // the rest of a refused line is dropped
  expect(out).toMatch(/MARK-4 st=(1|130)/); // and the shell is back at its prompt
  expect(out).toContain('MARK-5');
  expect(out).toContain(`MARK-6 ${w.dir}\n`); // the refused `cd sub && ...` did not cd
  expect(fs.existsSync(path.join(w.dir, 'keep'))).toBe(true);
  expect(fs.existsSync(path.join(w.dir, 'gone'))).toBe(false);
  const refused = calls(w).filter((c) => c[c.length - 1]?.includes('BLOCKME') || c[c.length - 1]?.includes('ASKME'));
  expect(refused.length).toBeGreaterThan(0);
  for (const c of refused) expect(c.slice(1, 5)).toEqual(['hook-shell', '--shell', shell, '--interactive']);
  expect(texts(w)).toContain('cd sub && rm -f ../keep ASKME');
}

describeSandboxed('interactive shells (pseudo-terminal)', () => {
  ptyIt('bash: a refusal skips the command, drops the rest of the line and returns to the prompt', () => {
    const w = world();
    write(path.join(w.dir, 'keep'), 'k');
    write(path.join(w.dir, 'gone'), 'g');
    fs.mkdirSync(path.join(w.dir, 'sub'));
    // What the shell-init snippet does: remember the DEBUG trap, then source the guard.
    write(path.join(w.home, 'rc.bash'), `PS1='$ '\n__agent_guard_prev=$(trap -p DEBUG); . ${GUARD_BASH}\n`);
    const r = run(w, ['sh', PTY, `bash --noprofile --rcfile ${w.home}/rc.bash -i`], { input: TYPED });
    expectInteractive(w, r, 'bash');
    // The whole line was checked once (from history), then the refused command.
    expect(texts(w).filter((t) => t === 'touch keep; rm -f keep BLOCKME; echo MARK-$((2+1))')).toHaveLength(1);
    expect(r.stdout).not.toContain('__agent_guard');
  });

  ptyZshIt('zsh: a refusal abandons the line (TRAPDEBUG returns 1) and returns to the prompt', () => {
    const w = world();
    write(path.join(w.dir, 'keep'), 'k');
    write(path.join(w.dir, 'gone'), 'g');
    fs.mkdirSync(path.join(w.dir, 'sub'));
    // Prompt-time code (precmd, prompt substitution) is the user's configuration: never checked.
    write(path.join(w.home, '.zshrc'), "setopt prompt_subst\nPS1='$(git --version >/dev/null; echo z)%# '\nprecmd() { git --version >/dev/null }\nUSER_ZSHRC=1\n");
    const r = run(w, ['sh', PTY, 'zsh -i'], { input: TYPED });
    expectInteractive(w, r, 'zsh');
    expect(texts(w).filter((t) => t?.startsWith('git'))).toEqual([]);
  });
});
