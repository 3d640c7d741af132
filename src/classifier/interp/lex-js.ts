// JavaScript's tokens (node -e, -p, a script on stdin): `//` and `/* */` comments, a `#!` first
// line, single- and double-quoted strings with their escapes, template literals whose `${…}` is code
// (nested to any depth), and regular expression literals told from division by what precedes the
// `/` (a value divides; an operator, a keyword or a `}` starts a pattern).
import { cEscape, endsValue, idEnd, isDigit, isIdStart, numEnd, opAt, strTok, type Lexed, type StrTok, type Tok } from './tokens.js';

const OPS = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=', '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>'];
/** Words after which a `/` starts a regular expression. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

interface Sub {
  toks: Tok[];
  /** Index after the text read (at the `}` that ended a template field, when `inField`). */
  end: number;
  error: string | null;
}

function jsQuoted(s: string, i: number): { tok: StrTok; end: number } | string {
  const q = s[i]!;
  let val = '';
  let j = i + 1;
  for (;;) {
    const c = s[j];
    if (c === undefined || c === '\n') return 'an unterminated string';
    if (c === q) return { tok: strTok(i, j + 1, [val], [], false), end: j + 1 };
    if (c === '\\') {
      const [ch, k] = cEscape(s, j, false);
      val += ch;
      j = k;
    } else {
      val += c;
      j++;
    }
  }
}

/** Template literals nested in template fields deeper than this make the code unreadable. */
const MAX_TEMPLATE_DEPTH = 64;

function template(s: string, i: number, depth: number): { tok: StrTok; end: number } | string {
  if (depth > MAX_TEMPLATE_DEPTH) return 'template literals nested deeper than agent-guard follows';
  const frags: string[] = [];
  const code: string[] = [];
  let val = '';
  let j = i + 1;
  for (;;) {
    const c = s[j];
    if (c === undefined) return 'an unterminated template literal';
    if (c === '`') {
      frags.push(val);
      return { tok: strTok(i, j + 1, frags, code, code.length > 0), end: j + 1 };
    }
    if (c === '\\') {
      const [ch, k] = cEscape(s, j, false);
      val += ch;
      j = k;
    } else if (c === '$' && s[j + 1] === '{') {
      const field = lexFrom(s, j + 2, true, depth + 1);
      if (field.error) return field.error;
      code.push(s.slice(j + 2, field.end));
      frags.push(val);
      val = '';
      j = field.end + 1;
    } else {
      val += c;
      j++;
    }
  }
}

/** A regular expression literal at `i`: the index after its flags, or -1 when unterminated. */
function regexEnd(s: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\n') return -1;
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) return idEnd(s, j + 1);
  }
  return -1;
}

/** Tokens from `i`; with `inField`, up to the `}` closing a template field. */
function lexFrom(s: string, start: number, inField: boolean, nesting: number): Sub {
  const toks: Tok[] = [];
  let depth = 0;
  let i = start;
  const fail = (why: string): Sub => ({ toks, end: i, error: why });
  if (start === 0 && s.startsWith('#!')) i = s.indexOf('\n') < 0 ? s.length : s.indexOf('\n');
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff') i++;
    else if (s.startsWith('//', i)) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (s.startsWith('/*', i)) {
      const close = s.indexOf('*/', i + 2);
      if (close < 0) return fail('an unterminated comment');
      i = close + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      const r = c === '`' ? template(s, i, nesting) : jsQuoted(s, i);
      if (typeof r === 'string') return fail(r);
      toks.push(r.tok);
      i = r.end;
    } else if (isIdStart(c) || c === '$' || (c === '#' && isIdStart(s[i + 1]))) {
      let end = i + 1;
      while (end < s.length && (/[\p{L}\p{N}_$]/u.test(s[end]!) || s[end] === '\u200c' || s[end] === '\u200d')) end++;
      toks.push({ k: 'id', v: s.slice(i, end), at: i, end });
      i = end;
    } else if (isDigit(c) || (c === '.' && isDigit(s[i + 1]))) {
      const end = numEnd(s, i);
      toks.push({ k: 'num', at: i, end });
      i = end;
    } else if (c === '/' && !endsValue(toks[toks.length - 1], BEFORE_REGEX)) {
      const end = regexEnd(s, i);
      if (end < 0) return fail('an unterminated regular expression');
      toks.push({ ...strTok(i, end, [], [], true, 'regex') });
      i = end;
    } else {
      const op = opAt(s, i, OPS);
      if (op === '}' && depth === 0 && inField) return { toks, end: i, error: null };
      if (op === '(' || op === '[' || op === '{') depth++;
      else if (op === ')' || op === ']' || op === '}') {
        if (--depth < 0) return fail(`an unmatched ${op}`);
      }
      toks.push({ k: 'op', v: op, at: i, end: i + op.length });
      i += op.length;
    }
  }
  if (inField) return fail('an unterminated template field');
  return depth > 0 ? fail('an unclosed bracket') : { toks, end: i, error: null };
}

export function lexJs(s: string): Lexed {
  const r = lexFrom(s, 0, false, 0);
  return { toks: r.toks, error: r.error };
}
