// The `agent-guard` launcher's request (bin/agent-guard.sh, docs/shims.md "Warm path"): `restore
// list` and `status` (with or without --json) answered by the session's warm checker, so that they
// cost no Node start. The answer is what the cold CLI would print: the same `main()` of cli.ts runs
// here, with the client's exact argv, environment and working directory read from /proc, and its
// stdout, stderr and exit status go back to the launcher. A large stdout is written to the slot's
// answer file (0600, in the private checker directory) and the launcher `cat`s it: relaying 10,000
// lines through a shell `read` loop would take a second.
//
// Between requests the recovery module keeps the folded transactions and the quarantine's listing
// in memory (withFoldedMemory, src/recovery/txindex.ts), revalidated on every request against the
// manifest and the directory: an answer is never staler than the disk.
import fs from 'node:fs';
import { main } from '../cli.js';
import { VERSION } from '../version.js';
import { withFoldedMemory } from '../recovery/txindex.js';
import { CHECKER_ENV } from './place.js';
import { readClient } from './proc.js';
import { chunkFrames, COLD, FILE_FRAME, type CliRequest, type Output } from './protocol.js';

/** The argv forms served warm (the launcher asks only for these; anything else is cold). */
export const CLI_FORMS: readonly (readonly string[])[] = [['restore', 'list'], ['restore', 'list', '--json'], ['status'], ['status', '--json']];

/** Stdout up to this size goes back as frames; more is written to the answer file. */
const FRAMED_STDOUT = 8192;
/** Stderr is always framed; more than this (never seen: a warning or two) is answered cold. */
const MAX_STDERR = 65536;

export function servedWarm(args: readonly string[]): boolean {
  return CLI_FORMS.some((f) => f.length === args.length && f.every((w, i) => w === args[i]));
}

/** The answer to the launcher's request: frames ending with `dexit N`, or COLD (nothing was done
 *  that the cold path would not do again: the index write is the only side effect, as in the CLI).
 *  `file` is the slot's answer file, written only when stdout is large. */
export function answerCli(req: CliRequest, uid: number, file: string): string {
  const cold = COLD + '\n';
  if (req.version !== VERSION) return cold;
  const client = readClient(req.pid, req.argc, req.name, uid);
  if (typeof client === 'string' || client.lossy || !servedWarm(client.args)) return cold;
  const out: Output[] = [];
  let code: number;
  try {
    // Its children (git) must not wait for this busy server.
    const env = { ...client.env, [CHECKER_ENV.dir]: '' };
    const io = { stdout: (t: string) => out.push({ fd: 1, text: t }), stderr: (t: string) => out.push({ fd: 2, text: t }) };
    code = withFoldedMemory(() => main(client.args, env, io, client.cwd, false));
  } catch {
    return cold; // the cold path runs it again and reports its failure itself
  }
  if (!Number.isInteger(code) || code < 0 || code > 255) return cold;
  let stdoutBytes = 0;
  let stderrBytes = 0;
  for (const o of out) {
    if (o.fd === 1) stdoutBytes += o.text.length;
    else stderrBytes += o.text.length;
  }
  if (stderrBytes > MAX_STDERR) return cold;
  removeAnswerFile(file);
  let s = '';
  if (stdoutBytes <= FRAMED_STDOUT) for (const o of out) s += chunkFrames(o);
  else {
    // All of stdout in the file, its frame where stdout began; stderr framed around it.
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    } catch {
      return cold;
    }
    let placed = false;
    try {
      for (const o of out) {
        if (o.fd === 2) s += chunkFrames(o);
        else {
          const buf = Buffer.from(o.text, 'utf8');
          for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off);
          if (!placed) s += FILE_FRAME + '\n';
          placed = true;
        }
      }
    } catch {
      fs.closeSync(fd);
      removeAnswerFile(file);
      return cold;
    }
    fs.closeSync(fd);
  }
  return `${s}dexit ${code}\n`;
}

/** Removes a slot's answer file (when the slot is freed or reclaimed, and before it is written). */
export function removeAnswerFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // none
  }
}
