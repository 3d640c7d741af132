// Runs several commands one after the other inside ONE sandbox (the test starts it), so a test
// pays for one sandbox set-up instead of one per command.
// usage: node batch.mjs CASES.json RESULTS.json
// Each case: {argv, env?, cwd?}; env is added to this process's environment (which the test made
// exact with env -i). Results: [{exitCode, stdout, stderr}], a signal N as exitCode 128+N.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

const [casesFile, resultsFile] = process.argv.slice(2);
const cases = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
const results = cases.map((c) => {
  const r = spawnSync(c.argv[0], c.argv.slice(1), {
    env: { ...process.env, ...c.env },
    cwd: c.cwd,
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  const exitCode = r.error ? -1 : (r.status ?? 128 + (os.constants.signals[r.signal] ?? 0));
  return { exitCode, stdout: r.stdout ?? '', stderr: r.error ? String(r.error.message) : (r.stderr ?? '') };
});
fs.writeFileSync(resultsFile, JSON.stringify(results));
