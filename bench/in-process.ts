// In-process cost: µs per decide() (classification + probes + policy) and per classify() alone (pure,
// no I/O), for each benchmark line, measured in this process after warm-up.
import { classify } from '../src/classifier/index.js';
import { loadConfig, type Config } from '../src/config.js';
import { decide } from '../src/engine.js';
import { gitRunner, type GitRunner } from '../src/probe/index.js';
import type { Fixture } from '../tests/helpers/fixture.js';
import type { BenchLine } from './lines.js';
import { elapsedNs, summarize, type Summary } from './stats.js';

export interface InProcessOptions {
  /** Time spent calling each function before measuring (JIT, lazy initialisation, page cache). */
  warmupMs: number;
  /** Time spent measuring each function per line. */
  budgetMs: number;
  /** At least this many samples, however slow the call. */
  minSamples: number;
}

export interface InProcessRow {
  line: string;
  why: string;
  decision: string;
  code: string;
  /** git processes one decide() spawns. */
  gitSpawns: number;
  decideUs: Summary;
  classifyUs: Summary;
}

/** Calls fn for warmupMs, then samples it (one call per sample) for budgetMs; returns µs per call. */
function sampleUs(fn: () => void, opts: InProcessOptions): Summary {
  const until = (ms: number): bigint => process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  const warmEnd = until(opts.warmupMs);
  while (process.hrtime.bigint() < warmEnd) fn();
  const samples: number[] = [];
  const end = until(opts.budgetMs);
  while (samples.length < opts.minSamples || process.hrtime.bigint() < end) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(elapsedNs(t) / 1e3);
  }
  return summarize(samples);
}

/** Wraps a git runner to count spawns, so the table can say which lines pay for a child process. */
function countingRunner(inner: GitRunner): { runner: GitRunner; count: () => number } {
  let n = 0;
  return {
    runner: {
      run(args, cwd, input) {
        n++;
        return inner.run(args, cwd, input);
      },
    },
    count: () => n,
  };
}

/** One untimed decide() with a counting git runner: the decision and how many git processes it took. */
function describe(text: string, config: Config): Pick<InProcessRow, 'decision' | 'code' | 'gitSpawns'> {
  const { runner, count } = countingRunner(gitRunner(config.gitBinary, config.env));
  const r = decide({ command: text, config, git: runner });
  return { decision: r.decision, code: r.code, gitSpawns: count() };
}

/** Measures every line in the fixture workspace. The config is built once: the CLI builds it once per
 *  process too, and loadConfig is a handful of string operations. */
export function measureInProcess(fx: Fixture, lines: readonly BenchLine[], opts: InProcessOptions): InProcessRow[] {
  const config = loadConfig(fx.env, fx.ws);
  const classifyOpts = { cwd: config.cwd, home: config.home };
  return lines.map(({ text, why }) => ({
    line: text,
    why,
    ...describe(text, config),
    decideUs: sampleUs(() => decide({ command: text, config }), opts),
    classifyUs: sampleUs(() => classify(text, classifyOpts), opts),
  }));
}
