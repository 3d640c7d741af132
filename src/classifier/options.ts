// One getopt-style option reader for every program the classifier reads option by option (rm and
// its family, the wrappers, git's global and subcommand options, the shells, xargs). A spec table
// says which short and long options exist and which take a value; the reader walks the words and
// reports one item per option letter, long option, operand or `--`, with the index of the word it
// came from. What an option means is the caller's business; so are words it wants to see before the
// reader does (an expansion, `nice -10`, `env -`): it peeks at `index` and skips them.
//
// The grammar is getopt_long's (GNU): short options cluster (`-rf`), a short option with a value
// takes the rest of its cluster or the next word (`-n3`, `-n 3`), a long option takes `--name=v` or
// the next word, `--` ends the options, `-` is an operand; with `abbreviations` an unambiguous prefix
// names a long option (`--recur`), an exact name winning over longer ones; with `permute` operands
// and options interleave, otherwise the first operand ends the options.

export interface OptionSpec {
  /** Short options that take no value. */
  shortFlags?: string;
  /** Short options that take a value: the rest of the cluster, or the next word. */
  shortValues?: string;
  /** Short options whose value is always the next word, wherever they sit in a cluster (the
   *  shells' `-o NAME`: `bash -oc posix TEXT`). */
  nextWordValues?: string;
  /** Long options (without `--`) that take no value. */
  longFlags?: readonly string[];
  /** Long options that take a value: `--name=v` or the next word. */
  longValues?: readonly string[];
  /** Long options whose value is optional: only `--name=v` gives one. */
  longOptional?: readonly string[];
  /** An unambiguous prefix names a long option (GNU getopt_long). Off: exact names only. */
  abbreviations?: boolean;
  /** Short options may be clustered (`-rf`). Off: a short option is a word of its own (`-C`, as
   *  git reads its global options); anything longer is unknown. */
  clusters?: boolean;
  /** Options may follow operands (GNU permutation). Off: the first operand ends the options. */
  permute?: boolean;
  /** `+x` is an option word too (the shells' `+o NAME`, `+e`). */
  plus?: boolean;
}

/** How a long option was read: `unknown` (no such name), `ambiguous` (a prefix of several),
 *  `unexpected-value` (`--flag=v` for an option that takes none: getopt refuses the call),
 *  `missing-value` (a value option at the end of the words). */
export type LongStatus = 'ok' | 'unknown' | 'ambiguous' | 'unexpected-value' | 'missing-value';

export interface ShortItem {
  kind: 'short';
  /** The letter. */
  name: string;
  /** `-` or `+`. */
  sign: string;
  /** Index of the word holding the letter. */
  word: number;
  known: boolean;
  /** The option takes a value (then `value` is it, unless the words ran out). */
  takesValue: boolean;
  value?: string;
  /** The value's word when it is a word of its own. */
  valueWord?: number;
  /** The letter ends its cluster (or takes the rest of it). */
  last: boolean;
}

export interface LongItem {
  kind: 'long';
  /** The option's full name when it resolved; otherwise (`unknown`, `ambiguous`) the word up to
   *  `=`, with its `--`, which no spec name equals (a caller comparing names never takes `--f` for
   *  `-f`). */
  name: string;
  /** The name as typed (without `--` and `=…`). */
  typed: string;
  word: number;
  status: LongStatus;
  /** The names a prefix matched (for `ambiguous`). */
  candidates: readonly string[];
  value?: string;
  valueWord?: number;
  /** The value came after `=` in the same word. */
  inline: boolean;
}

export interface OperandItem {
  kind: 'operand';
  word: number;
  value: string;
}

export interface EndItem {
  kind: 'end';
  word: number;
}

export type OptionItem = ShortItem | LongItem | OperandItem | EndItem;

export class OptionReader {
  /** The next word to read (inside a cluster: the word after it). */
  index = 0;
  /** Options are over (`--` seen, or an operand without permutation): every word is an operand. */
  ended = false;
  private cluster: { word: number; text: string; at: number } | null = null;

  constructor(
    readonly words: readonly string[],
    readonly spec: OptionSpec,
  ) {}

  /** No word is left (and no letter of a cluster). */
  get done(): boolean {
    return this.cluster === null && this.index >= this.words.length;
  }

  /** Between words (not inside a cluster): `peek()` and `skip()` apply. */
  get atWordStart(): boolean {
    return this.cluster === null;
  }

  /** The next word, when between words. */
  peek(): string | undefined {
    return this.cluster === null ? this.words[this.index] : undefined;
  }

  /** Passes over whole words the caller has read itself. */
  skip(n = 1): void {
    this.cluster = null;
    this.index += n;
  }

  /** Marks the options as over from here (the caller saw an operand of its own kind). */
  end(): void {
    this.cluster = null;
    this.ended = true;
  }

  next(): OptionItem | null {
    if (this.cluster !== null) return this.letter();
    if (this.index >= this.words.length) return null;
    const word = this.index;
    const v = this.words[word]!;
    if (this.ended) {
      this.index++;
      return { kind: 'operand', word, value: v };
    }
    if (v === '--') {
      this.index++;
      this.ended = true;
      return { kind: 'end', word };
    }
    const sign = v[0];
    if (v.length < 2 || (sign !== '-' && !(sign === '+' && this.spec.plus))) {
      this.index++;
      if (!this.spec.permute) this.ended = true;
      return { kind: 'operand', word, value: v };
    }
    this.index++;
    if (v.startsWith('--')) return this.long(word, v);
    if (this.spec.clusters === false && v.length > 2) {
      return { kind: 'short', name: v.slice(1), sign: sign!, word, known: false, takesValue: false, last: true };
    }
    this.cluster = { word, text: v, at: 1 };
    return this.letter();
  }

  /** Reads every item (the caller needs no peeking). */
  all(): OptionItem[] {
    const out: OptionItem[] = [];
    for (let item = this.next(); item !== null; item = this.next()) out.push(item);
    return out;
  }

  private letter(): ShortItem {
    const c = this.cluster!;
    const name = c.text[c.at]!;
    const spec = this.spec;
    const item: ShortItem = { kind: 'short', name, sign: c.text[0]!, word: c.word, known: false, takesValue: false, last: c.at === c.text.length - 1 };
    c.at++;
    if (spec.nextWordValues?.includes(name)) {
      item.known = item.takesValue = true;
      this.takeNextWord(item);
    } else if (spec.shortValues?.includes(name)) {
      item.known = item.takesValue = item.last = true;
      if (c.at < c.text.length) {
        item.value = c.text.slice(c.at);
        c.at = c.text.length;
      } else this.takeNextWord(item);
    } else if (spec.shortFlags?.includes(name)) item.known = true;
    if (c.at >= c.text.length) this.cluster = null;
    return item;
  }

  private takeNextWord(item: ShortItem): void {
    if (this.index < this.words.length) {
      item.value = this.words[this.index]!;
      item.valueWord = this.index;
    }
    this.index++;
  }

  private long(word: number, v: string): LongItem {
    const spec = this.spec;
    const eq = v.indexOf('=');
    const typed = eq < 0 ? v.slice(2) : v.slice(2, eq);
    const item: LongItem = { kind: 'long', name: typed, typed, word, status: 'ok', candidates: [], inline: eq >= 0 };
    if (eq >= 0) item.value = v.slice(eq + 1);
    const names = longNames(spec);
    let name: string | undefined = names.kind.has(typed) ? typed : undefined;
    if (name === undefined && spec.abbreviations && typed !== '') {
      const candidates = names.all.filter((n) => n.startsWith(typed));
      item.candidates = candidates;
      if (candidates.length === 1) name = candidates[0];
      else if (candidates.length > 1) {
        item.status = 'ambiguous';
        item.name = '--' + typed;
        return item;
      }
    }
    if (name === undefined) {
      item.status = 'unknown';
      item.name = '--' + typed;
      return item;
    }
    item.name = name;
    const kind = names.kind.get(name);
    if (kind === 'value') {
      if (eq < 0) {
        if (this.index < this.words.length) {
          item.value = this.words[this.index]!;
          item.valueWord = this.index;
        } else item.status = 'missing-value';
        this.index++;
      }
    } else if (kind === 'flag' && eq >= 0) item.status = 'unexpected-value';
    return item;
  }
}

interface LongNames {
  all: readonly string[];
  kind: ReadonlyMap<string, 'flag' | 'value' | 'optional'>;
}

const LONG_NAMES = new WeakMap<OptionSpec, LongNames>();

/** A spec's long options by name, built once per spec table. */
function longNames(spec: OptionSpec): LongNames {
  let names = LONG_NAMES.get(spec);
  if (names === undefined) {
    const kind = new Map<string, 'flag' | 'value' | 'optional'>();
    for (const n of spec.longOptional ?? []) kind.set(n, 'optional');
    for (const n of spec.longValues ?? []) kind.set(n, 'value');
    for (const n of spec.longFlags ?? []) kind.set(n, 'flag');
    names = { all: [...kind.keys()], kind };
    LONG_NAMES.set(spec, names);
  }
  return names;
}
