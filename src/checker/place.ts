// Where a session's warm checker lives (docs/shims.md, "Warm path"): a private directory per
// session under a per-user parent, `$XDG_RUNTIME_DIR/agent-guard` or `/tmp/agent-guard-<uid>`.
// Every directory is verified before use: a directory (not a symlink), owned by this user, no
// access for group or others. /tmp is world-writable, so a name another user made first (a
// squatted name) fails the check and the warm path is off for that session (the cold path is used).
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config.js';

/** The environment a session's shims and cold checker see (set by `run` and `shell-init`). */
export const CHECKER_ENV = {
  /** The session's checker directory (absolute; it exists only while a checker is or was there). */
  dir: 'AGENT_GUARD_CHECKER',
  /** The pid whose end ends the session: `run` itself, or the shell that ran `shell-init`. */
  owner: 'AGENT_GUARD_CHECKER_OWNER',
  /** Idle timeout in seconds (default IDLE_SECONDS). */
  idle: 'AGENT_GUARD_CHECKER_IDLE',
} as const;

/** A checker with no request for this long exits (the next slow-path call starts another). */
export const IDLE_SECONDS = 600;

/** The file a running server writes (`<pid> <start time>`), last thing at start-up. */
export const SERVER_FILE = 'server';
/** The start lock: created exclusively by the process that starts a server. */
export const START_FILE = 'start';
/** The session's owner (`<pid> <start time>`), written by the starter: a directory whose owner is
 *  gone and that has no live server is removed by the next start (sweepStale). */
export const OWNER_FILE = 'owner';
/** Why the last start failed (a line with the time), when it did. */
export const FAILED_FILE = 'failed';

const uid = (): number => process.getuid?.() ?? -1;

/** Is `p` a directory (not a symlink) owned by `owner`, with no group/other permission bits? */
export function isPrivateDir(p: string, owner = uid()): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return false;
  }
  return st.isDirectory() && !st.isSymbolicLink() && st.uid === owner && (st.mode & 0o077) === 0;
}

/** Creates `p` (0700, its parent must exist) unless it exists, then verifies it (isPrivateDir). An
 *  existing directory with loose permissions is not tightened: someone may already have put
 *  something in it. */
export function ensurePrivateDir(p: string, owner = uid()): boolean {
  try {
    fs.mkdirSync(p, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  return isPrivateDir(p, owner);
}

/** The per-user parent of the checker directories, created and verified; null when neither
 *  candidate can be used (the warm path is then off). `tmp` is a parameter for tests. */
export function checkerBase(env: Env, owner = uid(), tmp = '/tmp'): string | null {
  if (process.platform !== 'linux' || owner < 0) return null; // the server reads /proc
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg) && isPrivateDir(xdg, owner)) {
    const base = path.join(xdg, 'agent-guard');
    if (ensurePrivateDir(base, owner)) return base;
  }
  const base = path.join(tmp, `agent-guard-${owner}`);
  return ensurePrivateDir(base, owner) ? base : null;
}

/** A new session's checker directory name under `base` (not created: the first need creates it). */
export function newCheckerDir(base: string): string {
  return path.join(base, process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex'));
}

/** The start time of process `pid` (clock ticks since boot, /proc/<pid>/stat field 22): with the
 *  pid it names one process, even after the pid is reused. Null when there is no such process. */
export function processStart(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/** The running server of checker directory `dir`: its pid, when the server file names a live
 *  process with the recorded start time. */
export function liveServer(dir: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, SERVER_FILE), 'latin1');
  } catch {
    return null;
  }
  const m = /^(\d+) (\d+)\n$/.exec(text);
  if (!m) return null;
  const pid = Number(m[1]);
  return processStart(pid) === m[2] ? pid : null;
}

/** The owner pid of a session (CHECKER_ENV.owner), or null when unset or malformed. */
export function ownerPid(env: Env): number | null {
  const v = env[CHECKER_ENV.owner] ?? '';
  return /^[1-9]\d{0,9}$/.test(v) ? Number(v) : null;
}

/** The idle timeout in ms (CHECKER_ENV.idle, seconds; default IDLE_SECONDS). */
export function idleMs(env: Env): number {
  const v = env[CHECKER_ENV.idle] ?? '';
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) : IDLE_SECONDS;
  return Math.max(0.2, n) * 1000;
}
