// Read-only sandbox for tests that run destructive commands (real rm, git clean, shims, hooks).
//
// Rule: anything destructive runs only through runSandboxed(rwDir, argv): inside a private mount
// namespace + chroot where the whole filesystem is read-only except rwDir (see sandbox-run.sh).
//
// Wrap such tests in describeSandboxed(name, fn) or itSandboxed(name, fn). When no sandbox can
// be made (not root, no mount namespaces, not Linux):
//   - CI (process.env.CI set and not "0"/"false"): a failing test is registered instead — CI runs
//     as root, so a missing sandbox there is a bug, never a silent skip;
//   - locally: a skipped test is registered and console.warn prints
//     "SANDBOX UNAVAILABLE: <reason> — destructive tests skipped".
// In both cases the wrapped fn is never called, so no test code runs unsandboxed.
// runSandboxed throws (rather than returning an exit code) when the sandbox could not be set up,
// so "the command failed" can never be mistaken for "the sandbox protected us".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';

export interface SandboxResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface SandboxOptions {
  /** Working directory inside the sandbox (a host path; the sandbox sees the same tree). Default rwDir. */
  cwd?: string;
  /** Added to (and overriding) process.env. TMPDIR defaults to the sandbox's private /dev/shm. */
  env?: Record<string, string>;
  /** Written to the command's stdin. */
  input?: string;
  /** Kill the command after this long; exitCode is then 124. Default 20s. */
  timeoutMs?: number;
}

export type SandboxSupport = { ok: true } | { ok: false; reason: string };

const SCRIPT = fileURLToPath(new URL('./sandbox-run.sh', import.meta.url));

// Runs argv with only rwDir writable; the script signals on fd 3 once the sandbox is in place.
export function runSandboxed(rwDir: string, argv: string[], opts: SandboxOptions = {}): SandboxResult {
  if (argv.length === 0) throw new Error('runSandboxed: empty argv');
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const args = [SCRIPT, rwDir, '--ready', '--timeout', String(Math.max(1, Math.ceil(timeoutMs / 1000)))];
  if (opts.cwd !== undefined) args.push('--cwd', opts.cwd);
  const r = spawnSync('/bin/sh', [...args, '--', ...argv], {
    env: { ...process.env, TMPDIR: '/dev/shm', ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    timeout: timeoutMs + 15_000, // backstop only: the script's own timeout(1) normally fires first
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw new Error(`runSandboxed: ${r.error.message}`);
  const stdout = r.stdout ?? '';
  const stderr = r.stderr ?? '';
  const ready = r.output[3] === 'ok\n';
  if (!ready) {
    throw new Error(`runSandboxed: no sandbox was made (exit ${r.status ?? r.signal}): ${stderr.trim()}`);
  }
  const exitCode = r.status ?? 128 + (r.signal ? os.constants.signals[r.signal] : 0);
  return { exitCode, stdout, stderr };
}

let support: SandboxSupport | undefined;

// Probes once per worker whether a sandbox can be made, by running `true` inside one.
export function sandboxSupport(): SandboxSupport {
  if (support) return support;
  if (process.platform !== 'linux') return (support = { ok: false, reason: `needs Linux, not ${process.platform}` });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ag-sbx-probe-'));
  try {
    const r = runSandboxed(dir, ['true'], { timeoutMs: 10_000 });
    support = r.exitCode === 0 ? { ok: true } : { ok: false, reason: `probe exited ${r.exitCode}: ${r.stderr.trim()}` };
  } catch (e) {
    support = { ok: false, reason: e instanceof Error ? e.message : String(e) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return support;
}

// CI must never silently skip the destructive tests.
function inCI(): boolean {
  const ci = process.env.CI;
  return !!ci && !/^(0|false)$/i.test(ci);
}

// Without a sandbox, registers a failing (CI) or skipped (local) stand-in and returns true.
function standIn(name: string): boolean {
  const s = sandboxSupport();
  if (s.ok) return false;
  if (inCI()) {
    it(`${name} (needs a sandbox)`, () => {
      throw new Error(`SANDBOX UNAVAILABLE in CI: ${s.reason}`);
    });
  } else {
    console.warn(`SANDBOX UNAVAILABLE: ${s.reason} — destructive tests skipped (${name})`);
    it.skip(`${name} (SANDBOX UNAVAILABLE: ${s.reason})`, () => {});
  }
  return true;
}

// A describe block whose tests run destructive commands (via runSandboxed).
export function describeSandboxed(name: string, fn: () => void): void {
  if (sandboxSupport().ok) describe(name, fn);
  else describe(name, () => void standIn(name));
}

// A single test that runs destructive commands (via runSandboxed).
export function itSandboxed(name: string, fn: () => unknown, timeoutMs?: number): void {
  if (!standIn(name)) it(name, fn, timeoutMs);
}

/** The writable area of a sandboxed test file and a canary outside it: made before the file's
 *  tests, removed after them, and the canary's content asserted unchanged (it must survive every
 *  destructive command the tests run). */
export function useSandboxArea(prefix: string): { rw: () => string; canary: () => string } {
  let rw = '';
  let canary = '';
  beforeAll(() => {
    rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`)));
    canary = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-canary-')));
    fs.writeFileSync(path.join(canary, 'keep.txt'), 'canary\n');
  });
  afterAll(() => {
    const intact = fs.readdirSync(canary).join(',') === 'keep.txt' && fs.readFileSync(path.join(canary, 'keep.txt'), 'utf8') === 'canary\n';
    fs.rmSync(rw, { recursive: true, force: true });
    fs.rmSync(canary, { recursive: true, force: true });
    if (!intact) throw new Error('the canary outside the sandbox area was changed');
  });
  return { rw: () => rw, canary: () => canary };
}

/** Runs the built CLI inside the sandbox; `json` is its parsed stdout, or null. */
export function runGuardSandboxed(rw: string, bin: string, args: string[], opts: SandboxOptions): SandboxResult & { json: any } {
  const r = runSandboxed(rw, [process.execPath, bin, ...args], opts);
  let json: any = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  return { ...r, json };
}

/** Runs argv in the sandbox with exactly `env` (`env -i`): nothing of the runner's environment
 *  (the developer's own guard, BASH_ENV, ZDOTDIR, AGENT_GUARD_*) leaks in. */
export function runSandboxedExact(rw: string, env: Record<string, string>, argv: string[], opts: Omit<SandboxOptions, 'env'> = {}): SandboxResult {
  return runSandboxed(rw, ['/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], opts);
}

/** A step of runBatchSandboxed: a command, or a function of a plain-JS module called in the
 *  driver's process (see batch.mjs). An argv element {$json: [n, ...keys]} is a value from the
 *  JSON that step n printed. */
export type BatchStep =
  | { argv: (string | { $json: [number, ...(string | number)[]] })[]; env?: Record<string, string>; exactEnv?: boolean; cwd?: string; input?: string; timeoutMs?: number }
  | { call: string; fn: string; args?: unknown[] };

export interface BatchResult extends SandboxResult {
  signal: string | null;
  /** Why the step could not start or its call threw (exitCode -1), or a timeout. */
  error: string | null;
  ms: number;
  /** A call's return value. */
  value?: unknown;
}

const BATCH = fileURLToPath(new URL('./batch.mjs', import.meta.url));
let batches = 0;

/** Runs the steps in order inside ONE sandbox (tests/helpers/batch.mjs): one set-up for all of
 *  them. The driver gets `env` (with `exact`, only `env`: runSandboxedExact); each step adds its
 *  own. The step and result files are written in `dir` (default rw) and removed afterwards. */
export function runBatchSandboxed(
  rw: string,
  steps: BatchStep[],
  opts: { dir?: string; cwd?: string; env?: Record<string, string>; exact?: boolean; timeoutMs?: number } = {},
): BatchResult[] {
  const base = path.join(opts.dir ?? rw, `.batch-${process.pid}-${++batches}`);
  fs.writeFileSync(`${base}.json`, JSON.stringify(steps));
  try {
    const argv = [process.execPath, BATCH, `${base}.json`, `${base}.out.json`];
    const run = { cwd: opts.cwd ?? rw, timeoutMs: opts.timeoutMs ?? 300_000 };
    const r = opts.exact ? runSandboxedExact(rw, opts.env ?? {}, argv, run) : runSandboxed(rw, argv, { ...run, ...(opts.env ? { env: opts.env } : {}) });
    if (r.exitCode !== 0) throw new Error(`runBatchSandboxed: the batch driver failed (${r.exitCode}): ${r.stderr}`);
    return JSON.parse(fs.readFileSync(`${base}.out.json`, 'utf8')) as BatchResult[];
  } finally {
    fs.rmSync(`${base}.json`, { force: true });
    fs.rmSync(`${base}.out.json`, { force: true });
  }
}
