// What the Python deletion guard does not see, as docs/limitations.md says, each checked to be so (in
// the sandbox, under `agent-guard run`, with the real python3): a child started with PYTHONPATH
// cleared, `-I`, `-E` and `-S` starts, os.system('/bin/rm …'), C code (ctypes standing in for an
// extension), the posix module under os, the guard switched off, overwrites; and the rule's edges: a
// file another process made while the program ran, site-packages. Beside them, what is seen:
// os.system('rm …') (the rm shim) and a plain shutil.rmtree.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { batch, guarded, put, PYTHON, transactions, tree, world as makeWorld, type World } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-python-limits');
const pyIt: typeof itSandboxed = PYTHON ? itSandboxed : (name) => it.skip(`${name} (python3 not installed)`, () => {});

function world(): World {
  const w = makeWorld(area.rw());
  w.env.TMPDIR = path.join(w.dir, 'tmp');
  fs.mkdirSync(w.env.TMPDIR);
  return w;
}

describeSandboxed('Python deletion guard: the limits, as documented', () => {
  pyIt('unseen: PYTHONPATH cleared for a child, -I, -E, -S, /bin/rm by path, C code, posix.unlink, the switch, overwrites, a file born while it ran, site-packages, a build backend under pip; seen: rm by name, shutil.rmtree', () => {
    const w = world();
    put(w.ws, {
      'p1/f.txt': '1\n',
      'p2/f.txt': '2\n',
      'p3/f.txt': '3\n',
      'p4/f.txt': '4\n',
      'p5/f.txt': '5\n',
      'p6.txt': '6\n',
      'p7.txt': '7\n',
      'p8/f.txt': '8\n',
      'p9.txt': 'nine\n',
      'p10.txt': 'ten\n',
      'lib/site-packages/pkg/patched.py': 'patched by hand\n',
      's1/f.txt': 's1\n',
      's2/f.txt': 's2\n',
      'p11.txt': '11\n',
    });
    // A source tree whose build backend deletes a workspace file (pip builds it in its isolated build
    // environment, with PYTHONPATH replaced by pip's own directory).
    put(w.dir, {
      'srcpkg/pyproject.toml': '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
      'srcpkg/backend.py': [
        'import os, zipfile',
        'def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):',
        `    os.remove(${JSON.stringify(path.join(w.ws, 'p11.txt'))})`,
        "    name = 'agx-1.0-py3-none-any.whl'",
        "    files = {'agx/__init__.py': '', 'agx-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: agx\\nVersion: 1.0\\n',",
        "             'agx-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n', 'agx-1.0.dist-info/RECORD': ''}",
        "    with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w') as z:",
        '        for p, c in files.items():',
        '            z.writestr(p, c)',
        '    return name',
        '',
      ].join('\n'),
    });
    const py = (...args: string[]): string[] => guarded(PYTHON!, ...args);
    const res = batch(w, [
      // A program that starts Python with PYTHONPATH cleared: the child imports no guard.
      { argv: py('-c', "import os, subprocess, sys; subprocess.run([sys.executable, '-c', \"import shutil; shutil.rmtree('p1')\"], env=dict(os.environ, PYTHONPATH=''), check=True)") },
      // Isolated mode (-I), ignoring PYTHON* variables (-E), no site (-S): no sitecustomize is imported.
      { argv: py('-I', '-c', "import shutil; shutil.rmtree('p2')") },
      { argv: py('-E', '-c', "import shutil; shutil.rmtree('p3')") },
      { argv: py('-S', '-c', "import shutil; shutil.rmtree('p4')") },
      // /bin/rm by its path: past the rm shim, and not a Python call.
      { argv: py('-c', "import os; assert os.system('/bin/rm -rf p5') == 0") },
      // C code calling unlink(2) (an extension; here ctypes).
      { argv: py('-c', "import ctypes; assert ctypes.CDLL(None).unlink(b'p6.txt') == 0") },
      // The posix module under os: its functions are not the wrapped ones.
      { argv: py('-c', "import posix; posix.unlink('p7.txt')") },
      // A program that switches the guard off.
      { argv: py('-c', "import _agent_guard, shutil; _agent_guard.active = False; shutil.rmtree('p8')") },
      // Overwrites are not deletions: no copy is kept.
      { argv: py('-c', "open('p9.txt', 'w').close(); open('new.txt', 'w').write('new'); __import__('os').replace('new.txt', 'p10.txt')") },
      // A file another process makes while the program runs counts as the program's own.
      { argv: py('-c', "import os, subprocess; subprocess.run(['sh', '-c', 'echo late > late.txt'], check=True); os.remove('late.txt')") },
      // Below site-packages: the package manager's, deleted as it is.
      { argv: py('-c', "import os; os.remove('lib/site-packages/pkg/patched.py')") },
      // pip's isolated build: the backend runs with pip's PYTHONPATH, without the guard.
      { argv: py('-m', 'pip', 'wheel', '-q', '--no-index', '--no-deps', '--no-cache-dir', '--disable-pip-version-check', '-w', path.join(w.dir, 'wheels'), path.join(w.dir, 'srcpkg')) },
      // Seen: rm by name (the rm shim), and shutil.rmtree itself.
      { argv: py('-c', "import os; assert os.system('rm -rf s1') == 0") },
      { argv: py('-c', "import shutil; shutil.rmtree('s2')") },
    ]);
    for (const r of res) expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(tree(w.ws)).toEqual({ 'lib/': 'dir', 'lib/site-packages/': 'dir', 'lib/site-packages/pkg/': 'dir', 'p9.txt': '', 'p10.txt': 'new' });
    // Only the shim and the guard kept anything.
    expect(transactions(w).map((t) => t.command)).toEqual(['rm -rf s1', 'python3 -c: shutil.rmtree("s2")']);
  }, 120_000);
});
