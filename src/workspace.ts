// Where a command's workspace is and where what it deletes is kept, with one set of checks for every
// entry point (the engine, the shims, `delete` and the recovery commands): the workspace root
// (AGENT_GUARD_WORKSPACE, else the git work tree around the cwd, else the cwd, all physical), its
// quarantine (AGENT_GUARD_TRASH when that is a safe place, else `<root>/.agent-trash`), the scratch
// zones and their quarantines (docs/zones.md), which quarantine a target goes to, and the session's
// stored mode. It only reads.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Config, type Env } from './config.js';
import { isWithin } from './classifier/paths.js';
import type { Mode } from './policy/reasons.js';
import { findGitRoot, realpathLoose } from './probe/fs.js';
import { scratchZones, zoneBarriers, type Zone, type ZoneKind } from './probe/zones.js';

/** Filesystem roots that are never deleted (rule 2c), matched exactly. Every other one-segment
 *  directory (`/data`, `/srv`, …) and HOME are protected too. */
export const PROTECTED_ROOTS: readonly string[] = [
  '/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/media', '/mnt', '/opt', '/proc',
  '/root', '/run', '/sbin', '/snap', '/srv', '/sys', '/tmp', '/usr', '/var', '/usr/bin', '/usr/lib', '/usr/lib64', '/usr/local',
  '/usr/local/bin', '/usr/local/lib', '/usr/sbin', '/usr/share', '/usr/include', '/usr/src', '/var/lib', '/var/log', '/var/tmp',
  '/var/cache', '/var/mail', '/var/spool', '/var/www', '/private', '/private/tmp', '/private/var', '/private/etc', '/Users',
  '/System', '/Library', '/Applications', '/Volumes', '/nix', '/nix/store',
];

/** A quarantine and the root its origins are relative to. */
export interface QuarantinePlace {
  /** Physical workspace root. */
  root: string;
  /** Physical quarantine directory. */
  quarantine: string;
  /** A scratch zone's quarantine (docs/zones.md): `root` is the zone, origins are relative to it. */
  zone?: ZoneKind;
}

export interface Workspace {
  /** Physical workspace root. */
  root: string;
  /** How it was found (`git`, too, for a root a caller names: the work tree a git command runs in). */
  source: 'env' | 'git' | 'cwd';
  /** Physical quarantine directory. */
  quarantine: string;
  /** AGENT_GUARD_TRASH as configured (lexical, absolute), when it is used and differs from the
   *  physical path: the links and directories on the way to the quarantine are protected too. */
  quarantineConfigured?: string;
  home: string | null;
  protectedRoots: ReadonlySet<string>;
  /** The scratch zones (docs/zones.md) and the places inside them that are not scratch. */
  zones: Zone[];
  barriers: string[];
  warnings: string[];
}

/** The workspace as a decision reports it (CheckResult.workspace), enough to place a target. */
export interface PlacedWorkspace {
  root: string;
  quarantine: string;
  zones: readonly Zone[];
}

let systemRootsCache: readonly string[] | undefined;
/** The protected roots, lexically and physically. System directories do not move while a process
 *  runs, so they are resolved once per process (a realpath of a missing root costs a throw). */
function systemRoots(): readonly string[] {
  systemRootsCache ??= [...PROTECTED_ROOTS, ...PROTECTED_ROOTS.map((r) => realpathLoose(r))];
  return systemRootsCache;
}

/** The workspace of `config`: AGENT_GUARD_WORKSPACE, else the git work tree around the cwd (a
 *  quarantine's own nested-repository marker is no work tree), else the cwd. */
export function discoverWorkspace(config: Config): Workspace {
  if (config.workspace) return placed(config, realpathLoose(config.workspace), 'env');
  const physicalCwd = realpathLoose(config.cwd);
  const git = findGitRoot(physicalCwd);
  return placed(config, git ?? physicalCwd, git ? 'git' : 'cwd');
}

/** The workspace rooted at `root` (resolved physically): its quarantine, checked — AGENT_GUARD_TRASH
 *  is used unless it is a protected location, a top-level directory, holds the workspace or lies in
 *  a `.git` (then `<root>/.agent-trash`, with a warning) — and the scratch zones around it. */
export function workspaceAt(config: Config, root: string, source: Workspace['source']): Workspace {
  return placed(config, realpathLoose(root), source);
}

function placed(config: Config, root: string, source: Workspace['source']): Workspace {
  const warnings: string[] = [];
  const home = config.home ? realpathLoose(config.home) : null;
  const protectedRoots = new Set<string>(systemRoots());
  if (config.home) protectedRoots.add(path.posix.resolve(config.home));
  if (home) protectedRoots.add(home);
  let quarantine = path.posix.join(root, '.agent-trash');
  let configured: string | null = null;
  if (config.trash) {
    const t = realpathLoose(config.trash);
    const unsafe = protectedRoots.has(t) || /^\/[^/]+$/.test(t) || isWithin(root, t) || t.split('/').includes('.git');
    if (unsafe) warnings.push(`AGENT_GUARD_TRASH=${config.trash} is a protected location or contains the workspace; using ${quarantine}`);
    else {
      quarantine = t;
      configured = path.posix.resolve(config.trash);
    }
  }
  const zones = scratchZones(config, home, protectedRoots);
  const barriers = zones.length === 0 ? [] : zoneBarriers(zones, [root, quarantine, home, ...config.guardPaths.map((p) => realpathLoose(p))]);
  return { root, source, quarantine, ...(configured !== null && configured !== quarantine ? { quarantineConfigured: configured } : {}), home, protectedRoots, zones, barriers, warnings };
}

/** The workspace's own quarantine. */
export const quarantinePlace = (ws: { root: string; quarantine: string }): QuarantinePlace => ({ root: ws.root, quarantine: ws.quarantine });

/** A scratch zone's quarantine. */
export const zonePlace = (z: Zone): QuarantinePlace => ({ root: z.root, quarantine: z.quarantine, zone: z.kind });

/** The quarantine a target goes to: its zone's (by the zone root the probe found), else the workspace's. */
export function targetPlace(ws: PlacedWorkspace, zoneRoot: string | undefined): QuarantinePlace {
  const z = zoneRoot === undefined ? undefined : ws.zones.find((x) => x.root === zoneRoot);
  return z ? zonePlace(z) : quarantinePlace(ws);
}

/** Is a path inside one of the quarantines (the workspace's or a zone's)? Such a target is never relocated. */
export function inAnyQuarantine(ws: PlacedWorkspace, physical: string): boolean {
  return isWithin(physical, ws.quarantine) || ws.zones.some((z) => isWithin(physical, z.quarantine));
}

/** The commands' prelude: the configuration (with `overrides`), the workspace and its quarantine;
 *  the workspace's warnings go to stderr. */
export function workspaceOf(ctx: { env: Env; cwd: string; io: { stderr(s: string): void } }, overrides: Partial<Config> = {}): { config: Config; ws: Workspace; place: QuarantinePlace } {
  const config = { ...loadConfig(ctx.env, ctx.cwd), ...overrides };
  const ws = discoverWorkspace(config);
  for (const w of ws.warnings) ctx.io.stderr(`warning: ${w}\n`);
  return { config, ws, place: quarantinePlace(ws) };
}

// Session modes: `<quarantine>/sessions/<id>.json` for a session named by AGENT_GUARD_SESSION,
// `<quarantine>/state.json` without one (recovery/mode.ts writes them).

/** The session's state file: `sessions/<id>.json` (the id made safe as a file name), or the
 *  quarantine's `state.json` when no session is named. */
export function sessionFile(q: QuarantinePlace, session: string | null): string {
  if (session === null || session === '') return path.join(q.quarantine, 'state.json');
  const id = session.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  return path.join(q.quarantine, 'sessions', `${id === '.' || id === '..' ? '_' : id}.json`);
}

/** The session's stored mode; an unreadable or unknown state file counts as RESTRICTED (fail closed). */
export function readMode(q: QuarantinePlace, session: string | null): Mode {
  let text: string;
  try {
    text = fs.readFileSync(sessionFile(q, session), 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'NORMAL' : 'RESTRICTED';
  }
  try {
    const mode = (JSON.parse(text) as { mode?: unknown }).mode;
    return mode === 'NORMAL' ? 'NORMAL' : 'RESTRICTED';
  } catch {
    return 'RESTRICTED';
  }
}
