// Gemini CLI's own hook pipeline, not a copy of its logic: the pinned @google/gemini-cli-core (its
// HookSystem and the scheduler's before-tool evaluation, driven by tests/adapters/gemini-cli/drive.mjs)
// runs the entry `agent-guard hook install gemini --project` wrote, in the read-only sandbox, and
// the test asserts what Gemini would do with the tool call (run it, or block it with which reason)
// and what agent-guard did to the workspace. The core is a separate test project (its dependencies
// are too heavy for the default install); .ci/run installs it with `npm ci` there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';

const PROJECT = path.resolve(import.meta.dirname, 'gemini-cli');
const CORE = path.join(PROJECT, 'node_modules', '@google', 'gemini-cli-core', 'package.json');
const PINNED = '0.61.0';
const installed = fs.existsSync(CORE);
const inCI = !!process.env.CI && !/^(0|false)$/i.test(process.env.CI);

interface Outcome {
  name: string;
  status: 'continue' | 'error' | 'threw';
  errorType?: string;
  message?: string;
  decision?: string;
}

if (!installed) {
  const why = `Gemini CLI's core is not installed in ${PROJECT} (run: npm ci --prefix ${path.relative(process.cwd(), PROJECT)} --ignore-scripts)`;
  describe('Gemini CLI hook pipeline (real)', () => {
    if (inCI) {
      it('needs the Gemini CLI test project', () => {
        throw new Error(why);
      });
    } else {
      console.warn(`SKIPPED: ${why}`);
      it.skip(`needs the Gemini CLI test project (${why})`, () => {});
    }
  });
} else {
  const area = useSandboxArea('ag-gemini-real');

  describeSandboxed('Gemini CLI hook pipeline (real): the installed entry through HookSystem + evaluateBeforeToolHook', () => {
    itSandboxed(`@google/gemini-cli-core ${PINNED}: deny, ask-as-deny, dir_path, other tools, a missing command, a hook that cannot start, an untrusted folder`, () => {
      expect(JSON.parse(fs.readFileSync(CORE, 'utf8')).version).toBe(PINNED);
      const home = path.join(area.rw(), 'home');
      const ws = path.join(home, 'ws');
      for (const d of ['build', 'src/build', 'src/keep']) fs.mkdirSync(path.join(ws, d), { recursive: true });
      fs.writeFileSync(path.join(ws, 'build', 'o.o'), 'o');
      fs.writeFileSync(path.join(ws, 'src', 'build', 'o.o'), 'o');
      expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws }).status).toBe(0);
      const env = { HOME: home, PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', XDG_CACHE_HOME: path.join(home, '.cache') };
      const envArgs = ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];

      const inst = runSandboxed(area.rw(), [...envArgs, process.execPath, BIN, 'hook', 'install', 'gemini', '--project', '--json'], { cwd: ws, timeoutMs: 60_000 });
      expect(inst.exitCode, inst.stderr).toBe(0);
      const settingsFile = path.join(ws, '.gemini', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      // The same entry with a runner that does not exist: the fallback must still block.
      const broken = path.join(area.rw(), 'broken-settings.json');
      const bad = structuredClone(settings);
      const entry = bad.hooks.BeforeTool[0].hooks[0];
      entry.command = entry.command.replace(/^.* hook gemini \|\|/, `${path.join(area.rw(), 'missing', 'agent-guard')} hook gemini ||`);
      fs.writeFileSync(broken, JSON.stringify(bad));

      const shell = (command: unknown, extra: Record<string, unknown> = {}) => ({ tool: 'run_shell_command', args: { command, description: 'x', ...extra } });
      const spec = (file: string, trusted: boolean, cases: Record<string, { tool: string; args: Record<string, unknown> }>) => {
        const f = path.join(area.rw(), `cases-${Object.keys(cases)[0]}.json`);
        fs.writeFileSync(f, JSON.stringify({ settings: file, cwd: ws, trusted, cases: Object.entries(cases).map(([name, c]) => ({ name, ...c })) }));
        return f;
      };
      const specs = [
        spec(settingsFile, true, {
          root: shell('rm -rf /'),
          ask: shell('cd src && rm -rf build'),
          dirPath: shell('rm -rf build', { dir_path: 'src' }),
          ls: shell('ls -la'),
          readFile: { tool: 'read_file', args: { file_path: 'src/keep' } },
          noCommand: { tool: 'run_shell_command', args: { description: 'x' } },
        }),
        spec(broken, true, { brokenRunner: shell('ls') }),
        spec(settingsFile, false, { untrusted: shell('rm -rf /') }),
      ];
      const drive = path.join(PROJECT, 'drive.mjs');
      const script = specs.map((f) => `'${process.execPath}' '${drive}' '${f}'`).join(' && ');
      const r = runSandboxed(area.rw(), [...envArgs, 'sh', '-c', script], { cwd: ws, timeoutMs: 240_000 });
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      const got = new Map<string, Outcome>(
        r.stdout
          .split('\n')
          .filter((l) => l.startsWith('RESULT '))
          .map((l) => JSON.parse(l.slice(7)) as Outcome)
          .map((o) => [o.name, o]),
      );
      const blocked = (name: string, re: RegExp): void => {
        const o = got.get(name);
        expect(o, name).toBeDefined();
        expect([o!.status, o!.errorType], name).toEqual(['error', 'policy_violation']);
        expect(o!.message, name).toMatch(re);
      };
      blocked('root', /^Tool execution blocked: agent-guard: BLOCK BLOCK_PROTECTED_ANCESTOR: /);
      // Gemini has an "ask" of its own; agent-guard answers an ASK with a deny naming a one-time grant.
      blocked('ask', /agent-guard: ASK COMPOUND_CWD_DELETE: .*`agent-guard allow [a-z2-9]{8}`/);
      blocked('noCommand', /agent-guard: refused: the shell tool call has no command string/);
      blocked('brokenRunner', /agent-guard: the hook could not run \(status 127\)/);
      for (const name of ['dirPath', 'ls', 'readFile']) expect(got.get(name), name).toMatchObject({ status: 'continue' });
      expect(got.get('dirPath')!.decision).toBeUndefined();
      // dir_path: Gemini runs `rm -rf build` in <cwd>/src; that is what agent-guard quarantined.
      expect(fs.existsSync(path.join(ws, 'src', 'build'))).toBe(false);
      expect(fs.readFileSync(path.join(ws, 'build', 'o.o'), 'utf8')).toBe('o');
      const trash = fs.readdirSync(path.join(ws, '.agent-trash')).filter((n) => /^\d{8}T/.test(n));
      expect(trash.length).toBe(1);
      // An untrusted folder: Gemini runs no settings hook at all, so the call goes on (docs/harness/gemini.md).
      expect(got.get('untrusted')).toMatchObject({ status: 'continue' });
    }, 300_000);
  });
}
