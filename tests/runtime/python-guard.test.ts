// The Python deletion guard end to end (docs/interpreters.md, "Python"): `agent-guard run -- python3
// …` with the real python3, the shipped sitecustomize and the bundle, in the read-only sandbox. Each
// test runs its commands in one sandbox (tests/helpers/batch.mjs) with an exact environment, then
// looks at the tree, the quarantine and the audit from outside.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { batch, guarded, NODE, put, PYTHON, PYTHON_GUARD, records, transactions, tree, world as makeWorld, type Case, type World } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-python-guard');
const pyIt: typeof itSandboxed = PYTHON ? itSandboxed : (name) => it.skip(`${name} (python3 not installed)`, () => {});

/** A world whose Python has a temp directory of its own (the sandbox's /tmp is read-only). */
function world(): World {
  const w = makeWorld(area.rw());
  w.env.TMPDIR = path.join(w.dir, 'tmp');
  fs.mkdirSync(w.env.TMPDIR);
  return w;
}

const py = (code: string): string[] => [PYTHON!, '-c', code];

describeSandboxed('Python deletion guard: the deletion calls under run are quarantined and restorable', () => {
  pyIt('shutil.rmtree (one decision per tree), os.remove, os.unlink (also with dir_fd), pathlib.Path.unlink, from -c, a script, -m and a thread', () => {
    const w = world();
    put(w.ws, {
      'src/a.py': 'a\n',
      'src/sub/b.py': 'b\n',
      't/remove.txt': 'r\n',
      't/unlink.txt': 'u\n',
      't/path.txt': 'p\n',
      't/path2.txt': 'p2\n',
      't/fd.txt': 'fd\n',
      't/fdtree/x.txt': 'x\n',
      't/fdtree/y/z.txt': 'z\n',
      't/thread.txt': 'th\n',
      't/script/a.txt': 'sa\n',
      't/script/b/c.txt': 'sc\n',
      't/mod.txt': 'm\n',
      't/bytes.txt': 'by\n',
      'sub/deep/rel.txt': 'rel\n',
    });
    put(w.dir, {
      'clean.py': "import shutil\nshutil.rmtree('t/script')\nprint('script')\n",
      'mods/cleanmod.py': "import os\nos.remove('t/mod.txt')\nprint('mod')\n",
    });
    const before = tree(w.ws);
    const gone = (p: string): string => `print(${JSON.stringify(p)}, os.path.lexists(${JSON.stringify(p)}))`;
    const cases: Case[] = [
      { argv: guarded(...py(`import shutil, os; print(shutil.rmtree('src')); ${gone('src')}`)) },
      { argv: guarded(...py(`import os; print(os.remove('t/remove.txt')); ${gone('t/remove.txt')}`)) },
      { argv: guarded(...py(`import os; os.unlink(path='t/unlink.txt'); ${gone('t/unlink.txt')}`)) },
      { argv: guarded(...py(`import os, pathlib; print(pathlib.Path('t/path.txt').unlink()); ${gone('t/path.txt')}`)) },
      { argv: guarded(...py(`import os, pathlib; pathlib.PosixPath('t/path2.txt').unlink(missing_ok=True); ${gone('t/path2.txt')}`)) },
      { argv: guarded(...py(`import os; fd = os.open('t', os.O_RDONLY); os.unlink('fd.txt', dir_fd=fd); ${gone('t/fd.txt')}`)) },
      {
        argv: guarded(
          ...py(`import os, shutil, sys\nif sys.version_info >= (3, 11):\n  shutil.rmtree('fdtree', dir_fd=os.open('t', os.O_RDONLY))\nelse:\n  shutil.rmtree('t/fdtree')\n${gone('t/fdtree')}`),
        ),
      },
      { argv: guarded(...py(`import os, threading; t = threading.Thread(target=os.remove, args=('t/thread.txt',)); t.start(); t.join(); ${gone('t/thread.txt')}`)) },
      { argv: guarded(PYTHON!, path.join(w.dir, 'clean.py')) },
      { argv: guarded(PYTHON!, '-m', 'cleanmod'), env: { PYTHONPATH: path.join(w.dir, 'mods') } },
      { argv: guarded(...py(`import os; os.remove(b't/bytes.txt'); ${gone('t/bytes.txt')}`)) },
      { argv: guarded(...py(`import os; os.remove('deep/rel.txt'); ${gone('deep/rel.txt')}`)), cwd: path.join(w.ws, 'sub') },
    ];
    const res = batch(w, cases);
    for (const [i, r] of res.entries()) expect([r.exitCode, r.stderr], cases[i]!.argv.join(' ')).toEqual([0, '']);
    expect(res.map((r) => r.stdout.trim())).toEqual([
      'None\nsrc False',
      'None\nt/remove.txt False',
      't/unlink.txt False',
      'None\nt/path.txt False',
      't/path2.txt False',
      't/fd.txt False',
      't/fdtree False',
      't/thread.txt False',
      'script',
      'mod',
      't/bytes.txt False',
      'deep/rel.txt False',
    ]);
    // One transaction per call (a tree is one), each through the policy and the recovery code.
    const starts = transactions(w);
    const t = (p: string): string => path.join(w.ws, 't', p);
    expect(starts.map((s) => s.command)).toEqual([
      'python3 -c: shutil.rmtree("src")',
      'python3 -c: os.remove("t/remove.txt")',
      'python3 -c: os.unlink("t/unlink.txt")',
      'python3 -c: pathlib.Path.unlink("t/path.txt")',
      'python3 -c: pathlib.Path.unlink("t/path2.txt")',
      `python3 -c: os.unlink(${JSON.stringify(t('fd.txt'))})`,
      expect.stringMatching(/^python3 -c: shutil\.rmtree\(".*fdtree"\)$/),
      'python3 -c: os.remove("t/thread.txt")',
      `python3 ${path.join(w.dir, 'clean.py')}: shutil.rmtree("t/script")`,
      'python3 -m cleanmod: os.remove("t/mod.txt")',
      'python3 -c: os.remove("t/bytes.txt")',
      'python3 -c: os.remove("deep/rel.txt")',
    ]);
    const audit = records(path.join(w.ws, '.agent-trash', 'audit.jsonl'));
    expect(audit.map((a) => [a.decision, a.via])).toEqual(starts.map(() => ['ALLOW', 'python']));
    expect(audit[0]).toMatchObject({ code: 'RELOCATE_TREE', program: 'python3 -c', api: 'shutil.rmtree' });

    // Everything comes back with agent-guard restore.
    const back = batch(w, starts.map((s) => ({ argv: [NODE, BIN, 'restore', s.txid] })));
    for (const r of back) expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(w.ws)).toEqual(before);
  }, 240_000);

  pyIt('missing paths, types the calls refuse, bad arguments, os.rmdir and os.removedirs: the same outcome as unguarded, nothing quarantined', () => {
    const plain = world();
    const guardedW = world();
    const script = [
      'import os, shutil, pathlib',
      'def show(f):',
      '    try:',
      "        print('ok', f())",
      '    except BaseException as e:',
      "        print(type(e).__name__, getattr(e, 'errno', None), getattr(e, 'filename', None), e)",
      "os.symlink('d', 'link')",
      "fd = os.open('.', os.O_RDONLY)",
      "show(lambda: os.remove('nope'))",
      "show(lambda: os.unlink('nope', dir_fd=fd))",
      "show(lambda: os.remove('d'))",
      "show(lambda: os.unlink(b'nope'))",
      "show(lambda: os.remove('x\\0y'))",
      'show(lambda: os.remove(42))',
      'show(lambda: os.remove())',
      "show(lambda: os.remove('d/f.txt', 'extra'))",
      "show(lambda: os.remove('d/f.txt', dir_fd='x'))",
      "show(lambda: pathlib.Path('nope').unlink())",
      "show(lambda: pathlib.Path('nope').unlink(missing_ok=True))",
      "show(lambda: pathlib.Path('d').unlink())",
      "show(lambda: pathlib.Path('d/f.txt').unlink(True, 'extra'))",
      "show(lambda: shutil.rmtree('nope'))",
      "show(lambda: shutil.rmtree('nope', ignore_errors=True))",
      "show(lambda: shutil.rmtree('nope', onerror=lambda f, p, e: print('onerror', f.__name__, p, e[0].__name__)))",
      "show(lambda: shutil.rmtree('d/f.txt'))",
      "show(lambda: shutil.rmtree('d/f.txt', ignore_errors=True))",
      "show(lambda: shutil.rmtree('link'))",
      "show(lambda: shutil.rmtree('d', bogus=1))",
      "show(lambda: shutil.rmtree('d', False, None, 'extra'))",
      "show(lambda: os.rmdir('d'))",
      "show(lambda: os.removedirs('d'))",
      "show(lambda: os.rmdir('e1'))",
      "show(lambda: os.removedirs('e2/e3/e4'))",
      "show(lambda: pathlib.Path('e5').rmdir())",
      'show(lambda: (shutil.rmtree.avoids_symlink_attacks, os.unlink in os.supports_dir_fd, os.remove.__name__, shutil.rmtree.__name__))',
    ].join('\n');
    for (const w of [plain, guardedW]) {
      put(w.ws, { 'd/f.txt': 'f\n' });
      for (const d of ['e1', 'e2/e3/e4', 'e5']) fs.mkdirSync(path.join(w.ws, d), { recursive: true });
      fs.writeFileSync(path.join(w.dir, 'probe.py'), script);
    }
    const [p] = batch(plain, [{ argv: [PYTHON!, path.join(plain.dir, 'probe.py')] }]);
    const [g] = batch(guardedW, [{ argv: guarded(PYTHON!, path.join(guardedW.dir, 'probe.py')) }]);
    expect(p!.exitCode).toBe(0);
    expect(p!.stdout.split('\n').length).toBeGreaterThan(25);
    expect(g!.stderr).toBe(p!.stderr);
    expect(g!.stdout).toBe(p!.stdout);
    expect(tree(guardedW.ws)).toEqual(tree(plain.ws));
    expect(tree(plain.ws)).toEqual({ 'd/': 'dir', 'd/f.txt': 'f\n', 'link': '-> d' }); // the empty directories went
    expect(fs.existsSync(path.join(guardedW.ws, '.agent-trash'))).toBe(false);
  }, 120_000);
});

describeSandboxed('Python deletion guard: refusals, fail closed', () => {
  pyIt('outside the workspace: PermissionError (EPERM) with the reason and the program; rmtree honours ignore_errors and onerror; nothing deleted', () => {
    const w = world();
    put(w.home, { 'notes.txt': 'mine\n', 'docs/a.txt': 'a\n', 'c.txt': 'c\n', 'e/x.txt': 'x\n' });
    const home = JSON.stringify(w.home);
    put(w.dir, {
      'clean.py': `import shutil\nshutil.rmtree(${home} + '/docs')\n`,
      'mods/cleanmod.py': `import pathlib\ntry:\n    pathlib.Path(${home} + '/c.txt').unlink()\nexcept PermissionError as e:\n    print(e.errno, 'python3 -m cleanmod' in str(e), e.agent_guard)\n`,
    });
    const show = `import os, shutil, json\ndef out(e): print(json.dumps([type(e).__name__, e.errno, e.filename, 'in python3 -c: ' in e.strerror, e.agent_guard]))\n`;
    const res = batch(w, [
      { argv: guarded(...py(`${show}try:\n  os.remove(${home} + '/notes.txt')\nexcept PermissionError as e:\n  out(e)`)) },
      { argv: guarded(PYTHON!, path.join(w.dir, 'clean.py')) },
      { argv: guarded(PYTHON!, '-m', 'cleanmod'), env: { PYTHONPATH: path.join(w.dir, 'mods') } },
      { argv: guarded(...py(`${show}print(shutil.rmtree(${home} + '/e', ignore_errors=True))`)) },
      { argv: guarded(...py(`${show}shutil.rmtree(${home} + '/e', onerror=lambda f, p, x: print(f is shutil.rmtree, p == ${home} + '/e', x[0].__name__, x[1].agent_guard['code']))`)) },
      { argv: guarded(...py(`${show}try:\n  shutil.rmtree('/etc')\nexcept PermissionError as e:\n  out(e)`)) },
    ]);
    expect(res.map((r) => r.exitCode)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(JSON.parse(res[0]!.stdout)).toEqual(['PermissionError', 1, path.join(w.home, 'notes.txt'), true, { decision: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' }]);
    // The refusal is also said on stderr, once, naming the call and the program.
    expect(res[0]!.stderr).toMatch(new RegExp(`^agent-guard refused os\\.remove\\(".*notes\\.txt"\\) in python3 -c: BLOCK BLOCK_OUT_OF_WORKSPACE: .+\\n$`));
    // Uncaught in a script: the program fails with the error, which names the script.
    expect(res[1]!.stderr).toContain(`PermissionError: [Errno 1] agent-guard refused shutil.rmtree(${JSON.stringify(path.join(w.home, 'docs'))}) in python3 ${path.join(w.dir, 'clean.py')}: BLOCK BLOCK_OUT_OF_WORKSPACE`);
    expect(res[2]!.stdout).toBe("1 True {'decision': 'BLOCK', 'code': 'BLOCK_OUT_OF_WORKSPACE'}\n");
    expect(res[3]!.stdout).toBe('None\n'); // ignore_errors: no exception, as for any error
    expect(res[3]!.stderr).toMatch(/^agent-guard refused shutil\.rmtree\(.*BLOCK_OUT_OF_WORKSPACE/);
    expect(res[4]!.stdout).toBe('True True PermissionError BLOCK_OUT_OF_WORKSPACE\n');
    expect(JSON.parse(res[5]!.stdout)).toEqual(['PermissionError', 1, '/etc', true, { decision: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' }]);
    expect(tree(w.home)).toMatchObject({ 'notes.txt': 'mine\n', 'docs/a.txt': 'a\n', 'c.txt': 'c\n', 'e/x.txt': 'x\n' });
    const audit = records(path.join(w.ws, '.agent-trash', 'audit.jsonl'));
    expect(audit.map((a) => [a.decision, a.code, a.via, a.api])).toEqual([
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'os.remove'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'shutil.rmtree'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'pathlib.Path.unlink'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'shutil.rmtree'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'shutil.rmtree'],
      ['BLOCK', 'BLOCK_PROTECTED_ANCESTOR', 'python', 'shutil.rmtree'],
    ]);
  }, 120_000);

  pyIt('nothing to decide with (no AGENT_GUARD_NODE, or a checker that fails): PermissionError BLOCK_INTERNAL_ERROR, nothing deleted; what needs no decision still runs', () => {
    const w = world();
    put(w.ws, { 'keep.txt': 'k\n', 'keep2.txt': 'k2\n', 'node_modules/x/i.js': 'i\n', 'venv/lib/python3/site-packages/p/m.py': 'm\n' });
    const code =
      "import os, shutil\ntry:\n  os.remove('keep.txt')\nexcept PermissionError as e:\n  print(e.agent_guard['code'])\n" +
      "shutil.rmtree('node_modules/x'); os.remove('venv/lib/python3/site-packages/p/m.py')\n" +
      "os.mkdir('mine'); open('mine/f', 'w').close(); shutil.rmtree('mine')\n" +
      "try:\n  os.remove('nope')\nexcept FileNotFoundError:\n  print('missing')\n";
    const res = batch(w, [
      // The guard loaded by hand, outside run: no node to ask.
      { argv: py(code), env: { PYTHONPATH: PYTHON_GUARD } },
      // A node that cannot answer.
      { argv: py("import os\ntry:\n  os.remove('keep2.txt')\nexcept PermissionError as e:\n  print(e.agent_guard['code'])"), env: { PYTHONPATH: PYTHON_GUARD, AGENT_GUARD_NODE: '/bin/false' } },
    ]);
    expect(res[0]!.stdout).toBe('BLOCK_INTERNAL_ERROR\nmissing\n');
    expect(res[0]!.stderr).toMatch(/^agent-guard refused os\.remove\("keep\.txt"\) in python3 -c: BLOCK BLOCK_INTERNAL_ERROR: the guard failed \(RuntimeError: AGENT_GUARD_NODE names no node/);
    expect(res[1]!.stdout).toBe('BLOCK_INTERNAL_ERROR\n');
    expect(res[1]!.stderr).toMatch(/BLOCK_INTERNAL_ERROR: the guard failed \(RuntimeError: agent-guard runtime-delete failed \(exit 1\)\)/);
    expect(tree(w.ws)).toEqual({ 'keep.txt': 'k\n', 'keep2.txt': 'k2\n', 'node_modules/': 'dir', 'venv/': 'dir', 'venv/lib/': 'dir', 'venv/lib/python3/': 'dir', 'venv/lib/python3/site-packages/': 'dir', 'venv/lib/python3/site-packages/p/': 'dir' });
  }, 120_000);
});

/** The other Pythons of this machine (pyenv's), by version: the guard must hold on each, and a Python
 *  2 must start as before. None: the test is skipped. */
function otherPythons(): { version: string; exe: string }[] {
  const root = path.join(os.homedir(), '.pyenv', 'versions');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((v) => /^[23]\.\d+\.\d+$/.test(v))
    .map((v) => ({ version: v, exe: path.join(root, v, 'bin', v.startsWith('2') ? 'python2' : 'python3') }))
    .filter((p) => fs.existsSync(p.exe));
}
const OTHERS = otherPythons();
const othersIt: typeof itSandboxed = PYTHON && OTHERS.length > 0 ? itSandboxed : (name) => it.skip(`${name} (no other Pythons here)`, () => {});

describeSandboxed('Python deletion guard: other Pythons, and a sitecustomize it chains', () => {
  othersIt('each Python 3 from 3.6 is guarded alike; a Python 2 starts and runs as before', () => {
    const w = world();
    // The oldest, the newest, and 3.12 (rmtree's onexc; pathlib rewritten): each costs a few Node starts.
    const all3 = OTHERS.filter((p) => p.version.startsWith('3.') && Number(p.version.split('.')[1]) >= 6).sort((a, b) => Number(a.version.split('.')[1]) - Number(b.version.split('.')[1]));
    const py3 = [...new Set([all3[0], all3.find((p) => p.version.startsWith('3.12.')), all3.at(-1)])].filter((p) => p !== undefined);
    for (const p of py3) put(w.ws, { [`v${p.version}/tree/a.txt`]: 'a\n', [`v${p.version}/tree/b/c.txt`]: 'c\n', [`v${p.version}/f.txt`]: 'f\n', [`v${p.version}/p.txt`]: 'p\n' });
    put(w.home, { 'notes.txt': 'mine\n', 'docs/d.txt': 'd\n' });
    const before = tree(w.ws);
    const code = (v: string): string =>
      `import os, shutil, pathlib, sys\nshutil.rmtree('v${v}/tree'); os.remove('v${v}/f.txt'); pathlib.Path('v${v}/p.txt').unlink()\n` +
      `try:\n    os.remove(os.environ['HOME'] + '/notes.txt')\nexcept PermissionError as e:\n    print(e.agent_guard['code'])\n` +
      `if sys.version_info >= (3, 12):\n    shutil.rmtree(os.environ['HOME'] + '/docs', onexc=lambda f, p, e: print('onexc', type(e).__name__))\n` +
      `print(sorted(os.listdir('v${v}')))`;
    const py2 = OTHERS.filter((p) => p.version.startsWith('2.'));
    const res = batch(w, [
      ...py3.map((p) => ({ argv: guarded(p.exe, '-c', code(p.version)) })),
      ...py2.flatMap((p) => [{ argv: guarded(p.exe, '-c', 'import os; print 1; print hasattr(os.remove, "__wrapped__")') }, { argv: [p.exe, '-c', 'import os; print 1; print hasattr(os.remove, "__wrapped__")'] }]),
    ]);
    for (const [i, p] of py3.entries()) {
      const onexc = Number(p.version.split('.')[1]) >= 12 ? 'onexc PermissionError\n' : '';
      expect([p.version, res[i]!.exitCode, res[i]!.stdout, res[i]!.stderr]).toEqual([p.version, 0, `BLOCK_OUT_OF_WORKSPACE\n${onexc}[]\n`, expect.stringMatching(/^agent-guard refused os\.remove/)]);
    }
    expect(py3.length).toBeGreaterThan(0);
    for (let i = py3.length; i < res.length; i += 2) expect(res[i]).toEqual({ ...res[i + 1]!, stdout: '1\nFalse\n' });
    expect(tree(w.home)).toMatchObject({ 'notes.txt': 'mine\n', 'docs/d.txt': 'd\n' });
    expect(transactions(w).length).toBe(3 * py3.length);
    const back = batch(w, transactions(w).map((s) => ({ argv: [NODE, BIN, 'restore', s.txid] })));
    for (const r of back) expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(w.ws)).toEqual(before);
  }, 240_000);

  pyIt("the user's own sitecustomize (an entry of their PYTHONPATH) still runs, after the guard: its deletions are guarded too", () => {
    const w = world();
    put(w.ws, { 'early.txt': 'e\n' });
    put(w.dir, { 'userlib/sitecustomize.py': "import os\nos.remove('early.txt')\nprint('user sitecustomize')\n" });
    const [r] = batch(w, [{ argv: guarded(...py("import os; print(os.path.exists('early.txt'))")), env: { PYTHONPATH: path.join(w.dir, 'userlib') } }]);
    expect(r).toEqual({ exitCode: 0, stdout: 'user sitecustomize\nFalse\n', stderr: '' });
    expect(transactions(w).map((s) => s.command)).toEqual(['python3 -c: os.remove("early.txt")']);
  }, 120_000);
});
