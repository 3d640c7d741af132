// Benign Python use under the guard ends as it ends without it (docs/interpreters.md, "Python"): the
// same exit statuses, output and tree, and no relocation of a tool's own churn. Two identical worlds,
// one unguarded and one under `agent-guard run`, in one sandbox, offline: `python3 -c "print(1)"`,
// `python -m venv`, pip installing a wheel and a source tree (both made here) and uninstalling,
// tempfile's clean-up; then the agent's own removal of the venv, decided as `rm -rf .venv` is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { BASE_PATH, BATCH, NODE, PYTHON, records } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-python-benign');
const pyIt: typeof itSandboxed = PYTHON ? itSandboxed : (name) => it.skip(`${name} (python3 not installed)`, () => {});

/** Writes a wheel by hand (zipfile; no build tool, no network), with a console script. */
const MKWHEEL = `import base64, hashlib, sys, zipfile
name, out = sys.argv[1], sys.argv[2]
files = {
    name + '/__init__.py': 'VALUE = 42\\n\\ndef main():\\n    print("tool " + str(VALUE))\\n',
    name + '-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: ' + name + '\\nVersion: 1.0\\n',
    name + '-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',
    name + '-1.0.dist-info/entry_points.txt': '[console_scripts]\\n' + name + '-tool = ' + name + ':main\\n',
}
record = ''.join('%s,sha256=%s,%d\\n' % (p, base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b'=').decode(), len(c)) for p, c in files.items())
files[name + '-1.0.dist-info/RECORD'] = record + name + '-1.0.dist-info/RECORD,,\\n'
with zipfile.ZipFile(out + '/' + name + '-1.0-py3-none-any.whl', 'w') as z:
    for p, c in files.items():
        z.writestr(zipfile.ZipInfo(p, (2020, 1, 1, 0, 0, 0)), c)
print(name + '-1.0-py3-none-any.whl')
`;

/** A source tree whose build backend is in the tree (no build requirement to download). */
const SRCPKG: Record<string, string> = {
  'pyproject.toml': '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
  'backend.py': `import os, subprocess, sys
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, 'mkwheel.py'), 'agsrc', wheel_directory], check=True, stdout=subprocess.DEVNULL)
    return 'agsrc-1.0-py3-none-any.whl'
`,
  'mkwheel.py': MKWHEEL,
};

interface Side {
  dir: string;
  home: string;
  ws: string;
  tmp: string;
}

function side(name: string): Side {
  const dir = path.join(area.rw(), name);
  const home = path.join(dir, 'home');
  const ws = path.join(home, 'proj');
  const tmp = path.join(dir, 'tmp');
  for (const d of [ws, tmp, path.join(dir, 'wheels')]) fs.mkdirSync(d, { recursive: true });
  for (const [f, c] of Object.entries(SRCPKG)) {
    fs.mkdirSync(path.join(dir, 'srcpkg'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'srcpkg', f), c);
  }
  fs.writeFileSync(path.join(dir, 'mkwheel.py'), MKWHEEL);
  fs.writeFileSync(path.join(ws, 'app.py'), 'print("app")\n');
  return { dir, home, ws, tmp };
}

/** Every entry below `root` with its content (the side's own path written as <W>), leaving out what
 *  differs by nature: .git, the quarantine, bytecode (it holds the source's mtime), and agent-guard's
 *  own per-user shims. */
function tree(root: string, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d).sort()) {
      if (n === '.git' || n === '.agent-trash' || n === '.agent-trash-0') continue;
      const p = path.join(d, n);
      const rel = path.relative(root, p);
      if (/^home\/\.local(\/share(\/agent-guard)?)?$/.test(rel)) continue;
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p).split(dir).join('<W>')}`;
      else if (st.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(p);
      } else out[rel] = n.endsWith('.pyc') ? '(bytecode)' : fs.readFileSync(p, 'latin1').split(dir).join('<W>');
    }
  };
  walk(root);
  return out;
}

describeSandboxed('benign Python use under run ends as unguarded', () => {
  pyIt('print(1), python -m venv, pip install of a wheel and of a source tree, tempfile clean-up; the venv removed by the agent is decided as rm -rf .venv', () => {
    const sides = { plain: side('plain'), guarded: side('guarded') };
    for (const s of Object.values(sides)) expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: s.ws }).status).toBe(0);
    const pip = ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', '--no-input'];
    const temp =
      'import os, tempfile\nd = tempfile.TemporaryDirectory()\nos.mkdir(d.name + "/s"); open(d.name + "/s/f", "w").write("x")\nd.cleanup()\n' +
      'f = tempfile.NamedTemporaryFile(); f.write(b"x"); f.close()\nwith tempfile.TemporaryDirectory() as t:\n    open(t + "/y", "w").write("y")\n' +
      'fd, p = tempfile.mkstemp(); os.close(fd); os.remove(p)\nprint(os.path.exists(d.name), os.path.exists(f.name), os.path.exists(t), os.path.exists(p))';
    const steps = (s: Side): string[][] => {
      const venvPy = path.join(s.ws, '.venv/bin/python');
      return [
        [PYTHON!, '-c', 'print(1)'],
        [PYTHON!, '-m', 'venv', '.venv'],
        [PYTHON!, path.join(s.dir, 'mkwheel.py'), 'agpkg', path.join(s.dir, 'wheels')],
        [venvPy, ...pip, path.join(s.dir, 'wheels/agpkg-1.0-py3-none-any.whl')],
        [venvPy, ...pip, path.join(s.dir, 'srcpkg')],
        [venvPy, '-c', 'import agpkg, agsrc; print(agpkg.VALUE + agsrc.VALUE)'],
        [path.join(s.ws, '.venv/bin/agpkg-tool')],
        [venvPy, '-m', 'pip', 'uninstall', '-y', '--disable-pip-version-check', 'agpkg'],
        [PYTHON!, '-c', temp],
        [PYTHON!, 'app.py'],
        [PYTHON!, '-c', "import shutil, os; shutil.rmtree('.venv'); print(os.path.exists('.venv'))"],
      ];
    };
    const n = steps(sides.plain).length;
    const cases = (['plain', 'guarded'] as const).flatMap((k) =>
      steps(sides[k]).map((argv) => ({
        argv: k === 'guarded' ? [NODE, BIN, 'run', '--', ...argv] : argv,
        cwd: sides[k].ws,
        env: { HOME: sides[k].home, TMPDIR: sides[k].tmp, XDG_CACHE_HOME: path.join(sides[k].home, '.cache') },
        timeoutMs: 120_000,
      })),
    );
    // What the policy says of the venv's removal, asked before it (advisory: check decides only).
    cases.splice(2 * n - 1, 0, { argv: [NODE, BIN, 'check', '--', 'rm -rf .venv'], cwd: sides.guarded.ws, env: { HOME: sides.guarded.home, TMPDIR: sides.guarded.tmp, XDG_CACHE_HOME: path.join(sides.guarded.home, '.cache') }, timeoutMs: 60_000 });
    const file = path.join(area.rw(), 'cases.json');
    fs.writeFileSync(file, JSON.stringify(cases));
    const r = runSandboxed(area.rw(), ['env', '-i', `PATH=${BASE_PATH}`, 'LC_ALL=C', 'AGENT_GUARD_SESSION=py-benign', NODE, BATCH, file, `${file}.out`], { timeoutMs: 600_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const raw = JSON.parse(fs.readFileSync(`${file}.out`, 'utf8')) as { exitCode: number; stdout: string; stderr: string; ms: number }[];
    const results = raw.map((x) => ({ exitCode: x.exitCode, stdout: x.stdout, stderr: x.stderr }));
    const policy = results.splice(2 * n - 1, 1)[0]!;
    // (pip's temp directories have random names, and its wheel cache path hashes the source's path)
    const norm = (s: string, k: keyof typeof sides): string =>
      s.split(sides[k].dir).join('<W>').replace(/(pip-[a-z-]+-)[a-z0-9_]{8}\b/g, '$1<R>').replace(/(Stored in directory: \S+\/wheels)\/\S+/g, '$1/<H>');
    const plain = results.slice(0, n).map((x) => ({ ...x, stdout: norm(x.stdout, 'plain'), stderr: norm(x.stderr, 'plain') }));
    const guarded = results.slice(n).map((x) => ({ ...x, stdout: norm(x.stdout, 'guarded'), stderr: norm(x.stderr, 'guarded') }));
    const names = steps(sides.plain).map((a) => a.map((x) => path.basename(x)).join(' '));
    for (const [i, x] of plain.entries()) expect(x.exitCode, `${names[i]}: ${x.stderr}`).toBe(0);
    for (const [i, x] of guarded.entries()) expect(x, names[i]).toEqual(plain[i]);
    expect(plain.map((x) => x.stdout)).toEqual([
      '1\n',
      '',
      'agpkg-1.0-py3-none-any.whl\n',
      expect.stringMatching(/Successfully installed agpkg-1\.0/),
      expect.stringMatching(/Successfully installed agsrc-1\.0/),
      '84\n',
      'tool 42\n',
      expect.stringMatching(/Successfully uninstalled agpkg-1\.0/),
      'False False False False\n',
      'app\n',
      'False\n',
    ]);
    expect(tree(sides.guarded.dir, sides.guarded.dir)).toEqual(tree(sides.plain.dir, sides.plain.dir));

    // What the guard did: only the agent's removal of the venv, which an earlier process made, reached
    // the policy, and it was decided as `rm -rf .venv` (kept in the quarantine). Python's temp files,
    // pip's build and install churn, the venv's own set-up: all passed untouched.
    const q = path.join(sides.guarded.ws, '.agent-trash');
    const starts = records(path.join(q, 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    expect(starts.map((s) => s.command)).toEqual(['python3 -c: shutil.rmtree(".venv")']);
    const decided = policy.stdout.split(':')[0]!.split(' ');
    expect(decided[1]).toBe('RELOCATE_TREE');
    const audit = records(path.join(q, 'audit.jsonl'));
    expect(audit.map((a) => [a.decision, a.code, a.program, a.api])).toEqual([
      ['ALLOW', 'RELOCATE_SCRATCH', 'python -m pip', 'shutil.rmtree'], // the uninstall, below
      [decided[0] === 'RELOCATE' ? 'ALLOW' : decided[0], decided[1], 'python3 -c', 'shutil.rmtree'],
    ]);
    // pip's uninstall moves the package's console script into a temp directory of its own and then
    // deletes that directory: the script is older than pip's process, so that one is decided, and
    // kept in the temp zone's quarantine (RELOCATE_SCRATCH); the package's files, stashed beside
    // themselves in site-packages, pass.
    const zone = records(path.join(sides.guarded.tmp, '.agent-trash-0', 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    expect(zone.map((s) => s.command)).toEqual([expect.stringMatching(/^python -m pip: shutil\.rmtree\(".*\/tmp\/pip-uninstall-[a-z0-9_]{8}"\)$/)]);

  }, 600_000);
});
