// Whole-process cost: wall time of spawning the bundled CLI against spawning a bare `node -e ''`, in
// the same run, interleaved A B A B so that drift (CPU frequency, a noisy neighbour, page cache)
// lands on both sides alike. Only ratios are judged; the milliseconds depend on the machine.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { elapsedNs, quantile, summarize, type Summary } from './stats.js';

export interface ProcessTarget {
  /** How the row is labelled. */
  name: string;
  /** Arguments after the node binary. */
  args: string[];
  /** Judged against the ratio target (the check rows); other rows are context. */
  gated: boolean;
  /** stdout must match, so the benchmark never times an error path by accident. */
  expect: RegExp;
  /** The program to spawn with `args` (default: this node). */
  command?: string;
  /** What the row is compared against (default: this node with BASELINE_ARGS). */
  baseline?: { command?: string; args: readonly string[]; expect?: RegExp };
  /** Added to the subject's environment only (the baseline runs without it). */
  env?: Record<string, string>;
  /** This row's own target ratio (the Node preload row: 1.1); default: the bench's target. */
  limit?: number;
}

export interface ProcessOptions {
  runs: number;
  warmup: number;
  spawn: SpawnSyncOptions;
}

export interface ProcessRow {
  name: string;
  gated: boolean;
  /** The row's own target ratio, when it has one. */
  limit?: number;
  baselineMs: Summary;
  subjectMs: Summary;
  /** median(subject) / median(baseline). */
  ratio: number;
  /** median(subject) - median(baseline): what the CLI adds to a bare Node start. */
  addedMs: number;
  /** Interquartile range of the per-pair ratios subject/baseline: how far one run's verdict can be
   *  trusted (on a shared VM a ratio near the target flips between runs). */
  pairRatioIqr: [number, number];
}

export const BASELINE_ARGS: readonly string[] = ['-e', ''];

/** Spawns `command` (default: node) with args and returns the wall time in ms; throws if it failed
 *  or printed the unexpected. */
function timeNode(args: readonly string[], opts: SpawnSyncOptions, expect: RegExp | null, command = process.execPath): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(command, args, { ...opts, encoding: 'utf8' });
  const ms = elapsedNs(t) / 1e6;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (expect && !expect.test(r.stdout)) throw new Error(`${command} ${args.join(' ')} printed ${JSON.stringify(r.stdout)}, expected ${expect}`);
  return ms;
}

/** Times baseline and target alternately: `warmup` untimed pairs, then `runs` timed pairs. */
export function compare(target: ProcessTarget, opts: ProcessOptions): ProcessRow {
  const base: number[] = [];
  const subject: number[] = [];
  const spawn = target.env ? { ...opts.spawn, env: { ...opts.spawn.env, ...target.env } } : opts.spawn;
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    const b = target.baseline ? timeNode(target.baseline.args, opts.spawn, target.baseline.expect ?? null, target.baseline.command) : timeNode(BASELINE_ARGS, opts.spawn, null);
    const s = timeNode(target.args, spawn, target.expect, target.command);
    if (i < opts.warmup) continue;
    base.push(b);
    subject.push(s);
  }
  const baselineMs = summarize(base);
  const subjectMs = summarize(subject);
  const pairs = subject.map((s, i) => s / base[i]!).sort((a, b) => a - b);
  return {
    name: target.name,
    gated: target.gated,
    ...(target.limit !== undefined ? { limit: target.limit } : {}),
    baselineMs,
    subjectMs,
    ratio: subjectMs.median / baselineMs.median,
    addedMs: subjectMs.median - baselineMs.median,
    pairRatioIqr: [quantile(pairs, 0.25), quantile(pairs, 0.75)],
  };
}
