// `restore list` and `status` at 10,000 transactions answered by the warm checker through the
// launcher (dist/agent-guard, docs/shims.md "Warm path") against the cold CLI (`node
// dist/agent-guard.cjs …`), inside one `agent-guard run` whose checker is up, in the read-only
// sandbox (bench/warm-cli-driver.mjs times them there, interleaved). The quarantine is written
// directly with the recovery module's own record writer: 10,000 relocations of one file each.
// Target (issue 13): the warm answer in at most 50 ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSandboxed, sandboxSupport } from '../tests/helpers/sandbox.js';
import { appendRecord, encodePath } from '../src/recovery/records.js';
import { quantile } from './stats.js';

const DRIVER = fileURLToPath(new URL('./warm-cli-driver.mjs', import.meta.url));
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const WARM_TARGET_MS = 50;

export const WARM_CLI_ROWS: readonly string[][] = [['restore', 'list'], ['restore', 'list', '--json'], ['status'], ['status', '--json']];

export interface WarmCliRow {
  name: string;
  warmMs: [number, number, number];
  coldMs: [number, number, number];
  /** Per-pair ratio cold/warm: min, median, max. */
  speedup: [number, number, number];
  stdoutBytes: number;
  n: number;
  problems: string[];
}

export interface WarmCliResult {
  transactions: number;
  rows: WarmCliRow[];
  skipped?: string;
}

/** A quarantine of `n` transactions, each one relocated file (present), through appendRecord. */
export function makeQuarantine(ws: string, n: number): void {
  const q = path.join(ws, '.agent-trash');
  fs.mkdirSync(q, { recursive: true });
  const manifest = path.join(q, 'manifest.jsonl');
  const day = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < n; i++) {
    const at = new Date(day + i * 1000);
    const txid = `${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${i.toString(16).padStart(8, '0')}`;
    const rel = `src/file${i}.o`;
    fs.mkdirSync(path.join(q, txid, 'src'), { recursive: true });
    fs.writeFileSync(path.join(q, txid, rel), `${i}\n`);
    const base = { txid, session: null, ts: at.toISOString() };
    const origin = encodePath(Buffer.from(rel));
    const dest = encodePath(Buffer.from(`${txid}/${rel}`));
    appendRecord(manifest, { ...base, kind: 'tx-start', command: `rm ${rel}`, cwd: ws }, { sync: false });
    appendRecord(manifest, { ...base, kind: 'relocate-intent', origin, dest, type: 'file' }, { sync: false });
    appendRecord(manifest, { ...base, kind: 'relocate', origin, dest, type: 'file', via: 'rename' }, { sync: false });
  }
}

const spread = (xs: number[]): [number, number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  return [s[0]!, quantile(s, 0.5), s[s.length - 1]!];
};

export function benchWarmCli(bundle: string, launcher: string, opts: { transactions: number; reps: number }): WarmCliResult {
  const support = sandboxSupport();
  if (!support.ok) return { transactions: opts.transactions, rows: [], skipped: support.reason };
  if (!fs.existsSync(launcher)) throw new Error(`${launcher} is missing: run npm run build first (npm run bench does)`);
  const rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-bench-warm-cli-')));
  try {
    const home = path.join(rw, 'home');
    const ws = path.join(rw, 'ws');
    fs.mkdirSync(home);
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    makeQuarantine(ws, opts.transactions);
    const runtime = '/dev/shm/ag-bench-run';
    const env = { HOME: home, PATH: SYSTEM_PATH, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_RUNTIME_DIR: runtime, LANG: 'C.UTF-8' };
    const input = { node: process.execPath, bin: bundle, launcher, ws, reps: opts.reps, rows: WARM_CLI_ROWS };
    const inFile = path.join(rw, 'input.json');
    const outFile = path.join(rw, 'out.json');
    fs.writeFileSync(inFile, JSON.stringify(input));
    const argv = ['sh', '-c', `mkdir -m 700 -p ${runtime} && exec "$@"`, 'sh', 'env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, bundle, 'run', '--', process.execPath, DRIVER, inFile, outFile];
    const r = runSandboxed(rw, argv, { cwd: ws, timeoutMs: 1_800_000 });
    if (r.exitCode !== 0) throw new Error(`warm cli bench exited ${r.exitCode}: ${r.stderr.slice(0, 2000)}`);
    const raw = JSON.parse(fs.readFileSync(outFile, 'utf8')) as { rows: { name: string; warm: number[]; cold: number[]; bytes: number; problems: string[] }[] };
    return {
      transactions: opts.transactions,
      rows: raw.rows.map((x) => ({
        name: x.name,
        warmMs: spread(x.warm),
        coldMs: spread(x.cold),
        speedup: spread(x.cold.map((c, i) => c / x.warm[i]!)),
        stdoutBytes: x.bytes,
        n: x.warm.length,
        problems: [...new Set(x.problems)].slice(0, 5),
      })),
    };
  } finally {
    fs.rmSync(rw, { recursive: true, force: true });
  }
}

const f0 = (x: number): string => x.toFixed(0);
const f1 = (x: number): string => x.toFixed(1);

export function renderWarmCli(r: WarmCliResult): string {
  if (r.skipped) return `\nWarm restore list / status: skipped, ${r.skipped}\n`;
  const lines = ['', `Warm restore list / status (issue 13), ${r.transactions} transactions: the launcher answered by the warm checker vs node dist/agent-guard.cjs (cold), ms min / median / max`, ''];
  const header = ['command', 'warm ms', 'cold ms', 'cold/warm', 'stdout', `<= ${WARM_TARGET_MS} ms`, 'n'];
  const body = r.rows.map((x) => [
    x.name,
    x.warmMs.map(f1).join(' / '),
    x.coldMs.map(f0).join(' / '),
    x.speedup.map(f1).join(' / '),
    `${(x.stdoutBytes / 1024).toFixed(0)} KiB`,
    x.warmMs[1] <= WARM_TARGET_MS ? 'met' : 'over',
    String(x.n),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  lines.push(fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt));
  for (const x of r.rows) for (const p of x.problems) lines.push(`  ! ${x.name}: ${p}`);
  return lines.join('\n') + '\n';
}
