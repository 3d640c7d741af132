// Snapshots and restore as a user meets them, inside the read-only sandbox: snapshots stay out of
// the user's stash, a restore after a command that moved HEAD goes back to the commit the changes
// were made on (or refuses, changing nothing, and says how), `restore show`, `restore <txid> PATH…`,
// gc of snapshot transactions, and the AGENT_GUARD_NOTICE line. Each case runs one shell script in
// one sandbox; its output is read back in sections (`mark NAME`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { writeShims } from '../../src/shims/render.js';
import { appendRecord } from '../../src/recovery/records.js';
import { newTxid } from '../../src/recovery/quarantine.js';
import { listing } from '../helpers/tree.mjs';
import { GIT_ENV, SYSTEM_PATH, twin, world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-snapshot');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

/** A git workspace built by `setup` (run in it with sh, inside the sandbox). */
const world = (name: string, setup: string): World => makeWorld(path.join(area.rw(), name), { setup, sandbox: area.rw() });

/** `AG …` runs the checker by its path (never a shim); `mark NAME` starts an output section;
 *  `lasttx` prints the newest transaction id; `state TX` its state. */
const PRELUDE = `
AG() { "$AG_NODE" "$AG_BIN" "$@"; }
mark() { printf '@@%s\\n' "$1"; }
lasttx() { AG restore list --json | "$AG_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).transactions.at(-1).txid))'; }
state() { AG restore list --json | "$AG_NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).transactions.find(t=>t.txid===process.argv[1]).state))' "$1"; }
`;

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The output of each `mark NAME` section. */
  s: Record<string, string>;
}

function sh(w: World, script: string, opts: { shims?: boolean; env?: Record<string, string> } = {}): Run {
  const env = { HOME: w.home, PATH: opts.shims ? `${shims()}:${SYSTEM_PATH}` : SYSTEM_PATH, AG_NODE: process.execPath, AG_BIN: BIN, AGENT_GUARD_SESSION: 'snap-test', ...GIT_ENV, ...opts.env };
  const r = runSandboxed(area.rw(), ['sh', '-c', PRELUDE + script], { cwd: w.ws, env, timeoutMs: 60_000 });
  const s: Record<string, string> = {};
  let name = '';
  for (const line of r.stdout.split('\n')) {
    const m = /^@@(\S+)$/.exec(line);
    if (m) s[(name = m[1]!)] = '';
    else if (name) s[name] += `${line}\n`;
  }
  for (const k of Object.keys(s)) s[k] = s[k]!.replace(/\n+$/, '');
  return { ...r, s };
}

/** Where HEAD is, the index and the work tree, in one section. */
const STATE = 'git symbolic-ref -q HEAD; git rev-parse HEAD; git status --porcelain; git diff; git diff --cached';

const json = (text: string): any => JSON.parse(text);

describeSandboxed("snapshots stay out of the user's stash", () => {
  itSandboxed('a user stash entry, a guarded git reset --hard: git stash list and git stash pop behave exactly as without the guard; restore brings the snapshot back', () => {
    const setup = 'echo a > a.txt && echo u > u.txt && git add -A && git commit -qm init && echo user > u.txt && git stash -q && echo wip > a.txt';
    const w = world('stash', setup);
    const t = twin(w, path.join(area.rw(), 'stash-real'));
    const script = 'git reset -q --hard; mark list; git stash list --format=%gs; mark pop; git stash pop -q; echo "st=$?"; cat a.txt u.txt; git stash list; mark status; git status --porcelain';
    const guarded = sh(w, script, { shims: true });
    const real = sh(t, script);
    expect(guarded.s, guarded.stderr).toEqual(real.s);
    expect(guarded.stderr).toBe(real.stderr);
    expect(real.s.pop).toBe('st=0\na\nuser');
    // The snapshot is under agent-guard's own ref, and restore applies it.
    const after = sh(w, 'TX=$(lasttx); mark tx; echo "$TX"; mark refs; git for-each-ref --format="%(refname)" refs/agent-guard; mark restore; AG restore "$TX" --json; echo "st=$?"; mark files; cat a.txt u.txt; mark refs2; git for-each-ref refs/agent-guard; git stash list; mark state; state "$TX"');
    expect(after.s.refs).toBe(`refs/agent-guard/${after.s.tx}/snapshot`);
    expect(after.s.restore).toMatch(/st=0$/);
    expect(after.s.files).toBe('wip\nuser');
    expect(after.s.refs2).toBe('');
    expect(after.s.state).toBe('RESTORED');
  });

  itSandboxed('a snapshot an older version stored in refs/stash (its record without a ref or HEAD) still restores', () => {
    const w = world('legacy', 'echo a > a.txt && git add -A && git commit -qm init');
    const txid = newTxid();
    const made = sh(w, `echo wip > a.txt && sha=$(git stash create "agent-guard snapshot ${txid}") && git stash store -m "agent-guard snapshot ${txid}" "$sha" && git reset -q --hard && echo "$sha"`);
    expect(made.exitCode, made.stderr).toBe(0);
    const sha = made.stdout.trim();
    const q = path.join(w.ws, '.agent-trash');
    fs.mkdirSync(q);
    appendRecord(path.join(q, 'manifest.jsonl'), { kind: 'tx-start', txid, session: null, command: 'git reset --hard', cwd: w.ws, strategy: 'snapshot' });
    appendRecord(path.join(q, 'manifest.jsonl'), { kind: 'snapshot', txid, session: null, stash: sha, message: `agent-guard snapshot ${txid}`, repo: w.ws, globals: [] });
    const r = sh(w, `mark show; AG restore show ${txid} --json; mark restore; AG restore ${txid} --json; echo "st=$?"; mark file; cat a.txt`);
    expect(json(r.s.show!)).toMatchObject({ kind: 'snapshot', state: 'RESTORABLE', snapshot: { commit: sha, ref: 'refs/stash' }, items: [{ path: 'a.txt', type: 'modified', bytes: 4 }] });
    expect(r.s.restore).toMatch(/st=0$/);
    expect(r.s.file).toBe('wip');
  });

  itSandboxed('gc --execute purges an old snapshot transaction and drops its ref', () => {
    const w = world('gc', 'echo a > a.txt && git add -A && git commit -qm init && echo wip > a.txt');
    const r = sh(w, 'AG check --enforce -- "git reset --hard" >/dev/null; git reset -q --hard; TX=$(lasttx); mark tx; echo "$TX"; mark gc; AG gc --execute --max-age-days 0 --json; mark refs; git for-each-ref refs/agent-guard; mark state; state "$TX"');
    const gc = json(r.s.gc!);
    expect(gc.purged.map((p: any) => p.txid)).toEqual([r.s.tx]);
    expect(gc.failed).toEqual([]);
    expect(r.s.refs).toBe('');
    expect(r.s.state).toBe('PURGED');
  });
});

describeSandboxed('restore after a command that moved HEAD', () => {
  const commits = 'echo 1 > a.txt && echo b > b.txt && git add -A && git commit -qm c1 && echo 2 > a.txt && git commit -qam c2 && echo 3 > a.txt && git commit -qam c3';
  /** Work in progress: an unstaged change, a staged change with more on top, a new staged file. */
  const wip = 'echo wip > a.txt && echo staged > b.txt && git add b.txt && echo more >> b.txt && echo new > c.txt && git add c.txt';

  itSandboxed('git reset --hard HEAD~2: restore returns to the commit and branch, then index and work tree are as they were', () => {
    const w = world('reset2', `${commits} && ${wip}`);
    const r = sh(w, `mark before; ${STATE}; AG check --enforce -- "git reset --hard HEAD~2" >/dev/null; git reset -q --hard HEAD~2; mark moved; git rev-parse HEAD~0; TX=$(lasttx); mark restore; AG restore "$TX"; echo "st=$?"; mark after; ${STATE}`);
    expect(r.s.restore, r.stderr).toMatch(/st=0$/);
    expect(r.s.after).toBe(r.s.before);
    expect(r.s.before).toContain('refs/heads/main');
  });

  itSandboxed('git checkout -f topic through the git shim: restore switches back to main, then applies the changes', () => {
    const w = world('checkout', `${commits} && git branch topic HEAD~1 && ${wip}`);
    const r = sh(w, `mark before; ${STATE}; git checkout -q -f topic; mark moved; git symbolic-ref HEAD; TX=$(lasttx); mark restore; AG restore "$TX"; echo "st=$?"; mark after; ${STATE}`, { shims: true });
    expect(r.s.moved).toBe('refs/heads/topic');
    expect(r.s.restore, r.stderr).toMatch(/st=0$/);
    expect(r.s.after).toBe(r.s.before);
  });

  itSandboxed('refused when HEAD moved on or the work tree changed since: nothing changes, the printed commands do it by hand, and the snapshot stays restorable', () => {
    const w = world('refuse', `${commits} && ${wip}`);
    // HEAD moved on: a commit made after the reset.
    const r = sh(
      w,
      `mark before; ${STATE}; AG check --enforce -- "git reset --hard HEAD~1" >/dev/null; git reset -q --hard HEAD~1; echo n > n.txt; git add n.txt; git commit -qm later; TX=$(lasttx); mark tx; echo "$TX"; ` +
        `mark pre; ${STATE}; git for-each-ref; mark restore; AG restore "$TX" --json; echo "st=$?"; mark post; ${STATE}; git for-each-ref; mark state; state "$TX"`,
    );
    expect(r.s.restore).toMatch(/st=1$/);
    expect(r.s.post).toBe(r.s.pre);
    expect(r.s.state).toBe('RESTORABLE');
    const out = json(r.s.restore!.replace(/\nst=1$/, ''));
    expect(out.restored).toEqual([]);
    expect(out.skipped[0].reason).toMatch(/HEAD has moved since the command; nothing was changed/);
    // A new branch at the old commit (main, which gained a commit, is left alone), then the snapshot.
    expect(out.commands).toHaveLength(2);
    expect(out.commands[0]).toMatch(new RegExp(`^git -C \\S+ switch -q -c agent-guard-restore-${r.s.tx} [0-9a-f]{40}$`));
    expect(out.commands[1]).toMatch(/^git -C \S+ stash apply --index [0-9a-f]{40}$/);
    const byHand = sh(w, `${out.commands.join(' && ')}; mark after; ${STATE}`);
    const [, ...before] = r.s.before!.split('\n');
    expect(byHand.s.after).toBe([`refs/heads/agent-guard-restore-${r.s.tx}`, ...before].join('\n'));

    // The work tree changed after the command: refused, nothing changed; once the change is put
    // aside, the same restore goes through.
    const w2 = world('dirty', `${commits} && ${wip}`);
    const d = sh(
      w2,
      `mark before; ${STATE}; AG check --enforce -- "git reset --hard HEAD~1" >/dev/null; git reset -q --hard HEAD~1; echo dirt > a.txt; TX=$(lasttx); mark pre; ${STATE}; mark restore; AG restore "$TX"; echo "st=$?"; ` +
        `mark post; ${STATE}; mark state; state "$TX"; git stash -q; mark again; AG restore "$TX"; echo "st=$?"; mark after; ${STATE}; mark state2; state "$TX"`,
    );
    expect(d.s.restore).toMatch(/commit or stash them first[\s\S]*reset -q --keep [0-9a-f]{40}[\s\S]*st=1$/);
    expect(d.s.post).toBe(d.s.pre);
    expect(d.s.state).toBe('RESTORABLE');
    expect(d.s.again).toMatch(/st=0$/);
    expect(d.s.after).toBe(d.s.before);
    expect(d.s.state2).toBe('RESTORED');
  });
});

describeSandboxed('restore show and restore <txid> PATH…', () => {
  itSandboxed('a relocation: show lists its entries; chosen paths come back (inside a directory too); an unknown path changes nothing', () => {
    const w = world('paths', 'mkdir -p build/sub/deep && echo x > build/sub/x && echo y > build/sub/deep/y && echo z > build/z && echo notes > notes.txt && chmod 750 build/sub');
    const original = listing(w.ws).filter((l) => !l.startsWith('".git'));
    const r = sh(
      w,
      'AG check --enforce -- "rm -rf build notes.txt" >/dev/null; TX=$(lasttx); mark show; AG restore show "$TX" --json; mark text; AG restore show "$TX"; ' +
        'mark unknown; AG restore "$TX" build/nothing notes.txt; echo "st=$?"; mark tree1; ls -A; ' +
        'mark deep; AG restore "$TX" build/sub/deep --json; echo "st=$?"; mark notes; AG restore "$TX" ./notes.txt --json; echo "st=$?"; mark state; state "$TX"; ' +
        'mark tree2; find build notes.txt | sort; echo mine > build/z; mark rest; AG restore "$TX" --json; echo "st=$?"; mark z; cat build/z; rm build/z; ' +
        'mark last; AG restore "$TX" --json; echo "st=$?"; mark state2; state "$TX"',
    );
    const shown = json(r.s.show!);
    expect(shown).toMatchObject({ kind: 'relocate', state: 'RESTORABLE', command: 'rm -rf build notes.txt', root: w.ws });
    expect(shown.items.map((i: any) => [i.path, i.type, i.present])).toEqual([
      ['build', 'dir', true],
      ['notes.txt', 'file', true],
    ]);
    expect(shown.items[1].bytes).toBe(6);
    expect(shown.items[0].bytes).toBeGreaterThanOrEqual(6);
    expect(r.s.text).toMatch(/^dir +\S+ \S+ +build$/m);
    expect(r.s.unknown).toMatch(/st=1$/);
    expect(r.stderr).toMatch(/not in transaction \S+: \S+\/build\/nothing/);
    expect(r.s.tree1).toBe('.agent-trash\n.git');
    expect(json(r.s.deep!.replace(/\nst=0$/, '')).restored).toEqual([path.join(w.ws, 'build/sub/deep')]);
    expect(r.s.state).toBe('RESTORABLE');
    expect(r.s.tree2).toBe('build\nbuild/sub\nbuild/sub/deep\nbuild/sub/deep/y\nnotes.txt');
    // The rest of build goes back into the build that exists now, replacing nothing: a z made
    // meanwhile stays, and the quarantined z with it until the way is clear.
    const rest = json(r.s.rest!.replace(/\nst=0$/, ''));
    expect(rest.restored).toEqual([path.join(w.ws, 'build')]);
    const already = { origin: path.join(w.ws, 'notes.txt'), reason: 'not in the quarantine (restored or purged already)' };
    expect(rest.skipped).toEqual([{ origin: path.join(w.ws, 'build/z'), reason: expect.stringMatching(/origin exists/) }, already]);
    expect(r.s.z).toBe('mine');
    expect(json(r.s.last!.replace(/\nst=0$/, ''))).toMatchObject({ restored: [path.join(w.ws, 'build')], skipped: [already] });
    expect(r.s.state2).toBe('RESTORED');
    expect(listing(w.ws).filter((l) => !l.startsWith('".git') && !l.startsWith('".agent-trash'))).toEqual(original);
  });

  itSandboxed('a snapshot: show lists the files it changes; one file restores on its own; a refs transaction lists its refs and restores as a whole', () => {
    const w = world('snapshow', 'echo a > a.txt && echo b > b.txt && git add -A && git commit -qm init && git branch topic && echo wip > a.txt && rm b.txt');
    const r = sh(
      w,
      'git checkout -- .; TX=$(lasttx); mark show; AG restore show "$TX" --json; mark one; AG restore "$TX" a.txt --json; echo "st=$?"; mark files1; cat a.txt b.txt; mark state; state "$TX"; ' +
        'mark two; AG restore "$TX" b.txt; echo "st=$?"; mark files2; ls; ' +
        'git branch -q -D topic; RX=$(lasttx); mark refs; AG restore show "$RX" --json; mark refpath; AG restore "$RX" refs/heads/topic; echo "st=$?"; mark branches; git branch --format="%(refname:short)"',
      { shims: true },
    );
    const shown = json(r.s.show!);
    expect(shown).toMatchObject({ kind: 'snapshot', state: 'RESTORABLE', command: 'git checkout -- .' });
    expect(shown.snapshot.before).toMatchObject({ ref: 'refs/heads/main' });
    expect(shown.items.map((i: any) => [i.path, i.type, i.bytes])).toEqual([
      ['a.txt', 'modified', 4],
      ['b.txt', 'deleted', null],
    ]);
    expect(r.s.one).toMatch(/st=0$/);
    expect(r.s.files1).toBe('wip\nb');
    expect(r.s.state).toBe('RESTORABLE');
    expect(r.s.two).toMatch(/st=0$/);
    expect(r.s.files2).toBe('a.txt');
    expect(json(r.s.refs!)).toMatchObject({ kind: 'refs', items: [{ path: 'refs/heads/topic', type: 'branch', present: true }] });
    expect(r.s.refpath).toMatch(/st=1$/);
    expect(r.stderr).toMatch(/restores as a whole/);
    expect(r.s.branches).toBe('main');
  });
});

describeSandboxed('AGENT_GUARD_NOTICE=1', () => {
  itSandboxed('the shims and the bash hook say in one stderr line what they kept; without it the output is unchanged', () => {
    const w = world('notice', 'mkdir b1 b2 b3 && echo a > a.txt && git add a.txt && git commit -qm init');
    const quiet = sh(w, 'rm -rf b1; mark st; echo "st=$?"', { shims: true });
    expect(quiet.stderr).toBe('');
    const on = { AGENT_GUARD_NOTICE: '1' };
    const rm = sh(w, 'rm -rf b2; echo wip > a.txt; git reset -q --hard', { shims: true, env: on });
    const lines = rm.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^agent-guard: moved b2 to the quarantine \(tx (\S+)\); agent-guard restore \1$/);
    expect(lines[1]).toMatch(/^agent-guard: kept the local changes in a snapshot \(tx (\S+)\); agent-guard restore \1$/);
    const hook = sh(w, `AG hook-shell --shell bash --cwd "$PWD" -- 'rm -rf b3'; echo "st=$?"`, { env: on });
    expect(hook.stdout).toBe('st=0\n');
    expect(hook.stderr).toMatch(/^agent-guard: moved b3 to the quarantine \(tx (\S+)\); agent-guard restore \1\n$/);
    expect(fs.existsSync(path.join(w.ws, 'b3'))).toBe(false);
  });
});
