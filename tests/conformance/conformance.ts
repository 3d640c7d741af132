// The machinery of the conformance suite (cases.ts): each case's workspaces, and all its entry
// points run inside ONE sandbox (tests/helpers/batch.mjs), the workspace state read there between
// the commands (fixtures/state.mjs: one git call). A test builds a Batch, adds probes (state, the
// entry point, state again) and other steps, runs it once, and then asserts on what each step gave.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runBatchSandboxed, useSandboxArea, type BatchResult, type BatchStep } from '../helpers/sandbox.js';
import { git, SYSTEM_PATH, world } from '../helpers/world.js';
import { writeShims } from '../../src/shims/render.js';
import { ask, block, run, type Case, type Outcome, type State } from './cases.js';

export { SYSTEM_PATH };
const STATE = fileURLToPath(new URL('./fixtures/state.mjs', import.meta.url));
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));
const CODE = /\b(ASK|BLOCK) ([A-Z_]+):/;

/** What fixtures/state.mjs reads: the State, and agent-guard's snapshot refs (name → commit). */
export interface Observed {
  state: State;
  snapshots: Record<string, string>;
}

/** Steps for one sandbox; `add` returns the index of the step's result. */
export class Batch {
  readonly steps: BatchStep[] = [];
  add(step: BatchStep): number {
    this.steps.push(step);
    return this.steps.length - 1;
  }
  /** Reads the workspace's state at this point. */
  state(ws: string): number {
    return this.add({ call: STATE, fn: 'state', args: [ws] });
  }
  /** Reads a file at this point (null: gone). */
  read(file: string): number {
    return this.add({ call: STATE, fn: 'read', args: [file] });
  }
  /** The built CLI in `ws` with exactly `env`. An argument may be a value from an earlier step's JSON. */
  guard(ws: string, env: Record<string, string>, ...args: (string | { $json: [number, ...(string | number)[]] })[]): number {
    return this.add({ argv: [process.execPath, BIN, ...args], env, exactEnv: true, cwd: ws, timeoutMs: 20_000 });
  }
  /** The state, the case through the entry point, the state again. */
  probe(entry: string, c: Case, ws: string, env: Record<string, string>): Probe {
    const before = this.state(ws);
    const through = this.add(entryStep(entry, c, ws, env));
    const after = this.state(ws);
    return { entry, before, through, after };
  }
}

export interface Probe {
  entry: string;
  before: number;
  through: number;
  after: number;
}

/** A call step's value (its failure is the test's own: thrown). */
export function observed(results: BatchResult[], i: number): Observed {
  return value(results, i) as Observed;
}
export function value(results: BatchResult[], i: number): unknown {
  const r = results[i];
  if (!r) throw new Error(`no result for step ${i}`);
  if (r.exitCode !== 0) throw new Error(`step ${i} failed: ${r.error}`);
  return r.value;
}

/** The JSON an `agent-guard` step printed; it must have exited 0. */
export function json(results: BatchResult[], i: number, what: string): any {
  const r = results[i]!;
  expect(r.exitCode, `agent-guard ${what}: ${r.error ?? ''}${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

/** What a probe saw: the state before and after, and the outcome of the entry point. */
export function seen(results: BatchResult[], p: Probe, c: Case): { before: Observed; outcome: Outcome; after: Observed } {
  return { before: observed(results, p.before), outcome: outcome(p.entry, c, results[p.through]!), after: observed(results, p.after) };
}

function payload(h: string, command: string, cwd: string, dialect?: string): string {
  const d = dialect !== undefined ? { dialect } : {};
  if (h === 'copilot') return JSON.stringify({ timestamp: 1, cwd, toolName: 'bash', toolArgs: JSON.stringify({ command }), ...d });
  if (h === 'gemini') return JSON.stringify({ cwd, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command }, ...d });
  // Codex 0.171.0 leaves a tool's workdir out of its payload, and then judges relative targets as in an
  // unknown directory (tests/adapters/harness.test.ts); here it is named, so the decisions compare.
  const workdir = h === 'codex' ? { workdir: cwd } : {};
  return JSON.stringify({ cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, ...workdir }, ...d });
}

/** One case through one entry point, in its own workspace, with exactly `env`. */
function entryStep(entry: string, c: Case, ws: string, env: Record<string, string>): BatchStep {
  const base = { env, exactEnv: true, cwd: ws, timeoutMs: 20_000 };
  if (entry === 'check') {
    const dialect = c.dialect !== undefined ? ['--dialect', c.dialect] : [];
    return { ...base, argv: [process.execPath, BIN, 'check', '--json', ...dialect, '--', c.cmd] };
  }
  if (entry.startsWith('hook-shell')) {
    const shims = env.AGENT_GUARD_SHIMS ? ['--shims'] : [];
    return { ...base, argv: [process.execPath, BIN, 'hook-shell', '--shell', entry.split(' ')[1]!, ...shims, '--cwd', ws, '--', c.cmd] };
  }
  const h = entry.split(' ')[1]!;
  return { ...base, argv: [process.execPath, BIN, 'hook', h], input: payload(h, c.cmd, ws, c.dialect) };
}

/** The outcome an entry point answered with. */
function outcome(entry: string, c: Case, r: BatchResult): Outcome {
  if (entry === 'check') {
    const j = JSON.parse(r.stdout);
    return j.decision === 'ASK' ? ask(j.code) : j.decision === 'BLOCK' ? block(j.code) : run;
  }
  if (entry.startsWith('hook-shell')) {
    if (r.exitCode === 0) return run;
    const m = CODE.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.exitCode).toBe(m![1] === 'ASK' ? 3 : 2);
    return m![1] === 'ASK' ? ask(m![2]!) : block(m![2]!);
  }
  const h = entry.split(' ')[1]!;
  if (h === 'codex' && r.exitCode === 2) {
    // Codex is refused by exit 2 with the reason on stderr (its login shell's stdout cannot break that).
    const m = CODE.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    return m![1] === 'ASK' ? ask(m![2]!) : block(m![2]!);
  }
  expect(r.exitCode, r.stderr).toBe(0);
  if (r.stdout.trim() === '') return run;
  const o = JSON.parse(r.stdout);
  const decision = h === 'gemini' ? o.decision : h === 'copilot' ? o.permissionDecision : o.hookSpecificOutput.permissionDecision;
  const reason: string = h === 'gemini' ? o.reason : h === 'copilot' ? o.permissionDecisionReason : o.hookSpecificOutput.permissionDecisionReason;
  const m = CODE.exec(reason)!;
  // Codex, Gemini and Copilot get a deny for an ASK, whose reason keeps the ASK and its code.
  if (decision === 'ask' || m[1] === 'ASK') return ask(m[2]!);
  return block(m[2]!);
}

/** The outcome of the command itself through the shims (sh -c): a refusal the shims printed, or run. */
export function shimOutcome(r: BatchResult): Outcome {
  const m = CODE.exec(r.stderr);
  return m && /^agent-guard: refused/m.test(r.stderr) ? (m[1] === 'ASK' ? ask(m[2]!) : block(m[2]!)) : run;
}

export function applied(before: State, changes: Record<string, string | null>): State {
  const out = { ...before };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** A conformance test file's sandbox area (made before its tests, its canary checked after them),
 *  its case workspaces and its shims. Call at the top of the file. */
export function conformance(prefix: string) {
  const area = useSandboxArea(prefix);
  const templates = new Map<Case, string>();
  const canary = () => path.join(area.rw(), 'canary');
  const CANARY = 'conformance canary: must survive every case\n';
  let shimDir = '';
  return {
    rw: () => area.rw(),
    /** A fresh workspace `<name>/ws` for case c, with a sibling `outside/` (the target of
     *  `rm -rf ../outside`, which must survive it). Built once per case (git init, commit, the
     *  case's setup) and copied for each entry point. */
    world(name: string, c: Case): string {
      let tpl = templates.get(c);
      if (!tpl) {
        const w = world(path.join(area.rw(), 'templates', String(templates.size)), { files: { 'build/a.o': 'o', 'src/build/': '', 'src/main.c': 'c', 'x.o': 'o', 'tracked.txt': 't\n' } });
        git(w.ws, w.env, 'add', 'tracked.txt');
        git(w.ws, w.env, 'commit', '-qm', 'init');
        fs.writeFileSync(path.join(w.ws, 'tracked.txt'), 'changed\n');
        fs.writeFileSync(path.join(w.ws, 'untracked.txt'), 'u\n');
        for (const a of c.setup ?? []) git(w.ws, w.env, ...a);
        tpl = w.ws;
        templates.set(c, tpl);
      }
      const ws = path.join(area.rw(), name, 'ws');
      fs.cpSync(tpl, ws, { recursive: true, preserveTimestamps: true });
      fs.mkdirSync(path.join(ws, '..', 'outside'));
      fs.writeFileSync(path.join(ws, '..', 'outside', 'keep.txt'), 'outside\n');
      return ws;
    },
    /** The PATH shims (written once, into the area), checker: the built CLI. */
    shims(): string {
      if (!shimDir) {
        shimDir = path.join(area.rw(), 'shims');
        writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
      }
      return shimDir;
    },
    /** The environment of an entry point without the shims: HOME `<name>` (holding the workspace). */
    base: (name: string) => ({ HOME: path.join(area.rw(), name), PATH: SYSTEM_PATH }),
    /** The environment with the shims first on PATH. */
    withShims(home: string): Record<string, string> {
      return { HOME: home, PATH: `${this.shims()}:${SYSTEM_PATH}`, AGENT_GUARD_SHIMS: this.shims() };
    },
    /** Runs a batch in one sandbox. */
    run: (b: Batch): BatchResult[] => runBatchSandboxed(area.rw(), b.steps),
    /** A canary inside the sandbox area (writable there) but outside every workspace and every HOME:
     *  no case, through any entry point or shim, may touch it. Made before the block's tests and
     *  checked after them (whichever tests a filter selected); `intact` for a test of its own. */
    useCanary(): { intact: () => boolean } {
      const intact = () => fs.readdirSync(canary()).join(',') === 'keep.txt' && fs.readFileSync(path.join(canary(), 'keep.txt'), 'utf8') === CANARY;
      beforeAll(() => {
        fs.mkdirSync(canary());
        fs.writeFileSync(path.join(canary(), 'keep.txt'), CANARY);
      });
      afterAll(() => {
        if (!intact()) throw new Error(`the canary ${canary()} (outside every workspace) was changed`);
      });
      return { intact };
    },
  };
}
