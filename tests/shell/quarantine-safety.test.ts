// What the quarantine holds stays there until `agent-guard gc` or a restore: a later find, xargs or
// glob that enumerates the workspace never reaches into it (issue 11, item 1). Through the real
// shims and the built checker, in the read-only sandbox; one sandbox per test, every variant a world.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { writeShims } from '../../src/shims/render.js';

const area = useSandboxArea('ag-qsafe');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const AG = `"${process.execPath}" "${BIN}"`;

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

/** A git workspace HOME/ws built by `setup` (sh, run in it); nothing destructive runs here. */
function world(name: string, setup: string): { home: string; ws: string } {
  const home = path.join(area.rw(), name);
  const ws = path.join(home, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  const r = spawnSync('sh', ['-c', `git init -q -b main && ${setup}`], { cwd: ws, env: { ...process.env, HOME: home, ...GIT_ENV }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return { home, ws };
}

/** Runs `script` in the sandbox with the shims first on PATH (cwd: the sandbox area). */
function sandboxed(script: string, env: Record<string, string> = {}): { exitCode: number; stdout: string; stderr: string } {
  return runSandboxed(area.rw(), ['sh', '-c', script], {
    env: { PATH: `${shims()}:${SYSTEM_PATH}`, AGENT_GUARD_SESSION: 'qsafe-test', ...GIT_ENV, ...env },
    timeoutMs: 120_000,
  });
}

const read = (p: string): string | null => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null);

/** One variant's record: what it printed and returned, and whether the first transaction restored. */
interface Outcome {
  status: string | null;
  stdout: string | null;
  stderr: string | null;
  restore: { status: string | null; json: string | null };
}

describeSandboxed('a later find, xargs or glob never reaches into the quarantine', () => {
  itSandboxed('after rm -rf src, each enumeration leaves the quarantined copy alone and the first transaction restores complete', () => {
    const SETUP = 'mkdir -p src/empty .work/x/src && echo m > src/mod.pyc && echo k > src/keep.txt && echo a > a.txt && echo o > .work/x/src/old.txt && git add -A && git commit -qm init';
    const variants: Record<string, string> = {
      'find -delete (only the quarantined copy matches)': `find . -name '*.pyc' -delete`,
      'find -delete (a workspace file and a quarantined one match)': `find . -name '*.txt' -delete`,
      'find -exec rm {} +': `find . -name '*.pyc' -exec rm {} +`,
      'find -exec rm {} \\;': `find . -name '*.txt' -exec rm {} \\;`,
      'find | xargs rm': `find . -name '*.pyc' | xargs rm`,
      'agent-guard delete with a glob': `${AG} delete '.*/*/src/*.txt'`,
      'find -exec unlink {} \\;': `find . -name '*.pyc' -exec unlink {} \\;`,
      'find -exec rmdir {} +': `find . -path '*/src/empty' -exec rmdir {} +`,
      'find | xargs shred -u': `find . -name '*.txt' -path '*/src/*' | xargs shred -u`,
      // inside the quarantine, the workspace is still the one around it (its marker is no work tree)
      'from inside the transaction: find -delete, rm -rf': `( cd .agent-trash/"$tx" && find . -name '*.pyc' -delete && rm -rf src )`,
    };
    const names = Object.keys(variants);
    const worlds = names.map((_, i) => world(`v${i}`, SETUP));
    let script = 'set -u\n';
    names.forEach((n, i) => {
      const { home, ws } = worlds[i]!;
      script += `cd '${ws}' && HOME='${home}' && export HOME && rm -rf src\n`;
      script += `tx=$(ls .agent-trash | grep -E '^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$')\n`;
      script += `{ ${variants[n]} ; } > ../out 2> ../err; echo $? > ../status\n`;
      script += `${AG} restore "$tx" --json > ../restore.json 2>&1; echo $? > ../restore.status\n`;
    });
    const r = sandboxed(script);
    expect(r.exitCode, r.stderr).toBe(0);
    const outcomes: Record<string, Outcome> = {};
    names.forEach((n, i) => {
      const h = worlds[i]!.home;
      outcomes[n] = {
        status: read(path.join(h, 'status')),
        stdout: read(path.join(h, 'out')),
        stderr: read(path.join(h, 'err')),
        restore: { status: read(path.join(h, 'restore.status')), json: read(path.join(h, 'restore.json')) },
      };
    });
    // Every variant: exit 0 and no output of its own (delete reports what it moved), and the first
    // transaction restores complete, both files with their bytes. find -delete leaves quarantine
    // matches alone without a word; the rm shim and delete say so, one line per call, naming
    // agent-guard gc.
    const summary = (n: string, i: number): object => {
      const { ws } = worlds[i]!;
      const o = outcomes[n]!;
      const lines = (o.stderr ?? '').split('\n').filter((l) => l !== '');
      return {
        status: o.status,
        stdout: n.startsWith('agent-guard') ? /^moved 1 path/.test(o.stdout ?? '') : o.stdout,
        stderr: i < 2 ? o.stderr : lines.length > 0 && lines.every((l) => /^agent-guard[: ].*quarantine.*agent-guard gc/.test(l)),
        restore: o.restore.status,
        mod: read(path.join(ws, 'src/mod.pyc')),
        keep: read(path.join(ws, 'src/keep.txt')),
        empty: fs.existsSync(path.join(ws, 'src/empty')),
      };
    };
    const want = (n: string, i: number): object => ({ status: '0\n', stdout: n.startsWith('agent-guard') ? true : '', stderr: i < 2 ? '' : true, restore: '0\n', mod: 'm\n', keep: 'k\n', empty: true });
    expect(Object.fromEntries(names.map((n, i) => [n, summary(n, i)]))).toEqual(Object.fromEntries(names.map((n, i) => [n, want(n, i)])));
    // What the enumerations matched in the workspace itself went as the real tools would take it.
    expect(read(path.join(worlds[1]!.ws, 'a.txt'))).toBeNull();
    expect(read(path.join(worlds[3]!.ws, 'a.txt'))).toBeNull();
    expect(read(path.join(worlds[5]!.ws, '.work/x/src/old.txt'))).toBeNull();
    expect(read(path.join(worlds[0]!.ws, 'a.txt'))).toBe('a\n');
  });
});

describeSandboxed('find -delete reruns never reach into the quarantine either', () => {
  itSandboxed('a rerun (a missing starting point, a directory find cannot remove) is guarded: the same output and status as the real find, the quarantine intact', () => {
    const SETUP = 'mkdir -p src sub srcx && echo m > src/mod.pyc && echo s > sub/x.pyc && echo k > srcx/keep && git add -A && git commit -qm init';
    const guarded = world('rerun', SETUP);
    const plain = world('rerun-real', SETUP);
    const SCRIPT = `find . nothere -name '*.pyc' -delete; echo "st=$?"; find . -name 'src*' -delete; echo "st=$?"`;
    const r = sandboxed(
      `cd '${guarded.ws}' && HOME='${guarded.home}' && export HOME && rm -rf src && { ${SCRIPT} ; } > ../out 2> ../err;` +
        ` cd '${plain.ws}' && PATH='${SYSTEM_PATH}' && rm -rf src && { ${SCRIPT} ; } > ../out 2> ../err`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const out = (w: { home: string }): object => ({ stdout: read(path.join(w.home, 'out')), stderr: read(path.join(w.home, 'err')) });
    expect(out(guarded)).toEqual(out(plain));
    expect(read(path.join(guarded.home, 'out'))).toBe('st=1\nst=1\n');
    for (const w of [guarded, plain]) {
      expect(read(path.join(w.ws, 'sub/x.pyc'))).toBeNull();
      expect(read(path.join(w.ws, 'srcx/keep'))).toBe('k\n');
    }
    const tx = fs.readdirSync(path.join(guarded.ws, '.agent-trash')).filter((n) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(n));
    const kept = tx.filter((t) => fs.existsSync(path.join(guarded.ws, '.agent-trash', t, 'src/mod.pyc')));
    expect(kept.length).toBe(1);
  });

  itSandboxed('the rerun does not delete what this very find just moved into a quarantine it created', () => {
    const w = world('rerun-fresh', 'mkdir -p sub && echo s > sub/x.pyc && echo t > top.pyc && git add -A && git commit -qm init');
    const r = sandboxed(`cd '${w.ws}' && HOME='${w.home}' && export HOME && { find . nothere -name '*.pyc' -delete; echo "st=$?"; } > ../out 2> ../err`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect({ out: read(path.join(w.home, 'out')), err: read(path.join(w.home, 'err')) }).toEqual({ out: 'st=1\n', err: "find: ‘nothere’: No such file or directory\n" });
    expect(read(path.join(w.ws, 'sub/x.pyc'))).toBeNull();
    const tx = fs.readdirSync(path.join(w.ws, '.agent-trash')).filter((n) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(n));
    expect(tx.length).toBe(1);
    expect(read(path.join(w.ws, '.agent-trash', tx[0]!, 'sub/x.pyc'))).toBe('s\n');
    expect(read(path.join(w.ws, '.agent-trash', tx[0]!, 'top.pyc'))).toBe('t\n');
  });
});

describeSandboxed('a quarantine inside a regenerable directory (AGENT_GUARD_TRASH under node_modules)', () => {
  itSandboxed('the quarantine, what holds it, a link to it and its state are protected through check, the shims and delete; git clean -fdx keeps it', () => {
    const w = world('nm', "mkdir -p src node_modules/x && echo a > src/a.ts && echo dep > node_modules/x/index.js && printf 'node_modules/\\n' > .gitignore && git add -A && git commit -qm init");
    const q = path.join(w.ws, 'node_modules/.trash');
    const steps: [string, string][] = [
      ['rm -rf src (a transaction to keep)', 'rm -rf src'],
      ['rm -rf node_modules', 'rm -rf node_modules'],
      ['check --enforce rm -rf node_modules', `${AG} check --enforce -- rm -rf node_modules`],
      ['find . -name node_modules -delete', `find . -name node_modules -delete`],
      ['find node_modules -delete', `find node_modules -delete`],
      ['agent-guard delete node_modules', `${AG} delete node_modules`],
      // (the link is taken away afterwards with the real rm: git clean -fdx would refuse it too)
      ['rm a link to the quarantine', `ln -s node_modules/.trash qlink && { rm qlink; s=$?; /bin/rm qlink; (exit $s); }`],
      ['rm its manifest', `rm node_modules/.trash/manifest.jsonl`],
      ['rm -f its index', `rm -f node_modules/.trash/index.json`],
      ['rm -rf its sessions', `rm -rf node_modules/.trash/sessions`],
      ['git clean -fdx (the marker makes git skip the quarantine)', `git clean -fdx`],
      ['git clean -fdx without the marker (git lists node_modules/ whole)', `/bin/rm -rf node_modules/.trash/.git && mkdir -p node_modules/y && git clean -fdx`],
    ];
    let script = `cd '${w.ws}' && HOME='${w.home}' && export HOME\n`;
    steps.forEach(([, cmd], i) => {
      script += `{ ${cmd} ; } > ../out${i} 2> ../err${i}; echo $? > ../status${i}\n`;
    });
    script += `tx=$(ls node_modules/.trash | grep -E '^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$' | head -n 1); ${AG} restore "$tx" --json > ../restore.json 2>&1; echo $? > ../restore.status\n`;
    const r = sandboxed(script, { AGENT_GUARD_TRASH: q });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = Object.fromEntries(
      steps.map(([label], i) => {
        const status = read(path.join(w.home, `status${i}`))?.trim();
        const err = read(path.join(w.home, `err${i}`)) ?? '';
        const out = read(path.join(w.home, `out${i}`)) ?? '';
        return [label, { status, protectedPath: /BLOCK_PROTECTED_PATH/.test(err + out) }];
      }),
    );
    const blocked = { status: '2', protectedPath: true };
    expect(got).toEqual({
      'rm -rf src (a transaction to keep)': { status: '0', protectedPath: false },
      'rm -rf node_modules': blocked,
      'check --enforce rm -rf node_modules': blocked,
      'find . -name node_modules -delete': blocked,
      'find node_modules -delete': blocked,
      'agent-guard delete node_modules': blocked,
      'rm a link to the quarantine': blocked,
      'rm its manifest': blocked,
      'rm -f its index': blocked,
      'rm -rf its sessions': blocked,
      'git clean -fdx (the marker makes git skip the quarantine)': { status: '0', protectedPath: false },
      'git clean -fdx without the marker (git lists node_modules/ whole)': blocked,
    });
    // git clean took what it may (node_modules/x), never the quarantine; the transaction restores.
    expect(read(path.join(w.ws, 'node_modules/x/index.js'))).toBeNull();
    expect(read(path.join(w.home, 'restore.status'))).toBe('0\n');
    expect(read(path.join(w.ws, 'src/a.ts'))).toBe('a\n');
    expect(fs.existsSync(path.join(q, 'manifest.jsonl'))).toBe(true);
  });
});

describeSandboxed('git run inside the quarantine (its marker looks like a repository to git)', () => {
  itSandboxed('git clean -fdx there is refused by check --enforce, the hook and the shim, and the transaction restores complete', () => {
    const w = world('clean-inside', 'mkdir src && echo a > src/a.txt && git add -A && git commit -qm init');
    const steps = [
      `PATH='${SYSTEM_PATH}'; ${AG} check --enforce -- git clean -fdx && git clean -fdx`,
      `PATH='${SYSTEM_PATH}'; ${AG} hook-shell --shell bash --cwd "$PWD" -- 'git clean -fdx' && git clean -fdx`,
      'git clean -fdx',
    ];
    let script = `cd '${w.ws}' && HOME='${w.home}' && export HOME && rm -rf src\n`;
    steps.forEach((s, i) => {
      script += `( cd .agent-trash && { ${s} ; } > ../../out${i} 2> ../../err${i}; echo $? > ../../status${i} )\n`;
    });
    script += `tx=$(ls .agent-trash | grep -E '^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$'); ${AG} restore "$tx" > ../restore.out 2>&1; echo $? > ../restore.status\n`;
    const r = sandboxed(script);
    expect(r.exitCode, r.stderr).toBe(0);
    const got = steps.map((_, i) => ({ status: read(path.join(w.home, `status${i}`)), protectedPath: /BLOCK_PROTECTED_PATH/.test(read(path.join(w.home, `err${i}`)) ?? '') }));
    expect(got).toEqual(steps.map(() => ({ status: '2\n', protectedPath: true })));
    expect(read(path.join(w.home, 'restore.status'))).toBe('0\n');
    expect(read(path.join(w.ws, 'src/a.txt'))).toBe('a\n');
  });
});
