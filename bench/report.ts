// Renders the results as plain-text tables (the default) for a person at a terminal.
import type { InProcessRow } from './in-process.js';
import type { ProcessRow } from './process.js';

export interface BenchResult {
  node: string;
  platform: string;
  cpus: number;
  cpuModel: string;
  runs: number;
  /** The ratio a check may cost, at most, relative to a bare Node start. */
  target: number;
  bundleKiB: number;
  inProcess: InProcessRow[];
  process: ProcessRow[];
  /** Every gated row is within the target. */
  pass: boolean;
}

/** Pads every column to its widest cell; numbers (and headers over them) align right. */
function table(header: readonly string[], rows: readonly string[][], rightAligned: ReadonlySet<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]): string =>
    cells.map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

/** Long lines are cut so the table stays readable; the JSON output keeps them whole. */
function clip(s: string, n = 40): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);

function inProcessTable(rows: readonly InProcessRow[]): string {
  const body = rows.map((r) => [
    clip(r.line),
    `${r.decision} ${r.code}`,
    String(r.gitSpawns),
    f1(r.decideUs.median),
    f1(r.decideUs.mean),
    f1(r.classifyUs.median),
    f1(r.classifyUs.mean),
  ]);
  return table(['line', 'decision', 'git', 'decide med µs', 'mean', 'classify med µs', 'mean'], body, new Set([2, 3, 4, 5, 6]));
}

function processTable(rows: readonly ProcessRow[], target: number): string {
  const body = rows.map((r) => [
    r.name,
    f1(r.baselineMs.median),
    f1(r.baselineMs.p90),
    f1(r.subjectMs.median),
    f1(r.subjectMs.p90),
    `+${f1(r.addedMs)}`,
    `${f2(r.ratio)}x`,
    `${f2(r.pairRatioIqr[0])}-${f2(r.pairRatioIqr[1])}`,
    r.gated ? `${r.ratio <= (r.limit ?? target) ? 'PASS' : 'OVER'}${r.limit !== undefined ? ` (<= ${r.limit}x)` : ''}` : '',
  ]);
  return table(['process', 'baseline med ms', 'p90', 'subject med ms', 'p90', 'added', 'ratio', 'pairs IQR', `<= ${target}x`], body, new Set([1, 2, 3, 4, 5, 6, 7]));
}

export function renderText(r: BenchResult): string {
  return [
    `agent-guard bench: node ${r.node} on ${r.platform}, ${r.cpus} x ${r.cpuModel}`,
    '',
    'In-process, per call, after warm-up (decide = classify + probes + policy; classify is pure):',
    inProcessTable(r.inProcess),
    '',
    `Whole process, ${r.runs} interleaved runs each against a bare \`node -e ''\` (the Python row: a plain \`python3 -c pass\`; bundle ${f1(r.bundleKiB)} KiB):`,
    processTable(r.process, r.target),
    '',
    r.pass ? `PASS: every check is within ${r.target}x a bare Node start (the Node preload within its own target).` : `OVER: a gated row costs more than its target.`,
    '',
  ].join('\n');
}
