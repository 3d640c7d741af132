// The harness adapters with recorded payloads (the fields each harness documents), through the
// built CLI, in the read-only sandbox: a SAFE decision is compensated and answered with silence,
// ASK and BLOCK in each harness's own format, bad input and crashes refuse with exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world as makeWorld, type World } from '../helpers/world.js';
import { registeredCommand } from '../../src/harness/install.js';
import { codexHookHash } from '../../src/harness/codex-trust.js';

const area = useSandboxArea('ag-harness');

type Harness = 'claude' | 'codex' | 'gemini' | 'copilot';
const HARNESSES: Harness[] = ['claude', 'codex', 'gemini', 'copilot'];
/** The exit status of a decided refusal (BLOCK, or an ASK as a deny): Codex 2 (reason on stderr), the others 0. */
const REFUSED: Record<Harness, number> = { claude: 0, codex: 2, gemini: 0, copilot: 0 };

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

/** The refusal in the answer: 'deny' | 'ask' | null (nothing printed). Codex is answered by exit 2 with the
 *  reason on stderr (a login profile's stdout noise cannot break that), the others by JSON on stdout. */
function verdict(h: Harness, r: { exitCode: number; stdout: string; stderr: string }): { decision: string | null; reason: string } {
  if (h === 'codex') {
    expect(r.stdout).toBe('');
    if (r.exitCode === 0) return { decision: null, reason: '' };
    expect(r.exitCode).toBe(2);
    return { decision: 'deny', reason: r.stderr.trim() };
  }
  const stdout = r.stdout;
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
    expect(verdict(h, r).decision, what).toBe('deny');
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
      const safe = hook(h, payload(h, h === 'codex' ? `rm -rf ${w.ws}/build` : 'rm -rf build', w.ws), w);
      expect(safe.exitCode, safe.stderr).toBe(0);
      expect(safe.stdout).toBe('');
      expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false); // quarantined: the harness now runs rm, which finds nothing
      expect(fs.readdirSync(path.join(w.ws, '.agent-trash')).some((n) => /^\d{8}T/.test(n))).toBe(true);

      const block = hook(h, payload(h, 'rm -rf /', w.ws), w);
      expect(block.exitCode).toBe(REFUSED[h]);
      expect(verdict(h, block).decision).toBe('deny');
      expect(verdict(h, block).reason).toMatch(/^agent-guard: BLOCK BLOCK_PROTECTED_ANCESTOR: /);

      // For Codex absolute targets: its payload does not say where its command runs, so only what does not
      // depend on the directory is decided (and compensated) there (the next test).
      const ask = hook(h, payload(h, h === 'codex' ? `cd ${w.ws}/src && rm -rf ${w.ws}/src/build` : 'cd src && rm -rf build', w.ws), w);
      expect(ask.exitCode).toBe(REFUSED[h]);
      // Only Claude has a usable "ask" (Codex 0.171.0 takes one for a failed hook and runs the tool):
      // elsewhere a deny whose reason names a one-time grant (docs/grants.md).
      expect(verdict(h, ask).decision).toBe(h === 'claude' ? 'ask' : 'deny');
      expect(verdict(h, ask).reason).toMatch(/ASK COMPOUND_CWD_DELETE/);
      if (h !== 'claude') expect(verdict(h, ask).reason).toMatch(/`agent-guard allow [a-z2-9]{8}`/);
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
      const refusedByJson = crashed.exitCode === 0 && crashed.stdout !== '' && verdict(h, crashed).decision === 'deny';
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
      expect(r.exitCode, r.stderr.slice(0, 300)).toBe(REFUSED[h]);
      expect(verdict(h, r).decision).toBe('deny');
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
    const codeOf = (h: Harness, r: { exitCode: number; stdout: string; stderr: string }): string | null => /(?:BLOCK|ASK) ([A-Z_]+):/.exec(verdict(h, r).reason)?.[1] ?? null;
    for (const h of HARNESSES) {
      const top = hook(h, withField(h, 'rd /s /q C:\\', 'cmd', 'top'), w);
      expect([top.exitCode, codeOf(h, top)], `${h} top-level dialect`).toEqual([REFUSED[h], 'BLOCK_PROTECTED_ANCESTOR']);
      const args = hook(h, withField(h, 'Remove-Item -Recurse C:\\', 'pwsh', 'args'), w);
      expect([args.exitCode, codeOf(h, args)], `${h} dialect in the tool arguments`).toEqual([REFUSED[h], 'BLOCK_PROTECTED_ANCESTOR']);
      for (const [bad, code] of [[['posix'], 'BLOCK_DIALECT_INVALID'], [null, 'BLOCK_DIALECT_INVALID'], ['posix:cmd', 'BLOCK_DIALECT_INVALID'], ['fish', 'BLOCK_DIALECT_UNKNOWN']] as const) {
        const r = hook(h, withField(h, 'ls', bad, 'top'), w);
        expect([r.exitCode, codeOf(h, r)], `${h} ${JSON.stringify(bad)}`).toEqual([REFUSED[h], code]);
      }
      // From the environment when the payload says nothing (not for a tool whose name says it).
      const env = hook(h, payload(h, 'rd /s /q C:\\', w.ws), w, { env: { AGENT_GUARD_DIALECT: 'cmd' } });
      expect(codeOf(h, env), `${h} AGENT_GUARD_DIALECT`).toBe(h === 'claude' || h === 'copilot' ? 'BLOCK_UNDETERMINABLE_EFFECT' : 'BLOCK_PROTECTED_ANCESTOR');
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
    expect(codeOf('copilot', cp)).toBe('BLOCK_PROTECTED_ANCESTOR');
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
          expect([r.exitCode, verdict(h, r).decision], runner).toEqual([0, 'deny']);
        } else {
          expect([r.exitCode, r.stdout], runner).toEqual([2, '']);
        }
      }
      // The working hook is unchanged by its fallback: its own answers pass through, and a refusal it
      // reports itself is not doubled.
      const real = registeredCommand(h, `'${process.execPath}' '${BIN}' hook ${h}`);
      const ok = runSandboxed(area.rw(), [...env, 'sh', '-c', real], { cwd: w.ws, input: payload(h, 'rm -rf /', w.ws), timeoutMs: 60_000 });
      expect([ok.exitCode, verdict(h, ok).decision]).toEqual([REFUSED[h], 'deny']);
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
    expect(verdict('claude', bypass).decision).toBe('deny');
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
    expect(verdict('claude', hooked).decision).toBe('deny');
    expect(cli(['hook', 'install', 'claude', '--json']).stdout).toMatch(/"changed":false/);
    const doctor = JSON.parse(cli(['doctor', '--json']).stdout);
    expect(doctor.checks.find((c: any) => c.id === 'harness.claude').status).toBe('ok');
    expect(doctor.checks.find((c: any) => c.id === 'harness.gemini').status).toBe('info'); // not installed
    expect(cli(['hook', 'install', 'claude', '--remove', '--json']).exitCode).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(w.ws, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse.map((g: any) => g.matcher)).toEqual(['Read']);
    // Copilot's personal hooks (<COPILOT_HOME or ~/.copilot>/hooks, 0.0.422+): --user works.
    const cp = cli(['hook', 'install', 'copilot', '--user', '--json']);
    expect(cp.exitCode, cp.stderr).toBe(0);
    expect(JSON.parse(cp.stdout)).toMatchObject({ harness: 'copilot', scope: 'user', changed: true, file: path.join(w.home, '.copilot', 'hooks', 'agent-guard.json') });
    expect(JSON.parse(fs.readFileSync(path.join(w.home, '.copilot', 'hooks', 'agent-guard.json'), 'utf8')).hooks.preToolUse[0].bash).toMatch(/ hook copilot \|\| /);
    expect(JSON.parse(cli(['doctor', '--json']).stdout).checks.find((c: any) => c.id === 'harness.copilot')).toMatchObject({ status: 'ok', detail: expect.stringContaining('user: ') });
    expect(cli(['hook', 'install', 'nothing']).exitCode).toBe(1);
  });
});

describeSandboxed('the harnesses as their real code has them (Codex 0.171.0, Gemini CLI 0.61.0, Claude Code 2.1.332, Copilot CLI 1.0.102)', () => {
  itSandboxed("Codex: no workdir in the payload, so a relative target is refused (absolute ones are compensated), left to the shims under `agent-guard run`; a workdir, when sent, is honoured", () => {
    const w = world('codex-cwd');
    const rel = hook('codex', payload('codex', 'rm -rf build', w.ws), w);
    expect(rel.exitCode).toBe(2);
    expect(rel.stderr).toMatch(/^agent-guard: BLOCK BLOCK_UNDETERMINABLE_EFFECT: .*build is relative to a directory that is not known.*use absolute paths, or start Codex under `agent-guard run`/);
    expect(fs.existsSync(path.join(w.ws, 'build', 'o.o'))).toBe(true);
    for (const text of ['git clean -fdx', 'cd src && rm -rf build', 'find . -name "*.o" -delete']) {
      const r = hook('codex', payload('codex', text, w.ws), w);
      expect([r.exitCode, text]).toEqual([2, text]);
    }
    expect(fs.existsSync(path.join(w.ws, 'src', 'build'))).toBe(true);
    // With the shims first on PATH they see the real directory: the relative target is theirs.
    const shimDir = path.join(w.home, 'shims');
    fs.mkdirSync(shimDir);
    fs.writeFileSync(path.join(shimDir, '.agent-guard-shims'), '');
    const shimmed = hook('codex', payload('codex', 'rm -rf build', w.ws), w, { env: { AGENT_GUARD_SHIMS: shimDir, PATH: `${shimDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin` } });
    expect([shimmed.exitCode, shimmed.stdout, shimmed.stderr]).toEqual([0, '', '']);
    expect(fs.existsSync(path.join(w.ws, 'build', 'o.o'))).toBe(true); // nothing done here: the shim does it
    // A payload that names the tool's workdir (not sent by 0.171.0): the target is judged there.
    const p = JSON.parse(payload('codex', 'rm -rf build', w.ws));
    p.tool_input.workdir = 'src';
    const wd = hook('codex', JSON.stringify(p), w);
    expect([wd.exitCode, wd.stderr]).toEqual([0, '']);
    expect(fs.existsSync(path.join(w.ws, 'src', 'build'))).toBe(false);
    expect(fs.existsSync(path.join(w.ws, 'build', 'o.o'))).toBe(true);
  });

  itSandboxed('Gemini: the command runs in tool_input.dir_path (resolved against the payload cwd), so that is where it is judged and compensated', () => {
    const w = world('gemini-dir');
    fs.mkdirSync(path.join(w.ws, 'src', 'build', 'deep'), { recursive: true });
    const r = hook('gemini', payload('gemini', 'rm -rf build', w.ws).replace('"description":"run it"', '"description":"run it","dir_path":"src"'), w);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(fs.existsSync(path.join(w.ws, 'src', 'build'))).toBe(false);
    expect(fs.readFileSync(path.join(w.ws, 'build', 'o.o'), 'utf8')).toBe('o');
    const abs = hook('gemini', JSON.stringify({ ...JSON.parse(payload('gemini', 'rm -rf ..', w.ws)), tool_input: { command: 'rm -rf ..', dir_path: path.join(w.ws, 'build') } }), w);
    expect(verdict('gemini', abs).decision).toBe('deny'); // `..` of <ws>/build is the workspace root
    const bad = hook('gemini', JSON.stringify({ ...JSON.parse(payload('gemini', 'ls', w.ws)), tool_input: { command: 'ls', dir_path: ['src'] } }), w);
    expect([bad.exitCode, bad.stderr]).toEqual([2, expect.stringMatching(/^agent-guard: refused: the tool's dir_path is not a string/)]);
  });

  itSandboxed("Claude Code: the Monitor tool runs a shell command (a `*` matcher shows it under its own name)", () => {
    const w = world('claude-monitor');
    const monitor = (command: string) =>
      JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: w.ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Monitor', tool_input: { command, description: 'watch the build', persistent: false }, tool_use_id: 'toolu_1' });
    const r = hook('claude', monitor('while sleep 1; do rm -rf /; done'), w);
    expect(verdict('claude', r)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/BLOCK_PROTECTED_ANCESTOR/) });
    const safe = hook('claude', monitor('rm -rf build; tail -f log'), w);
    expect([safe.exitCode, safe.stdout]).toEqual([0, '']);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
  });

  itSandboxed("Copilot: write_bash / write_powershell input is checked as a command line of a shell whose directory is not known", () => {
    const w = world('copilot-write');
    const write = (tool: string, input: string) => JSON.stringify({ timestamp: 1764687600000, cwd: w.ws, toolName: tool, toolArgs: JSON.stringify({ shellId: 'shell-1', input, delay: 10 }) });
    const root = hook('copilot', write('write_bash', 'rm -rf /\n'), w);
    expect(verdict('copilot', root)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/BLOCK_PROTECTED_ANCESTOR/) });
    const rel = hook('copilot', write('write_bash', 'rm -rf build\n'), w);
    expect(verdict('copilot', rel)).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/BLOCK_UNDETERMINABLE_EFFECT: .*directory of the shell this text is typed into is not known/) });
    const ps = hook('copilot', write('write_powershell', 'Remove-Item -Recurse -Force C:\\\r\n'), w);
    expect(verdict('copilot', ps).decision).toBe('deny');
    for (const input of ['y\n', 'q', '\u0003']) {
      const r = hook('copilot', write('write_bash', input), w);
      expect([r.exitCode, r.stdout, JSON.stringify(input)]).toEqual([0, '', JSON.stringify(input)]);
    }
    const abs = hook('copilot', write('write_bash', `rm -rf ${w.ws}/build\n`), w);
    expect([abs.exitCode, abs.stdout]).toEqual([0, '']);
    expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
    const none = hook('copilot', JSON.stringify({ cwd: w.ws, toolName: 'write_bash', toolArgs: JSON.stringify({ shellId: 'shell-1' }) }), w);
    expect(verdict('copilot', none).decision).toBe('deny');
    expect(none.stderr).toMatch(/the write_bash call has no input string/);
  });
});

describeSandboxed('hook install and doctor: what each harness needs beyond the entry', () => {
  itSandboxed("Claude: onFailure \"block\" by the installed version (read from its files, never run); --user honours CLAUDE_CONFIG_DIR", () => {
    const w = world('claude-version');
    const cli = (args: string[], extra: string[] = []) =>
      runSandboxed(area.rw(), ['env', '-i', `HOME=${w.home}`, `PATH=${w.home}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, ...extra, process.execPath, BIN, ...args], { cwd: w.ws, timeoutMs: 60_000 });
    const entry = () => JSON.parse(fs.readFileSync(path.join(w.ws, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse[0].hooks[0];
    const none = cli(['hook', 'install', 'claude', '--json']);
    expect(JSON.parse(none.stdout).notes[0]).toMatch(/^no Claude Code installation found on PATH: onFailure "block" not written/);
    expect(entry().onFailure).toBeUndefined();
    // The native installer's layout: ~/.local/bin/claude -> ~/.local/share/claude/versions/<version>.
    const fake = (version: string): void => {
      const bin = path.join(w.home, '.local', 'share', 'claude', 'versions', version);
      fs.mkdirSync(path.dirname(bin), { recursive: true });
      fs.writeFileSync(bin, '#!/bin/sh\necho "this must never run" >&2; exit 99\n', { mode: 0o755 });
      fs.mkdirSync(path.join(w.home, 'bin'), { recursive: true });
      fs.rmSync(path.join(w.home, 'bin', 'claude'), { force: true });
      fs.symlinkSync(bin, path.join(w.home, 'bin', 'claude'));
    };
    fake('2.1.300');
    const old = cli(['hook', 'install', 'claude']);
    expect(old.stdout).toMatch(/note: Claude Code 2\.1\.300 is older than 2\.1\.332: onFailure "block" not written/);
    expect(entry().onFailure).toBeUndefined();
    fake('2.1.332');
    const cur = cli(['hook', 'install', 'claude', '--json']);
    expect(JSON.parse(cur.stdout)).toMatchObject({ changed: true, notes: [expect.stringMatching(/^Claude Code 2\.1\.332: onFailure "block" written/)] });
    expect(entry()).toMatchObject({ type: 'command', timeout: 30, onFailure: 'block' });
    // An npm install: the package.json of @anthropic-ai/claude-code above its bin/claude.exe.
    const pkg = path.join(w.home, 'npm', 'lib', 'node_modules', '@anthropic-ai', 'claude-code');
    fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@anthropic-ai/claude-code', version: '2.2.0' }));
    fs.writeFileSync(path.join(pkg, 'bin', 'claude.exe'), '#!/bin/sh\nexit 99\n', { mode: 0o755 });
    fs.rmSync(path.join(w.home, 'bin', 'claude'));
    fs.symlinkSync(path.join(pkg, 'bin', 'claude.exe'), path.join(w.home, 'bin', 'claude'));
    expect(JSON.parse(cli(['hook', 'install', 'claude', '--json']).stdout).notes[0]).toMatch(/^Claude Code 2\.2\.0: onFailure "block" written/);
    // --user with CLAUDE_CONFIG_DIR: that directory's settings.json, and doctor looks there too.
    const cfg = path.join(w.home, 'claude-config');
    const user = cli(['hook', 'install', 'claude', '--user', '--json'], [`CLAUDE_CONFIG_DIR=${cfg}`]);
    expect(JSON.parse(user.stdout).file).toBe(path.join(cfg, 'settings.json'));
    expect(fs.existsSync(path.join(w.home, '.claude'))).toBe(false);
    const doctor = JSON.parse(cli(['doctor', '--json'], [`CLAUDE_CONFIG_DIR=${cfg}`]).stdout);
    expect(doctor.checks.find((c: any) => c.id === 'harness.claude').detail).toContain(`user: ${path.join(cfg, 'settings.json')}`);
  });

  itSandboxed("Codex: install says the hook runs only once trusted; doctor reads the trust state from config.toml (untrusted, trusted, modified); Gemini: doctor reads the folder's trust", () => {
    const w = world('trust');
    const codexHome = path.join(w.home, '.codex');
    const cli = (args: string[]) =>
      runSandboxed(area.rw(), ['env', '-i', `HOME=${w.home}`, 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', process.execPath, BIN, ...args], { cwd: w.ws, timeoutMs: 60_000 });
    const trust = (id: string) => JSON.parse(cli(['doctor', '--json']).stdout).checks.find((c: any) => c.id === id);
    const inst = cli(['hook', 'install', 'codex', '--user']);
    expect(inst.stdout).toMatch(/note: Codex runs this hook only once you trust it: .*"Trust all and continue"/);
    const file = path.join(codexHome, 'hooks.json');
    expect(trust('harness.codex.trust')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`${file} [0][0]: not trusted yet: Codex does not run it`) });
    const group = JSON.parse(fs.readFileSync(file, 'utf8')).hooks.PreToolUse[0];
    const hash = codexHookHash(group.matcher, group.hooks[0])!;
    const state = (h: string) => fs.writeFileSync(path.join(codexHome, 'config.toml'), `model = "gpt-5"\n\n[hooks.state."${file}:pre_tool_use:0:0"]\ntrusted_hash = "${h}"\n`);
    state(hash);
    expect(trust('harness.codex.trust')).toMatchObject({ status: 'ok', detail: expect.stringContaining('[0][0]: trusted') });
    state('sha256:0000');
    expect(trust('harness.codex.trust')).toMatchObject({ status: 'warn', detail: expect.stringContaining('changed since it was trusted') });

    expect(cli(['hook', 'install', 'gemini', '--project']).exitCode).toBe(0);
    expect(trust('harness.gemini.trust').status).toBe('info');
    const folders = path.join(w.home, '.gemini', 'trustedFolders.json');
    fs.mkdirSync(path.dirname(folders), { recursive: true });
    fs.writeFileSync(folders, JSON.stringify({ [w.ws]: 'DO_NOT_TRUST' }));
    expect(trust('harness.gemini.trust')).toMatchObject({ status: 'warn', detail: expect.stringContaining('no hook runs here') });
    fs.writeFileSync(folders, JSON.stringify({ [w.ws]: 'DO_NOT_TRUST', [path.join(w.ws, 'x')]: 'TRUST_PARENT' }));
    expect(trust('harness.gemini.trust').status).toBe('ok'); // the longest rule wins: TRUST_PARENT of ws/x covers ws
  });
});
