// The recovery engine's costs (issue 3): relocating a 100,000-file tree (one rename) against a plain
// `rm -rf` of the same tree, both inside the read-only sandbox (they move and delete); and
// `restore list` with 10,000 transactions in the quarantine against a bare Node start.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSandboxed, sandboxSupport } from '../tests/helpers/sandbox.js';
import { compare, type ProcessRow } from './process.js';

export interface RecoveryResult {
  files: number;
  relocateMs: number | null;
  rmMs: number | null;
  /** Why the tree rows are missing (no sandbox here). */
  skipped?: string;
  transactions: number;
  list: ProcessRow;
  listJson: ProcessRow;
  status: ProcessRow;
  statusJson: ProcessRow;
  /** The first `restore list` with no index (it folds the whole manifest and writes the index). */
  firstListMs: number;
}

/** A tree of `n` small files, 100 per directory. */
function makeTree(root: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}`), 'x');
  }
}

/** A quarantine manifest holding `n` relocation transactions (one file each, present). */
function makeManifest(ws: string, n: number): void {
  const q = path.join(ws, '.agent-trash');
  fs.mkdirSync(q, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const txid = `20260101T${String(Math.floor(i / 3600) % 24).padStart(2, '0')}${String(Math.floor(i / 60) % 60).padStart(2, '0')}${String(i % 60).padStart(2, '0')}Z-${i.toString(16).padStart(8, '0')}`;
    const dest = path.join(q, txid, `file${i}`);
    fs.mkdirSync(path.dirname(dest));
    fs.writeFileSync(dest, 'q');
    const base = { v: 1, ts: '2026-01-01T00:00:00.000Z', txid, session: null, pid: 1 };
    const origin = { path: `file${i}`, pathB64: Buffer.from(`file${i}`).toString('base64') };
    const d = { path: `${txid}/file${i}`, pathB64: Buffer.from(`${txid}/file${i}`).toString('base64') };
    lines.push(JSON.stringify({ ...base, kind: 'tx-start', command: `rm file${i}`, cwd: ws }));
    lines.push(JSON.stringify({ ...base, kind: 'relocate-intent', origin, dest: d, type: 'file' }));
    lines.push(JSON.stringify({ ...base, kind: 'relocate', origin, dest: d, type: 'file', via: 'rename' }));
  }
  fs.writeFileSync(path.join(q, 'manifest.jsonl'), lines.join('\n') + '\n');
}

export function benchRecovery(bundle: string, opts: { files: number; transactions: number; runs: number }): RecoveryResult {
  const rw = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-bench-recovery-')));
  try {
    const ws = path.join(rw, 'ws');
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    const env = { HOME: rw, PATH: process.env.PATH ?? '/usr/bin:/bin' };
    let relocateMs: number | null = null;
    let rmMs: number | null = null;
    let skipped: string | undefined;
    const support = sandboxSupport();
    if (support.ok) {
      makeTree(path.join(ws, 'a'), opts.files);
      makeTree(path.join(ws, 'b'), opts.files);
      // Both timed inside one sandboxed shell, so the sandbox's own set-up is outside the numbers.
      const script = `t0=$(date +%s%N); ${JSON.stringify(process.execPath)} ${JSON.stringify(bundle)} check --enforce -- "rm -rf a" >/dev/null || exit 3; t1=$(date +%s%N); rm -rf b || exit 4; t2=$(date +%s%N); echo $(( (t1 - t0) / 1000 )) $(( (t2 - t1) / 1000 ))`;
      const r = runSandboxed(rw, ['sh', '-c', script], { cwd: ws, env, timeoutMs: 600_000 });
      if (r.exitCode !== 0) throw new Error(`the relocation bench failed (${r.exitCode}): ${r.stderr}`);
      const [a, b] = r.stdout.trim().split(' ').map(Number);
      relocateMs = a! / 1000;
      rmMs = b! / 1000;
    } else skipped = `no sandbox: ${support.reason}`;
    fs.rmSync(path.join(ws, '.agent-trash'), { recursive: true, force: true });
    makeManifest(ws, opts.transactions);
    const spawn = { cwd: ws, env, maxBuffer: 256 * 1024 * 1024 };
    const t0 = process.hrtime.bigint();
    const first = spawnSync(process.execPath, [bundle, 'restore', 'list', '--json'], spawn);
    const firstListMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (first.status !== 0) throw new Error(`restore list failed: ${first.stderr}`);
    // The measured runs read the index the first call wrote, plus nothing new: the steady state.
    const row = (name: string, args: string[], expect: RegExp): ProcessRow => compare({ name: `${name} (${opts.transactions} transactions)`, args: [bundle, ...args], gated: false, expect }, { runs: opts.runs, warmup: 1, spawn });
    const list = row('restore list', ['restore', 'list'], /^TXID /);
    const listJson = row('restore list --json', ['restore', 'list', '--json'], /^\{"version":1/);
    const status = row('status', ['status'], /^session /);
    const statusJson = row('status --json', ['status', '--json'], /^\{"version":1/);
    return { files: opts.files, relocateMs, rmMs, ...(skipped ? { skipped } : {}), transactions: opts.transactions, list, listJson, status, statusJson, firstListMs };
  } finally {
    fs.rmSync(rw, { recursive: true, force: true });
  }
}

export function renderRecovery(r: RecoveryResult): string {
  const lines = ['', 'Recovery:'];
  if (r.relocateMs === null) lines.push(`  ${r.files}-file tree: skipped (${r.skipped})`);
  else {
    lines.push(`  ${r.files}-file tree: check --enforce "rm -rf" (relocate, one rename) ${r.relocateMs.toFixed(0)} ms vs plain rm -rf ${r.rmMs!.toFixed(0)} ms  ratio ${(r.relocateMs / r.rmMs!).toFixed(3)}x  ${r.relocateMs < r.rmMs! ? 'PASS (faster than the delete)' : 'OVER'}`);
  }
  for (const row of [r.list, r.listJson, r.status, r.statusJson]) {
    lines.push(`  ${row.name}: ${row.subjectMs.median.toFixed(0)} ms vs node -e '' ${row.baselineMs.median.toFixed(0)} ms  added ${row.addedMs.toFixed(0)} ms  ${row.addedMs < 300 ? 'PASS (< 300 ms above a Node start)' : 'OVER'}`);
  }
  lines.push(`  first restore list with no index (folds all ${r.transactions * 3} records, writes the index): ${r.firstListMs.toFixed(0)} ms`);
  return lines.join('\n') + '\n';
}
