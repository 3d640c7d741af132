// Runs inside the read-only sandbox (bench/session.ts starts it): times each workload guarded and
// plain on fresh copies of one workspace, interleaved (A B, then B A), and writes the samples.
// Usage: node session-driver.mjs INPUT.json OUTPUT.json [--steady]
//
// Default mode: guarded = `node BIN run -- bash -c CMD` (a new session per run: it pays the session
// start and its first cold shim call); plain = `bash -c CMD`.
// --steady (started by the caller inside `agent-guard run`): guarded = `bash -c CMD` with this
// process's guarded environment and an already warm checker; plain = the same without the guard's
// variables (PATH without the shims, no BASH_ENV/ZDOTDIR/AGENT_GUARD_*).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [inputFile, outputFile, mode] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(inputFile, 'utf8'));
const steady = mode === '--steady';

function plainEnv() {
  const env = { ...input.env };
  if (!steady) return env;
  const out = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^AGENT_GUARD_|^BASH_ENV$|^ZDOTDIR$/.test(k)) continue;
    out[k] = v;
  }
  out.PATH = (process.env.PATH ?? '').split(':').filter((d) => d !== process.env.AGENT_GUARD_SHIMS).join(':');
  return out;
}

function argvFor(row, guarded) {
  const cmd = row.argv ?? ['bash', '-c', row.cmd];
  if (!guarded || steady) return cmd;
  return [input.node, input.bin, 'run', '--', ...cmd];
}

function copy(tpl, dest) {
  const r = spawnSync('cp', ['-a', tpl, dest]);
  if (r.status !== 0) throw new Error(`cp -a ${tpl} ${dest}: ${r.stderr}`);
}

function timeOne(row, guarded, ws) {
  const argv = argvFor(row, guarded);
  const env = guarded ? (steady ? { ...process.env } : { ...input.env }) : plainEnv();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { cwd: ws, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const problems = [];
  if (r.error) problems.push(String(r.error.message));
  if (r.status !== 0) problems.push(`exit ${r.status}: ${(r.stderr ?? '').slice(0, 300)}`);
  if (row.gone && fs.existsSync(path.join(ws, row.gone))) problems.push(`${row.gone} still there`);
  return { ms, problems };
}

if (steady) {
  // Start the session's checker and wait for it (one cold call), so every timed call finds it warm.
  spawnSync('rm', ['-f', path.join(input.work, 'no-such-file')], { env: process.env, cwd: input.work });
  const dir = process.env.AGENT_GUARD_CHECKER;
  for (let i = 0; i < 100 && dir && !fs.existsSync(path.join(dir, 'server')); i++) spawnSync('sleep', ['0.05']);
}

// A row that times `agent-guard run` itself means nothing inside a session: left out there.
const rows = steady ? input.rows.filter((r) => !r.argv) : input.rows;
const out = { rows: rows.map((r) => ({ name: r.name, plain: [], guarded: [], problems: [] })) };
let n = 0;
for (let rep = 0; rep < input.reps; rep++) {
  rows.forEach((row, i) => {
    const order = (rep + i) % 2 === 0 ? [false, true] : [true, false];
    for (const guarded of order) {
      const ws = path.join(input.work, `ws-${n++}`);
      copy(row.template, ws);
      const t = timeOne(row, guarded, ws);
      out.rows[i][guarded ? 'guarded' : 'plain'].push(t.ms);
      for (const p of t.problems) out.rows[i].problems.push(`${guarded ? 'guarded' : 'plain'}: ${p}`);
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
}
fs.writeFileSync(outputFile, JSON.stringify(out));
