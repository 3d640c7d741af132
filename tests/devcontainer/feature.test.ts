// The Dev Container Feature (devcontainer-feature/agent-guard, docs/devcontainer.md). The feature's
// install.sh runs inside the read-only sandbox with a temp HOME and an exact environment (`env -i`),
// as the devcontainer tooling would run it (options as upper-cased variables, _REMOTE_USER*), with
// the install prefix in the sandbox area and every system file (/etc/...) redirected there through
// AGENT_GUARD_FEATURE_ROOT. Assertions are on exit codes, paths, files and doctor check ids.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tree } from '../helpers/tree.mjs';
import { describeSandboxed, itSandboxed, runSandboxedExact, useSandboxArea, type SandboxResult } from '../helpers/sandbox.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const FEATURE_DIR = path.join(REPO, 'devcontainer-feature/agent-guard');
const FEATURE_INSTALL = path.join(FEATURE_DIR, 'install.sh');
const BUNDLE = path.join(REPO, 'dist/agent-guard.cjs');
const NODE_DIR = path.dirname(process.execPath);
const BASE_PATH = [...new Set([NODE_DIR, '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
// What Debian's /etc/profile sets for a login shell (node not on it: the launcher has it baked in).
const LOGIN_PATH = '/usr/local/bin:/usr/bin:/bin';
const SYSTEM_FILES = ['etc/profile.d/agent-guard.sh', 'etc/bash.bashrc', 'etc/zsh/zshenv'];

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} >/dev/null`]).status === 0;
const zshIt: typeof itSandboxed = has('zsh') ? itSandboxed : (name) => it.skip(`${name} (zsh not installed)`, () => {});
const HAS_HOOK_INSTALL = fs.existsSync(BUNDLE) && (spawnSync(process.execPath, [BUNDLE, 'hook', 'install', '--help'], { encoding: 'utf8' }).stdout ?? '').includes('agent-guard hook install');

const area = useSandboxArea('ag-devc');

interface World {
  dir: string;
  home: string;
  root: string;
  prefix: string;
  env: Record<string, string>;
}

let worlds = 0;
function world(): World {
  const dir = path.join(area.rw(), `w${++worlds}`);
  const home = path.join(dir, 'home');
  const root = path.join(dir, 'root');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(root, { recursive: true });
  const env: Record<string, string> = {
    HOME: '/root-not-used',
    PATH: BASE_PATH,
    TERM: 'dumb',
    TMPDIR: '/dev/shm',
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    GIT_CONFIG_NOSYSTEM: '1',
  };
  return { dir, home, root, prefix: path.join(dir, 'usr/local/agent-guard'), env };
}

function sbx(w: World, argv: string[], env: Record<string, string> = {}): SandboxResult {
  return runSandboxedExact(area.rw(), { ...w.env, ...env }, argv, { cwd: w.dir, timeoutMs: 60_000 });
}

/** The feature's install.sh as the tooling runs it (root, options as variables). */
function feature(w: World, opts: { SHELLHOOKS?: string; HARNESSHOOKS?: string; user?: string } = {}): SandboxResult {
  return sbx(w, ['sh', FEATURE_INSTALL], {
    HOME: path.join(w.dir, 'roothome'),
    SHELLHOOKS: opts.SHELLHOOKS ?? 'true',
    HARNESSHOOKS: opts.HARNESSHOOKS ?? '',
    INSTALLPREFIX: w.prefix,
    _REMOTE_USER: opts.user ?? 'root',
    _REMOTE_USER_HOME: w.home,
    _CONTAINER_USER: 'root',
    _CONTAINER_USER_HOME: path.join(w.dir, 'roothome'),
    AGENT_GUARD_SOURCE: REPO,
    AGENT_GUARD_FEATURE_ROOT: w.root,
  });
}

/** A shell of the remote user: HOME in the area, PATH as a login profile leaves it. */
function session(w: World, argv: string[], env: Record<string, string> = {}): SandboxResult {
  return sbx(w, argv, { HOME: w.home, PATH: LOGIN_PATH, SHELL: '/bin/bash', ...env });
}

// Prints, one per line: PATH's first entry, BASH_ENV, guard.bash's own "loaded" marker (1).
const PROBE_BASH = 'printf "%s\\n" "${PATH%%:*}" "${BASH_ENV-}" "${__agent_guard_loaded-0}"';

describe('devcontainer-feature.json', () => {
  it('has the id of its folder, semver, the three options with their defaults, and no containerEnv', () => {
    const meta = JSON.parse(fs.readFileSync(path.join(FEATURE_DIR, 'devcontainer-feature.json'), 'utf8'));
    expect(meta.id).toBe(path.basename(FEATURE_DIR));
    expect(meta.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(typeof meta.name).toBe('string');
    expect(typeof meta.description).toBe('string');
    expect(meta.options.shellHooks).toMatchObject({ type: 'boolean', default: true });
    expect(meta.options.harnessHooks).toMatchObject({ type: 'string', default: '' });
    expect(meta.options.installPrefix).toMatchObject({ type: 'string', default: '/usr/local/agent-guard' });
    // containerEnv becomes ENV lines active for every later build step: the build must not be guarded.
    expect(meta.containerEnv).toBeUndefined();
    expect(fs.statSync(FEATURE_INSTALL).mode & 0o111).toBe(0o111);
  });
});

describeSandboxed('devcontainer feature install.sh', () => {
  itSandboxed('installs agent-guard into the prefix and writes the profile.d, bash.bashrc and zshenv snippets', () => {
    const w = world();
    const r = feature(w);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const f of ['bin/agent-guard', 'lib/agent-guard.cjs', 'shims/rm', 'shims/.agent-guard-shims', 'shell/guard.bash', 'shell/guard-rest.bash', 'shell/zsh/.zshenv', '.agent-guard-install']) {
      expect(fs.existsSync(path.join(w.prefix, f)), f).toBe(true);
    }
    for (const f of SYSTEM_FILES) expect(fs.existsSync(path.join(w.root, f)), f).toBe(true);
    expect(fs.readFileSync(path.join(w.root, 'etc/bash.bashrc'), 'utf8')).toContain(`'${w.prefix}/bin/agent-guard' shell-init bash`);
    expect(fs.readFileSync(path.join(w.root, 'etc/zsh/zshenv'), 'utf8')).toContain(`'${w.prefix}/bin/agent-guard' shell-init zsh`);
    // Nothing written in the remote user's home (no harness hooks asked for).
    expect(fs.readdirSync(w.home)).toEqual([]);
  });

  itSandboxed("a login bash of the remote user: shims first, BASH_ENV and the hook loaded; doctor ok for shims.dir, path.shims-first, hook.bash-env", () => {
    const w = world();
    expect(feature(w).exitCode).toBe(0);
    const profile = path.join(w.root, 'etc/profile.d/agent-guard.sh');
    // Debian's /etc/profile resets PATH, then sources /etc/profile.d/*.sh: simulated.
    const login = session(w, ['bash', '--noprofile', '--norc', '-c', `. '${profile}'; ${PROBE_BASH}`]);
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stdout).toBe(`${w.prefix}/shims\n${w.prefix}/shell/guard.bash\n1\n`);

    const doc = session(w, ['bash', '--noprofile', '--norc', '-c', `. '${profile}'; '${w.prefix}/bin/agent-guard' doctor --json`]);
    const json = JSON.parse(doc.stdout);
    const status = Object.fromEntries(json.checks.map((c: { id: string; status: string }) => [c.id, c.status]));
    for (const id of ['shims.dir', 'path.shims-first', 'hook.bash-env', 'hook.env', 'shim.rm', 'real.rm']) expect(status[id], id).toBe('ok');

    // A child bash of that session gets the hook through BASH_ENV (it catches `command -p rm`, a
    // way around the shims: the file goes to the quarantine) and rm is the shim.
    // (The script's text is in a file: the session's own hook would refuse it on the command line.)
    const script = path.join(w.dir, 'bypass.sh');
    fs.writeFileSync(script, `command -p rm '${path.join(w.dir, 'victim')}'\n`);
    fs.writeFileSync(path.join(w.dir, 'victim'), 'data\n');
    const child = session(w, ['bash', '--noprofile', '--norc', '-c', `. '${profile}'; bash -c 'command -v rm; printf "%s\\n" "$BASH_ENV"'; bash '${script}'; echo $?`]);
    expect(child.exitCode, child.stderr).toBe(0);
    const [rmPath, bashEnv, childStatus] = child.stdout.split('\n');
    expect([rmPath, bashEnv]).toEqual([`${w.prefix}/shims/rm`, `${w.prefix}/shell/guard.bash`]);
    expect(childStatus).toMatch(/^\d+$/);
    // The hook took it over: the file is in the quarantine, not deleted by the real rm.
    expect(fs.existsSync(path.join(w.dir, 'victim'))).toBe(false);
    expect(fs.existsSync(path.join(w.dir, '.agent-trash'))).toBe(true);

    // A POSIX sh login shell (dash) reading profile.d: the export lines only (PATH, BASH_ENV).
    const sh = session(w, ['sh', '-c', `. '${profile}'; printf '%s\\n' "\${PATH%%:*}" "\${BASH_ENV-}"`]);
    expect(sh.exitCode, sh.stderr).toBe(0);
    expect(sh.stdout).toBe(`${w.prefix}/shims\n${w.prefix}/shell/guard.bash\n`);
  });

  itSandboxed('an interactive bash of the remote user loads the hook from the bash.bashrc snippet', () => {
    const w = world();
    expect(feature(w).exitCode).toBe(0);
    const r = session(w, ['bash', '--rcfile', path.join(w.root, 'etc/bash.bashrc'), '-i', '-c', PROBE_BASH]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${w.prefix}/shims\n${w.prefix}/shell/guard.bash\n1\n`);
  });

  zshIt('a zsh of the remote user gets the ZDOTDIR wrapper and the shims first from the zshenv snippet', () => {
    const w = world();
    expect(feature(w).exitCode).toBe(0);
    const r = session(w, ['zsh', '-f', '-c', `. '${path.join(w.root, 'etc/zsh/zshenv')}'; print -r -- "\${PATH%%:*}" "\$ZDOTDIR" "\$(command -v rm)"`], { SHELL: '/usr/bin/zsh' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${w.prefix}/shims ${w.prefix}/shell/zsh ${w.prefix}/shims/rm\n`);
  });

  itSandboxed('a later build step (root, or any user but the remote one) is not guarded, even in login or interactive shells', () => {
    const w = world();
    // The remote user is someone else than the build's root (the sandbox runs as root).
    const r = feature(w, { user: 'vscode-agtest' });
    expect(r.exitCode, r.stderr).toBe(0);
    const probe = 'printf "%s\\n" "${PATH%%:*}" "${BASH_ENV-}" "${ZDOTDIR-}" "$(command -v rm)"';
    // RUN steps are /bin/sh -c with the image ENV: nothing of ours (no containerEnv).
    const run = sbx(w, ['/bin/sh', '-c', probe], { HOME: path.join(w.dir, 'roothome') });
    expect(run.stdout).toBe(`${BASE_PATH.split(':')[0]}\n\n\n${run.stdout.split('\n')[3]}\n`);
    expect(run.stdout).not.toContain(w.prefix);
    // Even a root login shell that reads profile.d, and an interactive one that reads bash.bashrc.
    for (const argv of [
      ['bash', '--noprofile', '--norc', '-c', `. '${path.join(w.root, 'etc/profile.d/agent-guard.sh')}'; ${probe}`],
      ['sh', '-c', `. '${path.join(w.root, 'etc/profile.d/agent-guard.sh')}'; ${probe}`],
      ['bash', '--rcfile', path.join(w.root, 'etc/bash.bashrc'), '-i', '-c', probe],
    ]) {
      const s = sbx(w, argv, { HOME: path.join(w.dir, 'roothome'), PATH: LOGIN_PATH });
      expect(s.exitCode, `${argv.join(' ')}: ${s.stderr}`).toBe(0);
      expect(s.stdout, argv.join(' ')).toBe(`/usr/local/bin\n\n\n${s.stdout.split('\n')[3]}\n`);
      expect(s.stdout).not.toContain(w.prefix);
    }
    if (has('zsh')) {
      const z = sbx(w, ['zsh', '-f', '-c', `. '${path.join(w.root, 'etc/zsh/zshenv')}'; ${probe}`], { HOME: path.join(w.dir, 'roothome'), PATH: LOGIN_PATH });
      expect(z.stdout).not.toContain(w.prefix);
    }
  });

  itSandboxed('SHELLHOOKS=false: no hook snippet; login shells still get the shims first, without BASH_ENV', () => {
    const w = world();
    const r = feature(w, { SHELLHOOKS: 'false' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(w.root, 'etc/bash.bashrc'))).toBe(false);
    expect(fs.existsSync(path.join(w.root, 'etc/zsh/zshenv'))).toBe(false);
    const profile = path.join(w.root, 'etc/profile.d/agent-guard.sh');
    expect(fs.readFileSync(profile, 'utf8')).not.toContain('shell-init');
    const s = session(w, ['sh', '-c', `. '${profile}'; . '${profile}'; printf '%s\\n' "$PATH" "\${BASH_ENV-}"`]);
    expect(s.exitCode, s.stderr).toBe(0);
    expect(s.stdout).toBe(`${w.prefix}/shims:${LOGIN_PATH}\n\n`);
  });

  itSandboxed('true then false on the same image: the hook blocks go, the rest of the shared files stays', () => {
    const w = world();
    fs.mkdirSync(path.join(w.root, 'etc/zsh'), { recursive: true });
    fs.writeFileSync(path.join(w.root, 'etc/bash.bashrc'), '# system bashrc\n[ -z "$PS1" ] && return\n');
    fs.writeFileSync(path.join(w.root, 'etc/zsh/zshenv'), '# system zshenv\n');
    expect(feature(w).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.root, 'etc/bash.bashrc'), 'utf8')).toMatch(/^# system bashrc\n\[ -z "\$PS1" \] && return\n# >>> agent-guard/);
    expect(feature(w, { SHELLHOOKS: 'false' }).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.root, 'etc/bash.bashrc'), 'utf8')).toBe('# system bashrc\n[ -z "$PS1" ] && return\n');
    expect(fs.readFileSync(path.join(w.root, 'etc/zsh/zshenv'), 'utf8')).toBe('# system zshenv\n');
  });

  itSandboxed('running it twice changes nothing: same files, inodes, mtimes; each block once', () => {
    const w = world();
    fs.mkdirSync(path.join(w.root, 'etc'), { recursive: true });
    fs.writeFileSync(path.join(w.root, 'etc/bash.bashrc'), '# system bashrc\n');
    expect(feature(w).exitCode).toBe(0);
    const before = [...tree(w.root), ...tree(w.prefix)];
    const r = feature(w);
    expect(r.exitCode, r.stderr).toBe(0);
    expect([...tree(w.root), ...tree(w.prefix)]).toEqual(before);
    const bashrc = fs.readFileSync(path.join(w.root, 'etc/bash.bashrc'), 'utf8');
    expect(bashrc.split('# >>> agent-guard').length - 1).toBe(1);
  });

  itSandboxed('harnessHooks: an unknown harness fails before anything is written', () => {
    const w = world();
    const r = feature(w, { HARNESSHOOKS: 'claude,nope' });
    expect(r.exitCode).toBe(1);
    expect(fs.existsSync(w.prefix)).toBe(false);
    expect(fs.readdirSync(w.root)).toEqual([]);
  });

  itSandboxed(
    HAS_HOOK_INSTALL ? 'harnessHooks=claude runs agent-guard hook install claude --user for the remote user' : 'harnessHooks=claude fails (exit 1) while agent-guard has no hook install command',
    () => {
      const w = world();
      const r = feature(w, { HARNESSHOOKS: ' claude ' });
      if (HAS_HOOK_INSTALL) {
        expect(r.exitCode, r.stderr).toBe(0);
        expect(fs.readdirSync(w.home).length).toBeGreaterThan(0);
      } else {
        expect(r.exitCode).toBe(1);
        expect(r.stderr).toContain('hook install');
        expect(fs.readdirSync(w.home)).toEqual([]);
      }
    },
  );

  itSandboxed('harnessHooks with an agent-guard that has no hook install command (help exits 0 all the same): exit 1, home untouched', () => {
    const w = world();
    const r = sbx(w, ['sh', FEATURE_INSTALL], {
      HARNESSHOOKS: 'codex',
      INSTALLPREFIX: w.prefix,
      _REMOTE_USER: 'root',
      _REMOTE_USER_HOME: w.home,
      AGENT_GUARD_SOURCE: path.join(import.meta.dirname, 'fixtures/no-hook-source'),
      AGENT_GUARD_FEATURE_ROOT: w.root,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('hook install');
    expect(fs.readdirSync(w.home)).toEqual([]);
  });

  itSandboxed('npm run package:feature packages the sources into the feature folder, and the feature installs from them alone (no checkout, nothing rebuilt)', () => {
    const w = world();
    // A copy of the feature folder, as the build context would hold it; packaged with the script.
    const featureCopy = path.join(w.dir, 'feature');
    fs.cpSync(FEATURE_DIR, featureCopy, { recursive: true, filter: (src) => !src.includes('agent-guard-src') });
    const out = path.join(featureCopy, 'agent-guard-src');
    const pack = sbx(w, [process.execPath, path.join(REPO, 'scripts/package-feature.mjs'), '--out', out]);
    expect(pack.exitCode, pack.stderr).toBe(0);
    expect(fs.existsSync(path.join(out, 'dist/agent-guard.cjs'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'shell/zsh/.zshenv'))).toBe(true);
    expect(fs.readdirSync(path.dirname(out)).filter((n) => n.includes('.tmp-') || n.includes('.old-'))).toEqual([]);
    // Packaging again replaces its own copy; a directory it did not write is refused and kept.
    expect(sbx(w, [process.execPath, path.join(REPO, 'scripts/package-feature.mjs'), '--out', out]).exitCode).toBe(0);
    const foreign = path.join(w.dir, 'not-ours');
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, 'keep.txt'), 'k');
    const refused = sbx(w, [process.execPath, path.join(REPO, 'scripts/package-feature.mjs'), '--out', foreign]);
    expect(refused.exitCode).toBe(1);
    expect(fs.readdirSync(foreign)).toEqual(['keep.txt']);
    // The feature, with no AGENT_GUARD_SOURCE and no npm on PATH: installs from its own copy.
    const r = sbx(w, ['sh', path.join(featureCopy, 'install.sh')], {
      HOME: path.join(w.dir, 'roothome'),
      SHELLHOOKS: 'true',
      HARNESSHOOKS: '',
      INSTALLPREFIX: w.prefix,
      _REMOTE_USER: 'root',
      _REMOTE_USER_HOME: w.home,
      AGENT_GUARD_FEATURE_ROOT: w.root,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // Installed as packaged (nothing rebuilt at image build time).
    expect(fs.readFileSync(path.join(w.prefix, 'lib/agent-guard.cjs')).equals(fs.readFileSync(path.join(out, 'dist/agent-guard.cjs')))).toBe(true);
    const doctor = session(w, [path.join(w.prefix, 'bin/agent-guard'), 'doctor', '--json']);
    const checks = JSON.parse(doctor.stdout).checks as { id: string; status: string }[];
    expect(checks.find((c) => c.id === 'shims.dir')?.status).toBe('ok');
    // The Python guard is packaged and installed with the rest.
    for (const f of ['sitecustomize.py', 'agent-guard-delete.py']) {
      expect(fs.readFileSync(path.join(w.prefix, 'lib/agent-guard-python', f)).equals(fs.readFileSync(path.join(out, 'dist/agent-guard-python', f))), f).toBe(true);
    }
  });

  itSandboxed('without the agent-guard sources: exit 1, nothing written', () => {
    const w = world();
    const r = sbx(w, ['sh', FEATURE_INSTALL], { INSTALLPREFIX: w.prefix, _REMOTE_USER: 'root', AGENT_GUARD_SOURCE: path.join(w.dir, 'nothing'), AGENT_GUARD_FEATURE_ROOT: w.root });
    expect(r.exitCode).toBe(1);
    expect(fs.existsSync(w.prefix)).toBe(false);
    expect(fs.readdirSync(w.root)).toEqual([]);
  });
});
