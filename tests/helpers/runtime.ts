// Shared by the runtime guard tests (tests/runtime/): a world (temp HOME holding a git workspace), a
// batch of commands run one after the other in ONE sandbox with an exact environment
// (tests/helpers/batch.mjs), and readers for the tree, the records and the audit.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN } from './cli.js';
import { runSandboxed } from './sandbox.js';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const BATCH = path.join(REPO, 'tests/helpers/batch.mjs');
export const NODE = process.execPath;
export const BASE_PATH = [...new Set([path.dirname(NODE), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
/** The python3 the worlds' commands find on BASE_PATH (null: none; the Python guard's tests skip). */
export const PYTHON: string | null = spawnSync('sh', ['-c', 'command -v python3'], { env: { PATH: BASE_PATH }, encoding: 'utf8' }).stdout.trim() || null;
/** The Python guard's directory in the build (PYTHONPATH). */
export const PYTHON_GUARD = path.join(REPO, 'dist/agent-guard-python');

export interface World {
  /** The sandbox's writable area (every world lives in it). */
  rw: string;
  dir: string;
  home: string;
  ws: string;
  env: Record<string, string>;
}

let count = 0;
/** A fresh world in `rw`: HOME, a git workspace `HOME/ws`, and the exact environment of its commands. */
export function world(rw: string): World {
  const dir = path.join(rw, `w${++count}`);
  const home = path.join(dir, 'home');
  const ws = path.join(home, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws }).status).toBe(0);
  const env = { HOME: home, PATH: BASE_PATH, XDG_CACHE_HOME: path.join(home, '.cache'), AGENT_GUARD_SESSION: 'runtime-guard', LC_ALL: 'C' };
  return { rw, dir, home, ws, env };
}

export interface Case {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
}
export interface Result {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the cases one after the other in one sandbox, with exactly w.env (plus each case's env), in
 *  w.ws unless a case says otherwise; `before` is a shell command run first (inside the sandbox). */
export function batch(w: World, cases: Case[], opts: { timeoutMs?: number; before?: string } = {}): Result[] {
  const file = path.join(w.dir, `cases-${++count}.json`);
  const out = `${file}.out`;
  fs.writeFileSync(file, JSON.stringify(cases.map((c) => ({ cwd: w.ws, ...c }))));
  const run = ['env', '-i', ...Object.entries(w.env).map(([k, v]) => `${k}=${v}`), NODE, BATCH, file, out];
  const argv = opts.before ? ['sh', '-c', `${opts.before} && exec "$@"`, 'sh', ...run] : run;
  const r = runSandboxed(w.rw, argv, { cwd: w.ws, timeoutMs: opts.timeoutMs ?? 120_000 });
  if (r.exitCode !== 0) throw new Error(`batch exited ${r.exitCode}: ${r.stderr}`);
  // (the driver also reports each step's time, signal and spawn error: not part of an outcome here)
  return (JSON.parse(fs.readFileSync(out, 'utf8')) as Result[]).map((r) => ({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }));
}

/** argv run under `agent-guard run`. */
export const guarded = (...argv: string[]): string[] => [NODE, BIN, 'run', '--', ...argv];
export const nodeE = (code: string): string[] => [NODE, '-e', code];

/** Every file and link below `root` with its content (or target), skipping .git and the quarantine. */
export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d).sort()) {
      if (n === '.git' || n === '.agent-trash') continue;
      const p = path.join(d, n);
      const rel = path.relative(root, p);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(p);
      } else out[rel] = fs.readFileSync(p, 'utf8');
    }
  };
  if (fs.existsSync(root)) walk(root);
  return out;
}

/** The records of a JSONL file (none when it does not exist). */
export function records(file: string): any[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

/** The tx-start records of the workspace's quarantine. */
export const transactions = (w: World): any[] => records(path.join(w.ws, '.agent-trash', 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');

export function put(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}
