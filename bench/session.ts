// Living in a guarded session (issue 13): each workload inside `agent-guard run -- bash -c …` against
// plain `bash -c …`, on identical fresh copies of one workspace, interleaved, in one run, inside the
// read-only sandbox (both sides in the same one: they delete). Reported as the ratio guarded/plain
// with its spread (min / median / max of the per-pair ratios). Two modes:
//   session: a new `agent-guard run` per workload (it pays the session start and one cold call);
//   steady:  the workloads run inside one `agent-guard run` whose checker is already warm.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runSandboxed, sandboxSupport } from '../tests/helpers/sandbox.js';
import { quantile } from './stats.js';

const DRIVER = fileURLToPath(new URL('./session-driver.mjs', import.meta.url));
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Row {
  name: string;
  cmd?: string;
  argv?: string[];
  template: 'small' | 'big';
  /** A path that must be gone afterwards on both sides. */
  gone?: string;
  /** The issue's target for the ratio, when it has one. */
  target?: number;
}

export const SESSION_ROWS: readonly Row[] = [
  { name: 'grep loop', cmd: 'for i in $(seq 200); do grep -c 1 README; done', template: 'small', target: 1.3 },
  { name: 'git status loop', cmd: 'for i in $(seq 100); do git status --short; done', template: 'small', target: 1.3 },
  { name: 'bash -c true loop', cmd: 'for i in $(seq 30); do bash -c true; done', template: 'small', target: 2 },
  { name: 'rm loop (200 files)', cmd: 'for f in objs/*.o; do rm "$f"; done', template: 'small', gone: 'objs/1.o', target: 2 },
  { name: 'find -exec rm \\; (200)', cmd: "find objs -name '*.o' -exec rm {} \\;", template: 'small', gone: 'objs/1.o', target: 2 },
  { name: 'xargs -P8 -n1 rm (200)', cmd: "printf '%s\\n' objs/*.o | xargs -P8 -n1 rm", template: 'small', gone: 'objs/1.o', target: 2 },
  { name: 'rm -rf (3,000 files)', cmd: 'rm -rf objs', template: 'big', gone: 'objs', target: 1.5 },
  { name: 'redirect loop (200, one file)', cmd: 'for i in $(seq 200); do echo $i > out.txt; done', template: 'small', target: 1.3 },
  { name: '[[ ]] loop (1000)', cmd: 'for i in $(seq 1000); do [[ $i -gt 0 ]] && echo $i; done', template: 'small', target: 1.3 },
  // Ten everyday commands as Claude Code 2.1.332 sends each (a `bash -c -l` that sources its shell
  // snapshot, then `eval`s the command and writes the cwd to a temp file): the snapshot re-exports
  // the PATH the harness was started with (the shims first, under `run`), or, as older versions
  // and some login set-ups leave it, a PATH without them (every command then goes to the checker).
  { name: 'Claude Code commands (10)', cmd: claudeLoop("export PATH='$PATH'"), template: 'small' },
  { name: 'Claude Code commands (10), snapshot PATH without the shims', cmd: claudeLoop("export PATH='/usr/local/bin:/usr/bin:/bin'"), template: 'small' },
  { name: 'run -- true vs true', argv: ['true'], template: 'small' },
];

/** The Claude Code rows' workload: a snapshot with `pathLine` (expanded when written), then each
 *  command through Claude's wrapper; the cwd file goes to TMPDIR (a scratch zone) under a new name
 *  per command, as Claude's does. */
function claudeLoop(pathLine: string): string {
  const cmds = ['git status --short', 'ls -la', 'cat README', 'grep -c line README', 'echo x > data.txt', 'git diff --stat', 'rm -f objs/1.o', 'mkdir -p b && touch b/x && rm -rf b', 'git log --oneline -1', 'wc -l README'];
  return [
    'TMPDIR=$(mktemp -d "$PWD/../claude-tmp.XXXXXX") && export TMPDIR',
    `printf '%s\\n' "${pathLine}" 'shopt -s expand_aliases' "alias ll='ls -l'" > "$TMPDIR/snapshot.sh"`,
    'echo old > data.txt',
    `n=0; for c in ${cmds.map((c) => `'${c}'`).join(' ')}; do n=$((n + 1)); q=$(printf '%q' "$c"); bash -c -l "source $TMPDIR/snapshot.sh 2>/dev/null || true && \\builtin shopt -u extglob 2>/dev/null || true && eval $q < /dev/null && pwd -P >| $TMPDIR/claude-$n-cwd" > /dev/null; done`,
  ].join('; ');
}

export interface SessionRow {
  name: string;
  mode: 'session' | 'steady';
  target: number | null;
  plainMs: number;
  guardedMs: number;
  /** Per-pair ratios guarded/plain: min, median, max. */
  ratio: [number, number, number];
  n: number;
  problems: string[];
}

export interface SessionResult {
  rows: SessionRow[];
  skipped?: string;
}

function git(cwd: string, args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** The workspace every copy is made from: a git repository with a committed README, and `objs/`
 *  holding 200 untracked files (small) or 3,000 in 30 directories (big). */
function template(dir: string, big: boolean): void {
  fs.mkdirSync(path.join(dir, 'objs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'README'), Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join(''));
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', 'README']);
  git(dir, ['commit', '-qm', 'init']);
  if (!big) for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, 'objs', `${i}.o`), `${i}\n`);
  else
    for (let i = 0; i < 3000; i++) {
      const d = path.join(dir, 'objs', `d${Math.floor(i / 100)}`);
      if (i % 100 === 0) fs.mkdirSync(d);
      fs.writeFileSync(path.join(d, `${i}.o`), `${i}\n`);
    }
}

function summarizeRows(raw: { rows: { name: string; plain: number[]; guarded: number[]; problems: string[] }[] }, mode: SessionRow['mode'], rows: readonly Row[]): SessionRow[] {
  return raw.rows.map((r, i) => {
    const ratios = r.guarded.map((g, k) => g / r.plain[k]!).sort((a, b) => a - b);
    const med = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5);
    return {
      name: r.name,
      mode,
      target: rows[i]!.target ?? null,
      plainMs: med(r.plain),
      guardedMs: med(r.guarded),
      ratio: [ratios[0]!, quantile(ratios, 0.5), ratios[ratios.length - 1]!],
      n: ratios.length,
      problems: [...new Set(r.problems)].slice(0, 5),
    };
  });
}

export function benchSession(bundle: string, opts: { reps: number; steady: boolean; only?: RegExp }): SessionResult {
  const support = sandboxSupport();
  if (!support.ok) return { rows: [], skipped: support.reason };
  const rows = SESSION_ROWS.filter((r) => !opts.only || opts.only.test(r.name));
  const rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-bench-session-')));
  try {
    const home = path.join(rw, 'home');
    // The checker's directory on a tmpfs, as /run/user/<uid> is: the sandbox's private /dev/shm.
    const runtime = '/dev/shm/ag-bench-run';
    fs.mkdirSync(home);
    const small = path.join(rw, 'tpl-small');
    const big = path.join(rw, 'tpl-big');
    template(small, false);
    template(big, true);
    const env = { HOME: home, PATH: SYSTEM_PATH, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_RUNTIME_DIR: runtime, LANG: 'C.UTF-8' };
    const input = {
      node: process.execPath,
      bin: bundle,
      work: rw,
      reps: opts.reps,
      env,
      rows: rows.map((r) => ({ ...r, template: r.template === 'big' ? big : small })),
    };
    const inFile = path.join(rw, 'input.json');
    fs.writeFileSync(inFile, JSON.stringify(input));
    const out: SessionRow[] = [];
    const modes: [SessionRow['mode'], string[]][] = [['session', [process.execPath, DRIVER, inFile, path.join(rw, 'out-session.json')]]];
    if (opts.steady) modes.push(['steady', [process.execPath, bundle, 'run', '--', process.execPath, DRIVER, inFile, path.join(rw, 'out-steady.json'), '--steady']]);
    for (const [mode, argv] of modes) {
      const prepare = ['sh', '-c', `mkdir -m 700 -p ${runtime} && exec "$@"`, 'sh'];
      const r = runSandboxed(rw, [...prepare, 'env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], { cwd: rw, timeoutMs: 3_600_000 });
      if (r.exitCode !== 0) throw new Error(`session bench (${mode}) exited ${r.exitCode}: ${r.stderr.slice(0, 2000)}`);
      const measured = mode === 'steady' ? rows.filter((r) => !r.argv) : rows;
      out.push(...summarizeRows(JSON.parse(fs.readFileSync(argv[argv.length - (mode === 'steady' ? 2 : 1)]!, 'utf8')), mode, measured));
    }
    return { rows: out };
  } finally {
    fs.rmSync(rw, { recursive: true, force: true });
  }
}

const f2 = (x: number): string => x.toFixed(2);

export function renderSession(res: SessionResult): string {
  if (res.skipped) return `\nSession (issue 13): skipped, ${res.skipped}\n`;
  const lines = ['', 'Session (issue 13): guarded (agent-guard run) / plain bash, per-pair ratio min / median / max', ''];
  const header = ['workload', 'mode', 'plain ms', 'guarded ms', 'ratio min/med/max', 'target', 'n'];
  const body = res.rows.map((r) => [
    r.name,
    r.mode,
    r.plainMs.toFixed(0),
    r.guardedMs.toFixed(0),
    `${f2(r.ratio[0])} / ${f2(r.ratio[1])} / ${f2(r.ratio[2])}`,
    r.target === null ? '-' : `<= ${r.target}x ${r.ratio[1] <= r.target ? 'met' : 'over'}`,
    String(r.n),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  lines.push(fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt));
  for (const r of res.rows) for (const p of r.problems) lines.push(`  ! ${r.name} (${r.mode}): ${p}`);
  return lines.join('\n') + '\n';
}
