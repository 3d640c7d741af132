// Relocation by place: each target into its quarantine — the workspace's, or for a target in a
// scratch zone that zone's own (docs/zones.md; src/workspace.ts `targetPlace` places it by the zone
// the probe found) — one transaction per quarantine; and the zone quarantines the recovery commands
// (`restore`, `status`, `gc`) read.
import type { Zone } from '../probe/zones.js';
import { targetPlace, zonePlace, type PlacedWorkspace } from '../workspace.js';
import { ensureQuarantine, newTxid, relocate, type QuarantinePlace, type RelocationContext, type RelocationResult } from './quarantine.js';
import { UnsafeZoneQuarantine, zoneQuarantineProblem } from './zonetrash.js';
import { loadFolded } from './txindex.js';

export interface PlacedTarget {
  /** Physical path (a Buffer for a name that is not UTF-8). */
  path: string | Buffer;
  /** The zone root the probe found for it, if any. */
  zone?: string;
}

/** One transaction of relocateByPlace, with the quarantine it is in. */
export type PlacedRelocation = RelocationResult & { place: QuarantinePlace };

/** Relocates each target into its place's quarantine, one transaction per place (the workspace's
 *  first). Every quarantine needed is made ready first: one that cannot be used (a zone quarantine
 *  someone else controls, a read-only zone) refuses the whole set before anything moves. Stops at
 *  the first failed transaction (its result is the last one returned). */
export function relocateByPlace(ws: PlacedWorkspace, targets: readonly PlacedTarget[], ctx: RelocationContext, isIgnored: (dir: string) => boolean, opts: { keepOrigin?: boolean; regenerable?: boolean } = {}): PlacedRelocation[] {
  const groups = new Map<string, { place: QuarantinePlace; paths: (string | Buffer)[] }>();
  const ordered = [...targets].sort((a, b) => (a.zone === undefined ? 0 : 1) - (b.zone === undefined ? 0 : 1));
  for (const t of ordered) {
    const place = targetPlace(ws, t.zone);
    let g = groups.get(place.quarantine);
    if (!g) groups.set(place.quarantine, (g = { place, paths: [] }));
    g.paths.push(t.path);
  }
  // Nothing to move: one empty transaction in the workspace's quarantine, as relocate() makes it.
  if (groups.size === 0) groups.set(ws.quarantine, { place: targetPlace(ws, undefined), paths: [] });
  for (const { place } of groups.values()) {
    try {
      ensureQuarantine(place, isIgnored);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const message = err instanceof UnsafeZoneQuarantine ? why : `the quarantine ${place.quarantine} cannot be made ready: ${why}`;
      return [{ place, txid: newTxid(), status: 'failed', moved: [], skipped: [], failure: { code: 'RELOCATE_FAILED_STORAGE', message } }];
    }
  }
  const out: PlacedRelocation[] = [];
  for (const { place, paths } of groups.values()) {
    const res = { place, ...relocate(place, paths, ctx, isIgnored, { ...opts, ready: true }) };
    out.push(res);
    if (res.failure) break;
  }
  return out;
}

/** The zones' quarantines that exist and may be read as ours, for `restore`, `status` and `gc`;
 *  one that someone else could control is reported through `warn` and left alone. */
export function zonePlaces(ws: { zones: readonly Zone[] }, warn: (message: string) => void): QuarantinePlace[] {
  const out: QuarantinePlace[] = [];
  for (const z of ws.zones) {
    const problem = zoneQuarantineProblem(z);
    if (problem === null) out.push(zonePlace(z));
    else if (problem !== 'absent') warn(`${problem}; it is not read`);
  }
  return out;
}

/** Does this quarantine's manifest know the transaction? (An unreadable manifest does not.) */
export function hasTransaction(q: QuarantinePlace, txid: string): boolean {
  try {
    return loadFolded(q.quarantine).txs.has(txid);
  } catch {
    return false;
  }
}
