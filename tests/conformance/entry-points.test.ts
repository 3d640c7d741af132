// Conformance: the same cases (command + cwd + workspace state) through every entry point — `check`,
// each harness adapter, the bash and zsh hooks' checker (`hook-shell`), and, where the command
// reaches one, the PATH shims — and the same outcome from each: run (ALLOW, or a SAFE decision
// whose compensation was done), ask with the code, or block with the code. Where the shims are
// active, the text entry points defer to them what they will see concretely; that deferral is the
// documented difference (docs/shell-hooks.md) and is asserted as such. A new entry point joins by
// being added to ENTRY_POINTS; the harness list is checked against the adapters' own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { HARNESSES } from '../../src/adapters/harness.js';
import { writeShims } from '../../src/shell/shims.js';

const area = useSandboxArea('ag-conformance');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

type Outcome = { kind: 'run' } | { kind: 'ask' | 'block'; code: string };

interface Case {
  cmd: string;
  /** What check --json says, as an outcome. */
  expect: Outcome;
  /** Through the shims (sh -c, concrete argv), when the command reaches one and they decide
   *  differently from the text (documented deferral): the shims' outcome. */
  shims?: Outcome;
}

const run: Outcome = { kind: 'run' };
const block = (code: string): Outcome => ({ kind: 'block', code });
const ask = (code: string): Outcome => ({ kind: 'ask', code });

const CASES: Case[] = [
  { cmd: 'ls -la', expect: run },
  { cmd: 'rm -rf build', expect: run },
  { cmd: 'rm -rf /', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { cmd: 'rm -rf .git', expect: block('BLOCK_PROTECTED_PATH') },
  { cmd: 'cd src && rm -rf build', expect: ask('COMPOUND_CWD_DELETE') },
  { cmd: 'git push --force origin main', expect: block('BLOCK_FORCE_PUSH') },
  { cmd: 'git clean -fd', expect: run },
  { cmd: 'git reset --hard', expect: run },
  // Unknown as text; concrete for the shims (D is unset: rm -rf "" removes nothing, as rm does).
  { cmd: 'rm -rf "$D"', expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run },
  { cmd: 'rm -rf *.o', expect: block('BLOCK_WILDCARD'), shims: run },
];

/** Every entry point that decides a command. */
const ENTRY_POINTS = ['check', 'hook-shell bash', 'hook-shell zsh', ...HARNESSES.map((h) => `hook ${h}`)] as const;

function world(name: string): string {
  const ws = path.join(area.rw(), name, 'ws');
  fs.mkdirSync(path.join(ws, 'build'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'src', 'build'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'build', 'a.o'), 'o');
  fs.writeFileSync(path.join(ws, 'x.o'), 'o');
  fs.writeFileSync(path.join(ws, 'tracked.txt'), 't\n');
  const git = (...a: string[]) => expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws }).status).toBe(0);
  git('init', '-q', '-b', 'main');
  git('add', 'tracked.txt');
  git('commit', '-qm', 'init');
  fs.writeFileSync(path.join(ws, 'tracked.txt'), 'changed\n');
  fs.writeFileSync(path.join(ws, 'untracked.txt'), 'u\n');
  return ws;
}

function payload(h: string, command: string, cwd: string): string {
  if (h === 'copilot') return JSON.stringify({ timestamp: 1, cwd, toolName: 'bash', toolArgs: JSON.stringify({ command }) });
  if (h === 'gemini') return JSON.stringify({ cwd, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command } });
  return JSON.stringify({ cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
}

const CODE = /\b(ASK|BLOCK) ([A-Z_]+):/;

/** The outcome of one case through one entry point (each in its own fresh workspace). */
function through(entry: string, c: Case, ws: string, env: Record<string, string>): Outcome {
  const envArgs = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
  if (entry === 'check') {
    const r = runSandboxed(area.rw(), [...envArgs, process.execPath, BIN, 'check', '--json', '--', c.cmd], { cwd: ws });
    const j = JSON.parse(r.stdout);
    return j.decision === 'ASK' ? ask(j.code) : j.decision === 'BLOCK' ? block(j.code) : run;
  }
  if (entry.startsWith('hook-shell')) {
    const shell = entry.split(' ')[1]!;
    const shims = env.AGENT_GUARD_SHIMS ? ['--shims'] : [];
    const r = runSandboxed(area.rw(), [...envArgs, process.execPath, BIN, 'hook-shell', '--shell', shell, ...shims, '--cwd', ws, '--', c.cmd], { cwd: ws });
    if (r.exitCode === 0) return run;
    const m = CODE.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.exitCode).toBe(m![1] === 'ASK' ? 3 : 2);
    return m![1] === 'ASK' ? ask(m![2]!) : block(m![2]!);
  }
  const h = entry.split(' ')[1]!;
  const r = runSandboxed(area.rw(), [...envArgs, process.execPath, BIN, 'hook', h], { cwd: ws, input: payload(h, c.cmd, ws) });
  expect(r.exitCode, r.stderr).toBe(0);
  if (r.stdout.trim() === '') return run;
  const o = JSON.parse(r.stdout);
  const decision = h === 'gemini' ? o.decision : h === 'copilot' ? o.permissionDecision : o.hookSpecificOutput.permissionDecision;
  const reason: string = h === 'gemini' ? o.reason : h === 'copilot' ? o.permissionDecisionReason : o.hookSpecificOutput.permissionDecisionReason;
  const m = CODE.exec(reason)!;
  // Gemini and Copilot cannot ask: an ASK is a deny there whose reason keeps the ASK and its code.
  if (decision === 'ask' || m[1] === 'ASK') return ask(m[2]!);
  return block(m[2]!);
}

it('every harness the adapters know is an entry point of this suite', () => {
  for (const h of HARNESSES) expect(ENTRY_POINTS).toContain(`hook ${h}`);
});

describeSandboxed('conformance: one outcome per case, whatever the entry point', () => {
  const base = (name: string) => ({ HOME: path.join(area.rw(), name), PATH: SYSTEM_PATH });
  CASES.forEach((c, i) => {
    itSandboxed(`${c.cmd}: ${c.expect.kind}${'code' in c.expect ? ` ${c.expect.code}` : ''} through ${ENTRY_POINTS.join(', ')}`, () => {
      for (const [j, entry] of ENTRY_POINTS.entries()) {
        const ws = world(`c${i}-e${j}`);
        expect({ entry, outcome: through(entry, c, ws, base(`c${i}-e${j}`)) }).toEqual({ entry, outcome: c.expect });
      }
    }, 120_000);
  });

  itSandboxed('with the shims first on PATH: the text entry points defer what the shims see, and the shims decide it on the concrete argv', () => {
    const shimDir = path.join(area.rw(), 'shims');
    if (!fs.existsSync(shimDir)) writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: fileURLToPath(new URL('../../shims/shim.sh', import.meta.url)) });
    CASES.forEach((c, i) => {
      const env = { HOME: path.join(area.rw(), `s${i}`), PATH: `${shimDir}:${SYSTEM_PATH}`, AGENT_GUARD_SHIMS: shimDir };
      const want = c.shims ?? c.expect;
      for (const entry of ENTRY_POINTS.filter((e) => e !== 'check')) {
        const ws = world(`s${i}-${entry.replace(/\W+/g, '-')}`);
        // The text check defers (runs) exactly the cases the shims will decide differently.
        const got = through(entry, c, ws, env);
        expect({ entry, cmd: c.cmd, got }).toEqual({ entry, cmd: c.cmd, got: c.shims ? run : c.expect });
      }
      // The command itself through sh -c (no hook): the shims' own outcome.
      if (c.shims || /^(rm|git|find) /.test(c.cmd)) {
        const ws = world(`s${i}-shim`);
        const r = runSandboxed(area.rw(), ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'sh', '-c', c.cmd], { cwd: ws });
        const m = CODE.exec(r.stderr);
        const got: Outcome = m && /^agent-guard: refused/m.test(r.stderr) ? (m[1] === 'ASK' ? ask(m[2]!) : block(m[2]!)) : run;
        // Line shapes (cd … && rm) are not the shims' to see: only the rm after the cd reaches one.
        if (c.expect.kind === 'ask') expect(got.kind).not.toBe('ask');
        else expect({ cmd: c.cmd, got }).toEqual({ cmd: c.cmd, got: want });
      }
    });
  }, 300_000);
});
