// Conformance: the same cases (command + cwd + workspace state) through every entry point — `check`,
// each harness adapter, the bash and zsh hooks' checker (`hook-shell`), and, where the command
// reaches one, the PATH shims — and the same outcome from each: run (ALLOW, or a SAFE decision
// whose compensation was done), ask with the code, or block with the code. Where the shims are
// active, the text entry points defer to them what they will see concretely; that deferral is the
// documented difference (docs/shell-hooks.md) and is asserted as such. Through the shims, the
// effect is asserted too: what left the workspace, the transaction that holds it
// (`restore list --json`), and that `restore <txid>` brings the workspace back. A new entry point
// joins by being added to ENTRY_POINTS; the harness list is checked against the adapters' own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { HARNESSES } from '../../src/adapters/harness.js';
import { SHELLS } from '../../src/commands/shell-init.js';
import { writeShims } from '../../src/shell/shims.js';

const area = useSandboxArea('ag-conformance');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

type Outcome = { kind: 'run' } | { kind: 'ask' | 'block'; code: string };

/** What a workspace holds: every path (outside .git and the quarantine) with its content (`<dir>`
 *  for a directory), plus the git state the cases touch (`git:branches`, `git:stash`). */
type State = Record<string, string>;

/** What the command does through the shims (sh -c): `moved` are the entries one transaction
 *  quarantines (relative to the workspace); `changes` is the state afterwards against before (null:
 *  gone); `snapshot` / `refs` what the transaction records besides entries (a stash snapshot; the
 *  dropped branch refs and the number of dropped stash entries). After `restore <txid>` the state is
 *  the one before, plus `restored` (what the line itself created and the restore brought back).
 *  No effect: nothing changes and no transaction is made. */
interface Effect {
  moved: string[];
  changes: Record<string, string | null>;
  snapshot?: true;
  refs?: { refs: string[]; stashes: number };
  restored?: State;
}

interface Case {
  cmd: string;
  /** What check --json says, as an outcome. */
  expect: Outcome;
  /** Refused as text with a code the text leaves to the shims (BLOCK_UNDETERMINABLE_EFFECT,
   *  BLOCK_WILDCARD: targets unknown as text; a line shape, ASK COMPOUND_*: the shims see the
   *  concrete cwd and disk): with the shims active the text entry points defer it (outcome run,
   *  nothing done) and this is the shims' outcome on the concrete argv. Without it, the text entry
   *  points give `expect` with the shims active too (a SAFE decision is deferred as well, so
   *  nothing is compensated twice). */
  shims?: Outcome;
  /** Workspace state the case needs, made after the common world (in the workspace). */
  setup?: string[][];
  /** Through the shims. */
  effect?: Effect;
  /** The text's dialect (DIALECT_CASES): given to check as --dialect, to the adapters in the payload. */
  dialect?: string;
}

const run: Outcome = { kind: 'run' };
const block = (code: string): Outcome => ({ kind: 'block', code });
const ask = (code: string): Outcome => ({ kind: 'ask', code });

/** The state changes when `paths` (and everything under them) leave the workspace. */
function gone(...paths: string[]): Record<string, string | null> {
  const all: Record<string, string> = { 'build': '<dir>', 'build/a.o': 'o', 'src': '<dir>', 'src/build': '<dir>', 'src/main.c': 'c', 'x.o': 'o', 'untracked.txt': 'u\n', 'f': '' };
  const out: Record<string, string | null> = {};
  for (const p of paths) for (const k of Object.keys(all)) if (k === p || k.startsWith(`${p}/`)) out[k] = null;
  return out;
}
const relocates = (...paths: string[]): Effect => ({ moved: paths, changes: gone(...paths) });

const CASES: Case[] = [
  { cmd: 'ls -la', expect: run },
  { cmd: 'rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf /', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { cmd: 'rm -rf .git', expect: block('BLOCK_PROTECTED_PATH') },
  { cmd: 'cd src && rm -rf build', expect: ask('COMPOUND_CWD_DELETE'), shims: run, effect: relocates('src/build') },
  { cmd: 'git push --force origin main', expect: block('BLOCK_FORCE_PUSH') },
  { cmd: 'git clean -fd', expect: run, effect: relocates('build', 'src', 'untracked.txt', 'x.o') },
  { cmd: 'git reset --hard', expect: run, effect: { moved: [], changes: { 'tracked.txt': 't\n' }, snapshot: true } },
  // Unknown as text; concrete for the shims (D is unset: rm -rf "" removes nothing, as rm does).
  { cmd: 'rm -rf "$D"', expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run },
  { cmd: 'rm -rf *.o', expect: block('BLOCK_WILDCARD'), shims: run, effect: relocates('x.o') },

  // git clean with pathspecs, and the forms it refuses (-ff would remove nested repositories, -e
  // exclusions are not mirrored: rule 11a). A refusal by flag is one the argv cannot change, so the
  // text entry points refuse it themselves with the shims active too (and the git shim would as well).
  { cmd: 'git clean -f -- build', expect: run, effect: relocates('build') },
  { cmd: 'git clean -fdx src', expect: run, effect: relocates('src') },
  { cmd: 'git clean -ffd', expect: block('BLOCK_UNDETERMINABLE_EFFECT') }, // refused by flag (rule 11a): not left to the shims
  { cmd: 'git clean -n', expect: run },
  { cmd: 'git clean -fd -e keep', expect: block('BLOCK_UNDETERMINABLE_EFFECT') }, // refused by flag (rule 11a): not left to the shims

  // find: -delete is planned and relocated by the find shim; -exec rm reaches the rm shim with
  // the concrete matches (find runs it by name, through PATH).
  { cmd: "find . -name '*.o' -delete", expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('x.o', 'build/a.o') },
  { cmd: 'find build -type f -exec rm {} +', expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('build/a.o') },
  { cmd: "find . -name '*.o'", expect: run },

  // xargs: the list comes from stdin, so only the rm shim knows the targets.
  { cmd: "printf 'x.o\\n' | xargs rm", expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('x.o') },
  { cmd: 'ls | xargs echo', expect: run },

  // Sublists: bash and zsh read these the same; every entry point decides the rm in them.
  { cmd: 'true && rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'false || rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf build; ls', expect: run, effect: relocates('build') },
  { cmd: '{ rm -rf build; }', expect: run, effect: relocates('build') },
  { cmd: '(rm -rf build)', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf build &', expect: run, effect: relocates('build') },

  // Protected places and line shapes.
  { cmd: 'rm -rf ~', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { cmd: 'rm -rf ../outside', expect: block('BLOCK_OUT_OF_WORKSPACE') },
  { cmd: 'git checkout -- .', expect: run, effect: { moved: [], changes: { 'tracked.txt': 't\n' }, snapshot: true } },
  // The shims see `touch f` (no shim) and then `rm f`: the rm shim quarantines the f just made.
  { cmd: 'touch f && rm f', expect: ask('COMPOUND_CREATE_DELETE'), shims: run, effect: { moved: ['f'], changes: {}, restored: { f: '' } } },

  // Ref deletions: allowed by the policy; the git shim records the dropped refs first.
  {
    cmd: 'git stash drop',
    expect: run,
    setup: [['stash', '-q']],
    effect: { moved: [], changes: { 'git:stash': '' }, refs: { refs: [], stashes: 1 } },
  },
  {
    cmd: 'git branch -D feature',
    expect: run,
    setup: [['branch', 'feature']],
    effect: { moved: [], changes: { 'git:branches': 'refs/heads/main' }, refs: { refs: ['refs/heads/feature'], stashes: 0 } },
  },
];

/** cmd and PowerShell text (docs/dialects.md): the same effects, spelled in another dialect. */
const DIALECT_CASES: Case[] = [
  { dialect: 'cmd', cmd: 'rd /s /q build', expect: run, effect: relocates('build') },
  { dialect: 'cmd', cmd: 'del /q untracked.txt', expect: run, effect: relocates('untracked.txt') },
  { dialect: 'cmd', cmd: 'rd /s /q C:\\', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { dialect: 'cmd', cmd: 'del /s /q build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'cmd', cmd: 'cd src & rd /s /q build', expect: ask('COMPOUND_CWD_DELETE') },
  { dialect: 'cmd', cmd: 'rm -rf build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Remove-Item -Recurse -Force build', expect: run, effect: relocates('build') },
  { dialect: 'powershell', cmd: 'Remove-Item -wi build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Get-ChildItem *.o | Remove-Item', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Remove-Item \\\\srv\\share\\x', expect: block('BLOCK_OUT_OF_WORKSPACE') },
  { dialect: 'pwsh', cmd: 'New-Item f; Remove-Item untracked.txt', expect: ask('COMPOUND_CREATE_DELETE') },
  { dialect: 'fish', cmd: 'ls', expect: block('BLOCK_DIALECT_UNKNOWN') },
];

/** Every entry point that decides a command. */
const ENTRY_POINTS = ['check', ...SHELLS.map((s) => `hook-shell ${s}`), ...HARNESSES.map((h) => `hook ${h}`)] as const;

const git = (ws: string, ...a: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8' });
const gitOk = (ws: string, ...a: string[]) => {
  const r = git(ws, ...a);
  expect(r.status, `git ${a.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout.trim();
};

/** A fresh workspace for one case through one entry point, with a sibling `outside/` (the target
 *  of `rm -rf ../outside`, which must survive it). Built once per case (git init, commit, the
 *  case's setup) and copied for each entry point. */
const templates = new Map<Case, string>();
function world(name: string, c: Case): string {
  let tpl = templates.get(c);
  if (!tpl) {
    tpl = path.join(area.rw(), 'templates', String(templates.size), 'ws');
    fs.mkdirSync(path.join(tpl, 'build'), { recursive: true });
    fs.mkdirSync(path.join(tpl, 'src', 'build'), { recursive: true });
    fs.writeFileSync(path.join(tpl, 'build', 'a.o'), 'o');
    fs.writeFileSync(path.join(tpl, 'src', 'main.c'), 'c');
    fs.writeFileSync(path.join(tpl, 'x.o'), 'o');
    fs.writeFileSync(path.join(tpl, 'tracked.txt'), 't\n');
    gitOk(tpl, 'init', '-q', '-b', 'main');
    gitOk(tpl, 'add', 'tracked.txt');
    gitOk(tpl, 'commit', '-qm', 'init');
    fs.writeFileSync(path.join(tpl, 'tracked.txt'), 'changed\n');
    fs.writeFileSync(path.join(tpl, 'untracked.txt'), 'u\n');
    for (const a of c.setup ?? []) gitOk(tpl, ...a);
    templates.set(c, tpl);
  }
  const ws = path.join(area.rw(), name, 'ws');
  fs.cpSync(tpl, ws, { recursive: true, preserveTimestamps: true });
  fs.mkdirSync(path.join(ws, '..', 'outside'));
  fs.writeFileSync(path.join(ws, '..', 'outside', 'keep.txt'), 'outside\n');
  return ws;
}

function state(ws: string): State {
  const out: State = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(ws, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === '.git' || r === '.agent-trash') continue;
      if (e.isDirectory()) {
        out[r] = '<dir>';
        walk(r);
      } else out[r] = fs.readFileSync(path.join(ws, r), 'utf8');
    }
  };
  walk('');
  out['git:branches'] = gitOk(ws, 'for-each-ref', '--format=%(refname)', 'refs/heads');
  // The user's stash, whole: agent-guard's snapshots never go there (refs/agent-guard/<txid>/snapshot).
  out['git:stash'] = gitOk(ws, 'stash', 'list', '--format=%gs');
  out['../outside'] = fs.readdirSync(path.join(ws, '..', 'outside')).join(',') + ':' + fs.readFileSync(path.join(ws, '..', 'outside', 'keep.txt'), 'utf8');
  return out;
}

/** How many snapshots agent-guard keeps (refs/agent-guard/<txid>/snapshot). */
const snapshots = (ws: string) => gitOk(ws, 'for-each-ref', '--format=%(refname)', 'refs/agent-guard').split('\n').filter((l) => l.endsWith('/snapshot')).length;

function applied(before: State, changes: Record<string, string | null>): State {
  const out = { ...before };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
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

const CODE = /\b(ASK|BLOCK) ([A-Z_]+):/;
const envArgs = (env: Record<string, string>) => ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];

/** The outcome of one case through one entry point (each in its own fresh workspace). */
function through(entry: string, c: Case, ws: string, env: Record<string, string>): Outcome {
  if (entry === 'check') {
    const dialect = c.dialect !== undefined ? ['--dialect', c.dialect] : [];
    const r = runSandboxed(area.rw(), [...envArgs(env), process.execPath, BIN, 'check', '--json', ...dialect, '--', c.cmd], { cwd: ws });
    const j = JSON.parse(r.stdout);
    return j.decision === 'ASK' ? ask(j.code) : j.decision === 'BLOCK' ? block(j.code) : run;
  }
  if (entry.startsWith('hook-shell')) {
    const shell = entry.split(' ')[1]!;
    const shims = env.AGENT_GUARD_SHIMS ? ['--shims'] : [];
    const r = runSandboxed(area.rw(), [...envArgs(env), process.execPath, BIN, 'hook-shell', '--shell', shell, ...shims, '--cwd', ws, '--', c.cmd], { cwd: ws });
    if (r.exitCode === 0) return run;
    const m = CODE.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.exitCode).toBe(m![1] === 'ASK' ? 3 : 2);
    return m![1] === 'ASK' ? ask(m![2]!) : block(m![2]!);
  }
  const h = entry.split(' ')[1]!;
  const r = runSandboxed(area.rw(), [...envArgs(env), process.execPath, BIN, 'hook', h], { cwd: ws, input: payload(h, c.cmd, ws, c.dialect) });
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

/** `agent-guard restore …` in the workspace, with the case's environment. */
function guard(ws: string, env: Record<string, string>, ...args: string[]) {
  const r = runSandboxed(area.rw(), [...envArgs(env), process.execPath, BIN, ...args], { cwd: ws });
  expect(r.exitCode, `agent-guard ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

it('every harness the adapters know and every shell the hooks support is an entry point of this suite', () => {
  for (const h of HARNESSES) expect(ENTRY_POINTS).toContain(`hook ${h}`);
  for (const sh of SHELLS) expect(ENTRY_POINTS).toContain(`hook-shell ${sh}`);
  expect(ENTRY_POINTS).toHaveLength(1 + SHELLS.length + HARNESSES.length);
});

describeSandboxed('conformance: one outcome per case, whatever the entry point', () => {
  // A canary inside the sandbox area (writable there) but outside every workspace and every HOME:
  // no case, through any entry point or shim, may touch it.
  const canary = () => path.join(area.rw(), 'canary');
  const CANARY = 'conformance canary: must survive every case\n';
  const canaryIntact = () => fs.readdirSync(canary()).join(',') === 'keep.txt' && fs.readFileSync(path.join(canary(), 'keep.txt'), 'utf8') === CANARY;
  beforeAll(() => {
    fs.mkdirSync(canary());
    fs.writeFileSync(path.join(canary(), 'keep.txt'), CANARY);
  });
  // Checked after the whole suite (whichever tests a filter selected), and as a test of its own.
  afterAll(() => {
    if (!canaryIntact()) throw new Error(`the canary ${canary()} (outside every workspace) was changed`);
  });

  const base = (name: string) => ({ HOME: path.join(area.rw(), name), PATH: SYSTEM_PATH });
  CASES.forEach((c, i) => {
    itSandboxed(`${c.cmd}: ${c.expect.kind}${'code' in c.expect ? ` ${c.expect.code}` : ''} through ${ENTRY_POINTS.join(', ')}`, () => {
      for (const [j, entry] of ENTRY_POINTS.entries()) {
        const ws = world(`c${i}-e${j}`, c);
        const before = state(ws);
        expect({ entry, outcome: through(entry, c, ws, base(`c${i}-e${j}`)) }).toEqual({ entry, outcome: c.expect });
        // Without the shims a text entry point compensates a SAFE decision itself before the
        // command runs (`check` without --enforce only decides): the relocated entries are gone,
        // a snapshot is stored. Ref deletions are left to the git shim (nothing recorded here).
        const compensates = entry !== 'check' && c.expect.kind === 'run' && c.effect !== undefined;
        expect({ entry, state: state(ws), snapshots: snapshots(ws) }).toEqual({
          entry,
          state: compensates ? applied(before, gone(...c.effect!.moved)) : before,
          snapshots: compensates && c.effect!.snapshot ? 1 : 0,
        });
      }
    }, 120_000);
  });

  const shimDir = () => path.join(area.rw(), 'shims');
  CASES.forEach((c, i) => {
    const text = c.shims ? run : c.expect;
    const want = c.shims ?? c.expect;
    const show = (o: Outcome) => `${o.kind}${'code' in o ? ` ${o.code}` : ''}`;
    itSandboxed(`with the shims first on PATH: ${c.cmd}: the text entry points give ${show(text)}, the shims ${show(want)}`, () => {
      if (!fs.existsSync(shimDir())) writeShims(shimDir(), { node: process.execPath, bundle: BIN, templatePath: fileURLToPath(new URL('../../shims/shim.sh', import.meta.url)) });
      // HOME exists and holds a file, outside the workspaces (`rm -rf ~` must leave it). The worlds
      // are in HOME, as in the cases above: their sibling `outside/` is then no scratch (the area is
      // in /tmp, a scratch zone: docs/zones.md) but outside the workspace.
      const home = path.join(area.rw(), `s${i}-home`);
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(home, 'keep.txt'), 'home\n');
      const env = { HOME: home, PATH: `${shimDir()}:${SYSTEM_PATH}`, AGENT_GUARD_SHIMS: shimDir() };
      for (const entry of ENTRY_POINTS.filter((e) => e !== 'check')) {
        const ws = world(`s${i}-home/${entry.replace(/\W+/g, '-')}`, c);
        const before = state(ws);
        // The text check defers (runs) the cases the shims will decide on the concrete argv, and
        // leaves the SAFE ones to them too: nothing is compensated twice.
        const got = through(entry, c, ws, env);
        expect({ entry, cmd: c.cmd, got }).toEqual({ entry, cmd: c.cmd, got: text });
        expect({ entry, state: state(ws), snapshots: snapshots(ws) }).toEqual({ entry, state: before, snapshots: 0 });
      }

      // The command itself through sh -c (no hook): the shims' own outcome, and its effect. The
      // trailing `wait` lets a background job (`rm -rf build &`) finish before the state is read;
      // the status is the command's.
      const ws = world(`s${i}-home/shim`, c);
      const before = state(ws);
      const r = runSandboxed(area.rw(), [...envArgs(env), 'sh', '-c', `${c.cmd}\nst=$?; wait; exit $st`], { cwd: ws });
      const m = CODE.exec(r.stderr);
      const got: Outcome = m && /^agent-guard: refused/m.test(r.stderr) ? (m[1] === 'ASK' ? ask(m[2]!) : block(m[2]!)) : run;
      expect({ cmd: c.cmd, got }).toEqual({ cmd: c.cmd, got: want });
      expect(r.exitCode, r.stderr).toBe(want.kind === 'run' ? 0 : want.kind === 'ask' ? 3 : 2);
      expect(fs.readFileSync(path.join(home, 'keep.txt'), 'utf8')).toBe('home\n');

      const e = c.effect;
      expect(state(ws)).toEqual(applied(before, e?.changes ?? {}));
      const { transactions } = guard(ws, env, 'restore', 'list', '--json');
      if (!e) {
        expect(transactions).toEqual([]);
        return;
      }
      expect(transactions).toHaveLength(1);
      const tx = transactions[0];
      expect(tx.state).toBe('RESTORABLE');
      const held = tx.items.map((it: { origin: string; present: boolean; completed: boolean }) => {
        expect(it.present && it.completed).toBe(true);
        return path.relative(ws, it.origin);
      });
      expect(held.sort()).toEqual([...e.moved].sort());
      if (e.snapshot) {
        expect(tx.snapshot?.stash).toMatch(/^[0-9a-f]{40}$/);
        expect(gitOk(ws, 'rev-parse', `refs/agent-guard/${tx.txid}/snapshot`)).toBe(tx.snapshot.stash);
      } else expect(tx.snapshot?.stash ?? null).toBeNull();
      if (e.refs) {
        expect(tx.snapshot.refs.map((r: { ref: string }) => r.ref)).toEqual(e.refs.refs);
        expect(tx.snapshot.stashes).toHaveLength(e.refs.stashes);
      }

      guard(ws, env, 'restore', tx.txid, '--json');
      expect(state(ws)).toEqual({ ...before, ...e.restored });
      expect(guard(ws, env, 'restore', 'list', '--json').transactions.map((t: { state: string }) => t.state)).toEqual(['RESTORED']);
    }, 120_000);
  });

  // cmd and PowerShell text: through check (--dialect) and every harness adapter (the payload's
  // `dialect`). The shell hooks read only POSIX text, so they are not entry points for it; nor are
  // the shims (a cmdlet or a cmd builtin is no process they see), so with the shims first on PATH
  // the adapters still decide and compensate themselves.
  const TEXT_ENTRY_POINTS = ENTRY_POINTS.filter((e) => !e.startsWith('hook-shell'));
  DIALECT_CASES.forEach((c, i) => {
    itSandboxed(`[${c.dialect}] ${c.cmd}: ${c.expect.kind}${'code' in c.expect ? ` ${c.expect.code}` : ''} through ${TEXT_ENTRY_POINTS.join(', ')}, with and without the shims`, () => {
      if (!fs.existsSync(shimDir())) writeShims(shimDir(), { node: process.execPath, bundle: BIN, templatePath: fileURLToPath(new URL('../../shims/shim.sh', import.meta.url)) });
      for (const withShims of [false, true]) {
        for (const [j, entry] of TEXT_ENTRY_POINTS.entries()) {
          const name = `d${i}-e${j}${withShims ? '-s' : ''}`;
          const ws = world(name, c);
          const before = state(ws);
          const env = withShims ? { HOME: path.join(area.rw(), name), PATH: `${shimDir()}:${SYSTEM_PATH}`, AGENT_GUARD_SHIMS: shimDir() } : base(name);
          expect({ entry, withShims, outcome: through(entry, c, ws, env) }).toEqual({ entry, withShims, outcome: c.expect });
          const compensates = entry !== 'check' && c.expect.kind === 'run' && c.effect !== undefined;
          expect({ entry, withShims, state: state(ws) }).toEqual({ entry, withShims, state: compensates ? applied(before, gone(...c.effect!.moved)) : before });
        }
      }
    }, 180_000);
  });

  it('the canary outside every workspace survived every case', () => {
    expect(canaryIntact()).toBe(true);
  });
});
