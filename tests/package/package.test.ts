// The npm package as users install it (docs/distribution.md): the project is packed (`npm pack`),
// the tarball installed into a temporary prefix (`npm i -g --prefix`, offline: the package has no
// dependency) or run with `npx --package <tarball>`, and then used as a user would
// (fixtures/user-steps.sh): `rm notes.txt` under `run`, `shell-init bash` in a real bash, `doctor`,
// `hook install`, `completion`, `uninstall`. As root, and as nobody with a package directory owned by
// root. Also: an upgrade in place and a moved node keep the shims working or say how to repair, and
// `uninstall` + `npm uninstall -g` (and `install.sh --uninstall`) leave nothing behind but the
// quarantine. Everything that installs or runs a shim runs inside the read-only sandbox, with an
// exact environment (`env -i`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea, type SandboxResult } from '../helpers/sandbox.js';
import { NOBODY, nodeForNobody } from '../helpers/nobody.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const STEPS = path.join(import.meta.dirname, 'fixtures', 'user-steps.sh');
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; version: string };
const NODE_DIR = path.dirname(process.execPath);
const SYSTEM_PATH = [...new Set([NODE_DIR, '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
const SHIM_NAMES = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'mv', 'cp', 'truncate', 'rsync'];
const NPM_ENV = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'error' };

const area = useSandboxArea('ag-dist');

/** In a scenario script: the shim directory shell-init sets up, put first on PATH as in a shell that
 *  eval'd it (the shims are what these scenarios are about; the bash hook is tested elsewhere). */
const SHIMS_ON_PATH = `shims=$(agent-guard shell-init bash | sed -n "s/^export AGENT_GUARD_SHIMS='\\(.*\\)'$/\\1/p") && test -n "$shims" && PATH=$shims:$PATH`;
let tarball = '';

/** Runs a shell script in the sandbox with exactly `env` (env -i). */
function sh(script: string, env: Record<string, string>, timeoutMs = 120_000): SandboxResult {
  return runSandboxed(area.rw(), ['/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), '/bin/sh', '-c', script], { timeoutMs });
}

/** Every entry under root, relative, with its type: what "left behind" is judged on. */
function entries(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(p);
      out.push(`${r}${st.isDirectory() ? '/' : st.isSymbolicLink() ? '@' : ''}`);
      if (st.isDirectory()) walk(p, r);
    }
  };
  walk(root, '');
  return out;
}

interface Steps {
  [step: string]: { rc: number; out: string; err: string };
}
function readSteps(dir: string): Steps {
  const steps: Steps = {};
  for (const f of fs.readdirSync(dir)) {
    const m = /^(.+)\.rc$/.exec(f);
    if (!m) continue;
    const n = m[1]!;
    steps[n] = { rc: Number(fs.readFileSync(path.join(dir, f), 'utf8')), out: fs.readFileSync(path.join(dir, `${n}.out`), 'utf8'), err: fs.readFileSync(path.join(dir, `${n}.err`), 'utf8') };
  }
  return steps;
}

interface World {
  dir: string;
  home: string;
  ws: string;
  out: string;
  hookHome: string;
  npmCache: string;
}
let worlds = 0;
/** A user's world: HOME, a git workspace with notes.txt and notes2.txt, a results directory, a
 *  home for the harness hook; owned by `uid`. */
function world(uid = 0): World {
  const dir = path.join(area.rw(), `w${++worlds}`);
  const w = { dir, home: path.join(dir, 'home'), ws: path.join(dir, 'ws'), out: path.join(dir, 'out'), hookHome: path.join(dir, 'hookhome'), npmCache: path.join(dir, 'npm-cache') };
  for (const d of [w.home, w.ws, w.out, w.hookHome, w.npmCache]) fs.mkdirSync(d, { recursive: true });
  expect(spawnSync('git', ['init', '-q', '-b', 'main', w.ws]).status).toBe(0);
  fs.writeFileSync(path.join(w.ws, 'notes.txt'), 'notes\n');
  fs.writeFileSync(path.join(w.ws, 'notes2.txt'), 'notes 2\n');
  if (uid !== 0) for (const d of [w.home, w.ws, w.out, w.hookHome, w.npmCache]) spawnSync('chown', ['-R', `${uid}:${uid}`, d]);
  fs.chmodSync(dir, 0o755);
  return w;
}

/** The user's environment, exact. */
function userEnv(w: World, pathVar: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: w.home, PATH: pathVar, SHELL: '/bin/bash', TERM: 'dumb', TMPDIR: '/dev/shm', GIT_CONFIG_NOSYSTEM: '1', npm_config_cache: w.npmCache, ...NPM_ENV, ...extra };
}

/** A global npm prefix as it looks before any package: lib/node_modules and bin exist. */
function npmPrefix(name: string): string {
  const prefix = path.join(area.rw(), name);
  fs.mkdirSync(path.join(prefix, 'lib', 'node_modules'), { recursive: true });
  fs.mkdirSync(path.join(prefix, 'bin'), { recursive: true });
  fs.chmodSync(prefix, 0o755);
  return prefix;
}

/** What the user steps must show for an installation whose bundle is `bundle`. */
function expectGuarded(w: World, s: Steps, bundle: string): void {
  const sum = Object.entries(s).map(([k, v]) => `${k}: rc ${v.rc} ${v.err.trim()}`).join('\n');
  expect(s.version!.out, sum).toBe(`${PKG.version}\n`);
  // rm notes.txt under run: the file is gone from the workspace, in the quarantine, restorable.
  expect(s.run_rm!.rc, sum).toBe(0);
  expect(s.ls_after_run!.out.split('\n')).not.toContain('notes.txt');
  // (restore list runs after the bash below: two transactions, one per rm.)
  const list = JSON.parse(s.restore_list!.out);
  const txs = list.transactions as { txid: string; state: string; command: string; items: { origin: string; dest: string }[] }[];
  expect(txs.map((t) => [t.command, t.state, t.items.map((i) => i.origin)])).toEqual([
    ['rm notes.txt', 'RESTORABLE', [path.join(w.ws, 'notes.txt')]],
    ['rm notes2.txt', 'RESTORABLE', [path.join(w.ws, 'notes2.txt')]],
  ]);
  expect(fs.readFileSync(txs[0]!.items[0]!.dest, 'utf8')).toBe('notes\n');
  // A real bash with the rc line resolves rm to the shim in this user's data directory, and it works.
  expect(s.bash_init!.rc, s.bash_init!.err).toBe(0);
  const [rm, baked, ...ls] = s.bash_init!.out.trim().split('\n');
  const shims = path.dirname(rm!);
  expect(shims).toMatch(new RegExp(`^${w.home}/\\.local/share/agent-guard/[0-9a-f]{16}/shims$`));
  expect(path.basename(rm!)).toBe('rm');
  expect(baked).toBe(`ag_bundle="${bundle}"`);
  expect(ls).not.toContain('notes2.txt');
  expect(fs.existsSync(path.join(w.ws, 'notes2.txt'))).toBe(false);
  expect(s.zsh_init!.rc, s.zsh_init!.err).toBe(0);
  // doctor: no failure under run and in the bash; it says where the shims are and whose they are.
  for (const d of [s.doctor_run!, s.doctor_bash!]) {
    const report = JSON.parse(d.out) as { ok: boolean; checks: { id: string; status: string; detail: string }[] };
    expect(report.checks.filter((c) => c.status === 'fail'), d.out).toEqual([]);
    expect(report.ok).toBe(true);
    expect(d.rc).toBe(0);
    const dir = report.checks.find((c) => c.id === 'shims.dir')!;
    expect(dir.detail).toContain(shims);
    expect(dir.detail).toContain(`npm package ${path.dirname(path.dirname(bundle))}`);
    expect(report.checks.find((c) => c.id === 'bundle')!.detail).toBe(`${bundle} (npm package ${path.dirname(path.dirname(bundle))})`);
  }
  // hook install registers this installation's bundle.
  expect(s.hook_install!.rc, s.hook_install!.err).toBe(0);
  const settings = fs.readFileSync(path.join(w.hookHome, '.claude', 'settings.json'), 'utf8');
  expect(settings).toContain(`${bundle} hook claude`);
  expect(s.completion!.rc, s.completion!.err).toBe(0);
  // uninstall: refused under run, then it removes this user's shims and nothing else.
  expect(s.uninstall_guarded!.rc).toBe(1);
  expect(s.uninstall_guarded!.err).toContain('refusing inside a guarded environment');
  expect(s.uninstall!.rc, s.uninstall!.err).toBe(0);
  const un = JSON.parse(s.uninstall!.out) as { removed: string[]; kept: string[] };
  expect(un.removed.sort()).toEqual([...SHIM_NAMES.map((n) => path.join(shims, n)), path.join(shims, '.agent-guard-shims'), shims, path.dirname(shims), path.dirname(path.dirname(shims))].sort());
  expect(un.kept).toEqual([]);
}

describeSandboxed('the npm package', () => {
  beforeAll(() => {
    // npm pack of the checkout (read-only in the sandbox), without the prepack build: the tests run
    // against the bundle `npm test` built.
    const dest = path.join(area.rw(), 'pack');
    fs.mkdirSync(dest);
    const r = runSandboxed(area.rw(), ['/usr/bin/env', '-i', `HOME=${dest}`, `PATH=${SYSTEM_PATH}`, `npm_config_cache=${path.join(dest, 'cache')}`, ...Object.entries(NPM_ENV).map(([k, v]) => `${k}=${v}`), 'npm', 'pack', '--ignore-scripts', '--pack-destination', dest], { cwd: REPO, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    tarball = path.join(dest, `${PKG.name}-${PKG.version}.tgz`);
    expect(fs.existsSync(tarball)).toBe(true);
    fs.chmodSync(dest, 0o755);
    fs.chmodSync(tarball, 0o644);
    fs.chmodSync(area.rw(), 0o755);
  }, 90_000);

  itSandboxed('holds the bundle, the shim template, the shell hooks and install.sh, and needs no dependency', () => {
    const r = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(
      [
        'package/CHANGELOG.md',
        'package/README.md',
        'package/dist/agent-guard-mcp.cjs',
        'package/dist/agent-guard-preload.cjs',
        'package/dist/agent-guard.cjs',
        'package/dist/agent-guard',
        'package/dist/agent-guard-python/agent-guard-delete.py',
        'package/dist/agent-guard-python/sitecustomize.py',
        'package/install.sh',
        'package/package.json',
        'package/shell/guard.bash',
        'package/shell/guard-rest.bash',
        'package/shell/hook-client.sh',
        'package/shell/guard.zsh',
        ...['.zlogin', '.zlogout', '.zprofile', '.zshenv', '.zshrc'].map((z) => `package/shell/zsh/${z}`),
        'package/shims/shim.sh',
      ].sort(),
    );
    const pkg = JSON.parse(spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout);
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.bin).toEqual({ 'agent-guard': 'dist/agent-guard' });
    // The bundle requires Node's own modules only.
    const bundle = spawnSync('tar', ['-xzOf', tarball, 'package/dist/agent-guard.cjs'], { encoding: 'utf8', maxBuffer: 16 << 20 }).stdout;
    const required = [...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    const builtins = new Set(builtinModules);
    expect(required.filter((m) => !m.startsWith('node:') && !builtins.has(m))).toEqual([]);
  });

  itSandboxed('npm i -g of the tarball (offline), as root: run, shell-init in bash, doctor, hook install; uninstall + npm uninstall -g leave only the quarantine', () => {
    const w = world();
    const prefix = npmPrefix('global-root');
    const before = { home: entries(w.home), prefix: entries(prefix) };
    const env = userEnv(w, `${prefix}/bin:${SYSTEM_PATH}`, { AG: 'agent-guard', WS: w.ws, OUT: w.out, HOOKHOME: w.hookHome });
    const r = sh(`npm i -g --offline --prefix "${prefix}" "${tarball}" >&2 || exit 90; sh "${STEPS}" || exit 91; npm uninstall -g --offline --prefix "${prefix}" agent-guard >&2 || exit 92`, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const bundle = path.join(prefix, 'lib/node_modules/agent-guard/dist/agent-guard.cjs');
    expectGuarded(w, readSteps(w.out), bundle);
    // Nothing left behind: HOME as before but for the XDG data directory chain (~/.local/share),
    // the prefix exactly as before. The workspace keeps its quarantine.
    expect(entries(w.home)).toEqual([...before.home, '.local/', '.local/share/']);
    expect(entries(prefix)).toEqual(before.prefix);
    expect(entries(path.join(w.ws, '.agent-trash')).filter((e) => e.endsWith('notes.txt') || e.endsWith('notes2.txt'))).toHaveLength(2);
  });

  itSandboxed('npm i -g by root, used by nobody (the package directory is not writable): the same, with the shims in nobody\'s data directory', () => {
    const w = world(NOBODY);
    const prefix = npmPrefix('global-shared');
    const tools = path.join(area.rw(), 'tools');
    const nodeDir = path.dirname(nodeForNobody(tools));
    const before = { home: entries(w.home), prefix: entries(prefix) };
    const env = userEnv(w, `${prefix}/bin:${[...new Set([nodeDir, ...SYSTEM_PATH.split(':')])].join(':')}`, { AG: 'agent-guard', WS: w.ws, OUT: w.out, HOOKHOME: w.hookHome });
    const pkg = path.join(prefix, 'lib/node_modules/agent-guard');
    const r = sh(
      `npm i -g --offline --prefix "${prefix}" "${tarball}" >&2 || exit 90
       setpriv --reuid ${NOBODY} --regid ${NOBODY} --clear-groups -- sh -c 'test -w "$1" && exit 1; test -w "$1/dist" && exit 1; exit 0' sh "${pkg}" || exit 93
       setpriv --reuid ${NOBODY} --regid ${NOBODY} --clear-groups -- sh "${STEPS}" || exit 91
       npm uninstall -g --offline --prefix "${prefix}" agent-guard >&2 || exit 92`,
      env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.statSync(path.join(prefix, 'lib/node_modules')).uid).toBe(0);
    const s = readSteps(w.out);
    expectGuarded(w, s, path.join(pkg, 'dist/agent-guard.cjs'));
    expect(fs.statSync(path.join(w.ws, '.agent-trash')).uid).toBe(NOBODY);
    expect(entries(w.home)).toEqual([...before.home, '.local/', '.local/share/']);
    expect(entries(prefix)).toEqual(before.prefix);
  });

  itSandboxed('the devcontainer feature installs from the package tarball: next to its install.sh, or named by AGENT_GUARD_SOURCE', () => {
    const w = world();
    const feature = path.join(w.dir, 'feature');
    fs.cpSync(path.join(REPO, 'devcontainer-feature/agent-guard'), feature, { recursive: true, filter: (src) => !src.includes('agent-guard-src') });
    fs.copyFileSync(tarball, path.join(feature, path.basename(tarball)));
    const bundle = spawnSync('tar', ['-xzOf', tarball, 'package/dist/agent-guard.cjs'], { maxBuffer: 16 << 20 }).stdout;
    for (const [name, source] of [['next-to', null], ['by-variable', tarball]] as const) {
      const prefix = path.join(w.dir, name, 'usr/local/agent-guard');
      const root = path.join(w.dir, name, 'root');
      fs.mkdirSync(root, { recursive: true });
      const env = {
        ...userEnv(w, SYSTEM_PATH),
        SHELLHOOKS: 'true',
        HARNESSHOOKS: '',
        INSTALLPREFIX: prefix,
        _REMOTE_USER: 'root',
        _REMOTE_USER_HOME: w.home,
        AGENT_GUARD_FEATURE_ROOT: root,
        ...(source ? { AGENT_GUARD_SOURCE: source } : {}),
      };
      const r = sh(`sh "${feature}/install.sh" || exit 90; "${prefix}/bin/agent-guard" run -- sh -c 'command -v rm' || exit 91`, env);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${prefix}/shims/rm\n`);
      expect(fs.readFileSync(path.join(prefix, 'lib/agent-guard.cjs')).equals(bundle)).toBe(true);
      expect(fs.existsSync(path.join(root, 'etc/profile.d/agent-guard.sh'))).toBe(true);
    }
  });

  itSandboxed('npx --package <tarball> (offline): the same from npm\'s npx cache', () => {
    const w = world();
    const ag = `npx --yes --offline --package=${tarball} -- agent-guard`;
    const env = userEnv(w, SYSTEM_PATH, { AG: ag, AG_DIRECT: '1', WS: w.ws, OUT: w.out, HOOKHOME: w.hookHome });
    const r = sh(`sh "${STEPS}" || exit 91`, env, 180_000);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = readSteps(w.out);
    const npx = path.join(w.npmCache, '_npx');
    const [hash] = fs.readdirSync(npx);
    expectGuarded(w, s, path.join(npx, hash!, 'node_modules/agent-guard/dist/agent-guard.cjs'));
  }, 240_000);
});

describeSandboxed('upgrades and a moved node', () => {
  itSandboxed('an upgrade in place keeps a running shell guarded; its next run renders the new template into the same directory', () => {
    const w = world();
    const prefix = npmPrefix('upgrade');
    // Version 2: the same package with another version and a changed shim template.
    const v2dir = path.join(w.dir, 'v2');
    fs.mkdirSync(v2dir);
    expect(spawnSync('tar', ['-xzf', tarball, '-C', v2dir]).status).toBe(0);
    const pj = path.join(v2dir, 'package/package.json');
    fs.writeFileSync(pj, fs.readFileSync(pj, 'utf8').replace(`"version": "${PKG.version}"`, '"version": "99.0.0"'));
    fs.appendFileSync(path.join(v2dir, 'package/shims/shim.sh'), '# version 2\n');
    const v2 = path.join(w.dir, 'agent-guard-99.0.0.tgz');
    expect(spawnSync('tar', ['-czf', v2, '-C', v2dir, 'package']).status).toBe(0);
    fs.writeFileSync(path.join(w.ws, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(w.ws, 'b.txt'), 'b\n');
    const env = userEnv(w, `${prefix}/bin:${SYSTEM_PATH}`);
    const r = sh(
      `set -e; cd "${w.ws}"
       npm i -g --offline --prefix "${prefix}" "${tarball}" >&2
       ${SHIMS_ON_PATH}   # a running shell of version 1
       npm i -g --offline --prefix "${prefix}" "${v2}" >&2
       test "$(agent-guard --version)" = "${PKG.version}"   # the bundle of the tarball (its version is compiled in)
       grep -c 'version 2' "${prefix}/lib/node_modules/agent-guard/shims/shim.sh" >&2
       sh -c 'rm a.txt'                        # the shim of version 1, the checker of version 2
       grep -c 'version 2' "$shims/rm" && exit 3 || true
       agent-guard run -- true                 # renders the new template into the same directory
       grep -c 'version 2' "$shims/rm" >&2
       sh -c 'rm b.txt'
       test ! -e a.txt && test ! -e b.txt`,
      env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
  });

  itSandboxed('a moved node: the shims refuse and say how to repair, doctor names the missing node, the next run repairs the running shell', () => {
    const w = world();
    const prefix = npmPrefix('moved-node');
    const nodeA = path.join(w.dir, 'node-a', 'node');
    fs.mkdirSync(path.dirname(nodeA));
    fs.copyFileSync(process.execPath, nodeA);
    fs.chmodSync(nodeA, 0o755);
    fs.writeFileSync(path.join(w.ws, 'c.txt'), 'c\n');
    const env = userEnv(w, `${prefix}/bin:${w.dir}/node-a:${w.dir}/node-b:/usr/local/bin:/usr/bin:/bin`);
    const r = sh(
      `cd "${w.ws}"
       npm i -g --offline --prefix "${prefix}" "${tarball}" >&2 || exit 90
       ${SHIMS_ON_PATH} || exit 91
       grep -q 'ag_node="${nodeA}"' "$shims/rm" || exit 92
       mv "${w.dir}/node-a" "${w.dir}/node-b"     # Node moved: the shims point at a missing node
       sh -c 'rm c.txt' 2> "${w.out}/refused.err"; echo $? > "${w.out}/refused.rc"
       test -e c.txt || exit 93
       agent-guard doctor --json > "${w.out}/doctor.json"
       agent-guard run -- true || exit 94         # the node on PATH now: the shims are rendered again
       sh -c 'rm c.txt' || exit 95               # in the running shell's very PATH
       test ! -e c.txt || exit 96`,
      env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(w.out, 'refused.rc'), 'utf8')).toBe('126\n');
    const refused = fs.readFileSync(path.join(w.out, 'refused.err'), 'utf8');
    expect(refused).toContain(`${nodeA} is missing`);
    expect(refused).toContain("run 'agent-guard run -- true' once or start a new shell");
    const doctor = JSON.parse(fs.readFileSync(path.join(w.out, 'doctor.json'), 'utf8')) as { checks: { id: string; status: string; detail: string; fix: string }[] };
    const rmCheck = doctor.checks.find((c) => c.id === 'shim.rm')!;
    expect(rmCheck.status).toBe('fail');
    expect(rmCheck.detail).toContain(`it runs ${nodeA}, which does not exist`);
    expect(rmCheck.fix).toContain("'agent-guard run -- true'");
  });

  itSandboxed('install.sh: a moved node leaves a launcher that runs the node on PATH, and its run renders the shims for it', () => {
    const w = world();
    const prefix = path.join(w.dir, 'inst');
    const nodeA = path.join(w.dir, 'node-a', 'node');
    fs.mkdirSync(path.dirname(nodeA));
    fs.copyFileSync(process.execPath, nodeA);
    fs.chmodSync(nodeA, 0o755);
    fs.writeFileSync(path.join(w.ws, 'd.txt'), 'd\n');
    const env = userEnv(w, `${w.dir}/node-a:${w.dir}/node-b:/usr/local/bin:/usr/bin:/bin`);
    const ag = path.join(prefix, 'bin/agent-guard');
    const r = sh(
      `cd "${w.ws}"
       sh "${REPO}/install.sh" --prefix "${prefix}" > /dev/null || exit 90
       mv "${w.dir}/node-a" "${w.dir}/node-b"
       "${ag}" run -- sh -c 'rm d.txt' || exit 91
       test ! -e d.txt || exit 92
       grep -q 'ag_node="${w.dir}/node-b/node"' "${prefix}/shims/rm" || exit 93
       "${ag}" run -- "${ag}" doctor --json > "${w.out}/doctor.json" || exit 94`,
      env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describeSandboxed('install.sh --uninstall', () => {
  itSandboxed('after install, run, shell-init and doctor, leaves nothing behind but the quarantine', () => {
    const w = world();
    const prefix = path.join(w.home, '.agent-guard');
    const before = entries(w.home);
    const ag = path.join(prefix, 'bin/agent-guard');
    const r = sh(
      `cd "${w.ws}"
       sh "${REPO}/install.sh" --prefix "${prefix}" > /dev/null || exit 90
       "${ag}" run -- rm notes.txt || exit 91
       bash -c 'eval "$("${ag}" shell-init bash)" && rm notes2.txt' || exit 92
       "${ag}" run -- "${ag}" doctor --json > "${w.out}/doctor.json" || exit 93
       sh "${REPO}/install.sh" --uninstall --prefix "${prefix}" || exit 94`,
      userEnv(w, SYSTEM_PATH),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(entries(w.home)).toEqual(before);
    expect(fs.existsSync(path.join(w.ws, 'notes.txt'))).toBe(false);
    expect(entries(path.join(w.ws, '.agent-trash')).filter((e) => e.endsWith('notes.txt') || e.endsWith('notes2.txt'))).toHaveLength(2);
  });
});
