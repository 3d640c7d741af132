// `npm run bench`: what one decision costs, in process (µs per decide/classify) and as a whole CLI
// process (ratio to a bare Node start measured in the same run), and living in a guarded session
// (bench/session.ts). Method and findings: docs/performance.md. Flags: --runs N (process pairs per
// row, default 30), --json, --check (exit 1 when a check is over the target; for local use, since
// shared CI machines are too noisy to gate on), --no-recovery, --no-installed, --no-session,
// --session-only, --session-reps N (default 3), --session-rows REGEX (only the session rows whose
// name matches), --no-warm-cli, --warm-cli-only (restore list / status from the warm checker).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeFixture, type Fixture } from '../tests/helpers/fixture.js';
import { measureInProcess, type InProcessRow } from './in-process.js';
import { LINES, PROCESS_LINES } from './lines.js';
import { compare, type ProcessTarget } from './process.js';
import { renderText, type BenchResult } from './report.js';
import { benchRecovery, renderRecovery, type RecoveryResult } from './recovery.js';
import { benchSession, renderSession, type SessionResult } from './session.js';
import { benchInstalled, renderInstalled, type InstalledResult } from './installed.js';
import { benchWarmCli, renderWarmCli, type WarmCliResult } from './warm-cli.js';

/** The project target: a check costs at most this many bare Node starts. */
const TARGET_RATIO = 1.3;
/** A Node start with the deletion guard's preload costs at most this many plain ones (issue 15). */
const PRELOAD_RATIO = 1.1;
/** A Python start with the Python guard's sitecustomize on PYTHONPATH: at most this many plain ones. */
const PYTHON_RATIO = 1.1;
const BUNDLE = fileURLToPath(new URL('../dist/agent-guard.cjs', import.meta.url));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const PRELOAD = fileURLToPath(new URL('../dist/agent-guard-preload.cjs', import.meta.url));
const PYTHON_GUARD = fileURLToPath(new URL('../dist/agent-guard-python', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../dist/agent-guard', import.meta.url));

interface Flags {
  runs: number;
  json: boolean;
  check: boolean;
  recovery: boolean;
  session: boolean;
  sessionOnly: boolean;
  sessionReps: number;
  sessionRows: RegExp | undefined;
  installed: boolean;
  warmCli: boolean;
  warmCliOnly: boolean;
}

function parseFlags(argv: readonly string[]): Flags {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: 'string', default: '30' },
      json: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      'no-recovery': { type: 'boolean', default: false },
      'no-session': { type: 'boolean', default: false },
      'session-only': { type: 'boolean', default: false },
      'session-reps': { type: 'string', default: '3' },
      'session-rows': { type: 'string' },
      'no-installed': { type: 'boolean', default: false },
      'no-warm-cli': { type: 'boolean', default: false },
      'warm-cli-only': { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, not ${JSON.stringify(values.runs)}`);
  const sessionReps = Number(values['session-reps']);
  if (!Number.isInteger(sessionReps) || sessionReps < 1) throw new Error(`--session-reps must be a positive integer, not ${JSON.stringify(values['session-reps'])}`);
  return {
    runs,
    json: values.json,
    check: values.check,
    recovery: !values['no-recovery'],
    installed: !values['no-installed'],
    warmCli: !values['no-warm-cli'],
    warmCliOnly: values['warm-cli-only'],
    session: !values['no-session'],
    sessionOnly: values['session-only'],
    sessionReps,
    sessionRows: values['session-rows'] === undefined ? undefined : new RegExp(values['session-rows']),
  };
}

/** The processes compared against the baseline: a check per cost class, and --version, which loads
 *  the whole bundle but decides nothing (the cost of the bundle alone). A check must print the
 *  decision the in-process engine gave for the same line, so no row times an error path. */
function processTargets(inProcess: readonly InProcessRow[]): ProcessTarget[] {
  const checks = PROCESS_LINES.map((line) => {
    const row = inProcess.find((r) => r.line === line);
    if (!row) throw new Error(`${line} is in PROCESS_LINES but not in LINES`);
    return { name: `check -- "${line}"`, args: [BUNDLE, 'check', '--', line], gated: true, expect: new RegExp(`^${row.decision} ${row.code}:`) };
  });
  // Every Node program under `run` loads the preload (docs/interpreters.md): its start against a plain
  // one; and what a program's first deletion that needs a decision loads (the bundle as a library).
  const preload = { NODE_OPTIONS: `--require "${PRELOAD}"` };
  const loaded = spawnSync(process.execPath, ['-e', "console.log(globalThis[Symbol.for('agent-guard.node-preload')] !== undefined)"], { env: { ...process.env, ...preload }, encoding: 'utf8' });
  if (loaded.stdout !== 'true\n') throw new Error(`the preload does not load: ${loaded.stderr}`);
  const node = [
    { name: "node -e '' with the Node preload", args: ['-e', ''], gated: true, limit: PRELOAD_RATIO, expect: /^$/, env: preload },
    { name: 'node: require(bundle) (first decided deletion)', args: ['-e', `require(${JSON.stringify(BUNDLE)}); console.log(0)`], gated: false, expect: /^0$/m, env: preload },
  ];
  return [{ name: '--version', args: [BUNDLE, '--version'], gated: false, expect: /^\d+\.\d+\.\d+/ }, ...checks, ...node, ...pythonTargets()];
}

/** Every Python under `run` imports the guard's sitecustomize (docs/interpreters.md, "Python"): `python3
 *  -c pass` with it on PYTHONPATH against a plain one, both the same executable (the one python3 on PATH
 *  runs: a version manager's shim script would dilute the ratio). None when there is no python3. */
function pythonTargets(): ProcessTarget[] {
  const exe = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout?.trim();
  if (!exe) return [];
  const env = { PYTHONPATH: PYTHON_GUARD };
  const loaded = spawnSync(exe, ['-c', "import sys; print('_agent_guard' in sys.modules)"], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (loaded.stdout !== 'True\n') throw new Error(`the Python guard does not load: ${loaded.stderr}`);
  // The guard caches its bytecode beside it on the first start (the warm-up pairs), as an installation does.
  return [{ name: 'python3 -c pass with the Python guard', command: exe, args: ['-c', 'pass'], baseline: { command: exe, args: ['-c', 'pass'] }, gated: true, limit: PYTHON_RATIO, expect: /^$/, env }];
}

/** Runs both measurements in one fixture; the process rows run in the workspace with HOME set to it. */
function bench(fx: Fixture, flags: Flags): BenchResult & { installed: InstalledResult | null } {
  for (const f of [BUNDLE, PRELOAD]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: run npm run build first (npm run bench does)`);
  const inProcess = measureInProcess(fx, LINES, { warmupMs: 100, budgetMs: 300, minSamples: 30 });
  // The fixture's minimal environment on both sides: the caller's NODE_OPTIONS or NODE_EXTRA_CA_CERTS
  // (the latter adds tens of ms to every Node start) would otherwise make the ratio depend on the shell.
  const spawn = { cwd: fx.ws, env: { ...fx.env } as NodeJS.ProcessEnv };
  const targets = processTargets(inProcess);
  const rows = targets.map((t) => compare(t, { runs: flags.runs, warmup: 3, spawn }));
  // Start-up of the installed CLI (the npm package laid out as npm i -g does) against the checkout's.
  const check = targets.find((t) => t.name === 'check -- "rm -rf build"') ?? targets[1]!;
  const installed = flags.installed ? benchInstalled(REPO, BUNDLE, { runs: flags.runs, cwd: fx.ws, env: spawn.env, check: { line: check.args.at(-1)!, expect: check.expect } }) : null;
  const cpus = os.cpus();
  return {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    runs: flags.runs,
    target: TARGET_RATIO,
    bundleKiB: fs.statSync(BUNDLE).size / 1024,
    inProcess,
    process: rows,
    pass: rows.every((r) => !r.gated || r.ratio <= (r.limit ?? TARGET_RATIO)),
    installed,
  };
}

function main(): number {
  const flags = parseFlags(process.argv.slice(2));
  const warmCli = (): WarmCliResult => benchWarmCli(BUNDLE, LAUNCHER, { transactions: 10_000, reps: Math.min(flags.runs, 10) });
  if (flags.warmCliOnly) {
    const w = warmCli();
    process.stdout.write(flags.json ? JSON.stringify({ warmCli: w }, null, 2) + '\n' : renderWarmCli(w));
    return 0;
  }
  if (flags.sessionOnly) {
    const session = benchSession(BUNDLE, { reps: flags.sessionReps, steady: true, only: flags.sessionRows });
    process.stdout.write(flags.json ? JSON.stringify({ session }, null, 2) + '\n' : renderSession(session));
    return 0;
  }
  const fx = makeFixture();
  let result: BenchResult & { installed: InstalledResult | null };
  try {
    result = bench(fx, flags);
  } finally {
    fx.cleanup();
  }
  // The recovery rows (issue 3): a 100,000-file relocation against rm -rf, and restore list at scale.
  const recovery: RecoveryResult | null = flags.recovery ? benchRecovery(BUNDLE, { files: 100_000, transactions: 10_000, runs: Math.min(flags.runs, 10) }) : null;
  // Living in a guarded session (issue 13): workloads guarded and plain, in the sandbox.
  const session: SessionResult | null = flags.session ? benchSession(BUNDLE, { reps: flags.sessionReps, steady: true, only: flags.sessionRows }) : null;
  // restore list / status at 10,000 transactions from the warm checker (issue 13).
  const warm: WarmCliResult | null = flags.warmCli ? warmCli() : null;
  process.stdout.write(
    flags.json
      ? JSON.stringify({ ...result, recovery, session, warmCli: warm }, null, 2) + '\n'
      : renderText(result) + (result.installed ? renderInstalled(result.installed) + '\n' : '') + (recovery ? renderRecovery(recovery) : '') + (session ? renderSession(session) : '') + (warm ? renderWarmCli(warm) : ''),
  );
  return flags.check && !result.pass ? 1 : 0;
}

/** Bad flags and a missing bundle are the user's to fix: one line, no stack trace. */
function run(): number {
  try {
    return main();
  } catch (err) {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
}

process.exitCode = run();
