// How each interpreter reads its own argv: where its program comes from — the text of `-c`/`-e`/
// `--eval`/`-p` (Perl and Ruby join several `-e` with newlines), standard input (`-`, or nothing
// else), a script file (not read: docs/limitations.md) — or that it runs none (`--version`, `--help`,
// a syntax check). Checked against python3 3.11, node 20 and perl 5.36; Ruby from its manual.
import type { Word } from '../types.js';
import { OptionReader, type OptionSpec } from '../options.js';
import type { Lang } from './tokens.js';

/** A word's text as code: its value, or as written when the shell expands something in it. */
const textOf = (w: Word): string => (w.dynamic ? w.display : w.value);

export interface InterpArgs {
  source: 'code' | 'stdin' | 'script' | 'none';
  /** The program text, for `code`. */
  code: string;
  /** Index (in the interpreter's arguments) of the word holding the code (the first, for several). */
  codeArg?: number;
  /** The code holds a shell expansion: the shell, not the text, decides what runs. */
  dynamic: boolean;
  /** `ruby -C DIR`: the directory the program runs in. */
  chdir?: Word;
}

const PYTHON: OptionSpec = {
  shortFlags: 'bBdEhiIOPqRsSuvVx?',
  shortValues: 'cmWX',
  longFlags: ['help', 'version', 'help-env', 'help-xoptions', 'help-all'],
  longValues: ['check-hash-based-pycs'],
};

function python(args: readonly Word[]): InterpArgs {
  const none: InterpArgs = { source: 'none', code: '', dynamic: false };
  const r = new OptionReader(
    args.map((w) => w.value),
    PYTHON,
  );
  for (let item = r.next(); item !== null; item = r.next()) {
    if (item.kind === 'short' && item.name === 'c') {
      const at = item.valueWord ?? item.word;
      if (item.value === undefined) return none;
      const w = args[at]!;
      return { source: 'code', code: w.dynamic && item.valueWord !== undefined ? w.display : item.value, codeArg: at, dynamic: w.dynamic || w.glob };
    }
    if (item.kind === 'short' && item.name === 'm') return { ...none, source: 'script' };
    if ((item.kind === 'short' && 'hV?'.includes(item.name)) || (item.kind === 'long' && item.name.startsWith('help')) || (item.kind === 'long' && item.name === 'version')) return none;
    if (item.kind === 'operand') return { ...none, source: args[item.word]!.value === '-' && !args[item.word]!.dynamic ? 'stdin' : 'script' };
    if (item.kind === 'end') {
      const next = args[r.index];
      return next === undefined ? { ...none, source: 'stdin' } : { ...none, source: next.value === '-' ? 'stdin' : 'script' };
    }
  }
  return { ...none, source: 'stdin' };
}

/** node's options that take the next word as their value. */
const NODE_VALUES = new Set([
  '-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--input-type', '--env-file', '--title', '--watch-path',
  '--test-reporter', '--test-reporter-destination', '--test-name-pattern', '--test-skip-pattern', '--inspect-port', '--debug-port', '--redirect-warnings', '--icu-data-dir', '--openssl-config',
  '--diagnostic-dir', '--report-dir', '--report-directory', '--report-filename', '--report-signal', '--heapsnapshot-signal', '--cpu-prof-dir', '--cpu-prof-name', '--heap-prof-dir', '--heap-prof-name',
  '--disable-warning', '--experimental-policy', '--policy-integrity', '--secure-heap', '--secure-heap-min', '--tls-cipher-list', '--tls-keylog', '--unhandled-rejections', '--dns-result-order', '--max-http-header-size', '--stack-trace-limit', '--trace-event-categories', '--trace-event-file-pattern',
]);

function node(args: readonly Word[]): InterpArgs {
  let code: InterpArgs | null = null;
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!;
    const v = w.value;
    // An expansion among the options: read on (what follows may still be code to read).
    if (w.dynamic) continue;
    if (v === '-e' || v === '--eval' || v === '-p' || v === '--print' || v === '-pe') {
      const c = args[k + 1];
      if (c === undefined) return { source: 'none', code: '', dynamic: false };
      code = { source: 'code', code: textOf(c), codeArg: k + 1, dynamic: c.dynamic || c.glob };
      k++;
    } else if (/^--(eval|print)=/.test(v)) code = { source: 'code', code: v.slice(v.indexOf('=') + 1), codeArg: k, dynamic: w.dynamic };
    else if (['-v', '--version', '-h', '--help', '--v8-options', '-c', '--check', '--test', '--run'].includes(v)) return { source: v === '--test' || v === '--run' ? 'script' : 'none', code: '', dynamic: false };
    else if (NODE_VALUES.has(v)) k++;
    else if (v === '--' || v === '-' || !v.startsWith('-')) {
      if (code !== null) return code;
      if (v === '-' || (v === '--' && args[k + 1]?.value === '-')) return { source: 'stdin', code: '', dynamic: false };
      return { source: v === '--' && args[k + 1] === undefined ? 'stdin' : 'script', code: '', dynamic: false };
    }
  }
  // No script: node reads its program from standard input (also with -i, as a REPL's input).
  return code ?? { source: 'stdin', code: '', dynamic: false };
}

/** Perl and Ruby: clustered switches, several `-e` joined by newlines. `values`: switches whose
 *  value is the rest of the cluster or the next word; `rest`: the rest of the cluster only;
 *  `digits`: optional digits (or letters) after it; `queries`: switches that run nothing. */
interface Switches {
  values: string;
  rest: string;
  digits: Readonly<Record<string, RegExp>>;
  queries: string;
  longQueries: readonly string[];
  longValues: readonly string[];
}

const PERL: Switches = { values: 'MmI', rest: 'ixdDF', digits: { l: /^[0-7]*/, '0': /^(x[0-9a-fA-F]*|[0-7]*)/, C: /^[0-9IOEioeASLa]*/ }, queries: 'vVh', longQueries: ['--version', '--help'], longValues: [] };
const RUBY: Switches = { values: 'rICE', rest: 'xiFK', digits: { T: /^[0-9]*/, W: /^[0-2:a-z]*/, '0': /^[0-7]*/ }, queries: 'hc', longQueries: ['--version', '--help', '--copyright'], longValues: ['--enable', '--disable', '--encoding', '--external-encoding', '--internal-encoding', '--dump', '--backtrace-limit', '--crash-report'] };

function switches(args: readonly Word[], spec: Switches, lang: 'perl' | 'ruby'): InterpArgs {
  const lines: string[] = [];
  let codeArg: number | undefined;
  let dynamic = false;
  let chdir: Word | undefined;
  const done = (source: InterpArgs['source']): InterpArgs => {
    const res: InterpArgs = lines.length > 0 ? { source: 'code', code: lines.join('\n'), codeArg, dynamic } : { source, code: '', dynamic: false };
    if (chdir) res.chdir = chdir;
    return res;
  };
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!;
    const v = w.value;
    if (w.dynamic) continue;
    if (v === '--') return done(args[k + 1] === undefined || args[k + 1]!.value === '-' ? 'stdin' : 'script');
    if (v === '-' || !v.startsWith('-')) return done(v === '-' ? 'stdin' : 'script');
    if (spec.longQueries.includes(v)) return { source: 'none', code: '', dynamic: false };
    if (v.startsWith('--')) {
      if (spec.longValues.includes(v)) k++;
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const ch = v[j]!;
      const rest = v.slice(j + 1);
      if (ch === 'e' || (lang === 'perl' && ch === 'E')) {
        const c = rest !== '' ? w : args[++k];
        if (c === undefined) return { source: 'none', code: '', dynamic: false };
        lines.push(rest !== '' ? rest : textOf(c));
        codeArg ??= k;
        dynamic ||= c.dynamic || c.glob;
        break;
      }
      if (spec.queries.includes(ch)) return { source: 'none', code: '', dynamic: false };
      if (spec.values.includes(ch)) {
        const value = rest !== '' ? w : args[++k];
        if (lang === 'ruby' && ch === 'C' && value !== undefined) chdir = rest !== '' ? { ...value, value: rest, display: rest } : value;
        break;
      }
      if (spec.rest.includes(ch)) break;
      const d = spec.digits[ch];
      if (d) j += d.exec(rest)![0].length;
    }
  }
  return done('stdin');
}

export function readInterpreterArgs(lang: Lang, args: readonly Word[]): InterpArgs {
  if (lang === 'python') return python(args);
  if (lang === 'node') return node(args);
  return switches(args, lang === 'perl' ? PERL : RUBY, lang);
}
