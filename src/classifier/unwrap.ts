// Wrappers: programs that run another program with the rest of their argv (sudo, env, nice, …).
// Peeling them is how `sudo env -C /x nice rm -rf y` is judged as `rm -rf y` in /x.
import type { Word } from './words.js';
import { basename } from './paths.js';

interface OptionSpec {
  /** Short options that take an argument. */
  shortArg: string;
  /** Short options that take no argument. */
  shortFlag: string;
  /** Long options that take an argument (without `--`); `name=value` is always accepted. */
  longArg: readonly string[];
  longFlag: readonly string[];
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

const SPECS: Record<string, OptionSpec> = {
  sudo: {
    shortArg: 'ugCDhprtTU',
    shortFlag: 'AbEHiKknPSsVvl',
    longArg: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
    longFlag: ['askpass', 'background', 'preserve-env', 'set-home', 'login', 'remove-timestamp', 'reset-timestamp', 'non-interactive', 'preserve-groups', 'stdin', 'shell', 'version', 'validate', 'list'],
    assignments: true,
    query: { long: ['help', 'version', 'list', 'validate', 'edit'], short: 'lvVe' },
  },
  doas: { shortArg: 'uC', shortFlag: 'nsL', longArg: [], longFlag: [] },
  env: {
    shortArg: 'uCS',
    shortFlag: 'i0v',
    longArg: ['unset', 'chdir', 'split-string'],
    longFlag: ['ignore-environment', 'null', 'debug', 'default-signal', 'ignore-signal', 'block-signal', 'list-signal-handling'],
    assignments: true,
    query: GNU_QUERY,
  },
  nice: { shortArg: 'n', shortFlag: '', longArg: ['adjustment'], longFlag: [], query: GNU_QUERY },
  nohup: { shortArg: '', shortFlag: '', longArg: [], longFlag: [], query: GNU_QUERY },
  command: { shortArg: '', shortFlag: 'pvV', longArg: [], longFlag: [], query: { long: ['help', 'version'], short: 'vV' } },
  builtin: { shortArg: '', shortFlag: '', longArg: [], longFlag: [], query: { long: ['help'] } },
  exec: { shortArg: 'a', shortFlag: 'cl', longArg: [], longFlag: [], query: { long: ['help'] } },
  time: { shortArg: 'fo', shortFlag: 'pvqa', longArg: ['format', 'output'], longFlag: ['portability', 'verbose', 'quiet', 'append'], query: { long: ['help', 'version'], short: 'V' } },
  timeout: { shortArg: 'sk', shortFlag: 'v', longArg: ['signal', 'kill-after'], longFlag: ['preserve-status', 'foreground', 'verbose'], positionals: 1, query: GNU_QUERY },
  stdbuf: { shortArg: 'ioe', shortFlag: '', longArg: ['input', 'output', 'error'], longFlag: [], query: GNU_QUERY },
  busybox: { shortArg: '', shortFlag: '', longArg: [], longFlag: [] },
  setsid: { shortArg: '', shortFlag: 'cfw', longArg: [], longFlag: ['ctty', 'fork', 'wait'], query: UTIL_LINUX_QUERY },
  ionice: { shortArg: 'cnp', shortFlag: 't', longArg: ['class', 'classdata', 'pid'], longFlag: ['ignore'], query: UTIL_LINUX_QUERY },
  taskset: { shortArg: '', shortFlag: 'acp', longArg: [], longFlag: ['all-tasks', 'cpu-list', 'pid'], positionals: 1, query: UTIL_LINUX_QUERY },
  chrt: { shortArg: 'TPD', shortFlag: 'abdefiomrRv', longArg: ['sched-runtime', 'sched-period', 'sched-deadline'], longFlag: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose'], positionals: 1, query: UTIL_LINUX_QUERY },
  flock: { shortArg: 'wEc', shortFlag: 'sxunoFv', longArg: ['timeout', 'conflict-exit-code', 'command'], longFlag: ['shared', 'exclusive', 'unlock', 'nonblock', 'close', 'no-fork', 'verbose'], positionals: 1, query: UTIL_LINUX_QUERY },
  unshare: { shortArg: 'S', shortFlag: 'imnpuUCTrcf', longArg: ['setuid', 'setgid', 'propagation', 'wd', 'root', 'kill-child'], longFlag: ['ipc', 'mount', 'net', 'pid', 'uts', 'user', 'cgroup', 'time', 'fork', 'map-root-user', 'map-current-user', 'mount-proc'], query: UTIL_LINUX_QUERY },
};

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
    let k = 1;
    let onlyQuery = false;
    const take = (opt: string, value: Word | undefined): void => {
      if ((name === 'env' && (opt === 'C' || opt === 'chdir')) || (name === 'sudo' && (opt === 'D' || opt === 'chdir'))) {
        res.chdir = value ? resolveDir(value) : null;
      }
      if (name === 'env' && (opt === 'S' || opt === 'split-string') && value) res.splitString = value;
      if (name === 'env' && (opt === 'u' || opt === 'unset') && value) res.envNames.push(value.value);
      if (name === 'flock' && (opt === 'c' || opt === 'command') && value) res.splitString = value;
    };
    while (k < words.length) {
      const w = words[k]!;
      const v = w.value;
      if (v === '--') {
        k++;
        break;
      }
      if (name === 'env' && v === '-') {
        k++;
        continue;
      }
      if (!v.startsWith('-') || v === '-') break;
      if (name === 'nice' && /^-\d+$/.test(v)) {
        k++;
        continue;
      }
      if (v.startsWith('--')) {
        const eq = v.indexOf('=');
        const opt = eq < 0 ? v.slice(2) : v.slice(2, eq);
        if (eq >= 0) {
          take(opt, { ...w, value: v.slice(eq + 1) });
          k++;
        } else if (spec.longArg.includes(opt)) {
          take(opt, words[k + 1]);
          k += 2;
        } else {
          // A query option prints and exits, unless an option read before it was not understood (it
          // might have taken this word as its value).
          if (spec.query?.long.includes(opt) && !res.uncertain) onlyQuery = true;
          else if (!spec.longFlag.includes(opt)) res.uncertain = true;
          k++;
        }
        continue;
      }
      // a bundle of short options
      let consumedNext = false;
      for (let j = 1; j < v.length; j++) {
        const o = v[j]!;
        if (spec.shortArg.includes(o)) {
          const rest = v.slice(j + 1);
          if (rest !== '') take(o, { ...w, value: rest });
          else {
            take(o, words[k + 1]);
            consumedNext = true;
          }
          break;
        }
        if (spec.query?.short?.includes(o) && !res.uncertain) onlyQuery = true;
        else if (!spec.shortFlag.includes(o)) res.uncertain = true;
        if (name === 'command' && o === 'p') res.defaultPath = true;
        // `sudo -k` / `sudo -K` alone only drop the cached credentials.
        if (name === 'sudo' && (o === 'K' || o === 'k') && j === v.length - 1 && k === words.length - 1) onlyQuery = true;
      }
      k += consumedNext ? 2 : 1;
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
