// How a POSIX shell (sh, bash, zsh, dash, ksh, fish, …) reads its own argv: with `-c` the first
// operand is command text; with `-s`, or with no operand, it reads its commands from standard input;
// otherwise the first operand is a script file. Shared by the three dialects' readers (each judges
// the text its own way). `-o NAME` and `+o NAME` take the next word wherever they sit in a cluster
// (`bash -oc posix TEXT` runs TEXT: checked with bash).
import { OptionReader, type OptionSpec } from './options.js';

const SHELL_OPTIONS: OptionSpec = {
  shortFlags: 'abcefhiklmnprstuvxBCDEHIPT',
  nextWordValues: 'oO',
  // (zsh's `--emulate sh` takes the next word too)
  longValues: ['rcfile', 'init-file', 'emulate'],
  plus: true,
};

export interface ShellArgs {
  /** `command`: `text` (or the word at `at`) is run; `script`: the word at `at` is a script file;
   *  `stdin`: the commands come from standard input. */
  mode: 'command' | 'script' | 'stdin';
  /** Index of the word holding the text, or of the script (past the end when it is missing). */
  at: number;
  /** `fish --command=TEXT`: the text inline. */
  text?: string;
  /** The options read, one entry per letter or long name, with its value: `-p`, `-o posix`,
   *  `+o rcs`, `--posix`, `--emulate sh` (which say whether the shell loads its start-up files). */
  options: string[];
}

export function readShellArgs(args: readonly { value: string; dynamic: boolean }[]): ShellArgs {
  let command = false;
  let stdin = false;
  let inline: string | undefined;
  let commandWord: number | undefined;
  const options: string[] = [];
  const r = new OptionReader(
    args.map((w) => w.value),
    SHELL_OPTIONS,
  );
  let k = args.length;
  while (!r.done) {
    if (r.atWordStart && (args[r.index]?.dynamic || r.peek() === '-')) {
      // An expansion is an operand (text or script); `-` ends the options.
      k = r.index + (r.peek() === '-' ? 1 : 0);
      break;
    }
    const item = r.next();
    if (item === null || item.kind === 'operand' || item.kind === 'end') {
      k = item?.kind === 'operand' ? item.word : r.index;
      break;
    }
    if (item.kind === 'short') options.push(`${item.sign}${item.name}${item.value !== undefined ? ` ${item.value}` : ''}`);
    else if (item.kind === 'long') options.push(`--${item.typed}${item.value !== undefined ? ` ${item.value}` : ''}`);
    if (item.kind === 'short' && item.name === 'c') command = true;
    if (item.kind === 'short' && item.name === 's') stdin = true;
    if (item.kind === 'long' && item.typed === 'command') {
      // fish: `--command TEXT`, `--command=TEXT`.
      command = true;
      if (item.inline) {
        inline = item.value;
        commandWord = item.word;
      } else {
        commandWord = r.index;
        r.skip();
      }
    }
  }
  if (command) return inline !== undefined ? { mode: 'command', at: commandWord!, text: inline, options } : { mode: 'command', at: commandWord ?? k, options };
  if (k < args.length && !stdin) return { mode: 'script', at: k, options };
  return { mode: 'stdin', at: k, options };
}
