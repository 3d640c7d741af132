// The cmd.exe reader's lexer: a cmd command line in, simple commands and `if`/`for` statements out.
//
// cmd reads a line in a few passes that matter here: `%…%` expansion first (so a word holding one is
// unknown, quoted or not), then `^` escapes and double quotes (no backslash escapes: `\` is a path
// separator), then the separators `& && | ||`, newlines, parenthesized blocks and redirections, which
// need no spaces around them (`del a&del b` is two commands). Internal commands end their name at `/`
// (`del/q`, `rd/s/q`, `cd..`) and read `, ; =` as spaces between operands.
import type { TargetSpec, Undeterminable } from '../types.js';
import { isUndeterminable } from '../kit.js';
import { windowsTarget } from '../winpath.js';

/** Internal commands: cmd ends their name at `/ \ . ( + , ; = [ ]` (`del/q x`, `cd..`, `cd\`). */
const BUILTIN_PREFIX = /^(del|erase|rmdir|rd|chdir|cd|mkdir|md|pushd|popd|copy|move|rename|ren|echo|type|call|start|set)([\\/.(+,;=[\]].*)$/i;

export interface CWord {
  /** What the program receives: quotes and `^` escapes removed, `%VAR%` left as written. */
  value: string;
  /** Quotes kept, `^` escapes removed: what a nested `cmd /c` reads again. */
  text: string;
  /** As written in the line. */
  raw: string;
  /** One character per character of `value`: '1' when it was neither quoted nor escaped. */
  unq: string;
  /** The word begins with a double quote (`start "title"`). */
  quoted: boolean;
  /** Holds `%VAR%`, `%1`, `%~dp0`, `%%i` or `!VAR!`: a value known only when cmd runs the line. */
  dynamic: boolean;
}

export interface Redirect {
  op: '>' | '>>' | '<';
  handle: string;
  /** The file; null for a handle duplication (`2>&1`) or a missing target. */
  target: CWord | null;
}

export type Connector = 'start' | '&' | '&&' | '|' | '||' | 'newline' | '(' | ')' | 'end';

export interface SimpleCommand {
  type: 'command';
  words: CWord[];
  redirects: Redirect[];
  before: Connector;
  after: Connector;
  /** The command as written. */
  text: string;
}

/** `if …` / `for …`: cmd reads the rest of the line (blocks included) as the statement's body. */
export interface Statement {
  type: 'statement';
  keyword: 'if' | 'for';
  body: string;
  text: string;
  before: Connector;
  after: Connector;
}

export type Item = SimpleCommand | Statement;

export interface Lexed {
  items: Item[];
  /** An unterminated quote or an unclosed block. */
  unbalanced: boolean;
}

const DYNAMIC_PERCENT = /%[^%]*%|%[~0-9*]/;
const DYNAMIC_BANG = /![^!]+!/;

export function isDynamic(s: string): boolean {
  return s.includes('%') ? DYNAMIC_PERCENT.test(s) : s.includes('!') && DYNAMIC_BANG.test(s);
}

/** The names a word's `%NAME%`, `%NAME:~0,3%` and `!NAME!` expansions read, upper case. */
export function variableNames(raw: string): string[] {
  const names: string[] = [];
  for (const m of raw.matchAll(/%([^%:]+)(?::[^%]*)?%|!([^!:]+)(?::[^!]*)?!/g)) names.push((m[1] ?? m[2] ?? '').toUpperCase());
  return names;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\v' || c === '\f';
}

function keywordOf(w: CWord): 'if' | 'for' | null {
  const v = w.value.toLowerCase();
  if (v === 'if' || v.startsWith('if/')) return 'if';
  if (v === 'for' || v.startsWith('for/')) return 'for';
  return null;
}

export function lex(src: string): Lexed {
  const n = src.length;
  const items: Item[] = [];
  let unbalanced = false;
  let depth = 0;

  let words: CWord[] = [];
  let redirects: Redirect[] = [];
  let pending: Redirect | null = null;
  let cmdStart = -1;
  let before: Connector = 'start';

  let inWord = false;
  let wStart = 0;
  let wv: string[] = [];
  let wt: string[] = [];
  let wu: string[] = [];
  let inQuote = false;

  const resetWord = (): void => {
    inWord = false;
    wv = [];
    wt = [];
    wu = [];
  };
  const startWord = (i: number): void => {
    if (inWord) return;
    inWord = true;
    wStart = i;
    if (cmdStart < 0) cmdStart = i;
  };
  const finishWord = (end: number): void => {
    if (!inWord) return;
    const raw = src.slice(wStart, end);
    const value = wv.join('');
    const w: CWord = { value, text: wt.join(''), raw, unq: wu.join(''), quoted: raw.startsWith('"'), dynamic: isDynamic(raw) || isDynamic(value) };
    resetWord();
    if (pending) {
      pending.target = w;
      redirects.push(pending);
      pending = null;
    } else words.push(w);
  };
  const atCommandStart = (): boolean => !inWord && words.length === 0 && redirects.length === 0 && pending === null;
  const finishCommand = (end: number, after: Connector): void => {
    finishWord(end);
    if (pending) {
      redirects.push(pending);
      pending = null;
    }
    if (words.length > 0 || redirects.length > 0) {
      items.push({ type: 'command', words, redirects, before, after, text: src.slice(Math.max(cmdStart, 0), end) });
    }
    words = [];
    redirects = [];
    cmdStart = -1;
    before = after;
  };
  /** From `from` (after the keyword) to the end of the statement: a newline outside any block the
   *  statement opened, a `)` closing a block around it, or the end of the text. */
  const statementEnd = (from: number): number => {
    let j = from;
    let d = 0;
    let q = false;
    while (j < n) {
      const c = src[j]!;
      if (q) {
        if (c === '"') q = false;
        else if (c === '\n') {
          q = false;
          unbalanced = true;
          if (d === 0) break;
        }
        j++;
        continue;
      }
      if (c === '"') q = true;
      else if (c === '^') {
        j += src[j + 1] === '\r' && src[j + 2] === '\n' ? 3 : 2; // an escape, or a continued line
        continue;
      } else if (c === '(') d++;
      else if (c === ')') {
        if (d > 0) d--;
        else if (depth > 0) break;
      } else if (c === '\n' && d === 0) break;
      j++;
    }
    if (q || d > 0) unbalanced = true;
    return Math.min(j, n);
  };

  for (let i = 0; i < n; i++) {
    const c = src[i]!;
    if (c === '\r') continue; // cmd drops every carriage return before it reads the line
    if (inQuote) {
      if (c === '"') {
        inQuote = false;
        wt.push(c);
        continue;
      }
      if (c !== '\n') {
        wv.push(c);
        wt.push(c);
        wu.push('0');
        continue;
      }
      // A quote ends with its line: cmd accepts that; agent-guard reads the line as unbalanced.
      inQuote = false;
      unbalanced = true;
    }
    if (c === '"') {
      startWord(i);
      wt.push(c);
      inQuote = true;
      continue;
    }
    if (c === '^') {
      let j = i + 1;
      while (j < n && src[j] === '\r') j++;
      if (j >= n) {
        i = n;
        continue;
      }
      if (src[j] === '\n') {
        // `^` at the end of a line continues it. (cmd also escapes the first character of the next
        // line; here it is read as written, so a separator there still separates: the stricter reading.)
        i = j;
        continue;
      }
      startWord(i);
      wv.push(src[j]!);
      wt.push(src[j]!);
      wu.push('0');
      i = j;
      continue;
    }
    if (c === '\n') {
      finishCommand(i, 'newline');
      continue;
    }
    if (c === '&' || c === '|') {
      const doubled = src[i + 1] === c;
      finishCommand(i, doubled ? (c === '&' ? '&&' : '||') : c);
      if (doubled) i++;
      continue;
    }
    if (c === '(' && atCommandStart()) {
      depth++;
      before = '(';
      continue;
    }
    if (c === ')' && depth > 0) {
      finishCommand(i, ')');
      depth--;
      continue;
    }
    if (c === '<' || c === '>') {
      let handle = '';
      if (inWord && wv.length === 1 && wu[0] === '1' && /[0-9]/.test(wv[0]!)) {
        handle = wv[0]!;
        resetWord();
      } else finishWord(i);
      if (cmdStart < 0) cmdStart = i;
      if (pending) redirects.push(pending);
      pending = null;
      let op: Redirect['op'] = c === '<' ? '<' : '>';
      if (c === '>' && src[i + 1] === '>') {
        op = '>>';
        i++;
      }
      if (src[i + 1] === '&') {
        // `2>&1`, `>&2`: a handle duplication, no file.
        i++;
        while (i + 1 < n && /[0-9]/.test(src[i + 1]!)) i++;
        redirects.push({ op, handle, target: null });
        continue;
      }
      pending = { op, handle, target: null };
      continue;
    }
    if (isSpace(c)) {
      finishWord(i);
      const first = words[0];
      if (words.length === 1 && redirects.length === 0 && pending === null && first) {
        const kw = keywordOf(first);
        if (kw) {
          const end = statementEnd(i);
          items.push({ type: 'statement', keyword: kw, body: src.slice(i, end), text: src.slice(Math.max(cmdStart, 0), end), before, after: 'end' });
          words = [];
          cmdStart = -1;
          i = Math.max(i, end - 1); // the `)`, newline or end is read next
          continue;
        }
      }
      continue;
    }
    if (atCommandStart() && (c === '@' || c === ',' || c === ';' || c === '=')) continue; // `@del x`, `;del x`
    startWord(i);
    wv.push(c);
    wt.push(c);
    wu.push('1');
  }
  if (inQuote) unbalanced = true;
  finishCommand(n, 'end');
  if (depth > 0) unbalanced = true;
  // Record what follows each item (a pipe on either side runs it in a child cmd).
  for (let k = 0; k + 1 < items.length; k++) items[k]!.after = items[k + 1]!.before;
  return { items, unbalanced };
}

/** Words whose splitting on unquoted characters is needed by internal commands (`del a,b`, `del x/s`). */
export function splitUnquoted(w: CWord, chars: string): CWord[] {
  const out: CWord[] = [];
  let start = 0;
  for (let k = 0; k <= w.value.length; k++) {
    if (k < w.value.length && !(w.unq[k] === '1' && chars.includes(w.value[k]!))) continue;
    if (k > start || (k === w.value.length && start === 0 && w.value === '')) {
      const value = w.value.slice(start, k);
      out.push({ ...w, value, unq: w.unq.slice(start, k), raw: start === 0 && k === w.value.length ? w.raw : value, dynamic: w.dynamic && isDynamic(value) });
    }
    start = k + 1;
  }
  return out;
}

/** Win32 drops trailing dots and spaces from path components (`del "x. "` deletes `x`, `rd "C:\\ "` is
 *  the drive root, `"sub\\.. "` is the parent). */
function win32Trim(v: string): string {
  if (!/[. ]([\\/]|$)/.test(v) || /^[\\/]{2}[?.][\\/]/.test(v)) return v; // nothing to trim, or a \\?\ path taken verbatim
  return v
    .split(/[\\/]/)
    .map((c) => {
      const t = c.replace(/ +$/, '');
      if (t === '') return c === '' ? c : '.';
      if (t === '.' || t === '..') return t;
      // `...`, `. .`: read as the parent, the wider of the directories it could name (fail closed).
      return /^[. ]+$/.test(t) ? '..' : t.replace(/[. ]+$/, '');
    })
    .join('\\');
}

/** A cmd operand as a target (`raw` as written). */
export function cmdTarget(value: string, cwd: string | null, home: string | null, glob: boolean): TargetSpec | Undeterminable {
  const t = windowsTarget(win32Trim(value), cwd, { tilde: false, home, glob });
  return isUndeterminable(t) ? t : { ...t, raw: value };
}

export function commandText(words: CWord[]): string {
  return words.map((w) => w.raw).join(' ');
}

/** The program word, with an internal command's glued remainder split off (`del/q` → `del`, `/q`). */
export function splitProgram(words: CWord[]): CWord[] {
  const first = words[0]!;
  if (first.dynamic) return words;
  const m = BUILTIN_PREFIX.exec(first.value);
  if (!m || /^\.(exe|com|bat|cmd)$/i.test(m[2]!)) return words;
  const len = m[1]!.length;
  const name: CWord = { ...first, value: m[1]!, text: m[1]!, raw: m[1]!, unq: first.unq.slice(0, len) };
  const restValue = m[2]!;
  const rest: CWord = {
    value: restValue,
    text: first.text.toLowerCase().startsWith(m[1]!.toLowerCase()) ? first.text.slice(len) : restValue,
    raw: first.raw.toLowerCase().startsWith(m[1]!.toLowerCase()) ? first.raw.slice(len) : restValue,
    unq: first.unq.slice(len),
    quoted: false,
    dynamic: isDynamic(restValue),
  };
  return [name, rest, ...words.slice(1)];
}
