// Issue 15, item 3 (overwrites), acceptance: under `agent-guard run`, in bash and zsh, each form
// that destroys a file's content by overwriting it — a redirection, truncate, mv, cp, rsync
// --delete — leaves the old content recoverable with `agent-guard restore`; what git gives back
// (a clean tracked file) or regenerates (an ignored file) is not copied; benign use ends exactly as
// it does unguarded, with nothing kept. In the read-only sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxedExact, useSandboxArea } from '../helpers/sandbox.js';
import { workTree } from '../helpers/tree.mjs';
import { git, SYSTEM_PATH, world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-overwrite');

function envOf(w: World): Record<string, string> {
  // (a writable TMPDIR, and TMPPREFIX: where zsh writes here-documents)
  fs.mkdirSync(path.join(w.home, 'tmp'), { recursive: true });
  return { ...w.env, PATH: SYSTEM_PATH, XDG_CACHE_HOME: path.join(w.home, '.cache'), TMPDIR: path.join(w.home, 'tmp'), TMPPREFIX: path.join(w.home, 'tmp', 'zsh'), AGENT_GUARD_SESSION: 'overwrite' };
}

const guarded = (w: World, argv: string[]) => runSandboxedExact(area.rw(), envOf(w), [process.execPath, BIN, 'run', '--', ...argv], { cwd: w.ws, timeoutMs: 120_000 });
const plain = (w: World, argv: string[]) => runSandboxedExact(area.rw(), envOf(w), argv, { cwd: w.ws, timeoutMs: 120_000 });
const cli = (w: World, args: string[]) => runSandboxedExact(area.rw(), envOf(w), [process.execPath, BIN, ...args], { cwd: w.ws, timeoutMs: 120_000 });

/** The transactions of the workspace's quarantine: txid → the origins it holds (relative). */
function kept(w: World): Map<string, string[]> {
  const r = cli(w, ['restore', 'list', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  const json = JSON.parse(r.stdout);
  return new Map(json.transactions.map((t: any) => [t.txid, t.items.map((i: any) => path.relative(w.ws, i.origin)).sort()]));
}

const read = (w: World, rel: string): string => fs.readFileSync(path.join(w.ws, rel), 'utf8');

describeSandboxed('overwrites under agent-guard run: the old content is kept, restore brings it back', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    itSandboxed(`${shell}: : > f, truncate -s 0, mv over, cp over, rsync --delete; clean tracked and ignored files are not copied`, () => {
      const w = makeWorld(path.join(area.rw(), `${shell}-keep`), {
        files: { '.gitignore': '*.log\n', 'tracked.txt': 'committed\n', 'clean.txt': 'clean\n', 'build.log': 'old log\n' },
        commit: true,
      });
      const files: Record<string, string> = {
        'tracked.txt': 'committed\nand edited\n', // tracked, with uncommitted changes
        'notes.txt': 'my notes\n', // untracked
        'm.txt': 'mv target\n',
        'other.txt': 'mv source\n',
        'c.txt': 'cp target\n',
        'other2.txt': 'cp source\n',
        'dst/one.txt': 'dst one\n',
        'dst/sub/two.txt': 'dst two\n',
        'loop.txt': 'before the loop\n',
        'here.txt': 'before the here-document\n',
      };
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(w.ws, rel)), { recursive: true });
        fs.writeFileSync(path.join(w.ws, rel), text);
      }
      fs.mkdirSync(path.join(w.ws, 'empty'));
      const script = [
        ': > notes.txt',
        'truncate -s 0 tracked.txt',
        'mv other.txt m.txt',
        'cp other2.txt c.txt',
        'rsync -a --delete empty/ dst/',
        'echo new > clean.txt',
        '> build.log',
        // the first write keeps what was there; the next ones overwrite this shell's own output
        'for i in 1 2 3; do echo $i > loop.txt; done',
        'echo 3 > ./loop.txt',
        "cat > here.txt <<'EOF'\nnew\nEOF\necho \"st=$?\"",
      ].join('; ');
      const r = guarded(w, [shell, '-c', script]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout, r.stderr).toBe('st=0\n');
      expect(read(w, 'here.txt')).toBe('new\n');
      // The commands did what they do.
      expect([read(w, 'notes.txt'), read(w, 'tracked.txt'), read(w, 'm.txt'), read(w, 'c.txt'), read(w, 'clean.txt'), read(w, 'build.log')]).toEqual(['', '', 'mv source\n', 'cp source\n', 'new\n', '']);
      expect(fs.existsSync(path.join(w.ws, 'other.txt'))).toBe(false);
      expect(fs.readdirSync(path.join(w.ws, 'dst'))).toEqual([]);
      // What was kept: exactly the content worth keeping.
      const txs = kept(w);
      expect([...txs.values()].flat().sort()).toEqual(['c.txt', 'dst/one.txt', 'dst/sub/two.txt', 'here.txt', 'loop.txt', 'm.txt', 'notes.txt', 'tracked.txt']);
      expect(read(w, 'loop.txt')).toBe('3\n');
      // Each copy is audited by the enforcement wing, with the entry point that asked.
      const audit = fs.readFileSync(path.join(w.ws, '.agent-trash', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((a) => a.overwrite === 'true');
      expect(new Set(audit.map((a) => a.txid))).toEqual(new Set(txs.keys()));
      expect(audit.every((a) => a.decision === 'ALLOW' && a.compensations.length === 1 && a.compensations[0].strategy === 'copy')).toBe(true);
      expect(new Set(audit.map((a) => `${a.via} ${a.program}`))).toEqual(new Set([`hook ${shell}`, 'shim mv', 'shim cp', 'shim rsync', 'shim truncate']));
      // Each comes back (the new occupant is itself quarantined by --force, never deleted).
      for (const txid of txs.keys()) {
        const b = cli(w, ['restore', txid, '--force', '--json']);
        expect(b.exitCode, b.stderr).toBe(0);
      }
      for (const rel of ['here.txt', 'loop.txt', 'notes.txt', 'tracked.txt', 'm.txt', 'c.txt', 'dst/one.txt', 'dst/sub/two.txt']) expect(read(w, rel), rel).toBe(files[rel]);
      // What git gives back was left to git.
      git(w.ws, w.env, 'checkout', '--', 'clean.txt');
      expect(read(w, 'clean.txt')).toBe('clean\n');
    });

    itSandboxed(`${shell}: outside the workspace: a scratch zone's file is rewritten with no copy; a file elsewhere is refused as rm is (BLOCK_OUT_OF_WORKSPACE)`, () => {
      const w = makeWorld(path.join(area.rw(), `${shell}-outside`), { files: { 'a.txt': 'a\n' }, commit: true });
      const tmp = path.join(w.home, 'tmp');
      fs.mkdirSync(tmp);
      fs.writeFileSync(path.join(tmp, 'scratch.txt'), 'scratch\n');
      fs.writeFileSync(path.join(w.home, 'notes.txt'), 'home notes\n');
      const env = { ...envOf(w), TMPDIR: tmp };
      const run = (script: string) => runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', shell, '-c', script], { cwd: w.ws, timeoutMs: 120_000 });
      const z = run('echo new > "$TMPDIR/scratch.txt"; cp a.txt "$TMPDIR/scratch.txt"; echo "st=$?"');
      expect(z.exitCode, z.stderr).toBe(0);
      expect(z.stdout).toBe('st=0\n');
      expect(fs.readFileSync(path.join(tmp, 'scratch.txt'), 'utf8')).toBe('a\n');
      expect(fs.existsSync(path.join(tmp, `.agent-trash-${process.getuid!()}`))).toBe(false);
      for (const script of ['echo x > "$HOME/notes.txt"', 'cp a.txt "$HOME/notes.txt"', 'truncate -s 0 ~/notes.txt']) {
        const b = run(script);
        expect(b.exitCode, script).not.toBe(0);
        expect(b.stderr, script).toMatch(/BLOCK_OUT_OF_WORKSPACE/);
      }
      expect(fs.readFileSync(path.join(w.home, 'notes.txt'), 'utf8')).toBe('home notes\n');
    });

    itSandboxed(`${shell}: benign writes end as unguarded and keep nothing (new files, ignored logs, a rename, cp -r into nothing, make, a loop)`, () => {
      const spec = {
        files: {
          '.gitignore': '*.log\n*.o\nstamp\n',
          'build.log': 'old log\n',
          'a.txt': 'a\n',
          'src/one.c': 'one\n',
          'src/sub/two.c': 'two\n',
          Makefile: 'all: one.o stamp\none.o: src/one.c\n\tcp src/one.c one.o\nstamp: one.o\n\techo built > stamp\n',
        },
        commit: true,
      };
      const script = [
        '> build.log',
        'echo x > new.txt',
        'mv a.txt b.txt',
        'cp -r src dst',
        'make -s && make -sB',
        'for i in $(seq 50); do echo $i > out.txt; done',
        'cat out.txt new.txt stamp',
        'echo "st=$?"',
      ].join('; ');
      const p = makeWorld(path.join(area.rw(), `${shell}-benign-plain`, 'h'), spec);
      const g = makeWorld(path.join(area.rw(), `${shell}-benign-guarded`, 'h'), spec);
      const rp = plain(p, [shell, '-c', script]);
      const rg = guarded(g, [shell, '-c', script]);
      expect(rg.exitCode, rg.stderr).toBe(rp.exitCode);
      expect(rp.exitCode).toBe(0);
      expect(rg.stdout).toBe(rp.stdout);
      expect(rg.stdout).toBe('50\nx\nbuilt\nst=0\n');
      expect(rg.stderr).toBe(rp.stderr);
      expect(workTree(g.ws)).toEqual(workTree(p.ws));
      expect(fs.existsSync(path.join(g.ws, '.agent-trash'))).toBe(false);
    });
  }
});

describeSandboxed('overwrites not seen (docs/limitations.md): the content is lost as without the guard', () => {
  itSandboxed('bash: dd of=, tee, sed -i, an interpreter writing a file, a redirection target read only by expanding', () => {
    const names = ['dd.txt', 'tee.txt', 'sed.txt', 'py.txt', 'subst.txt'];
    const w = makeWorld(path.join(area.rw(), 'unseen'), { files: { 'src.txt': 'src\n' }, commit: true });
    for (const n of names) fs.writeFileSync(path.join(w.ws, n), `old ${n}\n`);
    const script = [
      'dd if=src.txt of=dd.txt status=none',
      'echo t | tee tee.txt >/dev/null',
      "sed -i 's/old/new/' sed.txt",
      `python3 -c "open('py.txt', 'w').write('py')"`,
      'echo s > "$(echo subst.txt)"',
      'echo "st=$?"',
    ].join('; ');
    const r = guarded(w, ['bash', '-c', script]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('st=0\n');
    expect(names.map((n) => read(w, n))).toEqual(['src\n', 't\n', 'new sed.txt\n', 'py', 's\n']);
    expect(kept(w).size).toBe(0);
  });

  itSandboxed('redirections of compound commands ({ …; } > f, ( … ) > f, a loop > f): bash does not see them, zsh keeps them', () => {
    const names = ['a.txt', 'b.txt', 'c.txt'];
    const script = '{ echo 1; } > a.txt; (echo 2) > b.txt; for i in 3; do echo $i; done > c.txt; echo "st=$?"';
    for (const shell of ['bash', 'zsh'] as const) {
      const w = makeWorld(path.join(area.rw(), `compound-${shell}`), { files: { 'x.txt': 'x\n' }, commit: true });
      for (const n of names) fs.writeFileSync(path.join(w.ws, n), `old ${n}\n`);
      const r = guarded(w, [shell, '-c', script]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('st=0\n');
      expect(names.map((n) => read(w, n))).toEqual(['1\n', '2\n', '3\n']);
      expect([...kept(w).values()].flat().sort(), shell).toEqual(shell === 'bash' ? [] : names);
    }
  });
});
