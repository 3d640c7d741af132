// The entry points: install.sh, `shell-init`, `run`, `doctor` (docs/install.md). Everything that
// installs, uninstalls, runs a shim, a hook or a guarded command runs inside the read-only sandbox
// with a temp HOME and an exact environment (`env -i`), so the developer's own guard (BASH_ENV,
// ZDOTDIR, AGENT_GUARD_*) never leaks in. Assertions are on exit codes, paths, files and check ids.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tree } from '../helpers/tree.mjs';
import { describeSandboxed, itSandboxed, runBatchSandboxed, runSandboxedExact, useSandboxArea, type SandboxResult } from '../helpers/sandbox.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const INSTALL = path.join(REPO, 'install.sh');
const BUNDLE = path.join(REPO, 'dist/agent-guard.cjs');
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const NODE_DIR = path.dirname(process.execPath);
const BASE_PATH = [...new Set([NODE_DIR, '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
const SHIM_NAMES = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'mv', 'cp', 'truncate', 'rsync'];
const ZFILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin', '.zlogout'];
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} >/dev/null`]).status === 0;
const HAS_ZSH = has('zsh');
/** The zsh hook's compiled forms, which install.sh makes with the zsh on PATH. */
const ZWC_FILES = HAS_ZSH ? ['shell/guard.zsh.zwc', ...ZFILES.map((z) => `shell/zsh/${z}.zwc`)] : [];
const INSTALLED_FILES = [
  'lib/agent-guard.cjs',
  'lib/agent-guard-mcp.cjs',
  'lib/agent-guard-preload.cjs',
  'lib/shim.sh',
  'bin/agent-guard',
  'shell/guard.bash',
  'shell/guard-rest.bash',
  'shell/hook-client.sh',
  'shell/guard.zsh',
  ...ZFILES.map((z) => `shell/zsh/${z}`),
  'lib/agent-guard-python/sitecustomize.py',
  'lib/agent-guard-python/agent-guard-delete.py',
  ...ZWC_FILES,
  ...SHIM_NAMES.map((n) => `shims/${n}`),
  'shims/.agent-guard-shims',
];
const DOCTOR_IDS = [
  'node.version',
  'bundle',
  'shims.dir',
  ...SHIM_NAMES.map((n) => `shim.${n}`),
  'path.shims-first',
  ...SHIM_NAMES.map((n) => `real.${n}`),
  'hook.bash-env',
  'hook.zdotdir',
  'hook.env',
  'node.preload',
  'python.sitecustomize',
  ...['claude', 'codex', 'gemini', 'copilot'].map((h) => `harness.${h}`),
  ...['mcp', 'instructions'].flatMap((p) => ['claude', 'codex', 'gemini', 'copilot'].map((h) => `${p}.${h}`)),
  'quarantine.writable',
  'quarantine.ignored',
];

const zshIt: typeof itSandboxed = HAS_ZSH ? itSandboxed : (name) => it.skip(`${name} (zsh not installed)`, () => {});

const area = useSandboxArea('ag-entry');

interface World {
  dir: string;
  home: string;
  env: Record<string, string>;
}

let worlds = 0;
/** A fresh directory with a temp HOME and the whole environment the commands get. */
function world(): World {
  const dir = path.join(area.rw(), `w${++worlds}`);
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    PATH: BASE_PATH,
    SHELL: '/bin/bash',
    TERM: 'dumb',
    TMPDIR: '/dev/shm',
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
  return { dir, home, env };
}

/** Runs argv in the sandbox with exactly w.env (+ env). */
function sbx(w: World, argv: string[], opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): SandboxResult {
  return runSandboxedExact(area.rw(), { ...w.env, ...opts.env }, argv, { cwd: opts.cwd ?? w.dir, timeoutMs: opts.timeoutMs ?? 30_000 });
}

/** Several commands in one sandbox (tests/helpers/batch.mjs), in order; each gets w.env + its env. */
function sbxBatch(w: World, cases: { argv: string[]; env?: Record<string, string>; cwd?: string }[]): SandboxResult[] {
  return runBatchSandboxed(area.rw(), cases, { dir: w.dir, cwd: w.dir, env: w.env, exact: true, timeoutMs: 120_000 });
}

const install = (w: World, prefix: string, args: string[] = [], env: Record<string, string> = {}) => sbx(w, ['sh', INSTALL, '--prefix', prefix, ...args], { env });

let shared: { w: World; prefix: string; ag: string; shims: string } | undefined;
/** One installation shared by the tests that only use it (never modified by a test). */
function sharedInstall(): { w: World; prefix: string; ag: string; shims: string } {
  if (shared) return shared;
  const w = world();
  const prefix = path.join(w.home, '.agent-guard');
  const r = install(w, prefix);
  expect(r.exitCode, r.stderr).toBe(0);
  shared = { w, prefix, ag: path.join(prefix, 'bin/agent-guard'), shims: path.join(prefix, 'shims') };
  return shared;
}

const names = (root: string) => tree(root).map((l) => l.split(' ')[0]);
const write = (file: string, text: string, mode?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  if (mode !== undefined) fs.chmodSync(file, mode);
};
const lines = (s: string) => s.split('\n').filter((l) => l !== '');
const rcLine = (prefix: string, shell: string) => `eval "$(${prefix}/bin/agent-guard shell-init ${shell})"\n`;

describeSandboxed('install.sh', () => {
  itSandboxed('installs bundle, template, hooks, launcher and rendered shims, lists them, prints the one rc line', () => {
    const w = world();
    const prefix = path.join(w.home, '.agent-guard');
    const r = install(w, prefix);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(rcLine(prefix, 'bash'));

    const files = tree(prefix).filter((l) => !l.includes(' dir ')).map((l) => l.split(' ')[0]);
    expect(files.sort()).toEqual([...INSTALLED_FILES, '.agent-guard-install'].sort());
    const same = (installed: string, source: string) => expect(fs.readFileSync(path.join(prefix, installed)).equals(fs.readFileSync(path.join(REPO, source)))).toBe(true);
    same('lib/agent-guard.cjs', 'dist/agent-guard.cjs');
    same('lib/agent-guard-mcp.cjs', 'dist/agent-guard-mcp.cjs');
    same('lib/agent-guard-preload.cjs', 'dist/agent-guard-preload.cjs');
    for (const f of ['sitecustomize.py', 'agent-guard-delete.py']) same(`lib/agent-guard-python/${f}`, `dist/agent-guard-python/${f}`);
    same('lib/shim.sh', 'shims/shim.sh');
    same('shell/guard.bash', 'shell/guard.bash');
    same('shell/guard-rest.bash', 'shell/guard-rest.bash');
    same('shell/hook-client.sh', 'shell/hook-client.sh');
    same('shell/guard.zsh', 'shell/guard.zsh');
    for (const z of ZFILES) same(`shell/zsh/${z}`, `shell/zsh/${z}`);
    expect(fs.existsSync(path.join(prefix, 'shims/.agent-guard-shims'))).toBe(true);
    const node = path.join(NODE_DIR, 'node'); // what `command -v node` finds on BASE_PATH
    for (const n of SHIM_NAMES) {
      const shim = path.join(prefix, 'shims', n);
      expect(fs.statSync(shim).mode & 0o777).toBe(0o755);
      const text = fs.readFileSync(shim, 'utf8');
      expect(text).toContain(`ag_name='${n}'`);
      expect(text).toContain(`ag_node="${node}"`);
      expect(text).toContain(`ag_bundle="${prefix}/lib/agent-guard.cjs"`);
    }
    expect(fs.statSync(path.join(prefix, 'bin/agent-guard')).mode & 0o777).toBe(0o755);
    // The launcher (dist/agent-guard) with this installation's node and bundle put in.
    const launcher = fs.readFileSync(path.join(prefix, 'bin/agent-guard'), 'utf8');
    expect(launcher).toContain(`\nag_node='${node}'\nag_bundle='${prefix}/lib/agent-guard.cjs'\n`);
    expect(launcher.replace(/^ag_node=.*$/m, "ag_node=''").replace(/^ag_bundle=.*$/m, "ag_bundle=''")).toBe(fs.readFileSync(path.join(REPO, 'dist/agent-guard'), 'utf8'));

    const list = lines(fs.readFileSync(path.join(prefix, '.agent-guard-install'), 'utf8')).filter((l) => !l.startsWith('#'));
    expect(list).toEqual([...INSTALLED_FILES.map((f) => `f ${f}`), 'd shell/zsh', 'd shell', 'd shims', 'd lib/agent-guard-python', 'd lib', 'd bin', 'd .']);

    // The launcher runs the installed bundle.
    const v = sbx(w, [path.join(prefix, 'bin/agent-guard'), '--version']);
    expect(v.exitCode).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  zshIt("the zsh hook's compiled forms: valid for this zsh, read while not older than their file, and not once the file is newer", () => {
    const w = world();
    const prefix = path.join(w.home, '.agent-guard');
    expect(install(w, prefix).exitCode).toBe(0);
    for (const f of ZWC_FILES) {
      const src = path.join(prefix, f.replace(/\.zwc$/, ''));
      expect(fs.statSync(path.join(prefix, f)).mtimeMs, f).toBeGreaterThanOrEqual(fs.statSync(src).mtimeMs);
      expect(sbx(w, ['zsh', '-fc', 'zcompile -t -- "$1"', 'zsh', path.join(prefix, f)]).exitCode, f).toBe(0);
    }
    // guard.zsh with a first line that says it was read: not shown while the compiled form is at
    // least as new; shown once the file is newer (an edit after the install), which zsh then reads.
    const guard = path.join(prefix, 'shell/guard.zsh');
    const zwc = fs.statSync(`${guard}.zwc`).mtime;
    fs.writeFileSync(guard, `print -r -- FROM-THE-FILE >&2\n${fs.readFileSync(guard, 'utf8')}`);
    const env = { ZDOTDIR: path.join(prefix, 'shell/zsh') };
    fs.utimesSync(guard, zwc, new Date(zwc.getTime() - 60_000));
    const compiled = sbx(w, ['zsh', '-c', 'print ok'], { env });
    expect([compiled.exitCode, compiled.stdout, compiled.stderr]).toEqual([0, 'ok\n', '']);
    fs.utimesSync(guard, zwc, new Date(zwc.getTime() + 60_000));
    const edited = sbx(w, ['zsh', '-c', 'print ok'], { env });
    expect([edited.exitCode, edited.stdout, edited.stderr]).toEqual([0, 'ok\n', 'FROM-THE-FILE\n']);
    // A second install compiles it again (the file changed): the two agree.
    expect(install(w, prefix).exitCode).toBe(0);
    expect(fs.readFileSync(guard, 'utf8')).toBe(fs.readFileSync(path.join(REPO, 'shell/guard.zsh'), 'utf8'));
    expect(fs.statSync(`${guard}.zwc`).mtimeMs).toBeGreaterThanOrEqual(fs.statSync(guard).mtimeMs);
  });

  itSandboxed('SHELL=zsh: the printed line is the zsh one', () => {
    const w = world();
    const prefix = path.join(w.dir, 'opt-ag');
    const r = install(w, prefix, [], { SHELL: '/usr/bin/zsh' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(rcLine(prefix, 'zsh'));
  });

  itSandboxed('a second install changes nothing: same files, modes, inodes, mtimes, same list', () => {
    const w = world();
    const prefix = path.join(w.home, '.agent-guard');
    expect(install(w, prefix).exitCode).toBe(0);
    const before = tree(prefix);
    const r = install(w, prefix);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(rcLine(prefix, 'bash'));
    expect(tree(prefix)).toEqual(before);
  });

  itSandboxed('--uninstall removes exactly the listed files and the directories it created; user files survive', () => {
    const w = world();
    // 1. A new prefix with a file of the user's at the top and one in shims/.
    const prefix = path.join(w.home, '.agent-guard');
    expect(install(w, prefix).exitCode).toBe(0);
    write(path.join(prefix, 'notes.txt'), 'mine\n');
    write(path.join(prefix, 'shims/my-tool'), '#!/bin/sh\n', 0o755);
    write(path.join(w.home, '.bashrc'), 'keep\n');
    const r = install(w, prefix, ['--uninstall']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(names(prefix)).toEqual(['notes.txt', 'shims', 'shims/my-tool']);
    expect(names(w.home)).toEqual(['.agent-guard', '.agent-guard/notes.txt', '.agent-guard/shims', '.agent-guard/shims/my-tool', '.bashrc']);

    // 2. Nothing of the user's: the prefix itself goes (install.sh created it).
    const p2 = path.join(w.dir, 'p2');
    expect(install(w, p2).exitCode).toBe(0);
    // With the bytecode a Python under the guard wrote beside it (not in the list: named by version).
    if (has('python3')) {
      const py = sbx(w, ['python3', '-c', "import sys; print('_agent_guard' in sys.modules)"], { env: { PYTHONPATH: path.join(p2, 'lib/agent-guard-python') } });
      expect([py.stdout, py.stderr]).toEqual(['True\n', '']);
      expect(fs.readdirSync(path.join(p2, 'lib/agent-guard-python/__pycache__')).length).toBe(2);
    }
    expect(install(w, p2, ['--uninstall']).exitCode).toBe(0);
    expect(fs.existsSync(p2)).toBe(false);

    // 3. A prefix that existed (empty) before the install stays.
    const p3 = path.join(w.dir, 'p3');
    fs.mkdirSync(p3);
    expect(install(w, p3).exitCode).toBe(0);
    expect(lines(fs.readFileSync(path.join(p3, '.agent-guard-install'), 'utf8'))).not.toContain('d .');
    expect(install(w, p3, ['--uninstall']).exitCode).toBe(0);
    expect(fs.readdirSync(p3)).toEqual([]);

    // 4. No installation there: refused.
    const none = install(w, path.join(w.dir, 'nothing-here'), ['--uninstall']);
    expect(none.exitCode).toBe(1);
    // 5. A list naming something outside the prefix: refused before anything is removed.
    const p5 = path.join(w.dir, 'p5');
    expect(install(w, p5).exitCode).toBe(0);
    write(path.join(w.dir, 'victim'), 'v\n');
    fs.appendFileSync(path.join(p5, '.agent-guard-install'), 'f ../victim\n');
    const bad = install(w, p5, ['--uninstall']);
    expect(bad.exitCode).toBe(1);
    expect(fs.readFileSync(path.join(w.dir, 'victim'), 'utf8')).toBe('v\n');
    expect(fs.existsSync(path.join(p5, 'lib/agent-guard.cjs'))).toBe(true);
    // 6. A listed directory replaced by a symlink to elsewhere: nothing is removed through it.
    const p6 = path.join(w.dir, 'p6');
    expect(install(w, p6).exitCode).toBe(0);
    const elsewhere = path.join(w.dir, 'elsewhere');
    fs.renameSync(path.join(p6, 'shims'), elsewhere);
    fs.symlinkSync(elsewhere, path.join(p6, 'shims'));
    const before = tree(elsewhere);
    expect(install(w, p6, ['--uninstall']).exitCode).toBe(0);
    expect(tree(elsewhere)).toEqual(before);
    expect(names(p6)).toEqual(['shims']);
  });

  itSandboxed('refuses /, $HOME, a directory of other files, a path inside the checkout, unsafe characters; writes nothing', () => {
    const w = world();
    write(path.join(w.home, '.profile'), 'x\n');
    const other = path.join(w.dir, 'other');
    write(path.join(other, 'data.txt'), 'data\n');
    const homeBefore = tree(w.home);
    const otherBefore = tree(other);
    const prefixes = ['/', '//', w.home, `${w.home}/`, `${w.home}/.`, other, path.join(REPO, 'inst'), path.join(w.dir, 'a$b'), path.join(w.dir, 'a:b'), path.join(w.dir, 'a"b')];
    const results = sbxBatch(w, prefixes.map((prefix) => ({ argv: ['sh', INSTALL, '--prefix', prefix] })));
    prefixes.forEach((prefix, i) => expect([prefix, results[i]!.exitCode, results[i]!.stdout]).toEqual([prefix, 1, '']));
    expect(tree(w.home)).toEqual(homeBefore);
    expect(tree(other)).toEqual(otherBefore);
    expect(fs.readdirSync(w.dir).sort()).toEqual(['home', 'other']);
    // A file as prefix, and usage errors.
    const more = sbxBatch(w, [
      { argv: ['sh', INSTALL, '--prefix', path.join(w.dir, 'home/.profile')] },
      { argv: ['sh', INSTALL, '--bogus'] },
      { argv: ['sh', INSTALL, '--prefix'] },
    ]);
    expect(more.map((r) => r.exitCode)).toEqual([1, 2, 2]);
  });

  itSandboxed(
    'builds dist/agent-guard.cjs first when it is missing',
    () => {
      const w = world();
      const checkout = path.join(w.dir, 'checkout');
      for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'install.sh']) fs.cpSync(path.join(REPO, f), path.join(checkout, f));
      for (const d of ['bin', 'scripts', 'src', 'shell', 'shims']) fs.cpSync(path.join(REPO, d), path.join(checkout, d), { recursive: true });
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(checkout, 'node_modules'));
      const prefix = path.join(w.dir, 'prefix');
      const r = sbx(w, ['sh', path.join(checkout, 'install.sh'), '--prefix', prefix], { timeoutMs: 120_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(rcLine(prefix, 'bash'));
      expect(fs.readFileSync(path.join(prefix, 'lib/agent-guard.cjs')).equals(fs.readFileSync(path.join(checkout, 'dist/agent-guard.cjs')))).toBe(true);
      expect(sbx(w, [path.join(prefix, 'bin/agent-guard'), '--version']).exitCode).toBe(0);
    },
    150_000,
  );
});

describeSandboxed('shell-init', () => {
  const probe = (shell: string, ag: string) =>
    [
      `eval "$(${ag} shell-init ${shell})"`,
      `eval "$(${ag} shell-init ${shell})"`,
      `echo "st=$?"`,
      'command -v rm',
      'printf "%s\\n" "$PATH" "$BASH_ENV" "$AGENT_GUARD_USER_BASH_ENV" "$ZDOTDIR" "${AGENT_GUARD_USER_ZDOTDIR-unset}" "$AGENT_GUARD_SHIMS" "$AGENT_GUARD_BUNDLE" "$AGENT_GUARD_NODE"',
    ].join('; ');

  for (const shell of ['bash', 'zsh']) {
    (shell === 'zsh' ? zshIt : itSandboxed)(`${shell}: eval'd twice: shim dir once and first on PATH, rm is the shim, hooks ours, the user's values kept`, () => {
      const { prefix, ag, shims } = sharedInstall();
      const w = world();
      const userBashEnv = path.join(w.home, 'user.bash');
      write(userBashEnv, 'USER_BASH_ENV_LOADED=1\n');
      const userZdot = path.join(w.home, 'zdot');
      fs.mkdirSync(userZdot);
      const r = sbx(w, [shell, '-c', probe(shell, ag)], { env: { BASH_ENV: userBashEnv, ZDOTDIR: userZdot } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(lines(r.stdout)).toEqual([
        'st=0',
        path.join(shims, 'rm'),
        `${shims}:${BASE_PATH}`,
        path.join(prefix, 'shell/guard.bash'),
        userBashEnv,
        path.join(prefix, 'shell/zsh'),
        userZdot,
        shims,
        path.join(prefix, 'lib/agent-guard.cjs'),
        process.execPath,
      ]);
    });
  }

  itSandboxed('a PATH that already has the shim dir further down gets it first and once', () => {
    const { ag, shims } = sharedInstall();
    const w = world();
    const r = sbx(w, ['bash', '-c', `eval "$(${ag} shell-init bash)"; printf '%s\\n' "$PATH"`], { env: { PATH: `/usr/bin:${shims}:/bin:${shims}` } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${shims}:/usr/bin:/bin\n`);
  });

  itSandboxed('unknown shell, no shell: exit 1 and nothing on stdout', () => {
    const { ag } = sharedInstall();
    const w = world();
    const cases = [['shell-init', 'fish'], ['shell-init'], ['shell-init', 'bash', 'zsh']];
    const results = sbxBatch(w, cases.map((args) => ({ argv: [ag, ...args] })));
    cases.forEach((args, i) => expect([args, results[i]!.exitCode, results[i]!.stdout]).toEqual([args, 1, '']));
  });

  // With the snippet in .zshrc, ZDOTDIR becomes the wrapper during start-up: a login zsh then reads
  // the wrapper's .zlogin and .zlogout, in a shell that never read the wrapper's .zshenv.
  zshIt("an interactive login zsh whose .zshrc evals the snippet still runs the user's .zlogin, without errors", () => {
    const { ag, shims } = sharedInstall();
    const w = world();
    write(path.join(w.home, '.zshrc'), `eval "$(${ag} shell-init zsh)"\n`);
    write(path.join(w.home, '.zlogin'), 'print -r -- USER_ZLOGIN\n');
    const r = sbx(w, ['zsh', '-l', '-i', '-c', 'print -r -- "$PATH"']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout)).toEqual(['USER_ZLOGIN', `${shims}:${BASE_PATH}`]);
  });
});

describeSandboxed('run', () => {
  itSandboxed('sh -c: rm is the shim; the hook environment, with the user\'s BASH_ENV and ZDOTDIR kept', () => {
    const { ag, prefix, shims } = sharedInstall();
    const w = world();
    const r = sbx(w, [ag, 'run', '--', 'sh', '-c', 'command -v rm; printf "%s\\n" "$PATH" "$BASH_ENV" "$AGENT_GUARD_USER_BASH_ENV" "$ZDOTDIR" "$AGENT_GUARD_USER_ZDOTDIR" "$AGENT_GUARD_SHIMS" "$AGENT_GUARD_BUNDLE" "$AGENT_GUARD_NODE" "${AGENT_GUARD_WORKSPACE-unset}"'], {
      env: { BASH_ENV: '/u/benv', ZDOTDIR: '/u/zdot' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([
      path.join(shims, 'rm'),
      `${shims}:${BASE_PATH}`,
      path.join(prefix, 'shell/guard.bash'),
      '/u/benv',
      path.join(prefix, 'shell/zsh'),
      '/u/zdot',
      shims,
      path.join(prefix, 'lib/agent-guard.cjs'),
      process.execPath,
      'unset',
    ]);
    // No BASH_ENV/ZDOTDIR before: recorded as empty. AGENT_GUARD_WORKSPACE is passed through.
    const r2 = sbx(w, [ag, 'run', '--', 'sh', '-c', 'printf "%s\\n" "[$AGENT_GUARD_USER_BASH_ENV]" "[$AGENT_GUARD_USER_ZDOTDIR]" "$AGENT_GUARD_WORKSPACE"'], { env: { AGENT_GUARD_WORKSPACE: w.dir } });
    expect(lines(r2.stdout)).toEqual(['[]', '[]', w.dir]);
  });

  itSandboxed('bash -lc with a ~/.profile that resets PATH still finds the shim (BASH_ENV repairs PATH)', () => {
    const { ag, shims } = sharedInstall();
    const w = world();
    write(path.join(w.home, '.profile'), 'PATH=/usr/bin:/bin\nexport PATH\n');
    const r = sbx(w, [ag, 'run', '--', 'bash', '-lc', 'command -v rm; printf "%s\\n" "$PATH"']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([path.join(shims, 'rm'), `${shims}:/usr/bin:/bin`]);
  });

  zshIt('zsh -c and zsh -lc find the shim', () => {
    const { ag, shims } = sharedInstall();
    const w = world();
    for (const flag of ['-c', '-lc']) {
      const r = sbx(w, [ag, 'run', '--', 'zsh', flag, 'command -v rm']);
      expect([flag, r.exitCode, r.stdout]).toEqual([flag, 0, `${path.join(shims, 'rm')}\n`]);
    }
  });

  itSandboxed("exits with the child's status: 0, 7, a signal as 128+n; 127 when not found", () => {
    const { ag } = sharedInstall();
    const w = world();
    const cases: [string[], number][] = [
      [['true'], 0],
      [['sh', '-c', 'exit 7'], 7],
      [['sh', '-c', 'kill -TERM $$'], 143],
      [['sh', '-c', 'kill -KILL $$'], 137],
      [['no-such-command-here'], 127],
    ];
    const results = sbxBatch(w, [...cases.map(([cmd]) => ({ argv: [ag, 'run', '--', ...cmd] })), { argv: [ag, 'run'] }]);
    cases.forEach(([cmd, code], i) => expect([cmd, results[i]!.exitCode]).toEqual([cmd, code]));
    // No command at all: a usage error of run itself.
    expect(results[cases.length]!.exitCode).not.toBe(0);
  });

  itSandboxed('passes SIGTERM, SIGINT and SIGHUP on to the child and exits with its status', () => {
    const { ag } = sharedInstall();
    const w = world();
    for (const sig of ['TERM', 'INT', 'HUP']) {
      const out = path.join(w.dir, `sig-${sig}`);
      fs.mkdirSync(out);
      // (generous: the fixture waits up to 20 s for the child, on a loaded machine too)
      const r = sbx(w, ['sh', path.join(FIXTURES, 'forward-signal.sh'), ag, out, sig], { timeoutMs: 60_000 });
      expect([sig, r.exitCode, r.stdout]).toEqual([sig, 0, 'status=3\n']);
      expect(fs.readFileSync(path.join(out, 'got'), 'utf8')).toBe(`${sig}\n`);
    }
  }, 240_000);

  itSandboxed('the session: --session, else the current AGENT_GUARD_SESSION, else a new run-<time>-<random>', () => {
    const { ag } = sharedInstall();
    const w = world();
    const show = ['sh', '-c', 'printf "%s\\n" "$AGENT_GUARD_SESSION"'];
    const [given, givenOverOuter, outer, a, b] = sbxBatch(w, [
      { argv: [ag, 'run', '--session', 'given', '--', ...show] },
      { argv: [ag, 'run', '--session', 'given', '--', ...show], env: { AGENT_GUARD_SESSION: 'outer' } },
      { argv: [ag, 'run', '--', ...show], env: { AGENT_GUARD_SESSION: 'outer' } },
      { argv: [ag, 'run', '--', ...show] },
      { argv: [ag, 'run', '--', ...show] },
    ]).map((r) => r.stdout);
    expect([given, givenOverOuter, outer]).toEqual(['given\n', 'given\n', 'outer\n']);
    expect(a).toMatch(/^run-\d{8}T\d{6}Z-[0-9a-f]{8}\n$/);
    expect(b).toMatch(/^run-\d{8}T\d{6}Z-[0-9a-f]{8}\n$/);
    expect(a).not.toBe(b);
  });

  itSandboxed("everything after the command name is the command's own, with or without --", () => {
    const { ag } = sharedInstall();
    const w = world();
    const cmd = ['sh', '-c', 'printf "%s," "$@"; printf "%s\\n" "$AGENT_GUARD_SESSION"', 'x', '-V', '--help', '--session', 's', '--'];
    const results = sbxBatch(w, [[ag, 'run', ...cmd], [ag, 'run', '--', ...cmd]].map((argv) => ({ argv, env: { AGENT_GUARD_SESSION: 'outer' } })));
    for (const r of results) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('-V,--help,--session,s,--,outer\n');
    }
  });

  itSandboxed("a run inside a run: the shim dir once on PATH, the user's BASH_ENV still the user's", () => {
    const { ag, shims } = sharedInstall();
    const w = world();
    const r = sbx(w, [ag, 'run', '--', ag, 'run', '--', 'sh', '-c', 'printf "%s\\n" "$PATH" "$AGENT_GUARD_USER_BASH_ENV" "$AGENT_GUARD_USER_ZDOTDIR"'], {
      env: { BASH_ENV: '/u/benv', ZDOTDIR: '/u/zdot' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(r.stdout)).toEqual([`${shims}:${BASE_PATH}`, '/u/benv', '/u/zdot']);
  });

  itSandboxed('the main job in one line: run -- bash -c "rm -rf data" leaves the data in the quarantine', () => {
    const { ag } = sharedInstall();
    const w = world();
    const ws = path.join(w.dir, 'ws');
    write(path.join(ws, 'data/f.txt'), 'precious\n');
    expect(spawnSync('git', ['init', '-q', ws]).status).toBe(0);
    const r = sbx(w, [ag, 'run', '--session', 'main-job', '--', 'bash', '-c', 'rm -rf data'], { cwd: ws });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(ws, 'data'))).toBe(false);
    const txs = fs.readdirSync(path.join(ws, '.agent-trash')).filter((n) => /^\d{8}T/.test(n));
    expect(txs).toHaveLength(1);
    expect(fs.readFileSync(path.join(ws, '.agent-trash', txs[0]!, 'data/f.txt'), 'utf8')).toBe('precious\n');
  });

  itSandboxed('from a checkout: the shims go to $XDG_DATA_HOME/agent-guard/<hash>/shims, written once, a stale one rewritten', () => {
    const w = world();
    const data = w.env.XDG_DATA_HOME!;
    const r = sbx(w, [process.execPath, BUNDLE, 'run', '--', 'sh', '-c', 'command -v rm']);
    expect(r.exitCode, r.stderr).toBe(0);
    const m = /^(.*)\/rm\n$/.exec(r.stdout);
    expect(m).not.toBeNull();
    const shims = m![1]!;
    expect(shims).toMatch(new RegExp(`^${data}/agent-guard/[0-9a-f]{16}/shims$`));
    expect(fs.readFileSync(path.join(shims, 'rm'), 'utf8')).toContain(`ag_bundle="${BUNDLE}"`);
    const first = tree(shims);
    expect(first.map((l) => l.split(' ')[0])).toEqual(['.agent-guard-shims', ...[...SHIM_NAMES].sort()]);
    // Again: nothing rewritten.
    expect(sbx(w, [process.execPath, BUNDLE, 'run', '--', 'true']).exitCode).toBe(0);
    expect(tree(shims)).toEqual(first);
    // A stale shim is rewritten before the command runs.
    const rm = path.join(shims, 'rm');
    const good = fs.readFileSync(rm, 'utf8');
    fs.writeFileSync(rm, good.replace('ag_bundle=', 'ag_bundle_old='));
    expect(sbx(w, [process.execPath, BUNDLE, 'run', '--', 'true']).exitCode).toBe(0);
    expect(fs.readFileSync(rm, 'utf8')).toBe(good);
    // shell-init from the checkout points at the same cache.
    const s = sbx(w, [process.execPath, BUNDLE, 'shell-init', 'bash']);
    expect(s.exitCode).toBe(0);
    expect(s.stdout).toContain(`export AGENT_GUARD_SHIMS='${shims}'`);
    expect(s.stdout).toContain(`export BASH_ENV='${path.join(REPO, 'shell/guard.bash')}'`);
  });

  itSandboxed('no installation around the bundle: run refuses with 125 and runs nothing', () => {
    const w = world();
    const lone = path.join(w.dir, 'lone', 'agent-guard.cjs');
    fs.mkdirSync(path.dirname(lone));
    fs.copyFileSync(BUNDLE, lone);
    const r = sbx(w, [process.execPath, lone, 'run', '--', 'sh', '-c', `touch ${w.dir}/ran`]);
    expect(r.exitCode).toBe(125);
    expect(fs.existsSync(path.join(w.dir, 'ran'))).toBe(false);
  });
});

interface DoctorJson {
  version: number;
  ok: boolean;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix: string | null }[];
}
function doctor(w: World, argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): { exitCode: number; json: DoctorJson; status: Record<string, string> } {
  const r = sbx(w, [...argv, 'doctor', '--json'], opts);
  const json = JSON.parse(r.stdout) as DoctorJson;
  return { exitCode: r.exitCode, json, status: Object.fromEntries(json.checks.map((c) => [c.id, c.status])) };
}
// The harness.* checks report which harness hooks are wired (information when the harness is not
// installed, a warning when it is but has no hook): apart from the tests that look at them, they are
// left out here.
const withStatus = (d: { status: Record<string, string> }, s: string) =>
  Object.entries(d.status)
    .filter(([k, v]) => v === s && !/^(harness|mcp|instructions)\./.test(k))
    .map(([k]) => k);

describeSandboxed('doctor', () => {
  itSandboxed('inside run: every check ok, the harness hooks of harnesses not installed are info, exit 0', () => {
    const { ag } = sharedInstall();
    const w = world();
    const d = doctor(w, [ag, 'run', '--', ag]);
    expect(d.json.checks.map((c) => c.id)).toEqual(DOCTOR_IDS);
    expect(withStatus(d, 'fail')).toEqual([]);
    expect(withStatus(d, 'warn')).toEqual([]);
    expect(d.json.ok).toBe(true);
    expect(d.exitCode).toBe(0);
    // The human form has the same verdict.
    const h = sbx(w, [ag, 'run', '--', ag, 'doctor']);
    expect(h.exitCode).toBe(0);
    for (const id of DOCTOR_IDS.filter((i) => !/^(harness|mcp|instructions)\./.test(i))) expect(h.stdout).toMatch(new RegExp(`^ok +${id.replace('.', '\\.')} `, 'm'));
    // No harness installed (none on PATH, no settings directory): information, not warnings.
    const harnesses = DOCTOR_IDS.filter((i) => i.startsWith('harness.'));
    expect(harnesses.map((i) => d.status[i])).toEqual(harnesses.map(() => 'info'));
    for (const id of harnesses) expect(h.stdout).toMatch(new RegExp(`^info +${id.replace('.', '\\.')} `, 'm'));
    expect(h.stdout).toMatch(/^guarded\n$/m);
    // Claude Code installed (its settings directory) without the hook: that one warns.
    fs.mkdirSync(path.join(w.home, '.claude'));
    const claude = doctor(w, [ag, 'run', '--', ag]);
    expect(harnesses.map((i) => claude.status[i])).toEqual(['warn', 'info', 'info', 'info']);
    // Its MCP server and instructions likewise (docs/mcp.md); the others stay information.
    expect(['mcp', 'instructions'].map((p) => [p, claude.status[`${p}.claude`], claude.status[`${p}.codex`]])).toEqual([
      ['mcp', 'warn', 'info'],
      ['instructions', 'warn', 'info'],
    ]);
    expect(claude.exitCode).toBe(0);
  });

  itSandboxed('outside run: path.shims-first fails, the hooks warn, exit 1; the --json shape', () => {
    const { ag } = sharedInstall();
    const w = world();
    const d = doctor(w, [ag]);
    expect(d.exitCode).toBe(1);
    expect(d.json.version).toBe(1);
    expect(d.json.ok).toBe(false);
    expect(d.json.checks.map((c) => c.id)).toEqual(DOCTOR_IDS);
    for (const c of d.json.checks) {
      expect(Object.keys(c).sort()).toEqual(['detail', 'fix', 'id', 'status']);
      expect(typeof c.detail).toBe('string');
      expect(c.fix === null).toBe(c.status === 'ok');
    }
    expect(withStatus(d, 'fail')).toEqual(['path.shims-first']);
    expect(withStatus(d, 'warn')).toEqual(['hook.bash-env', 'hook.zdotdir', 'node.preload', 'python.sitecustomize']);
    // The shim dir on PATH but not first.
    const late = doctor(w, [ag], { env: { PATH: `/usr/bin:${sharedInstall().shims}:${BASE_PATH}` } });
    expect(late.status['path.shims-first']).toBe('fail');
    // Human output: exit 1 too, a FAIL line for the id.
    const h = sbx(w, [ag, 'doctor']);
    expect(h.exitCode).toBe(1);
    expect(h.stdout).toMatch(/^FAIL +path\.shims-first /m);
  });

  itSandboxed('a broken shim, PATH without the real programs, a read-only quarantine: those ids fail', () => {
    const w = world();
    const prefix = path.join(w.dir, 'inst');
    expect(install(w, prefix).exitCode).toBe(0);
    const ag = path.join(prefix, 'bin/agent-guard');
    const shims = path.join(prefix, 'shims');
    fs.chmodSync(path.join(shims, 'rm'), 0o644);
    fs.appendFileSync(path.join(shims, 'git'), '# edited\n');
    fs.rmSync(path.join(shims, 'find'));
    const d = doctor(w, [ag], { cwd: '/usr', env: { PATH: shims } });
    expect(d.exitCode).toBe(1);
    expect(withStatus(d, 'fail').sort()).toEqual(
      ['shim.rm', 'shim.git', 'shim.find', 'real.rm', 'real.rmdir', 'real.unlink', 'real.find', 'real.mv', 'real.cp', 'quarantine.writable'].sort(),
    );
    expect(withStatus(d, 'warn').sort()).toEqual(['hook.bash-env', 'hook.zdotdir', 'node.preload', 'python.sitecustomize', 'real.git', 'real.shred', 'real.truncate', 'real.rsync'].sort());
    // A node that is not the one baked into the shims: every shim is stale.
    const otherNode = path.join(w.dir, 'bin', 'node');
    fs.mkdirSync(path.dirname(otherNode));
    fs.copyFileSync(process.execPath, otherNode);
    fs.chmodSync(otherNode, 0o755);
    const d2 = doctor(w, [otherNode, path.join(prefix, 'lib/agent-guard.cjs')]);
    for (const n of ['rmdir', 'unlink', 'shred', 'mv', 'cp', 'truncate', 'rsync']) expect(d2.status[`shim.${n}`]).toBe('fail');
    // The hook variables broken while BASH_ENV is ours: hook.env fails.
    const d3 = doctor(w, [ag], { env: { BASH_ENV: path.join(prefix, 'shell/guard.bash'), AGENT_GUARD_NODE: '/nonexistent/node' } });
    expect(d3.status['hook.bash-env']).toBe('ok');
    expect(d3.status['hook.env']).toBe('fail');
  });

  itSandboxed('quarantine.ignored: ok in a git work tree (exclude line on first use) or with an ignore rule; warn for a .git file', () => {
    const { ag } = sharedInstall();
    const w = world();
    const repo = path.join(w.dir, 'repo');
    fs.mkdirSync(repo);
    expect(spawnSync('git', ['init', '-q', repo]).status).toBe(0);
    const d1 = doctor(w, [ag], { cwd: repo });
    expect([d1.status['quarantine.writable'], d1.status['quarantine.ignored']]).toEqual(['ok', 'ok']);
    expect(fs.existsSync(path.join(repo, '.agent-trash'))).toBe(false); // doctor creates nothing
    write(path.join(repo, '.gitignore'), '.agent-trash/\n');
    expect(doctor(w, [ag], { cwd: repo }).status['quarantine.ignored']).toBe('ok');
    // A linked worktree's .git is a file: no exclude line would be added.
    const wt = path.join(w.dir, 'wt');
    expect(spawnSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x']).status).toBe(0);
    expect(spawnSync('git', ['-C', repo, 'worktree', 'add', '-q', wt]).status).toBe(0);
    expect(doctor(w, [ag], { cwd: wt }).status['quarantine.ignored']).toBe('warn');
    // AGENT_GUARD_TRASH outside the work tree: nothing to ignore.
    const trash = path.join(w.dir, 'trash');
    expect(doctor(w, [ag], { cwd: wt, env: { AGENT_GUARD_TRASH: trash } }).status['quarantine.ignored']).toBe('ok');
  });

  itSandboxed('no installation around the bundle: bundle fails; a checkout before its first run: shims.dir fails', () => {
    const w = world();
    const lone = path.join(w.dir, 'lone', 'agent-guard.cjs');
    fs.mkdirSync(path.dirname(lone));
    fs.copyFileSync(BUNDLE, lone);
    const d = doctor(w, [process.execPath, lone]);
    expect(d.exitCode).toBe(1);
    expect(d.json.checks.map((c) => c.id)).toEqual(DOCTOR_IDS);
    expect(d.status.bundle).toBe('fail');

    const c = doctor(w, [process.execPath, BUNDLE]);
    expect(c.exitCode).toBe(1);
    expect(c.status.bundle).toBe('ok');
    expect(c.status['shims.dir']).toBe('fail');
    expect(fs.existsSync(w.env.XDG_DATA_HOME!)).toBe(false); // doctor writes nothing
    const inside = doctor(w, [process.execPath, BUNDLE, 'run', '--', process.execPath, BUNDLE]);
    expect(withStatus(inside, 'fail')).toEqual([]);
    expect(inside.exitCode).toBe(0);
  });
});
