// Self-test of the read-only sandbox: proves the safety net holds before any destructive test
// relies on it. The only destructive command here (rm -rf) runs inside the sandbox, against this
// file's own temp canary, and must fail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeSandboxed, runSandboxed } from './helpers/sandbox.js';

const CANARY = 'agent-guard sandbox canary: must survive\n';

// Each temp dir is this test's own, under the OS temp dir.
function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

describeSandboxed('sandbox', () => {
  let rw: string;
  let outside: string;
  let canary: string;

  beforeAll(() => {
    rw = tempDir('ag-sbx-rw-');
    outside = tempDir('ag-sbx-outside-');
    canary = tempDir('ag-sbx-canary-');
    fs.writeFileSync(path.join(outside, 'file.txt'), 'original\n');
    fs.writeFileSync(path.join(canary, 'canary.txt'), CANARY);
  });

  afterAll(() => {
    for (const d of [rw, outside, canary]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('lets the command write inside rwDir, visible outside afterwards', () => {
    const r = runSandboxed(rw, ['sh', '-c', 'echo written > made.txt && mkdir sub && echo x > sub/y']);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(fs.readFileSync(path.join(rw, 'made.txt'), 'utf8')).toBe('written\n');
    expect(fs.readFileSync(path.join(rw, 'sub', 'y'), 'utf8')).toBe('x\n');
  });

  it('refuses writes to another temp dir outside rwDir', () => {
    const file = path.join(outside, 'file.txt');
    const fresh = path.join(outside, 'new.txt');
    const r = runSandboxed(rw, ['sh', '-c', 'echo changed > "$1"', 'sh', file]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/read-only file system/i);
    const r2 = runSandboxed(rw, ['touch', fresh]);
    expect(r2.exitCode).not.toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('original\n');
    expect(fs.existsSync(fresh)).toBe(false);
  });

  it('a canary outside rwDir survives rm -rf run inside the sandbox', () => {
    // Guard the guard: the target is our own mkdtemp canary, never rwDir or a system path.
    expect(path.dirname(canary)).toBe(fs.realpathSync(os.tmpdir()));
    expect(path.basename(canary)).toMatch(/^ag-sbx-canary-/);
    expect(canary.startsWith(rw + path.sep)).toBe(false);
    const r = runSandboxed(rw, ['rm', '-rf', canary]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/read-only file system/i);
    expect(fs.readFileSync(path.join(canary, 'canary.txt'), 'utf8')).toBe(CANARY);
  });

  it('returns the exit code, stdout and stderr exactly, and feeds stdin', () => {
    expect(runSandboxed(rw, ['sh', '-c', 'echo out; echo err >&2; exit 7'])).toEqual({
      exitCode: 7,
      stdout: 'out\n',
      stderr: 'err\n',
    });
    // A command that itself exits 125 is reported, not mistaken for a sandbox failure.
    expect(runSandboxed(rw, ['sh', '-c', 'exit 125']).exitCode).toBe(125);
    expect(runSandboxed(rw, ['cat'], { input: 'line 1\nline 2' }).stdout).toBe('line 1\nline 2');
  });

  it('passes opts.env through and honours opts.cwd', () => {
    const env = { AG_SBX_VALUE: 'hello "sandbox" $HOME' };
    const r = runSandboxed(rw, ['sh', '-c', 'printf %s "$AG_SBX_VALUE"'], { env });
    expect(r).toEqual({ exitCode: 0, stdout: env.AG_SBX_VALUE, stderr: '' });
    fs.mkdirSync(path.join(rw, 'cwd'), { recursive: true });
    expect(runSandboxed(rw, ['pwd']).stdout).toBe(`${rw}\n`);
    expect(runSandboxed(rw, ['pwd'], { cwd: path.join(rw, 'cwd') }).stdout).toBe(`${path.join(rw, 'cwd')}\n`);
  });

  it('kills a command that outlives timeoutMs (exit 124)', () => {
    const started = Date.now();
    expect(runSandboxed(rw, ['sleep', '30'], { timeoutMs: 1000 }).exitCode).toBe(124);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('throws instead of returning when no sandbox could be made', () => {
    expect(() => runSandboxed(path.join(rw, 'does-not-exist'), ['true'])).toThrow(/no sandbox was made/);
  });
});
