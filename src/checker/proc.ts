// What the warm checker knows about a client shim, read from /proc/<pid> (Linux): its exact argv
// bytes, its environment and its working directory. The kernel runs a shim found on PATH as
// `/bin/sh /path/to/shims/rm ARGS…`, so the last `$#` entries of the command line are the
// arguments, and the entry before them is the shim's path. Nothing is encoded by the shell.
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config.js';

export interface Client {
  args: string[];
  /** True when an argument is not valid UTF-8 (decoded with U+FFFD, as the cold path sees it). */
  lossy: boolean;
  env: Env;
  cwd: string;
}

/** NUL-separated entries (the kernel ends each with a NUL). */
function entries(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0, from)) {
    out.push(buf.subarray(from, i));
    from = i + 1;
  }
  if (from < buf.length) out.push(buf.subarray(from));
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads client `pid` running shim `name` with `argc` arguments; a string saying why it cannot be
 *  served otherwise (the client then takes the cold path). `uid` is the server's own. */
export function readClient(pid: number, argc: number, name: string, uid: number): Client | string {
  const dir = `/proc/${pid}`;
  try {
    if (fs.statSync(dir).uid !== uid) return 'another user';
    const argv = entries(fs.readFileSync(`${dir}/cmdline`));
    if (argv.length < argc + 1) return 'command line shorter than the request';
    const script = argv[argv.length - argc - 1]!.toString('utf8');
    if (path.basename(script) !== name) return `not the ${name} shim`;
    let lossy = false;
    const args = argv.slice(argv.length - argc).map((b) => {
      try {
        return utf8.decode(b);
      } catch {
        lossy = true;
        return b.toString('utf8');
      }
    });
    const proc = readProcess(pid, uid);
    return typeof proc === 'string' ? proc : { args, lossy, ...proc };
  } catch (err) {
    return `cannot read ${dir}: ${(err as Error).message}`;
  }
}

/** The environment (as the process started: what it changed in itself is not seen) and the working
 *  directory of a process of user `uid`; a string saying why not. */
export function readProcess(pid: number, uid: number): { env: Env; cwd: string } | string {
  const dir = `/proc/${pid}`;
  try {
    if (fs.statSync(dir).uid !== uid) return 'another user';
    const env: Record<string, string> = {};
    for (const e of entries(fs.readFileSync(`${dir}/environ`))) {
      const s = e.toString('utf8');
      const eq = s.indexOf('=');
      if (eq > 0 && !(s.slice(0, eq) in env)) env[s.slice(0, eq)] = s.slice(eq + 1);
    }
    // The directory itself, not its name: a removed or renamed directory is not served.
    const cwd = fs.readlinkSync(`${dir}/cwd`);
    const a = fs.statSync(`${dir}/cwd`);
    const b = fs.statSync(cwd);
    if (a.dev !== b.dev || a.ino !== b.ino) return 'working directory not reachable by its path';
    return { env, cwd };
  } catch (err) {
    return `cannot read ${dir}: ${(err as Error).message}`;
  }
}
