// The whole stack with the real checker: `agent-guard run -- <shell> -c '…'` puts the shims first on
// PATH and loads the bash/zsh hooks; each layer does its part (the shims compensate what they see
// concretely, the hooks what bypasses them, and refuse what no shim can see). In the sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxedExact, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { SYSTEM_PATH, world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-guarded-run');

const world = (name: string): World => makeWorld(path.join(area.rw(), name), { files: { 'build/deep/o.o': 'o', 'dir/sub/x': 'x' } });

function guarded(w: World, argv: string[]): { exitCode: number; stdout: string; stderr: string } {
  const env = { HOME: w.home, PATH: SYSTEM_PATH, XDG_CACHE_HOME: path.join(w.home, '.cache'), AGENT_GUARD_SESSION: 'guarded-run' };
  return runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', ...argv], { cwd: w.ws, timeoutMs: 60_000 });
}

function quarantined(w: World): string[] {
  const q = path.join(w.ws, '.agent-trash');
  if (!fs.existsSync(q)) return [];
  return fs
    .readdirSync(q)
    .filter((n) => /^\d{8}T/.test(n))
    .flatMap((tx) => fs.readdirSync(path.join(q, tx)))
    .sort();
}

describeSandboxed('agent-guard run: shims and hooks together, with the real checker', () => {
  for (const shell of ['bash', 'zsh'] as const) {
    itSandboxed(`${shell} -c 'rm -rf build': the rm shim quarantines it, the command succeeds`, () => {
      const w = world(`${shell}-shim`);
      const r = guarded(w, [shell, '-c', 'rm -rf build && echo done']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('done\n');
      expect(fs.existsSync(path.join(w.ws, 'build'))).toBe(false);
      expect(quarantined(w)).toEqual(['build']);
    });

    itSandboxed(`${shell} -c '/bin/rm -rf build': past the shims, so the hook quarantines it first`, () => {
      const w = world(`${shell}-abs`);
      const r = guarded(w, [shell, '-c', '/bin/rm -rf build; echo "st=$?"']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('st=0\n');
      expect(quarantined(w)).toEqual(['build']);
    });

    itSandboxed(`${shell} -c 'cd dir && rm -rf sub': the shape is the shims' to settle, on the concrete cwd: sub is quarantined and the line goes on`, () => {
      const w = world(`${shell}-shape`);
      const r = guarded(w, [shell, '-c', 'cd dir && rm -rf sub; echo after']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('after\n');
      expect(fs.existsSync(path.join(w.ws, 'dir', 'sub'))).toBe(false);
      expect(quarantined(w)).toEqual(['sub']); // (the transaction's only target, held by its name)
    });

    itSandboxed(`${shell}: indirect forms reach the shims (sh -c, eval, a variable), paths past them are quarantined by the hook, a literal rm -rf / is still refused`, () => {
      const w = world(`${shell}-indirect`);
      for (const d of ['s1', 's2', 's3', 's4', 's5']) {
        fs.mkdirSync(path.join(w.ws, d));
        fs.writeFileSync(path.join(w.ws, d, 'f'), d);
      }
      const script = [
        'sh -c "rm -rf s1"',
        'eval "rm -rf s2"',
        'x=rm; $x -rf s3',
        "sh -c '/bin/rm -rf s4'",
        'y=/bin/rm; $y -rf s5',
        'echo done',
      ].join('; ');
      const r = guarded(w, [shell, '-c', script]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('done\n');
      expect(quarantined(w)).toEqual(['s1', 's2', 's3', 's4', 's5']);
      const b = guarded(w, [shell, '-c', 'true && /bin/rm -rf /; echo after']);
      expect(b.exitCode).toBe(126);
      expect(b.stderr).toMatch(/BLOCK_PROTECTED_ANCESTOR/);
    });

    // A trap's handler runs past the hook (bash shows its DEBUG trap a stale text then, zsh none):
    // only the shims see it. Both of these deleted build for good before the checker read handlers.
    itSandboxed(`${shell}: a trap handler is left to the shims when its rm is found on PATH, refused when it names rm by its path or in a variable`, () => {
      const w = world(`${shell}-trap`);
      const ok = guarded(w, [shell, '-c', 'tmp=build; trap \'rm -rf "$tmp"\' EXIT; echo set']);
      expect([ok.exitCode, ok.stdout], ok.stderr).toEqual([0, 'set\n']);
      expect(quarantined(w)).toEqual(['build']); // (by the rm shim, at exit)
      fs.writeFileSync(path.join(w.ws, 'lock'), 'l');
      const early = guarded(w, [shell, '-c', 'f=lock; trap "rm -f $f" EXIT; echo set']); // (expanded when set)
      expect([early.exitCode, early.stdout], early.stderr).toEqual([0, 'set\n']);
      expect(quarantined(w)).toEqual(['build', 'lock']);
      fs.writeFileSync(path.join(w.ws, 'lock2'), 'l');
      const viaFn = guarded(w, [shell, '-c', 'cleanup() { rm -f "$1"; }; trap \'cleanup lock2\' EXIT; echo set']);
      expect([viaFn.exitCode, viaFn.stdout], viaFn.stderr).toEqual([0, 'set\n']);
      expect(quarantined(w)).toEqual(['build', 'lock', 'lock2']);
      // (zsh's trap functions run as handlers too)
      const zshFns = shell === 'zsh' ? ['TRAPEXIT() { /bin/rm -rf dir; }; echo set', 'r=/bin/rm; TRAPEXIT() { $r -rf dir; }; echo set', 'h() { /bin/rm -rf dir; }; TRAPEXIT() { h; }; echo set'] : [];
      // (a function the handler calls, and one that function calls: their bodies are read with it)
      const fns = ['cleanup() { /bin/rm -rf dir; }; trap cleanup EXIT; echo set', 'IFS=:; cleanup() { /bin/rm -rf dir; }; trap cleanup EXIT; echo set', 'h() { r=/bin/rm; $r -rf dir; }; cleanup() { h; }; trap \'cleanup; echo bye\' EXIT; echo set'];
      for (const line of ["trap '/bin/rm -rf dir' EXIT; echo set", "r=/bin/rm; trap '$r -rf dir' EXIT; echo set", 'c="/bin/rm -rf dir"; trap "$c" EXIT; echo set', ...fns, ...zshFns]) {
        const r = guarded(w, [shell, '-c', line]);
        expect([line, r.exitCode, r.stdout]).toEqual([line, 126, '']);
        expect(r.stderr).toMatch(/BLOCK_UNDETERMINABLE_EFFECT/);
        expect(fs.readFileSync(path.join(w.ws, 'dir', 'sub', 'x'), 'utf8')).toBe('x');
      }
      if (shell === 'zsh') {
        fs.mkdirSync(path.join(w.ws, 'obj'));
        const fn = guarded(w, [shell, '-c', 'tmp=obj; TRAPEXIT() { rm -rf "$tmp"; }; echo set']);
        expect([fn.exitCode, fn.stdout], fn.stderr).toEqual([0, 'set\n']);
        expect(quarantined(w)).toEqual(['build', 'lock', 'lock2', 'obj']);
      }
    });

    itSandboxed(`${shell}: forging the shims' loop tag is refused (BLOCK_GUARD_TAMPERING)`, () => {
      const w = world(`${shell}-tamper`);
      const r = guarded(w, [shell, '-c', 'AGENT_GUARD_SHIM_PID="$$ 1" exec rm -rf build']);
      expect(r.exitCode).toBe(126);
      expect(r.stderr).toMatch(/BLOCK_GUARD_TAMPERING/);
      expect(fs.existsSync(path.join(w.ws, 'build', 'deep', 'o.o'))).toBe(true);
    });
  }

  // A nested shell that loads no hook: bash in POSIX mode reads no BASH_ENV, zsh -f no ZDOTDIR. Each
  // of these deleted its target past both layers before: the outer hook took the nested shell for a
  // hooked one.
  itSandboxed('a nested bash in POSIX or privileged mode, or zsh -f, is decided as a shell without the hook; POSIXLY_CORRECT is dropped by run and refused as an export', () => {
    const w = world('posix');
    for (const d of ['p1', 'p2', 'p3', 'p4']) fs.mkdirSync(path.join(w.ws, d));
    const lines = ["bash --posix -c '/bin/rm -rf p1'", "POSIXLY_CORRECT=1 bash -c '/bin/rm -rf p2'", ...(fs.existsSync('/usr/bin/zsh') || fs.existsSync('/bin/zsh') ? ["zsh -f -c '/bin/rm -rf p3'"] : ['rm -rf p3']), "bash -p -c '/bin/rm -rf p4'"];
    const r = guarded(w, ['bash', '-c', `${lines.join('; ')}; echo done`]);
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'done\n']);
    expect(quarantined(w)).toEqual(['p1', 'p2', 'p3', 'p4']);
    for (const line of ['x=/bin/rm; bash --posix -c "$x -rf build"', 'x=/bin/rm; POSIXLY_CORRECT=1 bash -c "$x -rf build"', 'export POSIXLY_CORRECT=1; bash -c "/bin/rm -rf build"']) {
      const b = guarded(w, ['bash', '-c', `${line}; echo after`]);
      expect([line, b.exitCode, b.stdout]).toEqual([line, 126, '']);
      expect(b.stderr).toMatch(/BLOCK_UNDETERMINABLE_EFFECT|BLOCK_GUARD_TAMPERING/);
    }
    expect(fs.readFileSync(path.join(w.ws, 'build', 'deep', 'o.o'), 'utf8')).toBe('o');
    // POSIXLY_CORRECT in the environment `run` starts with: dropped, so bash still reads its hook.
    const env = { HOME: w.home, PATH: SYSTEM_PATH, XDG_CACHE_HOME: path.join(w.home, '.cache'), AGENT_GUARD_SESSION: 'guarded-run', POSIXLY_CORRECT: '1' };
    const e = runSandboxedExact(area.rw(), env, [process.execPath, BIN, 'run', '--', 'bash', '-c', '/bin/rm -rf build; echo "pc=${POSIXLY_CORRECT-unset}"'], { cwd: w.ws, timeoutMs: 60_000 });
    expect([e.exitCode, e.stdout], e.stderr).toEqual([0, 'pc=unset\n']);
    expect(quarantined(w)).toEqual(['build', 'p1', 'p2', 'p3', 'p4']);
  });

  itSandboxed("sh -c (dash: no hook) still meets the shims: xargs rm, find -delete, make-style recipes", () => {
    const w = world('dash');
    const r = guarded(w, ['sh', '-c', 'printf "build\\n" | xargs rm -r && find dir -name x -delete && echo ok']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('ok\n');
    expect(quarantined(w)).toEqual(['build', 'x']); // (each its transaction's only target: dir/x by its name)
  });
});
