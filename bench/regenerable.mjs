// `rm -rf node_modules` (20,000 files, git-ignored: ALLOW_REGENERABLE) relocated vs deleted directly.
// Destructive: run it only inside the read-only sandbox, in a scratch directory, e.g.
//   d=$(mktemp -d); /work/shared/tools/sandbox-run "$d" --cwd "$d" -- node bench/regenerable.mjs "$d" [runs]
// Prints the median wall time (ms) of each way, over `runs` fresh trees (default 5).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [dir, runsArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/regenerable.mjs SCRATCH_DIR [runs]');
const runs = Number(runsArg ?? 5);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repo, 'dist/agent-guard.cjs');
const ws = path.join(dir, 'ws');
const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const sh = (cmd, extra = {}) => {
  const r = spawnSync('sh', ['-c', cmd], { cwd: ws, env: { ...env, ...extra }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`);
  return r.stdout;
};

fs.mkdirSync(ws, { recursive: true });
sh("git init -q -b main && printf 'node_modules/\\n' > .gitignore && mkdir src && echo a > src/a.js && git add -A && git commit -qm init");

/** 1,000 packages × 20 files (a few hundred bytes each): 20,000 files, 1,000 directories. */
function tree() {
  for (let p = 0; p < 1000; p++) {
    const d = path.join(ws, 'node_modules', `pkg-${p}`, 'lib');
    fs.mkdirSync(d, { recursive: true });
    for (let f = 0; f < 20; f++) fs.writeFileSync(path.join(d, `f${f}.js`), `module.exports = ${p * 100 + f};\n`.repeat(8));
  }
}

// the shims `agent-guard run` puts first on PATH
const shims = path.join(dir, 'shims');
const w = spawnSync(process.execPath, [bin, 'shell-init', '--write-shims', shims], { env, encoding: 'utf8' });
if (w.status !== 0) throw new Error(`shell-init --write-shims: ${w.stderr}`);

const ways = {
  'unguarded rm -rf': { cmd: 'rm -rf node_modules' },
  'check --enforce + rm -rf (relocated)': { cmd: `"${process.execPath}" "${bin}" check --enforce -- rm -rf node_modules && rm -rf node_modules` },
  'check --enforce + rm -rf (quarantine on another fs: deleted directly)': { cmd: `"${process.execPath}" "${bin}" check --enforce -- rm -rf node_modules && rm -rf node_modules`, env: { AGENT_GUARD_TRASH: '/dev/shm/bench-trash' } },
  'check (advisory) + rm -rf (what ALLOW_REGENERABLE cost before: deleted directly)': { cmd: `"${process.execPath}" "${bin}" check -- rm -rf node_modules >/dev/null && rm -rf node_modules` },
  'rm -rf through the rm shim (relocated)': { cmd: 'rm -rf node_modules', env: { PATH: `${shims}:${process.env.PATH}` } },
};

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, w] of Object.entries(ways)) {
    tree();
    const t0 = process.hrtime.bigint();
    sh(w.cmd, w.env ?? {});
    times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (fs.existsSync(path.join(ws, 'node_modules'))) throw new Error(`${name}: node_modules is still there`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of Object.entries(times)) console.log(`${median(xs).toFixed(0).padStart(7)} ms  (${xs.map((x) => x.toFixed(0)).join(' ')})  ${name}`);
const txs = fs.readdirSync(path.join(ws, '.agent-trash')).filter((n) => /^\d{8}T/.test(n));
console.log(`${txs.length} regenerable transaction(s) in the quarantine`);
const t0 = process.hrtime.bigint();
sh(`"${process.execPath}" "${bin}" gc --json > /dev/null`);
console.log(`gc (dry run, first measurement of ${txs.length} × 20,000 files): ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`);
const t1 = process.hrtime.bigint();
sh(`"${process.execPath}" "${bin}" gc --json > /dev/null`);
console.log(`gc (dry run, sizes cached in the index): ${(Number(process.hrtime.bigint() - t1) / 1e6).toFixed(0)} ms`);
