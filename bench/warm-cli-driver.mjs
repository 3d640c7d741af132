// Runs inside the read-only sandbox under `agent-guard run` (bench/warm-cli.ts starts it): times
// each command through the launcher (answered by the session's warm checker) and as the cold CLI
// (`node BIN …`), interleaved (A B, then B A), and writes the samples. A warm answer that differs
// from the cold one, or that started a node, is reported as a problem.
// Usage: node warm-cli-driver.mjs INPUT.json OUTPUT.json
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [inputFile, outputFile] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(inputFile, 'utf8'));
const env = { ...process.env };
// The warm side's PATH holds `cat` and no node: a call that went cold fails instead of timing Node.
const catOnly = path.join(path.dirname(input.ws), 'cat-only');
fs.mkdirSync(catOnly, { recursive: true });
const cat = spawnSync('sh', ['-c', 'command -v cat'], { encoding: 'utf8' }).stdout.trim();
if (!fs.existsSync(path.join(catOnly, 'cat'))) fs.symlinkSync(cat, path.join(catOnly, 'cat'));
const noNode = { ...env, PATH: catOnly };

function time(argv, e) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { cwd: input.ws, env: e, maxBuffer: 256 * 1024 * 1024, timeout: 600_000 });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r };
}

// Start the session's checker (one cold shim call) and wait for it.
spawnSync('rm', ['-f', path.join(input.ws, 'no-such-file')], { env, cwd: input.ws });
const dir = env.AGENT_GUARD_CHECKER;
for (let i = 0; i < 600 && dir && !fs.existsSync(path.join(dir, 'server')); i++) spawnSync('sleep', ['0.05']);
// The first cold call writes the index; the quarantine's listing must be settled (1 s) before the
// checker remembers it.
spawnSync(input.node, [input.bin, 'restore', 'list'], { cwd: input.ws, env, maxBuffer: 256 * 1024 * 1024 });
spawnSync('sleep', ['1.2']);

const rows = [];
for (const args of input.rows) {
  const row = { name: args.join(' '), warm: [], cold: [], bytes: 0, problems: [] };
  const warm = () => time([input.launcher, ...args], noNode);
  const cold = () => time([input.node, input.bin, ...args], env);
  // One untimed pair: the checker's first answer folds the index into its memory.
  warm();
  for (let k = 0; k < input.reps; k++) {
    let a;
    let b;
    if (k % 2 === 0) {
      a = warm();
      b = cold();
    } else {
      b = cold();
      a = warm();
    }
    if (a.r.status !== 0) row.problems.push(`warm exit ${a.r.status}: ${String(a.r.stderr).slice(0, 300)}`);
    if (b.r.status !== 0) row.problems.push(`cold exit ${b.r.status}: ${String(b.r.stderr).slice(0, 300)}`);
    if (!Buffer.from(a.r.stdout).equals(Buffer.from(b.r.stdout)) || !Buffer.from(a.r.stderr).equals(Buffer.from(b.r.stderr))) row.problems.push('warm and cold output differ');
    row.warm.push(a.ms);
    row.cold.push(b.ms);
    row.bytes = a.r.stdout.length;
  }
  rows.push(row);
}
fs.writeFileSync(outputFile, JSON.stringify({ rows }));
