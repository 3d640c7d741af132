// The harness adapters with recorded payloads (the fields each harness documents), through the
// built CLI, in the read-only sandbox: a SAFE decision is compensated and answered with silence,
// ASK and BLOCK in each harness's own format, bad input and crashes refuse with exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world as makeWorld, type World } from '../helpers/world.js';
import { registeredCommand } from '../../src/adapters/install.js';

const area = useSandboxArea('ag-harness');

type Harness = 'claude' | 'codex' | 'gemini' | 'copilot';
const HARNESSES: Harness[] = ['claude', 'codex', 'gemini', 'copilot'];

/** A payload as the harness sends it for its shell tool (or another tool). */
function payload(h: Harness, command: unknown, cwd: string, tool?: string): string {
  switch (h) {
    case 'claude':
      return JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool ?? 'Bash', tool_input: { command, description: 'run it' }, tool_use_id: 'toolu_1' });
    case 'codex':
      return JSON.stringify({ session_id: 's1', turn_id: 't1', transcript_path: null, cwd, hook_event_name: 'PreToolUse', model: 'gpt', permission_mode: 'default', tool_name: tool ?? 'Bash', tool_input: { command }, tool_use_id: 'c1' });
    case 'gemini':
      return JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.json', cwd, hook_event_name: 'BeforeTool', timestamp: '2026-12-02T15:00:00Z', tool_name: tool ?? 'run_shell_command', tool_input: { command, description: 'run it' }, mcp_context: null });
    case 'copilot':
      return JSON.stringify({ timestamp: 1764687600000, cwd, toolName: tool ?? 'bash', toolArgs: JSON.stringify({ command, description: 'run it' }) });
  }
}

/** The refusal in the answer: 'deny' | 'ask' | null (nothing printed). */
function verdict(h: Harness, stdout: string): { decision: string | null; reason: string } {
  if (stdout.trim() === '') return { decision: null, reason: '' };
  const o = JSON.parse(stdout);
  if (h === 'gemini') return { decision: o.decision, reason: o.reason };
  if (h === 'copilot') {
    expect(o.hookSpecificOutput.permissionDecision).toBe(o.permissionDecision);
    return { decision: o.permissionDecision, reason: o.permissionDecisionReason };
  }
  expect(o.hookSpecificOutput.hookEventName).toBe('PreToolUse');
  return { decision: o.hookSpecificOutput.permissionDecision, reason: o.hookSpecificOutput.permissionDecisionReason };
}

/** A refusal of a call that could not be checked: exit 2 and a reason on stderr; for Copilot (which acts on
 *  a deny on stdout, not on an exit status) its deny answer with the reason on stderr too. */
function expectFailureRefused(h: Harness, r: { exitCode: number; stdout: string; stderr: string }, what: string): void {
  expect(r.stderr, what).toMatch(/^agent-guard: refused: /);
  if (h === 'copilot') {
    expect(r.exitCode, what).toBe(0);
    expect(verdict(h, r.stdout).decision, what).toBe('deny');
  } else {
    expect(r.exitCode, what).toBe(2);
    expect(r.stdout, what).toBe('');
  }
}

const world = (name: string): World => makeWorld(path.join(area.rw(), name), { files: { 'build/o.o': 'o', 'src/build/': '' } });

function hook(h: Harness, input: string, w: World, opts: { env?: Record<string, string>; preload?: string } = {}) {
  const env = { HOME: w.home, PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...opts.env };
  const node = [process.execPath, ...(opts.preload ? ['--require', opts.preload] : []), BIN, 'hook', h];
  return runSandboxed(area.rw(), ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...node], { cwd: '/', input, timeoutMs: 60_000 });
}

describeSandboxed('harness adapters: recorded payloads through `agent-guard hook <harness>`', () => {
  for (const h of HARNESSES) {
    itSandboxed(`${h}: SAFE is compensated and silent; BLOCK denies; ASK asks (or denies where the harness cannot ask); other tools pass`, () => {
      const w = world(`${h}-decisions`);
      const safe = hook(h, payload(h, 'rm -rf build', w.ws), w);
      expect(safe.exitCode, safe.stderr).toBe(0);
      expect(safe.stdout).toBe('');
      expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false); // quarantined: the harness now runs rm, which finds nothing
      expect(fs.readdirSync(path.join(w.ws, '.agent-trash')).some((n) => /^\d{8}T/.test(n))).toBe(true);

      const block = hook(h, payload(h, 'rm -rf /', w.ws), w);
      expect(block.exitCode).toBe(0);
      expect(verdict(h, block.stdout).decision).toBe('deny');
      expect(verdict(h, block.stdout).reason).toMatch(/^agent-guard: BLOCK BLOCK_PROTECTED_ANCESTOR: /);

      const ask = hook(h, payload(h, 'cd src && rm -rf build', w.ws), w);
      expect(ask.exitCode).toBe(0);
      // Only Claude has a usable "ask" (Codex 0.171.0 takes one for a failed hook and runs the tool):
      // elsewhere a deny whose reason names a one-time grant (docs/grants.md).
      expect(verdict(h, ask.stdout).decision).toBe(h === 'claude' ? 'ask' : 'deny');
      expect(verdict(h, ask.stdout).reason).toMatch(/ASK COMPOUND_CWD_DELETE/);
      if (h !== 'claude') expect(verdict(h, ask.stdout).reason).toMatch(/`agent-guard allow [a-z2-9]{8}`/);
      expect(fs.existsSync(path.join(w.ws, 'src', 'build'))).toBe(true);

      const ls = hook(h, payload(h, 'ls -la', w.ws), w);
      expect([ls.exitCode, ls.stdout]).toEqual([0, '']);
      const other = hook(h, payload(h, 'rm -rf /', w.ws, h === 'gemini' ? 'read_file' : h === 'copilot' ? 'view' : 'Read'), w);
      expect([other.exitCode, other.stdout]).toEqual([0, '']);
    });

    itSandboxed(`${h}: malformed JSON, a missing command, a crash in the engine: refused with a reason (exit 2; Copilot: its deny answer), never the status that lets the tool run`, () => {
      const w = world(`${h}-bad`);
      for (const bad of ['{not json', '[]', '""', h === 'copilot' ? JSON.stringify({ toolName: 'bash', toolArgs: '{oops' }) : JSON.stringify({ tool_name: h === 'gemini' ? 'run_shell_command' : 'Bash', tool_input: {} })]) {
        const r = hook(h, bad, w);
        expectFailureRefused(h, r, bad);
      }
      const missing = hook(h, payload(h, undefined, w.ws), w);
      expectFailureRefused(h, missing, 'missing command');
      // A crash inside the engine on a destructive command (every path operation throws): refused.
      const crash = path.join(area.rw(), 'crash.cjs');
      // (patched once the bundle is loaded: Node needs these to start it)
      fs.writeFileSync(crash, "process.nextTick(() => { Array.prototype.some = function () { throw new Error('injected crash'); }; });\n");
      const crashed = hook(h, payload(h, 'rm -rf build', w.ws), w, { preload: crash });
      const refusedByJson = crashed.exitCode === 0 && verdict(h, crashed.stdout).decision === 'deny';
      expect(refusedByJson || crashed.exitCode === 2, crashed.stdout + crashed.stderr).toBe(true);
      expect(fs.existsSync(path.join(w.ws, 'build', 'o.o'))).toBe(true);
      // A crash that takes the stdin read down: exit 2.
      const stdinCrash = path.join(area.rw(), 'stdin-crash.cjs');
      fs.writeFileSync(stdinCrash, "const fs = require('fs'); process.nextTick(() => { const orig = fs.readFileSync; fs.readFileSync = (p, ...a) => { if (p === 0) throw new Error('injected'); return orig(p, ...a); }; });\n");
      const r2 = hook(h, payload(h, 'rm -rf build', w.ws), w, { preload: stdinCrash });
      expectFailureRefused(h, r2, 'stdin crash');
    });

    itSandboxed(`${h}: a huge command is decided, not dropped`, () => {
      const w = world(`${h}-huge`);
      const huge = `echo ${'a'.repeat(256 * 1024)} > /dev/null && rm -rf /`;
      const r = hook(h, payload(h, huge, w.ws), w);
      expect(r.exitCode, r.stderr.slice(0, 300)).toBe(0);
      expect(verdict(h, r.stdout).decision).toBe('deny');
    });
  }

  itSandboxed('the dialect comes from the payload (its own field, the tool arguments, the tool name), then AGENT_GUARD_DIALECT; a bad one is refused', () => {
    const w = world('dialects');
    const withField = (h: Harness, command: string, dialect: unknown, where: 'top' | 'args'): string => {
      const p = JSON.parse(payload(h, command, w.ws));
      if (where === 'top') p.dialect = dialect;
      else if (h === 'copilot') p.toolArgs = JSON.stringify({ ...JSON.parse(p.toolArgs), dialect });
      else p.tool_input.dialect = dialect;
      return JSON.stringify(p);
    };
    const codeOf = (h: Harness, stdout: string): string | null => /(?:BLOCK|ASK) ([A-Z_]+):/.exec(verdict(h, stdout).reason)?.[1] ?? null;
    for (const h of HARNESSES) {
      const top = hook(h, withField(h, 'rd /s /q C:\\', 'cmd', 'top'), w);
      expect([top.exitCode, codeOf(h, top.stdout)], `${h} top-level dialect`).toEqual([0, 'BLOCK_PROTECTED_ANCESTOR']);
      const args = hook(h, withField(h, 'Remove-Item -Recurse C:\\', 'pwsh', 'args'), w);
      expect([args.exitCode, codeOf(h, args.stdout)], `${h} dialect in the tool arguments`).toEqual([0, 'BLOCK_PROTECTED_ANCESTOR']);
      for (const [bad, code] of [[['posix'], 'BLOCK_DIALECT_INVALID'], [null, 'BLOCK_DIALECT_INVALID'], ['posix:cmd', 'BLOCK_DIALECT_INVALID'], ['fish', 'BLOCK_DIALECT_UNKNOWN']] as const) {
        const r = hook(h, withField(h, 'ls', bad, 'top'), w);
        expect([r.exitCode, codeOf(h, r.stdout)], `${h} ${JSON.stringify(bad)}`).toEqual([0, code]);
      }
      // From the environment when the payload says nothing (not for a tool whose name says it).
      const env = hook(h, payload(h, 'rd /s /q C:\\', w.ws), w, { env: { AGENT_GUARD_DIALECT: 'cmd' } });
      expect(codeOf(h, env.stdout), `${h} AGENT_GUARD_DIALECT`).toBe(h === 'claude' || h === 'copilot' ? 'BLOCK_UNDETERMINABLE_EFFECT' : 'BLOCK_PROTECTED_ANCESTOR');
    }
    // The tool name: Claude Code's PowerShell tool, Copilot's powershell tool. A SAFE decision is
    // compensated here and not left to the POSIX shims, which never see a cmdlet.
    const shimDir = path.join(w.home, 'shims');
    fs.mkdirSync(shimDir, { recursive: true });
    fs.writeFileSync(path.join(shimDir, '.agent-guard-shims'), '');
    const shims = { AGENT_GUARD_SHIMS: shimDir, PATH: `${shimDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin` };
    const ps = hook('claude', payload('claude', 'Remove-Item -Recurse -Force build', w.ws, 'PowerShell'), w, { env: shims });
    expect([ps.exitCode, ps.stdout], ps.stderr).toEqual([0, '']);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
    const cp = hook('copilot', payload('copilot', 'Remove-Item -Recurse C:\\', w.ws, 'powershell'), w);
    expect(codeOf('copilot', cp.stdout)).toBe('BLOCK_PROTECTED_ANCESTOR');
  }, 180_000);

  itSandboxed('the registered hook command refuses when agent-guard cannot run at all (missing, failing, killed)', () => {
    const w = world('fallback');
    const dir = path.join(w.home, 'broken');
    fs.mkdirSync(dir);
    const script = (name: string, body: string): string => {
      const f = path.join(dir, name, 'agent-guard');
      fs.mkdirSync(path.dirname(f));
      fs.writeFileSync(f, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return f;
    };
    const runners = [path.join(dir, 'missing', 'agent-guard'), script('fails', 'exit 1'), script('killed', 'kill -9 $$'), script('no-node', 'exec /nonexistent/node "$@"')];
    const env = ['env', '-i', `HOME=${w.home}`, 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
    for (const h of HARNESSES) {
      for (const runner of runners) {
        const cmd = registeredCommand(h, `${runner} hook ${h}`);
        const r = runSandboxed(area.rw(), [...env, 'sh', '-c', cmd], { cwd: w.ws, input: payload(h, 'rm -rf build', w.ws), timeoutMs: 30_000 });
        expect(r.stderr, `${h} ${runner}`).toMatch(/agent-guard: the hook could not run \(status \d+\)/);
        if (h === 'copilot') {
          expect([r.exitCode, verdict(h, r.stdout).decision], runner).toEqual([0, 'deny']);
        } else {
          expect([r.exitCode, r.stdout], runner).toEqual([2, '']);
        }
      }
      // The working hook is unchanged by its fallback: its own answers pass through, and a refusal it
      // reports itself is not doubled.
      const real = registeredCommand(h, `'${process.execPath}' '${BIN}' hook ${h}`);
      const ok = runSandboxed(area.rw(), [...env, 'sh', '-c', real], { cwd: w.ws, input: payload(h, 'rm -rf /', w.ws), timeoutMs: 60_000 });
      expect([ok.exitCode, verdict(h, ok.stdout).decision]).toEqual([0, 'deny']);
      const bad = runSandboxed(area.rw(), [...env, 'sh', '-c', real], { cwd: w.ws, input: '{not json', timeoutMs: 60_000 });
      expectFailureRefused(h, bad, 'through the registered command');
      expect(bad.stderr).not.toMatch(/could not run/);
    }
    expect(fs.existsSync(path.join(w.ws, 'build', 'o.o'))).toBe(true);
  });

  itSandboxed('with the PATH shims first on PATH, what they will see concretely is left to them', () => {
    const w = world('shims');
    const shimDir = path.join(w.home, 'shims');
    fs.mkdirSync(shimDir);
    fs.writeFileSync(path.join(shimDir, '.agent-guard-shims'), '');
    const env = { AGENT_GUARD_SHIMS: shimDir, PATH: `${shimDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin` };
    const r = hook('claude', payload('claude', 'rm -rf "$D"', w.ws), w, { env });
    expect([r.exitCode, r.stdout]).toEqual([0, '']);
    const bypass = hook('claude', payload('claude', 'command -p rm -rf "$D"', w.ws), w, { env });
    expect(verdict('claude', bypass.stdout).decision).toBe('deny');
  });
});

describeSandboxed('agent-guard hook install, and doctor reporting it', () => {
  itSandboxed('install merges the hook (the same agent-guard), doctor reports it, remove takes it out', () => {
    const w = world('install');
    const env = ['env', '-i', `HOME=${w.home}`, 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `XDG_CACHE_HOME=${path.join(w.home, '.cache')}`];
    const cli = (args: string[]) => runSandboxed(area.rw(), [...env, process.execPath, BIN, ...args], { cwd: w.ws, timeoutMs: 60_000 });
    fs.mkdirSync(path.join(w.ws, '.claude'));
    fs.writeFileSync(path.join(w.ws, '.claude', 'settings.json'), JSON.stringify({ model: 'x', hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'other' }] }] } }));
    const r = cli(['hook', 'install', 'claude', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res).toMatchObject({ harness: 'claude', scope: 'project', changed: true });
    const settings = JSON.parse(fs.readFileSync(path.join(w.ws, '.claude', 'settings.json'), 'utf8'));
    expect(settings.model).toBe('x');
    expect(settings.hooks.PreToolUse.map((g: any) => g.matcher)).toEqual(['Read', 'Bash']);
    // The registered command is a working hook.
    const cmd: string = settings.hooks.PreToolUse[1].hooks[0].command;
    const hooked = runSandboxed(area.rw(), [...env, 'sh', '-c', cmd], { cwd: w.ws, input: payload('claude', 'rm -rf /', w.ws), timeoutMs: 60_000 });
    expect(verdict('claude', hooked.stdout).decision).toBe('deny');
    expect(cli(['hook', 'install', 'claude', '--json']).stdout).toMatch(/"changed":false/);
    const doctor = JSON.parse(cli(['doctor', '--json']).stdout);
    expect(doctor.checks.find((c: any) => c.id === 'harness.claude').status).toBe('ok');
    expect(doctor.checks.find((c: any) => c.id === 'harness.gemini').status).toBe('info'); // not installed
    expect(cli(['hook', 'install', 'claude', '--remove', '--json']).exitCode).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(w.ws, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse.map((g: any) => g.matcher)).toEqual(['Read']);
    expect(cli(['hook', 'install', 'copilot', '--user']).exitCode).toBe(1);
    expect(cli(['hook', 'install', 'nothing']).exitCode).toBe(1);
  });
});
