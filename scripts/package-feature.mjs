// Packages the agent-guard sources the Dev Container Feature installs from (docs/devcontainer.md):
// `npm run package:feature` writes devcontainer-feature/agent-guard/agent-guard-src/ (or --out DIR)
// with exactly what the repository's install.sh needs when dist/ is already built: install.sh,
// package.json, dist/agent-guard (the launcher), dist/agent-guard.cjs, dist/agent-guard-mcp.cjs, dist/agent-guard-preload.cjs, the
// Python guard (dist/agent-guard-python/), shims/ and shell/. The copy is assembled next to its
// place and renamed into it, so a failed run leaves the previous copy whole. An existing output
// directory is replaced only when it carries the marker this script writes: nothing else is ever
// removed.
import fs from 'node:fs';
import path from 'node:path';

const MARKER = '.agent-guard-feature-src';
const repo = path.resolve(import.meta.dirname, '..');

function fail(message) {
  process.stderr.write(`package-feature: ${message}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
let out = path.join(repo, 'devcontainer-feature/agent-guard/agent-guard-src');
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out' && args[i + 1] !== undefined) out = path.resolve(args[++i]);
  else fail(`usage: node scripts/package-feature.mjs [--out DIR] (unknown argument ${JSON.stringify(args[i])})`);
}

const FILES = ['install.sh', 'package.json', 'dist/agent-guard', 'dist/agent-guard.cjs', 'dist/agent-guard-mcp.cjs', 'dist/agent-guard-preload.cjs', 'dist/agent-guard-python/sitecustomize.py', 'dist/agent-guard-python/agent-guard-delete.py'];
const DIRS = ['shims', 'shell'];
for (const f of FILES) if (!fs.existsSync(path.join(repo, f))) fail(`${f} is missing${f.startsWith('dist/') ? ': run `npm run build` first (npm run package:feature does)' : ''}`);

if (fs.existsSync(out) && !fs.existsSync(path.join(out, MARKER))) {
  fail(`${out} exists and was not written by this script (no ${MARKER}): move it away first`);
}

const tmp = `${out}.tmp-${process.pid}`;
const old = `${out}.old-${process.pid}`;
try {
  fs.mkdirSync(tmp, { recursive: true });
  for (const f of FILES) {
    fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
    fs.copyFileSync(path.join(repo, f), path.join(tmp, f));
    fs.chmodSync(path.join(tmp, f), fs.statSync(path.join(repo, f)).mode & 0o777);
  }
  for (const d of DIRS) fs.cpSync(path.join(repo, d), path.join(tmp, d), { recursive: true });
  fs.writeFileSync(path.join(tmp, MARKER), `agent-guard sources for the devcontainer feature, from ${repo}\n`);
  if (fs.existsSync(out)) fs.renameSync(out, old);
  fs.renameSync(tmp, out);
  if (fs.existsSync(old)) fs.rmSync(old, { recursive: true });
} catch (err) {
  if (fs.existsSync(old) && !fs.existsSync(out)) fs.renameSync(old, out);
  fail(`${err instanceof Error ? err.message : String(err)} (the previous copy, if any, is unchanged)`);
} finally {
  if (fs.existsSync(tmp)) fs.rmSync(tmp, { recursive: true });
}
process.stdout.write(`${out}\n`);
