// Wrappers: programs that run another program with the rest of their argv (sudo, env, nice, …).
// Peeling them is how `sudo env -C /x nice rm -rf y` is judged as `rm -rf y` in /x.
import type { Word } from '../types.js';
import { basename } from '../paths.js';
import { OptionReader, type OptionSpec } from '../options.js';

interface WrapperSpec {
  /** The wrapper's options, read with options.ts (no permutation, exact long names). */
  options: OptionSpec;
  /** Positional words consumed after the options before the wrapped command (timeout's DURATION). */
  positionals?: number;
  /** Leading NAME=VALUE words set the environment (env, sudo). */
  assignments?: boolean;
  /** Options that make the wrapper print something and exit without running the command
   *  (`env --help rm`, `setsid -V rm`, `sudo -e FILE` edits a file): long names, short letters.
   *  Checked with the real programs (docs/classifier.md); only an option read as an option counts. */
  query?: { long: readonly string[]; short?: string };
}

const GNU_QUERY = { long: ['help', 'version'] } as const;
const UTIL_LINUX_QUERY = { long: ['help', 'version'], short: 'hV' } as const;

const SPECS: Record<string, WrapperSpec> = {
  sudo: {
    options: {
      shortValues: 'ugCDhprtTU',
      shortFlags: 'AbEHiKknPSsVvl',
      longValues: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
      longFlags: ['askpass', 'background', 'preserve-env', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'version', 'validate', 'list'],
    },
    assignments: true,
    query: { long: ['help', 'version', 'list', 'validate', 'edit'], short: 'lvVe' },
  },
  doas: { options: { shortValues: 'uC', shortFlags: 'nsL' } },
  env: {
    options: {
      shortValues: 'uCS',
      shortFlags: 'i0v',
      longValues: ['unset', 'chdir', 'split-string'],
      longFlags: ['ignore-environment', 'null', 'debug', 'default-signal', 'ignore-signal', 'block-signal', 'list-signal-handling'],
    },
    assignments: true,
    query: GNU_QUERY,
  },
  nice: { options: { shortValues: 'n', longValues: ['adjustment'] }, query: GNU_QUERY },
  nohup: { options: {}, query: GNU_QUERY },
  command: { options: { shortFlags: 'pvV' }, query: { long: ['help', 'version'], short: 'vV' } },
  builtin: { options: {}, query: { long: ['help'] } },
  exec: { options: { shortValues: 'a', shortFlags: 'cl' }, query: { long: ['help'] } },
  time: { options: { shortValues: 'fo', shortFlags: 'pvqa', longValues: ['format', 'output'], longFlags: ['portability', 'verbose', 'quiet', 'append'] }, query: { long: ['help', 'version'], short: 'V' } },
  timeout: { options: { shortValues: 'sk', shortFlags: 'v', longValues: ['signal', 'kill-after'], longFlags: ['preserve-status', 'foreground', 'verbose'] }, positionals: 1, query: GNU_QUERY },
  stdbuf: { options: { shortValues: 'ioe', longValues: ['input', 'output', 'error'] }, query: GNU_QUERY },
  busybox: { options: {} },
  setsid: { options: { shortFlags: 'cfw', longFlags: ['ctty', 'fork', 'wait'] }, query: UTIL_LINUX_QUERY },
  ionice: { options: { shortValues: 'cnp', shortFlags: 't', longValues: ['class', 'classdata', 'pid'], longFlags: ['ignore'] }, query: UTIL_LINUX_QUERY },
  taskset: { options: { shortFlags: 'acp', longFlags: ['all-tasks', 'cpu-list', 'pid'] }, positionals: 1, query: UTIL_LINUX_QUERY },
  chrt: { options: { shortValues: 'TPD', shortFlags: 'abdefiomrRv', longValues: ['sched-runtime', 'sched-period', 'sched-deadline'], longFlags: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose'] }, positionals: 1, query: UTIL_LINUX_QUERY },
  flock: { options: { shortValues: 'wEc', shortFlags: 'sxunoFv', longValues: ['timeout', 'conflict-exit-code', 'command'], longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'close', 'no-fork', 'verbose'] }, positionals: 1, query: UTIL_LINUX_QUERY },
  unshare: { options: { shortValues: 'S', shortFlags: 'imnpuUCTrcf', longValues: ['setuid', 'setgid', 'propagation', 'wd', 'root', 'kill-child'], longFlags: ['ipc', 'mount', 'net', 'pid', 'uts', 'user', 'cgroup', 'time', 'fork', 'map-root-user', 'map-current-user', 'mount-proc'] }, query: UTIL_LINUX_QUERY },
};

/** The wrappers peeled (the same list as names.ts WRAPPERS; tests/classifier/structure.test.ts). */
export const WRAPPERS: ReadonlySet<string> = new Set(Object.keys(SPECS));

export interface Unwrapped {
  words: Word[];
  wrappers: string[];
  /** undefined: unchanged; null: changed to an unknown directory; string: changed to that directory. */
  chdir?: string | null;
  /** Names assigned in the environment of the wrapped command (env/sudo NAME=VALUE). */
  envNames: string[];
  /** Nothing is executed (`command -v rm`, `sudo -l`, `env` alone). */
  noop: boolean;
  /** An option whose effect is not known: the wrapped command may not be what follows. */
  uncertain: boolean;
  /** `env -S STRING`: the string is split into a new command line. */
  splitString?: Word;
  /** `command -p`: the default PATH is used. */
  defaultPath: boolean;
}

/** Normalizes a program word to its name: `/usr/bin/rm` → `rm`. */
export function programName(w: Word): string {
  return basename(w.value);
}

export function unwrap(input: Word[], resolveDir: (dir: Word) => string | null): Unwrapped {
  const res: Unwrapped = { words: input, wrappers: [], envNames: [], noop: false, uncertain: false, defaultPath: false };
  let words = input;
  // Every pass consumes at least the wrapper's own word, so the loop ends; no depth limit to slip past.
  while (words.length > 0) {
    const name = programName(words[0]!);
    const spec = SPECS[name];
    if (!spec || words[0]!.dynamic) break;
    res.wrappers.push(name);
    let k: number;
    let onlyQuery = false;
    const take = (opt: string, value: Word | undefined): void => {
      if ((name === 'env' && (opt === 'C' || opt === 'chdir')) || (name === 'sudo' && (opt === 'D' || opt === 'chdir'))) {
        res.chdir = value ? resolveDir(value) : null;
      }
      if (name === 'env' && (opt === 'S' || opt === 'split-string') && value) res.splitString = value;
      if (name === 'env' && (opt === 'u' || opt === 'unset') && value) res.envNames.push(value.value);
      if (name === 'flock' && (opt === 'c' || opt === 'command') && value) res.splitString = value;
    };
    const r = new OptionReader(
      words.map((w) => w.value),
      spec.options,
    );
    r.skip(); // the wrapper's own word
    k = words.length;
    while (!r.done) {
      const v = r.atWordStart ? r.peek() : undefined;
      if ((name === 'env' && v === '-') || (name === 'nice' && v !== undefined && /^-\d+$/.test(v))) {
        r.skip();
        continue;
      }
      const item = r.next();
      if (item === null) break;
      if (item.kind === 'operand') {
        k = item.word;
        break;
      }
      if (item.kind === 'end') {
        k = r.index;
        break;
      }
      const w = words[item.word]!;
      if (item.kind === 'long') {
        if (item.inline) take(item.name, { ...w, value: item.value! });
        else if (item.valueWord !== undefined || item.status === 'missing-value') take(item.name, item.valueWord === undefined ? undefined : words[item.valueWord]);
        // A query option prints and exits, unless an option read before it was not understood (it
        // might have taken this word as its value).
        else if (spec.query?.long.includes(item.typed) && !res.uncertain) onlyQuery = true;
        else if (item.status !== 'ok') res.uncertain = true;
        continue;
      }
      if (item.takesValue) {
        take(item.name, item.valueWord !== undefined ? words[item.valueWord] : item.value !== undefined ? { ...w, value: item.value } : undefined);
        continue;
      }
      if (spec.query?.short?.includes(item.name) && !res.uncertain) onlyQuery = true;
      else if (!item.known) res.uncertain = true;
      if (name === 'command' && item.name === 'p') res.defaultPath = true;
      // `sudo -k` / `sudo -K` alone only drop the cached credentials.
      if (name === 'sudo' && (item.name === 'K' || item.name === 'k') && item.last && item.word === words.length - 1) onlyQuery = true;
    }
    if (spec.assignments) {
      while (k < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]!.value)) {
        res.envNames.push(words[k]!.value.slice(0, words[k]!.value.indexOf('=')));
        k++;
      }
    }
    k += spec.positionals ?? 0;
    if (name === 'flock' && (words[k]?.value === '-c' || words[k]?.value === '--command') && words[k + 1]) {
      // `flock FILE -c CMD`: the command string comes after the lock file.
      res.splitString = words[k + 1]!;
      words = words.slice(k + 2);
      break;
    }
    words = words.slice(k);
    if (onlyQuery || (words.length === 0 && !res.splitString)) {
      res.noop = onlyQuery || words.length === 0;
      break;
    }
    if (res.splitString) break;
  }
  res.words = words;
  return res;
}
