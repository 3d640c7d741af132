// git vocabulary and the reset/checkout preflight (issue 11 items 4 and 9) through the git shim and
// `check --enforce`, with the real git, in the read-only sandbox. A world's commands run in one
// sandbox script; where the guard lets git run, the same script on a twin world with the real git
// must give the same output, exit status and tree, and what git destroyed must come back with
// `agent-guard restore`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { writeShims } from '../../src/shims/render.js';
import { listing } from '../helpers/tree.mjs';
import { GIT_ENV, SYSTEM_PATH, world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-git-vocab');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));
const AG = `"${process.execPath}" "${BIN}"`;

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

/** c1: a.txt b.txt dir/x .gitignore(*.log); c2 adds old.txt and README; c3 (HEAD, main) removes
 *  them. Branch `qtrack` tracks `.agent-trash/x`, `qfile` a file named `.agent-trash`, `qnew`
 *  `.agent-trash/tx-new/file`, `qlink` a symlink named `.agent-trash`, `logs` a file `keep.log`
 *  (ignored on main).
 *  Linked work trees (detached at HEAD) under trees/: w, ign, locked. */
const SETUP = [
  'mkdir dir && echo a > a.txt && echo b > b.txt && echo x > dir/x && echo "*.log" > .gitignore && git add -A && git commit -qm c1',
  'echo old > old.txt && echo R > README && git add old.txt README && git commit -qm c2',
  'git rm -q old.txt README && git commit -qm c3',
  'git checkout -q -b qtrack && mkdir .agent-trash && echo theirs > .agent-trash/x && git add -f .agent-trash/x && git commit -qm qtrack && git rm -rq --cached .agent-trash && rm -rf .agent-trash',
  'git checkout -q main && git checkout -q -b qfile && echo notadir > .agent-trash && git add -f .agent-trash && git commit -qm qfile && git rm -q --cached .agent-trash && rm .agent-trash && git checkout -q main',
  'git checkout -q -b qnew && mkdir -p .agent-trash/tx-new && echo new > .agent-trash/tx-new/file && git add -f .agent-trash && git commit -qm qnew && git rm -rq --cached .agent-trash && rm -rf .agent-trash && git checkout -q main',
  'git checkout -q -b qlink && ln -s /nonexistent-elsewhere .agent-trash && git add -f .agent-trash && git commit -qm qlink && git rm -q --cached .agent-trash && rm .agent-trash && git checkout -q main',
  'git checkout -q -b logs && echo theirs > keep.log && git add -f keep.log && git commit -qm logs && git rm -q --cached keep.log && rm keep.log && git checkout -q main',
  'for n in w ign locked; do git worktree add -q --detach trees/$n; done',
  'echo untracked > trees/w/u.txt && echo modified > trees/w/a.txt && echo log > trees/ign/debug.log && echo u > trees/locked/u.txt && git worktree lock trees/locked',
].join(' && ');

/** A world built by SETUP (which removes files, so it runs in the sandbox). */
const world = (name: string): World => makeWorld(path.join(area.rw(), name), { setup: SETUP, sandbox: area.rw() });

function sh(w: World, script: string, shimsOn: boolean): { exitCode: number; stdout: string; stderr: string } {
  const env = { HOME: w.home, PATH: shimsOn ? `${shims()}:${SYSTEM_PATH}` : SYSTEM_PATH, ...GIT_ENV, AGENT_GUARD_SESSION: 'git-vocab' };
  return runSandboxed(area.rw(), ['sh', '-c', script], { cwd: w.ws, env, timeoutMs: 90_000 });
}

/** Restores every restorable transaction, newest first, inside the script (one sandbox). Its exit
 *  status is not asserted: re-applying the snapshot of `git rm -f` meets the staged deletion (a
 *  modify/delete conflict: the content comes back into the work tree, and restore reports the
 *  conflict); the tests assert the contents that come back. */
const RESTORE_ALL = `for tx in $(${AG} restore list --json | "${process.execPath}" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const t of JSON.parse(s).transactions.reverse())if(t.state==="RESTORABLE")console.log(t.txid)})'); do ${AG} restore "$tx" >/dev/null 2>&1; done; true`;

/** The workspace outside the quarantine and every `.git` (a linked work tree's `.git` file holds
 *  an absolute path). */
const tree = (w: World): string[] => listing(w.ws, w.ws, (r) => r === '.agent-trash' || path.basename(r) === '.git');
const read = (w: World, rel: string): string | null => (fs.existsSync(path.join(w.ws, rel)) ? fs.readFileSync(path.join(w.ws, rel), 'utf8') : null);

/** The script through the shims on a world and with the real git on its twin: same result. */
function same(name: string, script: string): World {
  const w = world(name);
  const t = world(`${name}-real`);
  const guarded = sh(w, script, true);
  const real = sh(t, script, false);
  expect({ exit: guarded.exitCode, stdout: guarded.stdout }, guarded.stderr).toEqual({ exit: real.exitCode, stdout: real.stdout });
  expect(tree(w)).toEqual(tree(t));
  return w;
}

describeSandboxed('git rm -f, reset --merge/--keep, checkout -f -B, switch -C: the real result, then restorable', () => {
  itSandboxed('git rm -f drops uncommitted changes: snapshot first; git rm without -f refuses on its own', () => {
    const w = same('rm', 'echo changed > a.txt && git rm -qf a.txt; echo "st=$?"; echo m > dir/x; git rm -rq dir; echo "st=$?"; git status --short');
    expect(read(w, 'a.txt')).toBeNull();
    expect(sh(w, RESTORE_ALL, false).exitCode).toBe(0);
    expect(read(w, 'a.txt')).toBe('changed\n');
  });

  itSandboxed('git reset --merge drops staged changes; --keep drops a staged version the work tree moved on from', () => {
    const w = same('merge-keep', 'echo staged > b.txt && git add b.txt && git reset --merge; echo "st=$?"; cat b.txt; echo v1 > a.txt && git add a.txt && echo v2 > a.txt && git reset --keep; echo "st=$?"; git diff --cached --stat');
    const list = JSON.parse(sh(w, `${AG} restore list --json`, false).stdout);
    expect(list.transactions.map((t: any) => t.command)).toEqual(['git reset --merge', 'git reset --keep']);
    // The --merge snapshot holds the staged b.txt; the --keep one the staged a.txt (v1).
    const shows = sh(w, list.transactions.map((t: any) => `git show ${t.snapshot.stash}^2:${t.command.endsWith('merge') ? 'b.txt' : 'a.txt'}`).join('; '), false);
    expect(shows.stdout).toBe('staged\nv1\n');
  });

  itSandboxed('git checkout -f -B x REV and git switch --discard-changes -C x REV: snapshot, then the real switch', () => {
    const w = same('force-create', 'echo changed > a.txt && git checkout -q -f -B x HEAD~1; echo "st=$?"; git rev-parse --abbrev-ref HEAD; echo again > b.txt && git switch -q --discard-changes -C y main; echo "st=$?"; git rev-parse --abbrev-ref HEAD');
    const list = JSON.parse(sh(w, `${AG} restore list --json`, false).stdout);
    expect(list.transactions.map((t: any) => t.snapshot?.stash === null ? 'empty' : 'held')).toEqual(['held', 'held']);
  });

  itSandboxed('git run by a Windows-style path (check --enforce): a snapshot, like git', () => {
    const w = world('winpath');
    const r = sh(w, `echo changed > a.txt; ${AG} check --enforce --json -- '"C:/Program Files/Git/bin/git.exe" reset --hard'; echo "st=$?"; ${AG} check --enforce --json -- "'C:\\Git\\bin\\git.exe' rm -f a.txt"; echo "st=$?"`, false);
    const [one, st1, two, st2] = r.stdout.trim().split('\n');
    expect([JSON.parse(one!).code, st1, JSON.parse(two!).code, st2]).toEqual(['SNAPSHOT_GIT_STASH', 'st=0', 'SNAPSHOT_GIT_STASH', 'st=0']);
    expect(JSON.parse(sh(w, `${AG} restore list --json`, false).stdout).transactions).toHaveLength(2);
  });
});

describeSandboxed('the preflight: what a reset or a forced checkout would overwrite is refused', () => {
  itSandboxed('untracked and ignored collisions, case variants under core.ignorecase, the quarantine: exit 2, nothing changed', () => {
    const w = world('preflight');
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: w.ws, encoding: 'utf8' }).stdout;
    /** Lines that set the stage (not refused, not checked). */
    const SETS = /^(echo|rm|mkdir)/;
    const cases = [
      // no quarantine yet: a commit that would create it as a symlink, or create files in it
      'git reset --hard qlink',
      'git checkout -f qnew',
      // an untracked file where HEAD~1 has old.txt
      'echo mine > old.txt',
      'git checkout -f HEAD~1',
      'git checkout -q -f -B x HEAD~1',
      'git switch --discard-changes -C y HEAD~1',
      'git reset --keep HEAD~1',
      'git reset --merge HEAD~1',
      'rm old.txt',
      // a case variant of README (HEAD~1 has README)
      'echo mine > readme',
      'git -c core.ignorecase=true reset --hard HEAD~1',
      'git -c core.ignorecase=true checkout -f HEAD~1',
      'rm readme',
      // the quarantine: a commit tracking .agent-trash/x, one with a file named .agent-trash
      `mkdir -p .agent-trash && echo ours > .agent-trash/x`,
      'git reset --hard qtrack',
      'git checkout -f qtrack',
      'git switch -f qfile',
      'git reset --keep qfile',
      'git reset --hard qnew',
    ];
    const script = cases
      .map((c) => (SETS.test(c) ? c : `${c} >/dev/null 2>&1; echo "shim $?"; ${AG} check --enforce --json -- '${c}' 2>/dev/null | sed -n 's/.*"code":"\\([A-Z_]*\\)".*/check \\1/p'`))
      .join('\n');
    const r = sh(w, script, true);
    expect(r.exitCode, r.stderr).toBe(0);
    const refusals = cases.filter((c) => !SETS.test(c)).length;
    expect(r.stdout.trim().split('\n')).toEqual(Array.from({ length: refusals }, () => ['shim 2', 'check BLOCK_GIT_RESET_COLLISION']).flat());
    expect(spawnSync('git', ['rev-parse', 'HEAD'], { cwd: w.ws, encoding: 'utf8' }).stdout).toBe(head);
    expect(read(w, '.agent-trash/x')).toBe('ours\n');
    expect(fs.lstatSync(path.join(w.ws, '.agent-trash')).isDirectory() && !fs.existsSync(path.join(w.ws, '.agent-trash/tx-new'))).toBe(true);
    expect(spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: w.ws, encoding: 'utf8' }).stdout).toBe('');
  }, 120_000);
});

describeSandboxed('what git writes over silently: ignored files in a branch switch, untracked ones under paths from another commit', () => {
  itSandboxed('refused with BLOCK_GIT_RESET_COLLISION through the shim and check; without the file in the way, or with --no-overwrite-ignore, git runs as unguarded', () => {
    const w = world('writes-over');
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: w.ws, encoding: 'utf8' }).stdout;
    const SETS = /^(echo|rm|mkdir)/;
    const refused = [
      // keep.log is ignored on main; the branch logs tracks it: a switch would write over it
      'echo mine > keep.log',
      'git checkout logs',
      'git switch logs',
      'git switch -c z logs',
      'git checkout -b y logs',
      'git checkout --detach logs',
      // old.txt untracked; HEAD~1 tracks it: paths from another commit would write over it
      'echo mine > old.txt',
      'git checkout HEAD~1 -- old.txt',
      'git checkout HEAD~1 old.txt',
      'git restore --source HEAD~1 old.txt',
      'git restore -s HEAD~1 -SW .',
    ];
    const script = refused
      .map((c) => (SETS.test(c) ? c : `${c} >/dev/null 2>&1; echo "shim $?"; ${AG} check --enforce --json -- '${c}' 2>/dev/null | sed -n 's/.*"code":"\\([A-Z_]*\\)".*/check \\1/p'`))
      .join('\n');
    const r = sh(w, script, true);
    expect(r.exitCode, r.stderr).toBe(0);
    const n = refused.filter((c) => !SETS.test(c)).length;
    expect(r.stdout.trim().split('\n')).toEqual(Array.from({ length: n }, () => ['shim 2', 'check BLOCK_GIT_RESET_COLLISION']).flat());
    expect([read(w, 'keep.log'), read(w, 'old.txt')]).toEqual(['mine\n', 'mine\n']);
    expect(spawnSync('git', ['rev-parse', 'HEAD'], { cwd: w.ws, encoding: 'utf8' }).stdout).toBe(head);
    // Nothing in the way, or git told not to write over ignored files: git runs, as unguarded.
    const same = ['git switch --no-overwrite-ignore logs; echo "st=$?"; cat keep.log', 'rm keep.log old.txt; git switch -q logs; echo "st=$?"; cat keep.log; git switch -q main; echo "st=$?"'].join('\n');
    const guarded = sh(w, same, true);
    const twin = world('writes-over-twin');
    sh(twin, 'echo mine > keep.log && echo mine > old.txt', false);
    const plain = sh(twin, same, false);
    expect([guarded.exitCode, guarded.stdout]).toEqual([plain.exitCode, plain.stdout]);
    expect(guarded.stdout).toContain('theirs');
  }, 120_000);
});

describeSandboxed('git worktree remove: what the work tree holds that git does not is quarantined first', () => {
  itSandboxed('through the shim: git’s own result and `git worktree list`, then restore brings the directories back', () => {
    const script = [
      'git -C trees/w commit -qam "work in w"', // a commit only the detached HEAD of trees/w reaches
      'git worktree remove trees/w; echo "st=$?"', // untracked: git refuses
      'git worktree remove --force trees/locked; echo "st=$?"', // locked: git refuses
      'git worktree remove trees/ign; echo "st=$?"', // only an ignored file: git deletes it
      'git worktree remove --force w; echo "st=$?"', // by its unique suffix
      'git worktree remove -f -f trees/locked; echo "st=$?"',
      'git worktree list --porcelain | grep -c "^worktree "',
    ].join('\n');
    const w = same('worktree', script);
    expect(fs.existsSync(path.join(w.ws, 'trees/w')) || fs.existsSync(path.join(w.ws, 'trees/ign')) || fs.existsSync(path.join(w.ws, 'trees/locked'))).toBe(false);
    expect(sh(w, RESTORE_ALL, false).exitCode).toBe(0);
    expect([read(w, 'trees/w/u.txt'), read(w, 'trees/w/a.txt'), read(w, 'trees/ign/debug.log'), read(w, 'trees/locked/u.txt')]).toEqual(['untracked\n', 'modified\n', 'log\n', 'u\n']);
    // git's records stay consistent: only the main work tree is listed.
    expect(spawnSync('git', ['worktree', 'list', '--porcelain'], { cwd: w.ws, encoding: 'utf8' }).stdout.match(/^worktree /gm)).toHaveLength(1);
    // The detached HEAD's own commit was kept, and restore made it a branch.
    const kept = spawnSync('git', ['for-each-ref', '--format=%(refname:short) %(subject)', 'refs/heads/worktree-*'], { cwd: w.ws, encoding: 'utf8' }).stdout;
    expect(kept).toMatch(/^worktree-w-[0-9a-f]{12} work in w\n$/);
  });

  itSandboxed('through check --enforce: RELOCATE_TREE, then git removes the work tree', () => {
    const w = world('worktree-check');
    const r = sh(w, `${AG} check --enforce --json -- 'git worktree remove --force trees/w' | sed -n 's/.*"code":"\\([A-Z_]*\\)".*/\\1/p'; git worktree remove --force trees/w; echo "st=$?"; git worktree list --porcelain | grep -c "^worktree "`, false);
    expect(r.stdout.trim().split('\n')).toEqual(['RELOCATE_TREE', 'st=0', '3']);
    expect(sh(w, RESTORE_ALL, false).exitCode).toBe(0);
    expect(read(w, 'trees/w/u.txt')).toBe('untracked\n');
  });
});
