// Scratch zones (docs/zones.md): the system temp directories (`$TMPDIR`, `/tmp`, `/var/tmp`) and the
// user's cache directory (`$XDG_CACHE_HOME` or `~/.cache`). A delete of something inside a zone
// (never the zone itself) but outside the workspace is relocated into the zone's own quarantine, on
// the zone's filesystem, instead of being refused. Pure path logic plus realpath/lstat reads; the
// quarantine itself is created and verified by recovery/zonetrash.ts when something moves there.
import path from 'node:path';
import type { Config } from '../config.js';
import { isWithin } from '../classifier/paths.js';
import { entryType, realpathLoose } from './fs.js';

export type ZoneKind = 'temp' | 'cache';

export interface Zone {
  kind: ZoneKind;
  /** Physical directory of the zone. */
  root: string;
  /** Physical quarantine of the zone: `<root>/.agent-trash-<uid>` (temp), `<root>/agent-guard/trash` (cache). */
  quarantine: string;
}

/** The fixed temp directories (TMPDIR comes first when set). */
export const TEMP_DIRS: readonly string[] = ['/tmp', '/var/tmp'];
/** Protected roots that may be a temp zone: their contents are scratch, they themselves stay protected. */
const TEMP_ROOTS: ReadonlySet<string> = new Set(['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp']);

/** Where a zone keeps what is deleted in it. */
export function zoneQuarantine(kind: ZoneKind, root: string, uid: number): string {
  return kind === 'temp' ? path.posix.join(root, `.agent-trash-${uid}`) : path.posix.join(root, 'agent-guard', 'trash');
}

/** agent-guard's own directory in the cache zone (its quarantine; a checkout's shims, before they
 *  moved to the data directory): never scratch. */
export function cacheOwnDir(root: string): string {
  return path.posix.join(root, 'agent-guard');
}

/** The scratch zones of this configuration: existing directories, resolved physically, one per
 *  directory (TMPDIR first). A candidate that is `/`, HOME, or a protected system directory other
 *  than the temp directories is not a zone (TMPDIR=$HOME would make all of HOME scratch); HOME
 *  inside a zone stays HOME (a barrier, zoneOf). No uid (not POSIX): no zones. */
export function scratchZones(config: Config, home: string | null, protectedRoots: ReadonlySet<string>, uid: number | null = process.getuid?.() ?? null): Zone[] {
  if (uid === null) return [];
  const candidates: [ZoneKind, string | null][] = [
    ['temp', config.tmpdir],
    ...TEMP_DIRS.map((d): [ZoneKind, string] => ['temp', d]),
    ['cache', config.cacheHome ?? (config.home ? path.posix.join(config.home, '.cache') : null)],
  ];
  const zones: Zone[] = [];
  for (const [kind, dir] of candidates) {
    if (dir === null) continue;
    const root = realpathLoose(dir);
    if (zones.some((z) => z.root === root) || entryType(root) !== 'dir') continue;
    if (root === '/' || root === home || (protectedRoots.has(root) && !TEMP_ROOTS.has(root))) continue;
    zones.push({ kind, root, quarantine: zoneQuarantine(kind, root, uid) });
  }
  return zones;
}

/** Places inside a zone that are not scratch, given the workspace: HOME, the workspace, its
 *  quarantine, every zone's quarantine (and agent-guard's own cache directory), agent-guard's files. */
export function zoneBarriers(zones: readonly Zone[], others: readonly (string | null)[]): string[] {
  const out = new Set<string>();
  for (const p of others) if (p !== null) out.add(p);
  for (const z of zones) out.add(z.kind === 'cache' ? cacheOwnDir(z.root) : z.quarantine);
  return [...out];
}

/** The zone a physical path is scratch in, or null: the deepest zone holding it (not the zone
 *  itself), unless the path is or holds a zone or a barrier, or a barrier deeper than that zone holds
 *  it (HOME inside /tmp stays HOME; the cache zone inside HOME is scratch again). The one placement
 *  function: the probe decides with it, compensation places by the zone it found. */
export function zoneOf(physical: string, zones: readonly Zone[], barriers: readonly string[]): Zone | null {
  let zone: Zone | null = null;
  for (const z of zones) if (physical !== z.root && isWithin(physical, z.root) && (zone === null || z.root.length > zone.root.length)) zone = z;
  if (zone === null) return null;
  if (zones.some((z) => isWithin(z.root, physical))) return null;
  for (const b of barriers) {
    if (isWithin(b, physical)) return null;
    if (isWithin(physical, b) && b !== zone.root && isWithin(b, zone.root)) return null;
  }
  return zone;
}
