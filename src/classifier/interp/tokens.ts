// The token stream the four interpreter lexers share (lex-python.ts, lex-js.ts, lex-perl.ts,
// lex-ruby.ts): identifiers, literals and punctuation, with comments dropped and every string read
// exactly (quotes, escapes, raw strings, interpolation), so that a call written inside a string or a
// comment is never taken for a call. A string's interpolations hold code: it is kept, to be read too.

export type Lang = 'python' | 'node' | 'perl' | 'ruby';

interface At {
  /** Offset of the token's first character in the code, and past its last. */
  at: number;
  end: number;
}

/** An identifier or keyword; Perl and Ruby variables keep their sigil (`$x`, `@x`, `@@x`). */
export interface IdTok extends At {
  k: 'id';
  v: string;
}

/** Punctuation or an operator (`(`, `.`, `=>`, `::`, `->`, `?.`, …). */
export interface OpTok extends At {
  k: 'op';
  v: string;
}

export interface NumTok extends At {
  k: 'num';
}

/** A line end that ends a statement (Python and Ruby, outside brackets). */
export interface NlTok extends At {
  k: 'nl';
}

export interface StrTok extends At {
  k: 'str';
  /** The constant value; null when the string interpolates something (it is computed). */
  v: string | null;
  /** Its literal fragments, between interpolations. */
  frags: string[];
  /** The code inside its interpolations (an f-string's `{…}`, `${…}`, `#{…}`, `@{[…]}`). */
  code: string[];
  /** `shell`: a command the interpreter hands to a shell (backticks, `qx`, `%x`); `words`: a word
   *  list (`qw`, `%w`), in `words`; `regex`: a pattern; `glob`: a file pattern (Perl's `<*.c>`). */
  flavor?: 'shell' | 'words' | 'regex' | 'glob';
  words?: string[];
}

export type Tok = IdTok | OpTok | NumTok | NlTok | StrTok;

export interface Lexed {
  toks: Tok[];
  /** Why the code cannot be read (an unterminated string, comment or heredoc); null when it can. */
  error: string | null;
}

export const OPEN: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

const ID_START = /[\p{L}_]/u;
const ID_CHAR = /[\p{L}\p{N}_]/u;

export function isIdStart(c: string | undefined): boolean {
  return c !== undefined && ID_START.test(c);
}

export function isIdChar(c: string | undefined): boolean {
  return c !== undefined && ID_CHAR.test(c);
}

export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** The end of the identifier starting at `i` (letters, digits, `_`). */
export function idEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && isIdChar(s[j])) j++;
  return j;
}

/** The end of a number literal starting at `i` (digits, `.`, exponents, `_`, hex letters, suffixes). */
export function numEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length) {
    const c = s[j]!;
    if (isIdChar(c) || c === '.') {
      // `1..5` (a range) and `1.method` end the number before the dot.
      if (c === '.' && !isDigit(s[j + 1])) break;
      j++;
    } else if ((c === '+' || c === '-') && /[eE]/.test(s[j - 1] ?? '') && !/^0[xX]/.test(s.slice(i, j))) j++;
    else break;
  }
  return j;
}

/** The longest operator of `ops` (longest first) at `i`, or the single character there. */
export function opAt(s: string, i: number, ops: readonly string[]): string {
  for (const op of ops) if (s.startsWith(op, i)) return op;
  return s[i]!;
}

/** A C-style escape after a backslash at `i` (the backslash's index), for Python's, JavaScript's,
 *  Perl's and Ruby's double-quoted strings: the character(s) it stands for and the index after it.
 *  An escape a language does not know keeps its character (`\q` is `q`; Python keeps the backslash,
 *  which `keepUnknown` says). */
export function cEscape(s: string, i: number, keepUnknown: boolean): [string, number] {
  const c = s[i + 1];
  if (c === undefined) return ['\\', i + 1];
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b', '\\': '\\', "'": "'", '"': '"', '`': '`', $: '$', '@': '@', '{': '{', '}': '}', '/': '/', '#': '#' };
  if (c === '\n') return ['', i + 2];
  if (c === 'x') {
    const m = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{1,2}/.exec(s.slice(i + 2, i + 12));
    if (m) return [String.fromCodePoint(parseInt(m[1] ?? m[0], 16)), i + 2 + m[0].length];
  }
  if (c === 'u' || c === 'U') {
    const m = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{4}/.exec(s.slice(i + 2, i + 14));
    const long = c === 'U' ? /^[0-9a-fA-F]{8}/.exec(s.slice(i + 2, i + 10)) : null;
    const hex = long ? long[0] : m ? (m[1] ?? m[0]) : null;
    const cp = hex === null ? NaN : parseInt(hex, 16);
    if (hex !== null && cp <= 0x10ffff) return [String.fromCodePoint(cp), i + 2 + (long ? long[0].length : m![0].length)];
  }
  if (c >= '0' && c <= '7') {
    const m = /^[0-7]{1,3}/.exec(s.slice(i + 1, i + 4))!;
    return [String.fromCharCode(parseInt(m[0], 8)), i + 1 + m[0].length];
  }
  if (c in simple) return [simple[c]!, i + 2];
  return [keepUnknown ? '\\' + c : c, i + 2];
}

/** The index of the bracket closing the one at `i` (`(`, `[`, `{`, `<`), skipping nested pairs and
 *  backslash escapes; -1 when it is not closed. */
export function closeOf(s: string, i: number): number {
  const open = s[i]!;
  const close = OPEN[open]!;
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return j;
  }
  return -1;
}

/** A string token. */
export function strTok(at: number, end: number, frags: string[], code: string[], interpolated: boolean, flavor?: StrTok['flavor']): StrTok {
  const t: StrTok = { k: 'str', at, end, v: interpolated ? null : frags.join(''), frags, code };
  if (flavor) t.flavor = flavor;
  return t;
}

/** Does the token end a value (so that a following `/` divides rather than starts a pattern)? */
export function endsValue(t: Tok | undefined, keywords: ReadonlySet<string>): boolean {
  if (t === undefined) return false;
  if (t.k === 'num' || t.k === 'str') return true;
  if (t.k === 'id') return !keywords.has(t.v);
  return t.k === 'op' && (t.v === ')' || t.v === ']');
}

/** A heredoc whose body starts on the line after its `<<` (Perl, Ruby): the token is made at the
 *  `<<` and filled once the body is read. */
export interface PendingHeredoc {
  tok: StrTok;
  id: string;
  /** `<<~` (both) and Ruby's `<<-`: the terminator may be indented; `strip`: `<<~` also strips the
   *  body's common indentation. */
  indented: boolean;
  strip: boolean;
  /** How the body reads: literal, interpolated, or a shell command (interpolated). */
  mode: 'literal' | 'interp' | 'shell';
}

/** What a language makes of an interpolating string's body: its value when constant, its literal
 *  fragments, and the code of its interpolations. */
export type Interpolate = (body: string) => { frags: string[]; code: string[]; interpolated: boolean };

/** Reads the bodies of `pending` from `i` (the start of the line after their `<<`), in order, into
 *  their tokens. Returns the index after the last terminator line, or a reason it cannot be read. */
export function readHeredocs(s: string, i: number, pending: PendingHeredoc[], interpolate: Interpolate): number | string {
  let pos = i;
  for (const h of pending) {
    const lines: string[] = [];
    let found = false;
    while (pos < s.length) {
      let end = s.indexOf('\n', pos);
      if (end < 0) end = s.length;
      const line = s.slice(pos, end);
      pos = end + 1;
      if ((h.indented ? line.trim() : line) === h.id) {
        found = true;
        break;
      }
      lines.push(line);
    }
    if (!found) return `an unterminated heredoc (${h.id})`;
    if (h.strip) {
      const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
      const cut = indents.length > 0 ? Math.min(...indents) : 0;
      for (let k = 0; k < lines.length; k++) lines[k] = lines[k]!.slice(Math.min(cut, /^[ \t]*/.exec(lines[k]!)![0].length));
    }
    const body = lines.length > 0 ? lines.join('\n') + '\n' : '';
    const r = h.mode === 'literal' ? { frags: [body], code: [], interpolated: false } : interpolate(body);
    Object.assign(h.tok, { v: r.interpolated ? null : r.frags.join(''), frags: r.frags, code: r.code });
    if (h.mode === 'shell') h.tok.flavor = 'shell';
  }
  pending.length = 0;
  return Math.min(pos, s.length);
}

/** The body between the delimiter at `i` and its closing one (nested for brackets, backslash
 *  escapes skipped): [body, index after the closing delimiter], or null when unterminated. */
export function delimited(s: string, i: number): [string, number] | null {
  const open = s[i]!;
  const close = OPEN[open];
  if (close !== undefined) {
    const end = closeOf(s, i);
    return end < 0 ? null : [s.slice(i + 1, end), end + 1];
  }
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === open) return [s.slice(i + 1, j), j + 1];
  }
  return null;
}
