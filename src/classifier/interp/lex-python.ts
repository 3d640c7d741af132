// Python's tokens, as the tokenizer reads them: `#` comments, `\` line continuations, line ends
// that end a statement only outside brackets, and every string form — single, double and
// triple-quoted, with the prefixes r, b, u, f (raw strings keep their backslashes but a backslash
// still escapes the quote; an f-string's `{…}` is code, `{{` a brace).
import { cEscape, idEnd, isDigit, isIdStart, numEnd, opAt, strTok, type Lexed, type StrTok, type Tok } from './tokens.js';

const OPS = ['**=', '//=', '>>=', '<<=', '...', '->', ':=', '==', '!=', '<=', '>=', '**', '//', '<<', '>>', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@='];
const PREFIXES = new Set(['r', 'u', 'b', 'f', 'br', 'rb', 'fr', 'rf']);

/** The end of an f-string replacement field's expression starting at `i` (after `{`): the index of
 *  its closing `}`, skipping nested brackets and quoted strings; -1 when unterminated. */
function fieldEnd(s: string, i: number, stop: number): number {
  let depth = 0;
  for (let j = i; j < stop; j++) {
    const c = s[j]!;
    if (c === "'" || c === '"') {
      const close = s.indexOf(c, j + 1);
      if (close < 0 || close >= stop) return -1;
      j = close;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '}') {
      if (depth === 0) return j;
      depth--;
    }
  }
  return -1;
}

/** A string whose opening quote is at `i`; `prefix` in lower case. */
function pyString(s: string, start: number, i: number, prefix: string): { tok: StrTok; end: number } | string {
  const q = s[i]!;
  const triple = s.startsWith(q + q + q, i);
  const raw = prefix.includes('r');
  const fmt = prefix.includes('f');
  const frags: string[] = [];
  const code: string[] = [];
  let val = '';
  let interpolated = false;
  let j = i + (triple ? 3 : 1);
  for (;;) {
    if (j >= s.length) return 'an unterminated string';
    const c = s[j]!;
    if (triple ? s.startsWith(q + q + q, j) : c === q) {
      frags.push(val);
      const end = j + (triple ? 3 : 1);
      return { tok: strTok(start, end, frags, code, interpolated), end };
    }
    if (c === '\n' && !triple) return 'an unterminated string';
    if (c === '\\') {
      if (raw) {
        val += s.slice(j, j + 2);
        j += 2;
      } else {
        const [ch, k] = cEscape(s, j, true);
        val += ch;
        j = k;
      }
      continue;
    }
    if (fmt && c === '{') {
      if (s[j + 1] === '{') {
        val += '{';
        j += 2;
        continue;
      }
      const close = fieldEnd(s, j + 1, s.length);
      if (close < 0) return 'an unterminated f-string field';
      code.push(s.slice(j + 1, close));
      frags.push(val);
      val = '';
      interpolated = true;
      j = close + 1;
      continue;
    }
    if (fmt && c === '}') {
      if (s[j + 1] !== '}') return 'a single } in an f-string';
      val += '}';
      j += 2;
      continue;
    }
    val += c;
    j++;
  }
}

export function lexPython(s: string): Lexed {
  const toks: Tok[] = [];
  let depth = 0;
  let i = 0;
  const fail = (why: string): Lexed => ({ toks, error: why });
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\n') {
      if (depth === 0 && toks.length > 0 && toks[toks.length - 1]!.k !== 'nl') toks.push({ k: 'nl', at: i, end: i + 1 });
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') i++;
    else if (c === '\\' && (s[i + 1] === '\n' || (s[i + 1] === '\r' && s[i + 2] === '\n'))) i += s[i + 1] === '\n' ? 2 : 3;
    else if (c === '#') {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (isIdStart(c)) {
      const end = idEnd(s, i);
      const word = s.slice(i, end);
      if ((s[end] === "'" || s[end] === '"') && PREFIXES.has(word.toLowerCase())) {
        const r = pyString(s, i, end, word.toLowerCase());
        if (typeof r === 'string') return fail(r);
        toks.push(r.tok);
        i = r.end;
      } else {
        toks.push({ k: 'id', v: word, at: i, end });
        i = end;
      }
    } else if (c === "'" || c === '"') {
      const r = pyString(s, i, i, '');
      if (typeof r === 'string') return fail(r);
      toks.push(r.tok);
      i = r.end;
    } else if (isDigit(c) || (c === '.' && isDigit(s[i + 1]))) {
      const end = numEnd(s, i);
      toks.push({ k: 'num', at: i, end });
      i = end;
    } else {
      const op = opAt(s, i, OPS);
      if (op === '(' || op === '[' || op === '{') depth++;
      else if (op === ')' || op === ']' || op === '}') {
        if (--depth < 0) return fail(`an unmatched ${op}`);
      }
      toks.push({ k: 'op', v: op, at: i, end: i + op.length });
      i += op.length;
    }
  }
  return depth > 0 ? fail('an unclosed bracket') : { toks, error: null };
}
