// The line protocol between a shim (shims/shim.sh, POSIX sh) and the warm checker, over a slot's
// two FIFOs (docs/shims.md, "Warm path"):
//
//   client → s<i>.q   `<pid> <argc> <name> <real path>\n`   a request (the argv, environment and cwd
//                                                         are read from /proc/<pid>)
//                     `<pid> rt <json>\n`                  a runtime guard's deletion request (the
//                                                         Python guard; src/runtime/request.ts, without
//                                                         env: read from /proc/<pid>), answered by
//                                                         `o<verdict json>` and `dexit 0`
//                     `<pid> cli <argc> <name> <version>\n`
//                                                         the `agent-guard` launcher's `restore list` /
//                                                         `status` (src/checker/cli-request.ts; argv,
//                                                         env and cwd read from /proc/<pid>)
//                     `done <pid>\n`                       the answer was read: the slot is free
//   server → s<i>.a   `o<text>` / `e<text>`                a line of stdout / stderr (newline added)
//                     `O<text>` / `E<text>`                the same without a trailing newline
//                     `d<directive>`                       the directive (run / keep I… / exit N): last
//                     `c`                                  cold: take the cold path (nothing was done)
//                     `f`                                  (cli answers only) stdout here is the slot's
//                                                         answer file `s<i>.out`, to be `cat`
//
// Every frame is one line; the shell reads them with `IFS= read -r` and relays them with printf.

/** Slots the server makes: concurrent clients beyond this take the cold path. */
export const SLOTS = 16;

/** A request longer than this (the real path is part of it) is not served: one atomic pipe write. */
export const MAX_REQUEST = 4000;

export interface Request {
  pid: number;
  argc: number;
  name: string;
  real: string;
}

/** Parses a request line (without its newline); null when malformed. */
export function parseRequest(line: string): Request | null {
  const m = /^([1-9]\d{0,9}) (0|[1-9]\d{0,6}) ([A-Za-z0-9][A-Za-z0-9._+-]*) (\/.*)$/.exec(line);
  if (!m || line.length > MAX_REQUEST) return null;
  return { pid: Number(m[1]), argc: Number(m[2]), name: m[3]!, real: m[4]! };
}

/** Parses `<pid> rt <json object>` (a runtime guard's request); null otherwise. */
export function parseRuntimeRequest(line: string): { pid: number; json: string } | null {
  const m = /^([1-9]\d{0,9}) rt (\{.*\})$/.exec(line);
  return m && line.length <= MAX_REQUEST ? { pid: Number(m[1]), json: m[2]! } : null;
}

export interface CliRequest {
  pid: number;
  argc: number;
  /** The launcher's file name, as the kernel ran it (the entry before the arguments in cmdline). */
  name: string;
  /** The launcher's version: a checker of another version answers cold. */
  version: string;
}

/** Parses `<pid> cli <argc> <name> <version>` (the launcher's request); null otherwise. */
export function parseCliRequest(line: string): CliRequest | null {
  const m = /^([1-9]\d{0,9}) cli (0|[1-9]\d{0,2}) ([A-Za-z0-9][A-Za-z0-9._+-]*) ([0-9A-Za-z.+-]{1,64})$/.exec(line);
  return m && line.length <= MAX_REQUEST ? { pid: Number(m[1]), argc: Number(m[2]), name: m[3]!, version: m[4]! } : null;
}

/** Parses `done <pid>`; null otherwise. */
export function parseDone(line: string): number | null {
  const m = /^done ([1-9]\d{0,9})$/.exec(line);
  return m ? Number(m[1]) : null;
}

export interface Output {
  fd: 1 | 2;
  text: string;
}

/** The frames of an answer: each output chunk in order, split into lines, then the last line. NUL
 *  cannot pass through a shell variable and is dropped (no message the checker writes holds one). */
export function frames(out: readonly Output[], last: string): string {
  let s = '';
  for (const o of out) s += chunkFrames(o);
  return s + last + '\n';
}

/** The frames of one output chunk. */
export function chunkFrames({ fd, text }: Output): string {
  let s = '';
  const parts = text.replace(/\0/g, '').split('\n');
  const tail = parts.pop()!;
  const [line, partial] = fd === 1 ? ['o', 'O'] : ['e', 'E'];
  for (const p of parts) s += `${line}${p}\n`;
  if (tail !== '') s += `${partial}${tail}\n`;
  return s;
}

/** The frame that stands for stdout written to the slot's answer file (cli answers). */
export const FILE_FRAME = 'f';

export const COLD = 'c';
