// Runs many steps one after the other inside ONE sandbox (runBatchSandboxed in sandbox.ts starts it),
// so a test pays for one sandbox set-up instead of one per command. Plain node, no tsx: its start
// costs nothing noticeable.
// usage: node batch.mjs STEPS.json RESULTS.json
//
// A step is a command or a call:
// - {argv, env?, exactEnv?, cwd?, input?, timeoutMs?}: argv[0] is found on the step's PATH. The
//   environment is this process's plus `env`, or exactly `env` with exactEnv. An argv element may
//   be {"$json": [n, key, ...]}: the value at that path in the JSON that step n printed (a step
//   whose reference cannot be resolved is not run: exitCode -1, the reason in `error`).
// - {call: MODULE, fn: NAME, args?}: `await (await import(MODULE))[NAME](...args)`, in this process
//   (for reading state between commands without starting a process); its result is `value`.
// Results, one per step: {exitCode, signal, error, stdout, stderr, ms, value?}; exitCode is the
// status, 128+N for a signal N, -1 when the step could not start (error says why).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';

const [stepsFile, resultsFile] = process.argv.slice(2);
const steps = JSON.parse(fs.readFileSync(stepsFile, 'utf8'));
const results = [];

function resolveRef(ref) {
  const [n, ...keys] = ref.$json;
  const from = results[n];
  if (!from) throw new Error(`$json: no step ${n} before this one`);
  let v;
  try {
    v = JSON.parse(from.stdout);
  } catch {
    throw new Error(`$json: step ${n} printed no JSON`);
  }
  for (const k of keys) {
    if (v === null || typeof v !== 'object' || !(k in v)) throw new Error(`$json: step ${n} has no ${JSON.stringify(ref.$json.slice(1))}`);
    v = v[k];
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`$json: ${JSON.stringify(ref.$json)} is not a string or number`);
  return String(v);
}

function failed(t0, message) {
  return { exitCode: -1, signal: null, error: message, stdout: '', stderr: '', ms: Number(process.hrtime.bigint() - t0) / 1e6 };
}

for (const step of steps) {
  const t0 = process.hrtime.bigint();
  if (step.call !== undefined) {
    try {
      const mod = await import(pathToFileURL(step.call).href);
      const value = await mod[step.fn](...(step.args ?? []));
      results.push({ exitCode: 0, signal: null, error: null, stdout: '', stderr: '', ms: Number(process.hrtime.bigint() - t0) / 1e6, value });
    } catch (e) {
      results.push(failed(t0, `${step.fn}: ${e instanceof Error ? e.stack : String(e)}`));
    }
    continue;
  }
  let argv;
  try {
    argv = step.argv.map((a) => (typeof a === 'string' ? a : resolveRef(a)));
  } catch (e) {
    results.push(failed(t0, e.message));
    continue;
  }
  const r = spawnSync(argv[0], argv.slice(1), {
    env: step.exactEnv ? step.env : { ...process.env, ...step.env },
    cwd: step.cwd,
    input: step.input ?? '',
    encoding: 'utf8',
    timeout: step.timeoutMs ?? 60_000,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1024 * 1024,
  });
  const exitCode = r.status ?? (r.signal ? 128 + (os.constants.signals[r.signal] ?? 0) : -1);
  results.push({
    exitCode,
    signal: r.signal,
    error: r.error ? String(r.error.message) : null,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    ms: Number(process.hrtime.bigint() - t0) / 1e6,
  });
}
fs.writeFileSync(resultsFile, JSON.stringify(results));
