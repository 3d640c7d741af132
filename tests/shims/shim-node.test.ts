// The PATH shims with the real checker (dist/agent-guard.cjs) behind them, in the read-only sandbox:
// what is left on disk outside the quarantine, the output and the exit status are the real tool's,
// and everything it removed is restorable. Each case runs the same command on two identical copies
// of a workspace — one through the shims, one with the real tool — and compares.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { writeShims } from '../../src/shims/render.js';
import { workTree } from '../helpers/tree.mjs';
import { GIT_ENV, SYSTEM_PATH, twin, world as makeWorld, type World, type WorldOptions } from '../helpers/world.js';

const area = useSandboxArea('ag-shim-node');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

/** a.txt b.txt dir/sub/x build/o.o, an empty directory, link -> a.txt; all committed (but empty/). */
const FILES: WorldOptions = { files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'dir/sub/x': 'x\n', 'build/o.o': 'o\n', 'empty/': '' }, links: { link: 'a.txt' }, commit: true };

/** A git workspace holding FILES, committed; `setup` (a sh script) runs in it after that. */
const world = (name: string, setup?: string): World => makeWorld(path.join(area.rw(), name), { ...FILES, ...(setup !== undefined ? { setup, sandbox: area.rw() } : {}) });

function sh(w: World, script: string, opts: { shims: boolean; input?: string }): { exitCode: number; stdout: string; stderr: string } {
  const env: Record<string, string> = { HOME: w.home, PATH: opts.shims ? `${shims()}:${SYSTEM_PATH}` : SYSTEM_PATH, ...GIT_ENV, AGENT_GUARD_SESSION: 'shim-test' };
  return runSandboxed(area.rw(), ['sh', '-c', script], { cwd: w.ws, env, ...(opts.input !== undefined ? { input: opts.input } : {}), timeoutMs: 60_000 });
}

/** The workspace outside .git and the quarantine. */
const tree = (w: World): string[] => workTree(w.ws);

/** Runs `script` through the shims on a world and with the real tools on its twin; both must agree. */
function same(name: string, setup: string | undefined, script: string): { guarded: ReturnType<typeof sh>; real: ReturnType<typeof sh>; w: World } {
  const w = world(name, setup);
  const t = twin(w, path.join(area.rw(), `${name}-real`));
  const guarded = sh(w, script, { shims: true });
  const real = sh(t, script, { shims: false });
  expect({ exit: guarded.exitCode, stdout: guarded.stdout }, guarded.stderr).toEqual({ exit: real.exitCode, stdout: real.stdout });
  expect(guarded.stderr).toBe(real.stderr);
  expect(tree(w)).toEqual(tree(t));
  return { guarded, real, w };
}

function restoreAll(w: World): void {
  const list = JSON.parse(sh(w, `"${process.execPath}" "${BIN}" restore list --json`, { shims: false }).stdout);
  for (const t of list.transactions) if (t.state === 'RESTORABLE') expect(sh(w, `"${process.execPath}" "${BIN}" restore ${t.txid} --json`, { shims: false }).exitCode).toBe(0);
}

describeSandboxed('the rm shim: the real rm’s result, with the removed entries quarantined', () => {
  for (const [label, script] of [
    ['rm FILE (no -f)', 'rm a.txt'],
    ['rm MISSING fails as rm fails', 'rm nothere; echo "st=$?"'],
    ['rm DIR without -r fails as rm fails', 'rm dir; echo "st=$?"'],
    ['rm -r DIR', 'rm -r dir'],
    ['rm -rf with a missing operand', 'rm -rf build missing'],
    ['rm -d EMPTY and rm -d NONEMPTY', 'rm -d empty dir; echo "st=$?"'],
    ['rm -v', 'rm -v a.txt b.txt'],
    ['rm -rv DIR (children first)', 'rm -rv dir'],
    ['rm a symlink removes the link', 'rm link'],
    ['options after operands', 'rm dir -r'],
    ['rm -- -x', 'echo d > ./-x && rm -- -x'],
    ['xargs rm', 'printf "a.txt\\nb.txt\\n" | xargs rm'],
    ['find -exec rm', 'find . -name "*.o" -exec rm {} +'],
    ['find -delete (files)', 'find . -name "*.o" -delete'],
    ['find -delete (a tree)', 'find dir -delete'],
    ['find -delete (a non-empty directory fails as find fails)', 'find . -name sub -delete; echo "st=$?"'],
    ['find -delete (-empty)', 'find . -path ./.git -prune -o -empty -delete'],
    ['find -delete (two starting points, one missing)', 'find build nothere -delete; echo "st=$?"'],
    ['find -name -delete (a pattern, not the action)', 'find . -name -delete'],
  ] as const) {
    itSandboxed(label, () => {
      const { w } = same(label.replace(/\W+/g, '-'), undefined, script);
      restoreAll(w);
    });
  }

  itSandboxed('what it removed is in the quarantine and restores byte-identical', () => {
    const w = world('rm-restore');
    const before = tree(w);
    expect(sh(w, 'rm -rf dir build a.txt link', { shims: true }).exitCode).toBe(0);
    expect(tree(w)).not.toEqual(before);
    restoreAll(w);
    expect(tree(w)).toEqual(before);
  });

  itSandboxed('refusals: nothing runs, exit 2 (BLOCK) or 3 (ASK), the reason on stderr', () => {
    const w = world('rm-refused');
    const before = tree(w);
    fs.writeFileSync(path.join(w.home, 'notes.txt'), 'n\n');
    const outside = sh(w, `rm -rf ${w.home}/notes.txt`, { shims: true });
    expect(outside.exitCode).toBe(2);
    expect(outside.stderr).toMatch(/^agent-guard: refused .*BLOCK BLOCK_OUT_OF_WORKSPACE/);
    // The canary is in /tmp, a scratch zone (docs/zones.md): its quarantine cannot be made in the
    // read-only /tmp here, so the relocation is refused and nothing is deleted.
    const canary = sh(w, `rm -rf ${area.canary()}`, { shims: true });
    expect(canary.exitCode).toBe(2);
    expect(canary.stderr).toMatch(/^agent-guard: refused .*BLOCK RELOCATE_FAILED_STORAGE/);
    expect(sh(w, 'rm -rf .git', { shims: true }).exitCode).toBe(2);
    // rm -i with no terminal to ask: ASK, nothing moved.
    const i = sh(w, 'rm -i a.txt < /dev/null', { shims: true });
    expect(i.exitCode).toBe(3);
    expect(tree(w)).toEqual(before);
  });
});

describeSandboxed('the other shims', () => {
  itSandboxed('unlink, shred -u and shred: restorable; rmdir as it is', () => {
    const w = world('others');
    expect(sh(w, 'unlink a.txt && rmdir empty && shred -u b.txt && shred dir/sub/x', { shims: true }).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, 'a.txt')) || fs.existsSync(path.join(w.ws, 'b.txt')) || fs.existsSync(path.join(w.ws, 'empty'))).toBe(false);
    expect(fs.readFileSync(path.join(w.ws, 'dir/sub/x'))).not.toEqual(Buffer.from('x\n')); // shredded in place
    const list = JSON.parse(sh(w, `"${process.execPath}" "${BIN}" restore list --json`, { shims: false }).stdout);
    expect(list.transactions.map((t: any) => t.items.map((i: any) => path.relative(w.ws, i.origin))).flat().sort()).toEqual(['a.txt', 'b.txt', 'dir/sub/x']);
    // The shredded file's copy comes back over the overwritten one with --force.
    const shredTx = list.transactions.find((t: any) => t.items[0].origin.endsWith('dir/sub/x'));
    expect(sh(w, `"${process.execPath}" "${BIN}" restore ${shredTx.txid} --force --json`, { shims: false }).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(w.ws, 'dir/sub/x'), 'utf8')).toBe('x\n');
  });

  itSandboxed('git clean -fd prints what the real one prints, and the quarantine survives git clean -fdx', () => {
    const { w } = same('git-clean', `mkdir -p junk/deep && echo j > junk/deep/j && echo u > untracked.txt`, 'git clean -fd');
    expect(sh(w, 'git clean -fdx', { shims: true }).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, '.agent-trash', 'manifest.jsonl'))).toBe(true);
    restoreAll(w);
    expect(fs.readFileSync(path.join(w.ws, 'junk/deep/j'), 'utf8')).toBe('j\n');
  });

  itSandboxed('git reset --hard: snapshot first, then the real reset; restore brings the changes back', () => {
    const { w } = same('git-reset', 'echo changed > a.txt', 'git reset --hard -q');
    expect(fs.readFileSync(path.join(w.ws, 'a.txt'), 'utf8')).toBe('a\n');
    restoreAll(w);
    expect(fs.readFileSync(path.join(w.ws, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  itSandboxed('git branch -D, git stash drop and git stash clear: the real result, and restore brings the branch and the stash entries back', () => {
    const setup = `git branch topic && git checkout -q topic && echo t > t.txt && git add t.txt && git commit -qm topic && git checkout -q main && echo s1 > a.txt && git stash -q && echo s2 > b.txt && git stash -q && echo s3 > a.txt && git stash -q`;
    const { w } = same('git-refs', setup, 'git branch -D topic && git stash drop -q && git stash clear && git branch --list && git stash list');
    const git = (cmd: string): string => sh(w, cmd, { shims: false }).stdout;
    expect(git('git branch --list topic')).toBe('');
    expect(git('git stash list')).toBe('');
    restoreAll(w);
    expect(git('git log -1 --format=%s topic')).toBe('topic\n');
    // Restored transaction by transaction (the drop's s3, then the clear's s1 and s2, oldest first).
    const contents = [0, 1, 2].map((n) => git(`git stash show -p stash@{${n}}`).match(/^\+(s\d)$/m)?.[1]);
    expect(contents).toEqual(['s2', 's1', 's3']);
    expect(git('git for-each-ref refs/agent-guard')).toBe(''); // the keep-alive refs are gone
  });

  itSandboxed('git push --force is refused before git runs; read-only git takes the fast path', () => {
    const w = world('git-push');
    const r = sh(w, 'git push --force origin main', { shims: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/BLOCK_FORCE_PUSH/);
    expect(sh(w, 'git status --short && git log --oneline | wc -l', { shims: true }).stdout.trim()).toBe('1');
  });

  itSandboxed('find -delete with another action is refused, nothing deleted', () => {
    const w = world('find-print');
    const r = sh(w, 'find . -name "*.o" -print -delete', { shims: true });
    expect(r.exitCode).toBe(2);
    expect(fs.existsSync(path.join(w.ws, 'build/o.o'))).toBe(true);
  });

  itSandboxed('find -exec with a deleter named by its path is refused (it would pass the shim)', () => {
    const w = world('find-abs');
    const r = sh(w, 'find . -name "*.o" -exec /bin/rm {} +', { shims: true });
    expect(r.exitCode).toBe(2);
    expect(fs.existsSync(path.join(w.ws, 'build/o.o'))).toBe(true);
  });
});

describeSandboxed('hook-shell (the text check the bash/zsh hooks call)', () => {
  const hook = (w: World, text: string, shimsOn: boolean) =>
    sh(w, `"${process.execPath}" "${BIN}" hook-shell --shell bash ${shimsOn ? '--shims ' : ''}--cwd "$PWD" -- "$1"`.replace('"$1"', `'${text.replace(/'/g, `'\\''`)}'`), { shims: shimsOn });

  itSandboxed('with shims: defers what they will see (shapes included), decides what bypasses them, refuses tampering', () => {
    const w = world('hook-shims');
    expect(hook(w, 'rm -rf "$D"', true).exitCode).toBe(0); // the shim sees the expanded argv
    expect(hook(w, 'ls | xargs rm', true).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(true);
    expect(hook(w, '/bin/rm -rf build', true).exitCode).toBe(0); // compensated here: relocated
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
    expect(hook(w, 'command -p rm -rf "$D"', true).exitCode).toBe(2);
    // A shape is the shims' (they see the concrete cwd): deferred, nothing moved here.
    expect(hook(w, 'cd dir && rm -rf sub', true).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, 'dir', 'sub'))).toBe(true);
    // …but not when the line also bypasses the shims: the text decides it whole.
    expect(hook(w, 'cd dir && command -p rm -rf sub', true).exitCode).toBe(3);
    // A pyenv-style loadable builtin of another name is no tampering.
    expect(hook(w, 'enable -f /nowhere/pyenv-realpath.dylib realpath 2>/dev/null', true).exitCode).toBe(0);
    const tamper = hook(w, 'export AGENT_GUARD_SHIM_PID="$$ 1"; rm -rf dir', true);
    expect(tamper.exitCode).toBe(2);
    expect(tamper.stderr).toMatch(/BLOCK_GUARD_TAMPERING/);
    expect(hook(w, 'ls -la', true).exitCode).toBe(0);
    // The guard's own trap is tampering; any other trap is not.
    expect(hook(w, 'trap - DEBUG', true).exitCode).toBe(2);
    expect(hook(w, 'trap - EXIT', true).exitCode).toBe(0);
    expect(hook(w, 'unfunction TRAPDEBUG', true).exitCode).toBe(2);
    // Builtin rm commands would pass the shims.
    expect(hook(w, 'zmodload zsh/files', true).exitCode).toBe(2);
    expect(hook(w, 'enable -f /usr/lib/bash/rm rm', true).exitCode).toBe(2);
  });

  itSandboxed('without shims: enforces like check --enforce', () => {
    const w = world('hook-plain');
    expect(hook(w, 'rm -rf build', false).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
    expect(hook(w, 'rm -rf "$D"', false).exitCode).toBe(2);
    expect(hook(w, `rm -rf ${area.canary()}`, false).exitCode).toBe(2);
  });
});
