// Bundles the CLI into one CommonJS file per entry: every destructive command pays one Node start,
// and one file (no module graph to resolve) is the cheapest form measured (docs/performance.md).
//
// ENTRIES is the list of bundles: each is self-contained (no runtime dependency: the npm package
// ships no node_modules), lands in dist/<out>.cjs, is shipped by package.json ("dist/*.cjs") and
// installed by install.sh into <prefix>/lib/ (docs/distribution.md). dist/ holds exactly these
// bundles afterwards: a .cjs left over from an older entry list is removed, so it cannot be packed.
// The version in package.json is compiled in (AG_VERSION, src/version.ts).
// The MCP server (`agent-guard mcp`, docs/mcp.md) is a bundle of its own, so the CLI's start-up
// never loads the MCP SDK.
// The Node preload (dist/agent-guard-preload.cjs, docs/interpreters.md): every Node program under
// the guard loads it, so it is its own small file; it loads the bundle only when a deletion needs a
// decision.
// The Python guard (dist/agent-guard-python/, docs/interpreters.md) is not built: its files are
// copied from src/runtime/python/ into the directory that run and shell-init put on PYTHONPATH.
import { build } from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
const outdir = path.join(repo, 'dist');

/** `in`: the entry module; `out`: the bundle's name in dist/ (without .cjs); `bin`: executable,
 *  with a node shebang (the CLI; the others are loaded by it or by Node). */
const ENTRIES = [
  { in: 'src/bin.ts', out: 'agent-guard', bin: true },
  { in: 'src/mcp/entry.ts', out: 'agent-guard-mcp', bin: false },
  // NODE_OPTIONS reaches every Node on PATH, not only the one agent-guard runs on: an older one must
  // still parse the preload (it falls back to require where getBuiltinModule is missing).
  { in: 'src/runtime/node-preload.ts', out: 'agent-guard-preload', bin: false, target: 'node14' },
];

const { version } = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'));

for (const e of ENTRIES) {
  const outfile = path.join(outdir, `${e.out}.cjs`);
  await build({
    entryPoints: [path.join(repo, e.in)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: e.target ?? 'node20',
    minify: true,
    legalComments: 'none',
    define: { AG_VERSION: JSON.stringify(version) },
    ...(e.bin ? { banner: { js: '#!/usr/bin/env node' } } : {}),
    logLevel: 'warning',
  });
  chmodSync(outfile, e.bin ? 0o755 : 0o644);
}

const wanted = new Set(ENTRIES.map((e) => `${e.out}.cjs`));
for (const f of readdirSync(outdir)) if (f.endsWith('.cjs') && !wanted.has(f)) rmSync(path.join(outdir, f));

// The launcher (bin/agent-guard.sh): the `agent-guard` command npm links and install.sh installs
// (docs/distribution.md, "The launcher"), with the version put in (the warm checker serves only its
// own version).
const LAUNCHER = path.join(outdir, 'agent-guard');
const launcher = readFileSync(path.join(repo, 'bin/agent-guard.sh'), 'utf8');
if (!/^ag_version='@AG_VERSION@'$/m.test(launcher) || !/^[0-9A-Za-z.+-]{1,64}$/.test(version)) throw new Error('bin/agent-guard.sh: no version line, or a version the launcher cannot carry');
writeFileSync(LAUNCHER, launcher.replace(/^ag_version='@AG_VERSION@'$/m, `ag_version='${version}'`));
chmodSync(LAUNCHER, 0o755);

/** The Python guard's files, copied as they are (package.json "files" and install.sh name them). */
const PYTHON_DIR = 'agent-guard-python';
const PYTHON_FILES = ['sitecustomize.py', 'agent-guard-delete.py'];
const pyOut = path.join(outdir, PYTHON_DIR);
// Whole, so nothing stale (a bytecode cache Python wrote, a file no longer shipped) can be packed.
rmSync(pyOut, { recursive: true, force: true });
mkdirSync(pyOut);
for (const f of PYTHON_FILES) {
  copyFileSync(path.join(repo, 'src/runtime/python', f), path.join(pyOut, f));
  chmodSync(path.join(pyOut, f), 0o644);
}
