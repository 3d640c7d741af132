// Summary statistics for timing samples. Medians and p90 lead rather than means: process start-up
// has a long right tail (scheduler, page cache, a neighbour on the VM) that a mean smears over the
// typical cost.

export interface Summary {
  n: number;
  mean: number;
  median: number;
  p90: number;
  min: number;
}

/** The q-quantile of ascending samples, interpolated linearly (q=0.5 is the usual median). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no samples');
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Summarizes samples in whatever unit they were taken in. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return { n: sorted.length, mean, median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), min: sorted[0]! };
}

/** Nanoseconds since `start` (from process.hrtime.bigint()) as a float. */
export function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}
