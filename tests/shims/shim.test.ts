// The PATH shims (shims/shim.sh, rendered by src/shims/render.ts), run for real under dash, bash and
// zsh, and through PATH lookup with their #!/bin/sh line, inside the read-only sandbox.
//
// The checker is a fake "node" (fixtures/fake-node.sh) that records its argv and answers with the
// directive in $FAKE_DIRECTIVE; the "real" programs are fakes (fixtures/fake-real.sh) that record
// how they were called, except in the real-rm cases. All shim runs of this file are collected at
// definition time and executed in ONE sandbox by tests/helpers/batch.mjs (a sandbox costs ~0.2 s to
// set up); each test then asserts on its own case. A canary outside the writable area must survive.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runBatchSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { SHIM_MARKER, SHIM_NAMES, defaultTemplatePath, onlyFor, renderShim, writeShims } from '../../src/shims/render.js';

const REPO = path.resolve(__dirname, '../..');
const TEMPLATE_PATH = path.join(REPO, 'shims/shim.sh');
const FIXTURES = path.join(__dirname, 'fixtures');

function which(cmd: string): string | undefined {
  const r = spawnSync('/bin/sh', ['-c', 'command -v "$1"', 'sh', cmd], { encoding: 'utf8' });
  const p = r.stdout.trim();
  return r.status === 0 && p.startsWith('/') ? p : undefined;
}

const SHELLS = { dash: which('dash'), bash: which('bash'), zsh: which('zsh') };
const STRACE = which('strace');
const SHELLCHECK = which('shellcheck');

/** How a case starts the shim: `<shell> <shim file> args…`, or by name through PATH (#!/bin/sh). */
type Mode = 'dash' | 'bash' | 'zsh' | 'path';
const MODES: Mode[] = ['dash', 'bash', 'zsh', 'path'];

/** The files of the writable area the cases use. */
interface Lab {
  root: string;
  node: string;
  bundle: string;
  /** writeShims output (marked), checker = the fake node. */
  shims: string;
  /** Marked shim dirs whose checker is broken: node missing, node not executable, bundle missing. */
  noNode: string;
  noExecNode: string;
  noBundle: string;
  /** The fake real programs. */
  real: string;
  /** A marked dir holding fake programs: must never be taken for the real one. */
  decoy: string;
  /** An unmarked copy of the shims (another install, a copied dir). */
  copy: string;
  /** Another unmarked copy, reached through `link` (a symlink to it) as well. */
  unmarked: string;
  link: string;
  /** Two unmarked copies and no real program: A -> B -> A. */
  loopA: string;
  loopB: string;
  home: string;
  /** Default cwd: a few files (so a stray glob would expand), and ./rm, ./rel/rm fakes. */
  work: string;
  cases: string;
}

interface Spec {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** PATH entries; default [shims, real, /usr/bin, /bin]. */
  path?: string[];
  /** Directory of the shim file a shell mode runs; default the first PATH entry. */
  via?: string;
  /** Run the shim file by its bare name (`dash rm`), from this cwd (shell modes only). */
  bare?: boolean;
  cwd?: string;
  /** Prepended to the argv (e.g. strace). */
  wrap?: string[];
  timeoutMs?: number;
}

interface Call {
  /** The first recorded field: $0 for the real program, NODE_EXTRA_CA_CERTS for the checker. */
  first: string;
  /** real program: AGENT_GUARD_SHIM_PID as it saw it; checker: the bundle argument. */
  second: string;
  /** Every recorded field, NUL-terminated, exactly as written. */
  raw: Buffer;
  /** The fields after the first one, NUL-terminated (the checker's argv). */
  argvBytes: Buffer;
  /** The fields after the first two, NUL-terminated (the real program's argv). */
  argsBytes: Buffer;
}

interface Outcome {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  node: Call[];
  real: Call[];
  spec: Spec;
  dir: string;
}

interface Registered {
  mode: Mode;
  make: (lab: Lab) => Spec;
  outcome?: Outcome;
}

const registry: Registered[] = [];
const area = useSandboxArea('ag-shims');
let lab: Lab | undefined;

/** Registers a shim run; the returned getter gives its outcome once the batch has run. */
function defCase(mode: Mode, make: (l: Lab) => Spec): () => Outcome {
  const r: Registered = { mode, make };
  registry.push(r);
  return () => {
    if (!r.outcome) throw new Error('the shim batch did not run (see the beforeAll error)');
    return r.outcome;
  };
}

function L(): Lab {
  if (!lab) throw new Error('lab not built');
  return lab;
}

/** Fields joined as the fakes record them: each followed by a NUL. */
function nul(fields: string[]): Buffer {
  return Buffer.concat(fields.map((f) => Buffer.concat([Buffer.from(f, 'utf8'), Buffer.from([0])])));
}

function splitNul(buf: Buffer): { fields: string[]; offsets: number[] } {
  const fields: string[] = [];
  const offsets: number[] = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0) {
      fields.push(buf.subarray(start, i).toString('utf8'));
      start = i + 1;
      offsets.push(start);
    }
  }
  return { fields, offsets };
}

function readCalls(dir: string, prefix: 'node' | 'real'): Call[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${prefix}.`))
    .map((f) => {
      const raw = fs.readFileSync(path.join(dir, f));
      const { fields, offsets } = splitNul(raw);
      return {
        first: fields[0] ?? '',
        second: fields[1] ?? '',
        raw,
        argvBytes: raw.subarray(offsets[0] ?? raw.length),
        argsBytes: raw.subarray(offsets[1] ?? raw.length),
      };
    });
}

function install(src: string, dest: string, mode: number): void {
  fs.copyFileSync(src, dest);
  fs.chmodSync(dest, mode);
}

function buildLab(rw: string): Lab {
  const root = path.join(rw, 'lab');
  const dir = (...p: string[]): string => {
    const d = path.join(root, ...p);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const bin = dir('bin');
  const node = path.join(bin, 'fake-node');
  install(path.join(FIXTURES, 'fake-node.sh'), node, 0o755);
  const bundle = path.join(bin, 'checker.cjs');
  fs.writeFileSync(bundle, '// never run: the fake node only records its argv\n');
  const noExecNodeBin = path.join(bin, 'node-not-executable');
  install(path.join(FIXTURES, 'fake-node.sh'), noExecNodeBin, 0o644);

  const l: Lab = {
    root,
    node,
    bundle,
    shims: dir('shims'),
    noNode: dir('shims-no-node'),
    noExecNode: dir('shims-noexec-node'),
    noBundle: dir('shims-no-bundle'),
    real: dir('real'),
    decoy: dir('decoy'),
    copy: dir('copy'),
    unmarked: dir('unmarked'),
    link: path.join(root, 'link'),
    loopA: dir('loopA'),
    loopB: dir('loopB'),
    home: dir('home'),
    work: dir('work'),
    cases: dir('cases'),
  };
  writeShims(l.shims, { node, bundle });
  writeShims(l.noNode, { node: path.join(bin, 'no-such-node'), bundle });
  writeShims(l.noExecNode, { node: noExecNodeBin, bundle });
  writeShims(l.noBundle, { node, bundle: path.join(bin, 'no-such-checker.cjs') });
  for (const n of SHIM_NAMES) {
    install(path.join(FIXTURES, 'fake-real.sh'), path.join(l.real, n), 0o755);
    install(path.join(FIXTURES, 'fake-real.sh'), path.join(l.decoy, n), 0o755);
    for (const d of [l.copy, l.unmarked, l.loopA, l.loopB]) install(path.join(l.shims, n), path.join(d, n), 0o755);
  }
  fs.writeFileSync(path.join(l.decoy, SHIM_MARKER), '');
  fs.symlinkSync(l.unmarked, l.link);
  fs.writeFileSync(path.join(l.work, 'a'), 'a\n');
  fs.writeFileSync(path.join(l.work, 'b c'), 'b c\n');
  fs.mkdirSync(path.join(l.work, 'd'));
  fs.mkdirSync(path.join(l.work, 'rel'));
  install(path.join(FIXTURES, 'fake-real.sh'), path.join(l.work, 'rm'), 0o755);
  install(path.join(FIXTURES, 'fake-real.sh'), path.join(l.work, 'rel', 'rm'), 0o755);
  return l;
}

function argvFor(mode: Mode, spec: Spec, l: Lab, pathDirs: string[]): string[] {
  if (mode === 'path') return [...(spec.wrap ?? []), spec.name, ...spec.args];
  const shell = SHELLS[mode];
  if (!shell) throw new Error(`${mode} is not installed`);
  const file = spec.bare ? spec.name : path.join(spec.via ?? pathDirs[0] ?? l.shims, spec.name);
  return [...(spec.wrap ?? []), shell, file, ...spec.args];
}

/** Builds the lab, runs every registered case in one sandbox, reads back what the fakes recorded. */
function runBatch(): void {
  const rw = area.rw();
  const l = (lab = buildLab(rw));
  const batch = registry.map((r, i) => {
    const spec = r.make(l);
    const caseDir = path.join(l.cases, String(i));
    fs.mkdirSync(caseDir);
    const pathDirs = spec.path ?? [l.shims, l.real, '/usr/bin', '/bin'];
    const env: Record<string, string> = { PATH: pathDirs.join(':'), HOME: l.home, FAKE_DIR: caseDir, ...spec.env };
    return { id: i, argv: argvFor(r.mode, spec, l, pathDirs), env, cwd: spec.cwd ?? l.work, timeoutMs: spec.timeoutMs ?? 15_000, spec, caseDir };
  });
  const results = runBatchSandboxed(
    rw,
    batch.map((c) => ({ argv: c.argv, env: c.env, exactEnv: true, cwd: c.cwd, timeoutMs: c.timeoutMs })),
    { cwd: rw, timeoutMs: 600_000 },
  );
  results.forEach((res, id) => {
    const b = batch[id];
    const reg = registry[id];
    if (!b || !reg) throw new Error(`unknown case ${id}`);
    if (res.error && res.signal === null) throw new Error(`case ${id} could not start: ${res.error}`);
    reg.outcome = {
      status: res.signal === null ? res.exitCode : null,
      signal: res.signal,
      stdout: res.stdout,
      stderr: res.stderr,
      node: readCalls(b.caseDir, 'node'),
      real: readCalls(b.caseDir, 'real'),
      spec: b.spec,
      dir: b.caseDir,
    };
  });
}

const TAG_1 = /^\d+ 1$/;

function label(name: string, args: string[], env: Record<string, string> = {}): string {
  const e = Object.entries(env)
    .filter(([k]) => !k.startsWith('FAKE_') && k !== 'NODE_EXTRA_CA_CERTS')
    .map(([k, v]) => `${k}=${JSON.stringify(v)} `)
    .join('');
  return `${e}${name} ${args.map((a) => (/^[\w./=-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`.trim();
}

/** The real program ran once, found in `dir`, with exactly `args`; `tag` is its AGENT_GUARD_SHIM_PID. */
function expectReal(o: Outcome, dir: string, args: string[], tag: RegExp = TAG_1): void {
  expect(o.real).toHaveLength(1);
  const call = o.real[0]!;
  expect(call.first).toBe(path.join(dir, o.spec.name));
  expect(call.second).toMatch(tag);
  expect(call.argsBytes).toEqual(nul(args));
}

/** The checker ran once as `<bundle> shim <name> <real> -- <args>`, with NODE_EXTRA_CA_CERTS empty. */
function expectChecker(o: Outcome, realDir: string, args: string[]): void {
  expect(o.node).toHaveLength(1);
  const call = o.node[0]!;
  expect(call.first).toBe('');
  expect(call.argvBytes).toEqual(nul([L().bundle, 'shim', o.spec.name, path.join(realDir, o.spec.name), '--', ...args]));
}

/** Refused by the shim: exit 126 (or `status`), an agent-guard message, the real program not run. */
function expectRefused(o: Outcome, status = 126): void {
  expect(o.status).toBe(status);
  expect(o.stderr.startsWith('agent-guard:')).toBe(true);
  expect(o.real).toHaveLength(0);
}

const FAST: Array<[string, string[], Record<string, string>?]> = [
  ['git', ['status']],
  ['git', ['-C', 'd', 'log']],
  ['git', ['--no-pager', '-p', 'log']],
  ['git', ['--version']],
  ['git', []],
  ['git', ['--git-dir=x', '--work-tree', 'y', 'diff', '--stat']],
  ['git', ['status'], { GIT_CONFIG_COUNT: '', GIT_CONFIG_PARAMETERS: '' }],
  ['find', ['.', '-name', 'x']],
  ['find', ['.', '-type', 'f', '-print0']],
  ['rm', ['-f']],
  ['rm', ['--help']],
  ['rm', ['-rf', '--']],
  ['rmdir', ['--version']],
  ['unlink', ['--help']],
  ['shred', ['--help']],
  // The overwrite shims (the cwd holds a, `b c`, d/ empty, rel/rm): no existing destination entry.
  ['mv', ['a', 'new']],
  ['cp', ['a', 'd']],
  ['cp', ['-t', 'd', 'a', 'b c']],
  ['mv', ['-n', 'a', 'b c']],
  ['cp', ['-r', 'd', 'fresh']],
  ['truncate', ['-s', '0', 'missing']],
  ['rsync', ['-a', 'a', 'fresh/']],
  ['rsync', ['-an', 'a', 'b c']],
  ['rsync', ['-a', 'a', 'host:dir']],
];

const SLOW: Array<[string, string[], Record<string, string>?]> = [
  ['git', ['reset', '--hard']],
  ['git', ['-c', 'x=y', 'status']],
  ['git', ['status'], { GIT_CONFIG_COUNT: '1' }],
  ['git', ['status'], { GIT_CONFIG_PARAMETERS: "'alias.st'='reset --hard'" }],
  ['git', ['nuke']],
  ['git', ['-C', 'd', 'clean', '-fdx']],
  ['git', ['--config-env=alias.x=Y', 'x']],
  // --shallow-file takes a separate value (git 2.39 accepts it, undocumented): not a fast "unknown option".
  ['git', ['--shallow-file', 'f', 'reset', '--hard']],
  ['git', ['--no-such-option', 'reset', '--hard']],
  ['mv', ['a', 'b c']],
  ['cp', ['rm', 'rel']],
  ['cp', ['-t', 'rel', 'rm']],
  ['cp', ['--frobnicate', 'a', 'x']],
  ['mv', ['a', 'new'], { POSIXLY_CORRECT: '1' }],
  ['truncate', ['-s', '0', 'a']],
  ['rsync', ['-a', 'd/', 'rel/']],
  ['git', ['stash', 'drop']],
  ['git', ['branch', '-D', 'topic']],
  ['git', ['push', '--force']],
  ['find', ['.', '-delete']],
  ['find', ['.', '-exec', 'rm', '{}', '+']],
  ['find', ['.', '-name', 'x', '-fprint', 'out']],
  ['rm', ['x']],
  ['rm', ['--', '-rf']],
  ['rm', ['-']],
  ['rm', ['-f', '']],
  ['rmdir', ['d']],
  ['unlink', ['f']],
  ['shred', ['f']],
];

const WEIRD = [
  'dir with space',
  'line1\nline2',
  'x\n',
  '',
  '-',
  '--',
  '-x',
  '*',
  '$HOME',
  'back\\slash',
  'tab\there',
  "it's",
  '"dq"',
  '`id`',
  '$(id)',
  ';&|<>',
  'ünïcødé',
  'a=b',
  ' lead',
  'trail ',
  '\n',
  '-rf',
  '~',
];

// Directive tests: `rm -rf "a b" c`, checker answer → exit status and the real argv (null: not run).
const DIRECTIVES: Array<[string, Record<string, string>, number, string[] | null]> = [
  ['run', { FAKE_DIRECTIVE: 'run' }, 0, ['-rf', 'a b', 'c']],
  ['keep 1 3', { FAKE_DIRECTIVE: 'keep 1 3' }, 0, ['-rf', 'c']],
  ['keep 2', { FAKE_DIRECTIVE: 'keep 2' }, 0, ['a b']],
  ['keep (no index)', { FAKE_DIRECTIVE: 'keep' }, 0, []],
  ['exit 0', { FAKE_DIRECTIVE: 'exit 0' }, 0, null],
  ['exit 3', { FAKE_DIRECTIVE: 'exit 3' }, 3, null],
  ['exit 3 from a checker exiting 3', { FAKE_DIRECTIVE: 'exit 3', FAKE_RC: '3' }, 3, null],
  ['exit 255', { FAKE_DIRECTIVE: 'exit 255' }, 255, null],
  ['keep 3 1 (reordered)', { FAKE_DIRECTIVE: 'keep 3 1' }, 126, null],
  ['keep 1 1 (repeated)', { FAKE_DIRECTIVE: 'keep 1 1' }, 126, null],
  ['keep 4 (out of range)', { FAKE_DIRECTIVE: 'keep 4' }, 126, null],
  ['keep 0', { FAKE_DIRECTIVE: 'keep 0' }, 126, null],
  ['keep 01', { FAKE_DIRECTIVE: 'keep 01' }, 126, null],
  ['keep -1', { FAKE_DIRECTIVE: 'keep -1' }, 126, null],
  ['keep 1,3', { FAKE_DIRECTIVE: 'keep 1,3' }, 126, null],
  ['keep 1  3 (two spaces)', { FAKE_DIRECTIVE: 'keep 1  3' }, 126, null],
  ['keep 1 3 (trailing space)', { FAKE_DIRECTIVE: 'keep 1 3 ' }, 126, null],
  ['keep 99999999999', { FAKE_DIRECTIVE: 'keep 99999999999' }, 126, null],
  ['keep $(x)', { FAKE_DIRECTIVE: 'keep $(touch pwned)' }, 126, null],
  ['exit 256', { FAKE_DIRECTIVE: 'exit 256' }, 126, null],
  ['exit 03', { FAKE_DIRECTIVE: 'exit 03' }, 126, null],
  ['exit -1', { FAKE_DIRECTIVE: 'exit -1' }, 126, null],
  ['exit (no status)', { FAKE_DIRECTIVE: 'exit' }, 126, null],
  ['garbage', { FAKE_DIRECTIVE: 'garbage' }, 126, null],
  ['RUN', { FAKE_DIRECTIVE: 'RUN' }, 126, null],
  ['"run " (trailing space)', { FAKE_DIRECTIVE: 'run ' }, 126, null],
  ['" run" (leading space)', { FAKE_DIRECTIVE: ' run' }, 126, null],
  ['two lines', { FAKE_DIRECTIVE: 'run\nrun' }, 126, null],
  ['empty line', { FAKE_DIRECTIVE: '' }, 126, null],
  ['no directive, checker exits 0', { FAKE_RC: '0' }, 126, null],
  ['no directive, checker exits 1', { FAKE_RC: '1' }, 126, null],
  ['garbage, checker exits 2', { FAKE_DIRECTIVE: 'garbage', FAKE_RC: '2' }, 126, null],
];

describeSandboxed('PATH shims', () => {
  beforeAll(() => runBatch(), 600_000);

  for (const mode of MODES) {
    describe(`run ${mode === 'path' ? 'through PATH (#!/bin/sh)' : `by ${mode}`}`, () => {
      describe('fast path: the real program at once, no checker, argv untouched', () => {
        for (const [name, args, env] of FAST) {
          const get = defCase(mode, () => ({ name, args, env: { FAKE_DIRECTIVE: 'exit 99', ...env } }));
          itSandboxed(label(name, args, env), () => {
            const o = get();
            expect(o.node).toHaveLength(0);
            expectReal(o, L().real, args);
            expect(o.status).toBe(0);
            expect(o.stdout).toBe('real program says hi\n');
            expect(o.stderr).toBe('');
          });
        }
      });

      describe('slow path: the checker gets `shim <name> <real> -- <args>`; `run` then runs the real program', () => {
        for (const [name, args, env] of SLOW) {
          const get = defCase(mode, () => ({
            name,
            args,
            env: { FAKE_DIRECTIVE: 'run', FAKE_SAY: '1', NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', ...env },
          }));
          itSandboxed(label(name, args, env), () => {
            const o = get();
            expectChecker(o, L().real, args);
            expectReal(o, L().real, args);
            expect(o.status).toBe(0);
            // The checker's own output reaches the caller; the directive does not.
            expect(o.stdout).toBe('checker says hi on stdout\nreal program says hi\n');
            expect(o.stderr).toBe('checker says hi on stderr\n');
          });
        }
      });

      describe('argv reaches the checker and the real program byte-exact', () => {
        const fastGit = defCase(mode, () => ({ name: 'git', args: ['--no-pager', 'log', ...WEIRD] }));
        itSandboxed('fast path: git --no-pager log <odd words>', () => {
          const o = fastGit();
          expect(o.node).toHaveLength(0);
          expectReal(o, L().real, ['--no-pager', 'log', ...WEIRD]);
        });
        const fastFind = defCase(mode, () => ({ name: 'find', args: ['.', '-name', ...WEIRD] }));
        itSandboxed('fast path: find . -name <odd words>', () => {
          const o = fastFind();
          expect(o.node).toHaveLength(0);
          expectReal(o, L().real, ['.', '-name', ...WEIRD]);
        });
        const slowRm = defCase(mode, () => ({ name: 'rm', args: ['-f', ...WEIRD], env: { FAKE_DIRECTIVE: 'run' } }));
        itSandboxed('slow path: rm -f <odd words>, directive run', () => {
          const o = slowRm();
          expectChecker(o, L().real, ['-f', ...WEIRD]);
          expectReal(o, L().real, ['-f', ...WEIRD]);
        });
        const all = ['-f', ...WEIRD];
        const odd = all.map((_a, i) => i + 1).filter((i) => i % 2 === 1);
        const keepOdd = defCase(mode, () => ({ name: 'rm', args: all, env: { FAKE_DIRECTIVE: `keep ${odd.join(' ')}` } }));
        itSandboxed('slow path: rm -f <odd words>, directive keep <every other index>', () => {
          const o = keepOdd();
          expectChecker(o, L().real, all);
          expectReal(o, L().real, odd.map((i) => all[i - 1]!));
        });
        // 3,000 arguments (what xargs passes), all but the second kept: linear, not quadratic, in every shell.
        const many = Array.from({ length: 3000 }, (_x, i) => `file ${i}\n`);
        const keepMost = [1, ...many.map((_x, i) => i + 1).slice(2)];
        const big = defCase(mode, () => ({ name: 'rm', args: many, env: { FAKE_DIRECTIVE: `keep ${keepMost.join(' ')}` }, timeoutMs: 10_000 }));
        itSandboxed('slow path: 3,000 arguments, keep 2,999 of them', () => {
          const o = big();
          expect(o.signal).toBeNull();
          expectReal(o, L().real, keepMost.map((i) => many[i - 1]!));
        });
      });

      describe('directives: run, keep, exit N; anything else fails closed (126, real program not run)', () => {
        for (const [what, env, status, kept] of DIRECTIVES) {
          const get = defCase(mode, () => ({ name: 'rm', args: ['-rf', 'a b', 'c'], env }));
          itSandboxed(what, () => {
            const o = get();
            expect(o.node).toHaveLength(1);
            if (status === 126) {
              expectRefused(o);
            } else {
              expect(o.status).toBe(status);
              if (kept === null) expect(o.real).toHaveLength(0);
              else expectReal(o, L().real, kept);
            }
            expect(fs.existsSync(path.join(L().work, 'pwned'))).toBe(false);
          });
        }
        const broken: Array<[string, (l: Lab) => string]> = [
          ['node missing', (l) => l.noNode],
          ['node not executable', (l) => l.noExecNode],
          ['checker bundle missing', (l) => l.noBundle],
        ];
        for (const [what, dir] of broken) {
          const slow = defCase(mode, (l) => ({ name: 'rm', args: ['x'], path: [dir(l), l.real, '/usr/bin', '/bin'] }));
          itSandboxed(`${what}: a slow-path call is refused`, () => {
            const o = slow();
            expectRefused(o);
            expect(o.node).toHaveLength(0);
          });
          const fast = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [dir(l), l.real, '/usr/bin', '/bin'] }));
          itSandboxed(`${what}: the fast path still works`, () => {
            const o = fast();
            expect(o.status).toBe(0);
            expectReal(o, L().real, ['-f']);
          });
        }
      });

      describe('finding the real program', () => {
        const decoyFast = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.shims, l.decoy, l.real, '/usr/bin', '/bin'] }));
        itSandboxed('skips every dir holding the marker file', () => {
          expectReal(decoyFast(), L().real, ['-f']);
        });
        const decoySlow = defCase(mode, (l) => ({
          name: 'rm',
          args: ['x'],
          path: [l.shims, l.decoy, l.real, '/usr/bin', '/bin'],
          env: { FAKE_DIRECTIVE: 'run' },
        }));
        itSandboxed('skips marked dirs on the slow path too (the checker is told the real path)', () => {
          const o = decoySlow();
          expectChecker(o, L().real, ['x']);
          expectReal(o, L().real, ['x']);
        });
        const relative = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.shims, '', '.', 'rel', './rel', l.real, '/usr/bin', '/bin'] }));
        itSandboxed('skips empty, "." and relative PATH entries (./rm and rel/rm exist in the cwd)', () => {
          expectReal(relative(), L().real, ['-f']);
        });
        const copyFast = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.shims, l.copy, l.real, '/usr/bin', '/bin'] }));
        itSandboxed('an unmarked copy of the shim passes the call on once (PID guard): 2 hops, no checker', () => {
          const o = copyFast();
          expect(o.node).toHaveLength(0);
          expectReal(o, L().real, ['-f'], /^\d+ 2$/);
        });
        const copySlow = defCase(mode, (l) => ({
          name: 'rm',
          args: ['x'],
          path: [l.shims, l.copy, l.real, '/usr/bin', '/bin'],
          env: { FAKE_DIRECTIVE: 'run' },
        }));
        itSandboxed('an unmarked copy does not check a second time', () => {
          const o = copySlow();
          expectChecker(o, L().copy, ['x']);
          expectReal(o, L().real, ['x'], /^\d+ 2$/);
        });
        const symlinked = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.link, l.unmarked, l.real, '/usr/bin', '/bin'] }));
        itSandboxed('an unmarked shim dir reached through a symlinked dir is itself (-ef): 1 hop', () => {
          const o = symlinked();
          expect(o.node).toHaveLength(0);
          expectReal(o, L().real, ['-f'], TAG_1);
        });
        const twice = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.unmarked, l.unmarked, l.real, '/usr/bin', '/bin'] }));
        itSandboxed('an unmarked shim dir listed twice is itself (-ef): 1 hop', () => {
          expectReal(twice(), L().real, ['-f'], TAG_1);
        });
        if (mode !== 'path') {
          const bare = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], bare: true, cwd: l.unmarked, path: [l.unmarked, l.real, '/usr/bin', '/bin'] }));
          itSandboxed(`\`${mode} rm\` in the shim dir ($0 without a slash) still knows itself: 1 hop`, () => {
            expectReal(bare(), L().real, ['-f'], TAG_1);
          });
        }
        // Regression guard: two unmarked shim copies and no real program once made shims exec each
        // other forever (A -> B -> A). The PID-tagged hop counter stops it; a timeout catches a hang.
        const loopFast = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.loopA, l.loopB], timeoutMs: 10_000 }));
        itSandboxed('A -> B -> A loop: fails with 127, no hang', () => {
          const o = loopFast();
          expect(o.signal).toBeNull();
          expectRefused(o, 127);
        });
        const loopSlow = defCase(mode, (l) => ({ name: 'git', args: ['clean', '-fdx'], path: [l.loopA, l.loopB], env: { FAKE_DIRECTIVE: 'run' }, timeoutMs: 10_000 }));
        itSandboxed('A -> B -> A loop on the slow path: checked once, then 127', () => {
          const o = loopSlow();
          expect(o.signal).toBeNull();
          expectRefused(o, 127);
          expect(o.node).toHaveLength(1);
        });
        // A PATH entry is a literal directory name: `re*` must not glob to `real` (set -f).
        const glob = defCase(mode, (l) => ({ name: 'rm', args: ['-f'], path: [l.shims, `${l.root}/re*`, `${l.root}/rea?`] }));
        itSandboxed('PATH entries are not globbed', () => {
          expectRefused(glob(), 127);
        });
        const notFound = defCase(mode, (l) => ({ name: 'git', args: ['status'], path: [l.shims, l.decoy, 'usr/bin'] }));
        itSandboxed('no real program on PATH: 127', () => {
          const o = notFound();
          expectRefused(o, 127);
          expect(o.node).toHaveLength(0);
        });
      });

      describe('with the real rm', () => {
        const tree = (l: Lab, name: string): string => {
          const d = path.join(l.root, 'victims', `${mode}-${name}`);
          fs.mkdirSync(path.join(d, 'build', 'sub'), { recursive: true });
          fs.writeFileSync(path.join(d, 'build', 'sub', 'f.txt'), 'data\n');
          return d;
        };
        const realPath = ['/usr/bin', '/bin'];
        const run = defCase(mode, (l) => ({ name: 'rm', args: ['-rf', 'build'], cwd: tree(l, 'run'), path: [l.shims, ...realPath], env: { FAKE_DIRECTIVE: 'run' } }));
        itSandboxed('directive run: `rm -rf build` deletes build', () => {
          const o = run();
          expect(o.status).toBe(0);
          expect(o.node).toHaveLength(1);
          expect(fs.existsSync(path.join(o.spec.cwd!, 'build'))).toBe(false);
          expect(fs.existsSync(o.spec.cwd!)).toBe(true);
        });
        const refused = defCase(mode, (l) => ({ name: 'rm', args: ['-rf', 'build'], cwd: tree(l, 'refused'), path: [l.shims, ...realPath], env: { FAKE_DIRECTIVE: 'nope' } }));
        itSandboxed('a bad directive: nothing deleted', () => {
          const o = refused();
          expect(o.status).toBe(126);
          expect(fs.readFileSync(path.join(o.spec.cwd!, 'build', 'sub', 'f.txt'), 'utf8')).toBe('data\n');
        });
        const done = defCase(mode, (l) => ({ name: 'rm', args: ['-rf', 'build'], cwd: tree(l, 'exit'), path: [l.shims, ...realPath], env: { FAKE_DIRECTIVE: 'exit 0' } }));
        itSandboxed('directive exit 0: rm does not run', () => {
          const o = done();
          expect(o.status).toBe(0);
          expect(fs.existsSync(path.join(o.spec.cwd!, 'build', 'sub', 'f.txt'))).toBe(true);
        });
      });

      // Only registered where strace exists: the batch must not try to start a missing program.
      if (STRACE) describe('no process is started on the fast path (strace)', () => {
        for (const [name, args] of [['git', ['status']], ['find', ['.', '-name', 'x']], ['rm', ['-f']], ['mv', ['a', 'new']], ['truncate', ['-s', '0', 'missing']]] as const) {
          const get = defCase(mode, (l) => ({
            name,
            args: [...args],
            wrap: [STRACE ?? 'strace', '-f', '-qq', '-e', 'trace=fork,vfork,clone,clone3', '-o', path.join(l.root, `strace-${mode}-${name}`)],
          }));
          itSandboxed(`${name} ${args.join(' ')}`, () => {
            const o = get();
            expect(o.status).toBe(0);
            expectReal(o, L().real, [...args]);
            expect(fs.readFileSync(path.join(L().root, `strace-${mode}-${name}`), 'utf8')).toBe('');
          });
        }
      });
    });
  }
});

describe('writeShims', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-writeshims-')));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const node = '/opt/node v20/bin/node';
  const bundle = '/opt/agent-guard/dist/agent-guard.cjs';
  const template = fs.readFileSync(TEMPLATE_PATH, 'utf8');

  it('writes one 0755 shim per name and the marker, and returns their paths', () => {
    const dir = path.join(tmp, 'a', 'shims');
    const written = writeShims(dir, { node, bundle });
    expect(written).toEqual([...SHIM_NAMES.map((n) => path.join(dir, n)), path.join(dir, SHIM_MARKER)]);
    expect(fs.readdirSync(dir).sort()).toEqual([...SHIM_NAMES, SHIM_MARKER].sort());
    for (const n of SHIM_NAMES) {
      const f = path.join(dir, n);
      expect(fs.statSync(f).mode & 0o7777).toBe(0o755);
      const text = fs.readFileSync(f, 'utf8');
      // Every shim is the template with its own #@only blocks and the three values put in, nothing else.
      expect(text).toBe(onlyFor(template, n).replaceAll('@AG_NAME@', n).replaceAll('@AG_NODE@', node).replaceAll('@AG_BUNDLE@', bundle));
      expect(text).not.toMatch(/@AG_[A-Z]+@/);
      expect(text.startsWith('#!/bin/sh\n')).toBe(true);
    }
    expect(fs.statSync(path.join(dir, SHIM_MARKER)).isFile()).toBe(true);
  });

  it('is idempotent: a second run rewrites nothing and leaves no temporary file', () => {
    const dir = path.join(tmp, 'b');
    const first = writeShims(dir, { node, bundle });
    const before = first.map((f) => [fs.readFileSync(f), fs.statSync(f).ino, fs.statSync(f).mtimeMs]);
    const second = writeShims(dir, { node, bundle });
    expect(second).toEqual(first);
    expect(second.map((f) => [fs.readFileSync(f), fs.statSync(f).ino, fs.statSync(f).mtimeMs])).toEqual(before);
    expect(fs.readdirSync(dir)).toHaveLength(SHIM_NAMES.length + 1);
  });

  it('replaces a stale or foreign file in place (rename), fixing content and mode', () => {
    const dir = path.join(tmp, 'c');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'rm'), 'echo stale\n', { mode: 0o644 });
    writeShims(dir, { node: '/usr/bin/node', bundle });
    writeShims(dir, { node, bundle });
    expect(fs.readFileSync(path.join(dir, 'rm'), 'utf8')).toBe(renderShim(template, 'rm', node, bundle));
    expect(fs.statSync(path.join(dir, 'rm')).mode & 0o7777).toBe(0o755);
    expect(fs.readdirSync(dir)).toHaveLength(SHIM_NAMES.length + 1);
  });

  for (const bad of ['\n', '"', '$', '`', '\\', '\r', '\t']) {
    it(`refuses a node or bundle path containing ${JSON.stringify(bad)}, writing nothing`, () => {
      const dir = path.join(tmp, `bad-${bad.charCodeAt(0)}`);
      expect(() => writeShims(dir, { node: `/opt/no${bad}de/node`, bundle })).toThrow(Error);
      expect(() => writeShims(dir, { node, bundle: `/opt/b${bad}/agent-guard.cjs` })).toThrow(Error);
      expect(fs.existsSync(dir)).toBe(false);
    });
  }

  it('refuses relative paths and names that are not plain words', () => {
    expect(() => renderShim(template, 'rm', 'node', bundle)).toThrow(/absolute/);
    expect(() => renderShim(template, 'rm', node, 'dist/agent-guard.cjs')).toThrow(/absolute/);
    for (const name of ['', 'r m', '../rm', "rm'", '-rm', 'rm\n']) {
      expect(() => renderShim(template, name, node, bundle)).toThrow(Error);
    }
  });

  it("keeps only the program's own #@only blocks: each shim parses only its own fast path", () => {
    // The case arm of section 4 that names each program, and the mv/cp option reader.
    const arms: Record<string, string> = { git: '  git)\n', find: '  find)\n', rm: '  rm | rmdir | unlink | shred)\n', mv: '  mv | cp)\n', truncate: '  truncate)\n', rsync: '  rsync)\n', scan: 'ag_mc_scan() {\n' };
    const owner: Record<string, string[]> = { git: ['git'], find: ['find'], rm: ['rm', 'rmdir', 'unlink', 'shred'], mv: ['mv', 'cp'], truncate: ['truncate'], rsync: ['rsync'], scan: ['mv', 'cp'] };
    for (const arm of Object.values(arms)) expect(template).toContain(arm);
    for (const name of SHIM_NAMES) {
      const text = renderShim(template, name, node, bundle);
      expect(text).not.toMatch(/^#@/m);
      for (const [k, arm] of Object.entries(arms)) expect(text.includes(arm), `${name}: ${k}`).toBe(owner[k]!.includes(name));
      expect(text.length).toBeLessThan(template.length);
    }
    expect(() => renderShim(template.replace('#@end\n', ''), 'rm', node, bundle)).toThrow(/#@only/);
    expect(() => renderShim(template + '\n#@end\n', 'rm', node, bundle)).toThrow(/#@end/);
    expect(() => renderShim(template + '\n#@only rm\n', 'rm', node, bundle)).toThrow(/without #@end/);
  });

  it('substitutes in one pass: a value containing a placeholder stays as it is', () => {
    const text = renderShim(template, 'rm', '/opt/@AG_NAME@/node', bundle);
    expect(text).toContain('ag_node="/opt/@AG_NAME@/node"');
    expect(text).toContain("ag_name='rm'");
  });

  it('takes the template as text or as a path, and finds shims/shim.sh by default', () => {
    const custom = '#!/bin/sh\n# @AG_NAME@ @AG_NODE@ @AG_BUNDLE@\n';
    const d1 = path.join(tmp, 'text');
    writeShims(d1, { node, bundle, template: custom });
    expect(fs.readFileSync(path.join(d1, 'git'), 'utf8')).toBe(`#!/bin/sh\n# git ${node} ${bundle}\n`);
    const tpl = path.join(tmp, 'tpl.sh');
    fs.writeFileSync(tpl, custom);
    const d2 = path.join(tmp, 'path');
    writeShims(d2, { node, bundle, templatePath: tpl });
    expect(fs.readFileSync(path.join(d2, 'find'), 'utf8')).toBe(`#!/bin/sh\n# find ${node} ${bundle}\n`);
    expect(defaultTemplatePath()).toBe(TEMPLATE_PATH);
    expect(() => renderShim('#!/bin/sh\necho\n', 'rm', node, bundle)).toThrow(/placeholder/);
    expect(() => renderShim('echo @AG_NAME@ @AG_NODE@ @AG_BUNDLE@\n', 'rm', node, bundle)).toThrow(/#!\/bin\/sh/);
  });
});

describe('shims/shim.sh as a file', () => {
  const template = fs.readFileSync(TEMPLATE_PATH, 'utf8');
  const rendered = renderShim(template, 'rm', '/usr/bin/node', '/opt/agent-guard/agent-guard.cjs');
  // Code only: comment lines and trailing comments removed.
  const code = template
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .map((l) => l.replace(/\s+#\s.*$/, ''))
    .join('\n');

  for (const [shell, args] of [
    ['dash', ['-n']],
    ['bash', ['--posix', '-n']],
    ['zsh', ['-n']],
  ] as const) {
    it.skipIf(!SHELLS[shell])(`parses under ${shell} ${args.join(' ')}`, () => {
      const r = spawnSync(SHELLS[shell] ?? shell, [...args], { input: rendered, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  }

  it.skipIf(!SHELLCHECK)('is clean under shellcheck -s sh (template and a rendered shim)', () => {
    for (const text of [template, rendered]) {
      const r = spawnSync(SHELLCHECK ?? 'shellcheck', ['-s', 'sh', '-'], { input: text, encoding: 'utf8' });
      expect(r.stdout).toBe('');
      expect(r.status).toBe(0);
    }
  });

  it('assigns only ag_* and AGENT_GUARD_* variables (plus IFS, NODE_EXTRA_CA_CERTS for the checker, and PATH for the exec of rm/rmdir/unlink/shred only)', () => {
    const names = new Set<string>();
    for (const m of code.matchAll(/(?:^|[\s;|&({])([A-Za-z_][A-Za-z0-9_]*)=/g)) names.add(m[1]!);
    for (const m of code.matchAll(/\bfor\s+([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(m[1]!);
    const foreign = [...names].filter((n) => !/^(ag_|AGENT_GUARD_)/.test(n) && n !== 'IFS' && n !== 'NODE_EXTRA_CA_CERTS' && n !== 'PATH');
    expect(foreign).toEqual([]);
    // PATH is only ever a prefix assignment of the one exec that runs the real tool by its name.
    expect([...code.matchAll(/PATH=[^\n]*/g)].map((m) => m[0])).toEqual(['PATH="${ag_real%/*}:$PATH" AGENT_GUARD_SHIM_PID="$$ $ag_h" exec "$ag_name" "$@"']);
    expect(names.has('ag_real')).toBe(true);
  });

  it('uses no bash-only or non-POSIX construct', () => {
    const banned: Array<[RegExp, string]> = [
      [/\[\[/, '[[ is bash/zsh only'],
      [/(?<![\w-])local\s/, 'local is not POSIX'],
      [/(?<![\w-])source\s/, 'source is bash only; and nothing is sourced'],
      [/(?<![\w-])echo\s/, 'echo differs between shells; use printf'],
      [/\$\(</, '$(<file) is bash/zsh only'],
      [/<\(/, 'process substitution is bash/zsh only'],
      [/\breadlink\b|\brealpath\b/, 'external programs (and not portable)'],
      [/(?<![\w-])function\s/, 'the function keyword is not POSIX'],
      [/==/, '== in test is not POSIX'],
      [/\$\{[^}]*\/\//, '${x//a/b} is not POSIX'],
      [/\bshopt\b|\bsetopt\b/, 'shell-specific options'],
    ];
    for (const [re, why] of banned) expect(re.test(code), why).toBe(false);
  });

  it('keeps the placeholders in exactly three quoted assignments', () => {
    expect(template.match(/@AG_[A-Z]+@/g)?.sort()).toEqual(['@AG_BUNDLE@', '@AG_NAME@', '@AG_NODE@']);
    expect(template).toContain("ag_name='@AG_NAME@'");
    expect(template).toContain('ag_node="@AG_NODE@"');
    expect(template).toContain('ag_bundle="@AG_BUNDLE@"');
  });
});
