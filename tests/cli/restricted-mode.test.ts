// The session's stored mode applied by `check` (issue 11 item 7), through the built CLI: advisory
// check needs no sandbox (it only reads); `check --enforce` runs in the read-only sandbox, every
// command of a world in one sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFixture, type Fixture } from '../helpers/fixture.js';
import { runCli, BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

/** The cases, with what RESTRICTED makes of them and what NORMAL does. */
const CASES: readonly (readonly [string, string, string])[] = [
  ['rm notes.txt', 'RELOCATE_NARROW', 'RELOCATE_PATHS'],
  ['rm -rf dir', 'BLOCK_RESTRICTED_MODE', 'RELOCATE_TREE'],
  ['git clean -fd', 'BLOCK_RESTRICTED_MODE', 'RELOCATE_VIA_CLEAN_ENUMERATE'],
  ['git reset --hard', 'BLOCK_RESTRICTED_MODE', 'SNAPSHOT_GIT_STASH'],
  // A shape with a missing target (the reference's case: `sub/build` does not exist) and with a file:
  // the shape would ask, and a RESTRICTED session never asks.
  ['cd src && rm -rf build', 'BLOCK_RESTRICTED_MODE', 'COMPOUND_CWD_DELETE'],
  ['cd src && rm a.ts', 'BLOCK_RESTRICTED_MODE', 'COMPOUND_CWD_DELETE'],
  ['touch new.txt && rm new.txt', 'BLOCK_RESTRICTED_MODE', 'COMPOUND_CREATE_DELETE'],
  ['git push --force origin main', 'BLOCK_RESTRICTED_MODE', 'BLOCK_FORCE_PUSH'],
];

const worlds: Fixture[] = [];
afterAll(() => {
  for (const f of worlds) {
    f.checkCanary();
    f.cleanup();
  }
});

function world(): Fixture {
  const f = makeFixture();
  worlds.push(f);
  fs.writeFileSync(path.join(f.ws, 'notes.txt'), 'notes\n');
  fs.mkdirSync(path.join(f.ws, 'dir'));
  fs.writeFileSync(path.join(f.ws, 'dir/inner.txt'), 'inner\n');
  return f;
}

function codes(f: Fixture, env: Record<string, string> = {}): Record<string, { code: string; mode: string }> {
  const out: Record<string, { code: string; mode: string }> = {};
  for (const [cmd] of CASES) {
    const r = runCli(['check', '--json', '--', cmd], { cwd: f.ws, env: { ...f.env, ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    out[cmd] = { code: j.code, mode: j.mode };
  }
  return out;
}

const expected = (mode: 'RESTRICTED' | 'NORMAL') => Object.fromEntries(CASES.map(([cmd, r, n]) => [cmd, { code: mode === 'RESTRICTED' ? r : n, mode }]));

describe('advisory check applies the stored mode', () => {
  it('without AGENT_GUARD_SESSION: `mode restrict` writes the quarantine\'s state.json, and check reads it', () => {
    const f = world();
    expect(codes(f)).toEqual(expected('NORMAL'));
    const m = runCli(['mode', 'restrict', '--json'], { cwd: f.ws, env: f.env as Record<string, string> });
    expect(m.exitCode, m.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(f.ws, '.agent-trash/state.json'), 'utf8')).mode).toBe('RESTRICTED');
    expect(codes(f)).toEqual(expected('RESTRICTED'));
    // From a subdirectory too (same workspace, same state file).
    const sub = runCli(['check', '--json', '--', 'git reset --hard'], { cwd: path.join(f.ws, 'src'), env: f.env as Record<string, string> });
    expect(JSON.parse(sub.stdout).code).toBe('BLOCK_RESTRICTED_MODE');
    // A named session has its own state: not restricted.
    expect(codes(f, { AGENT_GUARD_SESSION: 'other' })).toEqual(expected('NORMAL'));
  });

  it('the reference\'s layout: a state.json written by another tool or by hand counts', () => {
    const f = world();
    fs.writeFileSync(path.join(f.ws, '.agent-trash/state.json'), JSON.stringify({ mode: 'RESTRICTED', since: '2026-01-01T00:00:00Z', set_by: 'host' }));
    expect(codes(f)).toEqual(expected('RESTRICTED'));
    // Unreadable state fails closed.
    fs.writeFileSync(path.join(f.ws, '.agent-trash/state.json'), '{not json');
    expect(codes(f)).toEqual(expected('RESTRICTED'));
  });

  it('with AGENT_GUARD_SESSION: that session\'s file, and only it', () => {
    const f = world();
    const env = { AGENT_GUARD_SESSION: 'agent-1' };
    const m = runCli(['mode', 'restrict'], { cwd: f.ws, env: { ...f.env, ...env } });
    expect(m.exitCode, m.stderr).toBe(0);
    expect(fs.existsSync(path.join(f.ws, '.agent-trash/sessions/agent-1.json'))).toBe(true);
    expect(codes(f, env)).toEqual(expected('RESTRICTED'));
    expect(codes(f)).toEqual(expected('NORMAL'));
  });
});

const area = useSandboxArea('ag-restricted');

describeSandboxed('check --enforce applies the stored mode', () => {
  itSandboxed('narrow files are quarantined (exit 0), everything else is refused (exit 2) and stays', () => {
    const home = path.join(area.rw(), 'home');
    const ws = path.join(home, 'ws');
    fs.mkdirSync(path.join(ws, 'dir'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'src/build'), { recursive: true });
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const script = [
      'set -e',
      'git init -q -b main && echo a > a.txt && echo i > dir/inner.txt && echo s > src/s.ts && echo o > src/build/o.js && git add -A && git commit -qm init',
      'echo notes > notes.txt && echo changed > a.txt && echo u > untracked.txt',
      `"${process.execPath}" "${BIN}" mode restrict >/dev/null`,
      'set +e',
      ...CASES.map(([cmd]) => `"${process.execPath}" "${BIN}" check --enforce --json -- '${cmd}' > out.json 2>/dev/null; echo "$? $(sed -n 's/.*"code":"\\([A-Z_]*\\)".*/\\1/p' out.json | head -1)"`),
      'rm -f out.json',
    ].join('\n');
    const r = runSandboxed(area.rw(), ['sh', '-c', script], { cwd: ws, env, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual(CASES.map(([, code]) => `${code === 'RELOCATE_NARROW' ? 0 : 2} ${code}`));
    // Only the narrow file moved; the refused commands changed nothing.
    expect(fs.existsSync(path.join(ws, 'notes.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'dir/inner.txt'), 'utf8')).toBe('i\n');
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(fs.existsSync(path.join(ws, 'untracked.txt')) && fs.existsSync(path.join(ws, 'src/build/o.js'))).toBe(true);
    const held = (fs.readdirSync(path.join(ws, '.agent-trash'), { recursive: true }) as string[]).filter((p) => path.basename(p) === 'notes.txt');
    expect(held.map((p) => fs.readFileSync(path.join(ws, '.agent-trash', p), 'utf8'))).toEqual(['notes\n']);
  });
});
