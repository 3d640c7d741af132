// A yes/no question on the controlling terminal (`/dev/tty`), the way `rm -i` asks: the rm shim's
// `-i`, an ASK in a guarded interactive shell, and `agent-guard allow` use it. Synchronous: the
// callers are short-lived processes that have nothing else to do while a human answers.
import fs from 'node:fs';

/** yes / no (anything else, or end of input) / timeout / none: there is no terminal to ask. */
export type TtyAnswer = 'yes' | 'no' | 'timeout' | 'none';

export interface AskOptions {
  /** Give up (answer `timeout`) after this long; no limit when absent. */
  timeoutMs?: number;
  /** The terminal device (tests); `/dev/tty` by default. */
  device?: string;
}

const POLL_MS = 50;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Writes `question` to the terminal and reads one line: `y` or `yes` (any case) is yes. Default no. */
export function askOnTty(question: string, opts: AskOptions = {}): TtyAnswer {
  let fd: number;
  try {
    // Its own open file description: O_NONBLOCK here changes nothing for the shell's descriptors.
    fd = fs.openSync(opts.device ?? '/dev/tty', fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK);
  } catch {
    return 'none';
  }
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
  try {
    fs.writeSync(fd, question);
    const buf = Buffer.alloc(256);
    let line = '';
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return 'none';
        if (Date.now() >= deadline) {
          fs.writeSync(fd, '\n');
          return 'timeout';
        }
        Atomics.wait(sleeper, 0, 0, POLL_MS);
        continue;
      }
      if (n <= 0) break; // end of input (a hang-up): no
      line += buf.toString('utf8', 0, n);
      if (line.includes('\n')) break;
    }
    return /^\s*y(es)?\s*$/i.test(line.split('\n')[0] ?? '') ? 'yes' : 'no';
  } catch {
    return 'none';
  } finally {
    fs.closeSync(fd);
  }
}

/** The rm shim's `-i` question: true / false, null when there is no terminal. No time limit, like rm. */
export function askTty(question: string): boolean | null {
  const a = askOnTty(question);
  return a === 'none' ? null : a === 'yes';
}

/** Writes a line to the terminal, if there is one (best effort). */
export function tellTty(text: string, device = '/dev/tty'): void {
  try {
    const fd = fs.openSync(device, fs.constants.O_WRONLY | fs.constants.O_NOCTTY);
    try {
      fs.writeSync(fd, text);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // no terminal: nothing to say
  }
}

/** Text as a human must see it before authorizing it: control characters (escape sequences, `\r`,
 *  backspace), C1 controls and Unicode bidirectional/invisible formatting characters are shown as
 *  `\xNN` / `\u{…}`, so no command can repaint or reorder what the terminal shows. Newlines stay. */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, (c) => {
    const n = c.codePointAt(0)!;
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u{${n.toString(16)}}`;
  });
}
