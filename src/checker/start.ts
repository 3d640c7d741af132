// Starting and stopping a session's warm checker. The first cold shim call of a session that finds
// no live server starts one in the background (and takes the cold path itself: nobody waits); an
// exclusive start lock makes two concurrent first calls start one server. `run` stops its session's
// server when its command ends (the server also watches the owner process itself).
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config.js';
import { CHECKER_ENV, ensurePrivateDir, isPrivateDir, liveServer, OWNER_FILE, ownerPid, processStart, START_FILE } from './place.js';

/** A start lock older than this is from a start that failed: the next call tries again. */
const START_RETRY_MS = 20_000;


/** Takes the start lock (exclusive create); false when another start is under way. */
function takeStartLock(dir: string): boolean {
  const lock = path.join(dir, START_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o600);
      fs.writeSync(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs < START_RETRY_MS) return false;
      fs.unlinkSync(lock);
    } catch {
      // released meanwhile: try again
    }
  }
  return false;
}

/** Removes the checker directories under `base` that nothing uses any more: no live server, and an
 *  owner that is gone (or none recorded and older than a day). Best effort. */
export function sweepStale(base: string, keep: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  for (const n of names) {
    const dir = path.join(base, n);
    if (dir === keep || !/^[0-9a-f]{16}$/.test(n) || !isPrivateDir(dir) || liveServer(dir) !== null) continue;
    let gone: boolean;
    try {
      const m = /^(\d+) (\d+)\n$/.exec(fs.readFileSync(path.join(dir, OWNER_FILE), 'latin1'));
      gone = !m || processStart(Number(m[1])) !== m[2];
    } catch {
      try {
        gone = Date.now() - fs.statSync(dir).mtimeMs > 86_400_000;
      } catch {
        gone = false;
      }
    }
    if (gone) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the session's checker unless one is running or starting, or the session is over. Never
 *  throws and never waits for the server: the caller goes on with the cold path. */
export function ensureChecker(env: Env, node: string, bundle: string | null): void {
  try {
    const dir = env[CHECKER_ENV.dir] ?? '';
    if (process.platform !== 'linux' || bundle === null || !path.isAbsolute(dir) || liveServer(dir) !== null) return;
    const owner = ownerPid(env);
    const ownerStart = owner === null ? null : processStart(owner);
    if (ownerStart === null || !isPrivateDir(path.dirname(dir)) || !ensurePrivateDir(dir) || !takeStartLock(dir)) return;
    fs.writeFileSync(path.join(dir, OWNER_FILE), `${owner} ${ownerStart}\n`, { mode: 0o600 });
    sweepStale(path.dirname(dir), dir);
    const child = process.getBuiltinModule('node:child_process').spawn(node, [bundle, 'checker-serve', dir], {
      detached: true,
      stdio: 'ignore',
      cwd: '/',
      env: { ...env, NODE_EXTRA_CA_CERTS: '' } as NodeJS.ProcessEnv,
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // the cold path works without it
  }
}

/** Stops the checker of directory `dir` (SIGTERM; it removes its directory) and removes what is
 *  left when none runs. For `run`, when its command has ended. */
export function stopChecker(dir: string): void {
  try {
    const pid = liveServer(dir);
    if (pid !== null) {
      process.kill(pid, 'SIGTERM');
      return;
    }
    if (isPrivateDir(dir)) fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // best effort: the server also ends when the owner is gone, and the next start sweeps
  }
}
