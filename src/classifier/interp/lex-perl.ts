// Perl's tokens, as far as finding calls needs them: `#` comments (not `$#`), POD, `__END__`,
// variables with their sigils, '…' (only \\ and \' escape), "…" and backticks (interpolating:
// `$x`, `@x` make them computed; `@{[ … ]}` and `${\ … }` hold code), the quote-like operators
// q qq qw qx m qr s tr y with any delimiter (a bracket nests; `s///e`'s replacement is code),
// heredocs (<<"X", <<'X', <<`X`, <<~X), `<*.c>` globs, and `/…/` patterns told from division.
import { cEscape, closeOf, delimited, endsValue, idEnd, isDigit, isIdStart, numEnd, opAt, readHeredocs, strTok, type Lexed, type PendingHeredoc, type StrTok, type Tok } from './tokens.js';

const OPS = ['<=>', '**=', '||=', '//=', '&&=', '...', '->', '=>', '=~', '!~', '==', '!=', '<=', '>=', '&&', '||', '//', '::', '++', '--', '**', '+=', '-=', '*=', '/=', '.=', '%=', 'x=', '<<', '>>', '..'];
/** Words after which a `/` (or `<`, `?`) starts a pattern rather than an operator. */
const BEFORE_PATTERN = new Set(['split', 'grep', 'map', 'join', 'and', 'or', 'not', 'xor', 'if', 'unless', 'while', 'until', 'return', 'push', 'unshift', 'x', 'lt', 'gt', 'le', 'ge', 'eq', 'ne', 'cmp', 'when', 'print', 'say', 'unlink', 'defined']);
const QUOTE_OPS = new Set(['q', 'qq', 'qw', 'qx', 'm', 'qr', 's', 'tr', 'y']);
/** One-character special variables after `$` (brackets, `;` and `"` left out: they close or open
 *  something far more often than they name `$)`, `$;` or `$"`). */
const SPECIAL_VARS = '&`\'+!@/\\,.0_<>^|?$:-';

/** The body of an interpolating string: escapes resolved; `$name`, `@name` and their forms make it
 *  computed; `@{[ … ]}` and `${\ … }` are code. */
export function perlInterpolate(body: string): { frags: string[]; code: string[]; interpolated: boolean } {
  const frags: string[] = [];
  const code: string[] = [];
  let val = '';
  let interpolated = false;
  for (let j = 0; j < body.length; ) {
    const c = body[j]!;
    if (c === '\\') {
      const [ch, k] = cEscape(body, j, false);
      val += ch;
      j = k;
    } else if ((c === '$' || c === '@') && (body[j + 1] === '{' || isIdStart(body[j + 1]) || body[j + 1] === ':' || (c === '$' && (isDigit(body[j + 1]) || body[j + 1] === '$')))) {
      interpolated = true;
      frags.push(val);
      val = '';
      if (body[j + 1] === '{') {
        const end = closeOf(body, j + 1);
        const inside = end < 0 ? body.slice(j + 2) : body.slice(j + 2, end);
        code.push(inside.replace(/^\s*(\[|\\)/, '').replace(/\]\s*$/, ''));
        j = end < 0 ? body.length : end + 1;
      } else j = idEnd(body, j + 2);
    } else {
      val += c;
      j++;
    }
  }
  frags.push(val);
  return { frags, code, interpolated };
}

/** A '…' body: only `\\` and the delimiter escaped. */
function singleQuoted(body: string, delim: string): string {
  return body.replace(/\\([\\'])/g, '$1').replace(delim !== "'" ? new RegExp('\\\\\\' + delim, 'g') : /(?!)/, delim);
}

export function lexPerl(s: string): Lexed {
  const toks: Tok[] = [];
  const pending: PendingHeredoc[] = [];
  let depth = 0;
  let i = 0;
  const fail = (why: string): Lexed => ({ toks, error: why });
  const prev = (): Tok | undefined => toks[toks.length - 1];
  /** At an operand: a `/` here starts a pattern. */
  const operand = (at: number): boolean => {
    const p = prev();
    // `$h{x} / 2`: a subscript ends a value.
    if (p?.k === 'op' && p.v === '}') return false;
    if (!endsValue(p, BEFORE_PATTERN)) return true;
    // `foo /x/` (a space before, none after) calls foo with a pattern, as perl guesses.
    return p?.k === 'id' && !/^[$@%&*]/.test(p.v) && /\s/.test(s[at - 1] ?? '') && !/\s/.test(s[at + 1] ?? ' ');
  };
  const interp = (at: number, end: number, body: string, flavor?: StrTok['flavor']): StrTok => {
    const r = perlInterpolate(body);
    return strTok(at, end, r.frags, r.code, r.interpolated, flavor);
  };
  while (i < s.length) {
    const c = s[i]!;
    const lineStart = i === 0 || s[i - 1] === '\n';
    if (c === '\n') {
      i++;
      if (pending.length > 0) {
        const r = readHeredocs(s, i, pending, perlInterpolate);
        if (typeof r === 'string') return fail(r);
        i = r;
      }
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') i++;
    else if (c === '#') {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (lineStart && c === '=' && /[A-Za-z]/.test(s[i + 1] ?? '')) {
      // POD, up to a =cut line.
      const cut = /^=cut\b.*$/m.exec(s.slice(i));
      i = cut ? i + cut.index + cut[0].length : s.length;
    } else if (lineStart && /^__(END|DATA)__\b/.test(s.slice(i))) break;
    else if (c === '$' || c === '@' || ((c === '%' || c === '&' || c === '*') && operand(i))) {
      const n = s[i + 1];
      let end: number;
      if (c === '$' && n === '#' && (s[i + 2] === '{' || s[i + 2] === '$' || isIdStart(s[i + 2]))) end = s[i + 2] === '{' || s[i + 2] === '$' ? i + 2 : idEnd(s, i + 2);
      else if (isIdStart(n) || (n === ':' && s[i + 2] === ':')) {
        end = i + 1;
        while (isIdStart(s[end]) || isDigit(s[end]) || (s[end] === ':' && s[end + 1] === ':')) end += s[end] === ':' ? 2 : 1;
      } else if (c === '$' && isDigit(n)) end = idEnd(s, i + 1);
      else if (c === '$' && n === '^' && /[A-Z]/.test(s[i + 2] ?? '')) end = i + 3;
      else if (n === '{' || n === '$') end = i + 1;
      else if (c === '$' && n !== undefined && SPECIAL_VARS.includes(n)) end = i + 2;
      else if (c === '@' && n === '_') end = i + 2;
      else {
        toks.push({ k: 'op', v: c, at: i, end: i + 1 });
        i++;
        continue;
      }
      toks.push({ k: 'id', v: s.slice(i, end), at: i, end });
      i = end;
    } else if (isIdStart(c) || (c === ':' && s[i + 1] === ':' && isIdStart(s[i + 2]))) {
      let end = c === ':' ? i + 2 : i;
      for (;;) {
        end = idEnd(s, end);
        if (s[end] === ':' && s[end + 1] === ':' && isIdStart(s[end + 2])) end += 2;
        else break;
      }
      const word = s.slice(i, end);
      const p = prev();
      let j = end;
      while (s[j] === ' ' || s[j] === '\t') j++;
      const d = s[j];
      const quoteOp =
        QUOTE_OPS.has(word) &&
        !(p?.k === 'op' && (p.v === '->' || p.v === '-') && p.end === i) &&
        d !== undefined &&
        !/[\w\s,;)\]}>]/.test(d) &&
        !(d === '=' && (s[j + 1] === '>' || s[j + 1] === '=' || j > end)) &&
        !(d === '#' && j > end);
      if (!quoteOp) {
        toks.push({ k: 'id', v: word, at: i, end });
        i = end;
        continue;
      }
      const first = delimited(s, j);
      if (first === null) return fail(`an unterminated ${word} string`);
      let [body, after] = first;
      let replacement: string | null = null;
      if (word === 's' || word === 'tr' || word === 'y') {
        if ('([{<'.includes(s[j]!)) {
          let k = after;
          while (/\s/.test(s[k] ?? '')) k++;
          const second = s[k] === undefined ? null : delimited(s, k);
          if (second === null) return fail(`an unterminated ${word} replacement`);
          [replacement, after] = second;
        } else {
          const second = delimited(s, after - 1);
          if (second === null) return fail(`an unterminated ${word} replacement`);
          [replacement, after] = second;
        }
      }
      const flagsEnd = word === 'q' || word === 'qq' || word === 'qw' || word === 'qx' ? after : idEnd(s, after);
      const flags = s.slice(after, flagsEnd);
      if (word === 'q') toks.push(strTok(i, flagsEnd, [singleQuoted(body, d!)], [], false));
      else if (word === 'qq') toks.push(interp(i, flagsEnd, body));
      else if (word === 'qx') toks.push(d === "'" ? strTok(i, flagsEnd, [body], [], false, 'shell') : interp(i, flagsEnd, body, 'shell'));
      else if (word === 'qw') toks.push({ ...strTok(i, flagsEnd, [], [], true, 'words'), words: body.split(/\s+/).filter((x) => x !== '') });
      else {
        const t = strTok(i, flagsEnd, [], [], true, 'regex');
        if (word === 's' && flags.includes('e') && replacement !== null) t.code.push(replacement);
        toks.push(t);
      }
      i = flagsEnd;
    } else if (c === "'") {
      const r = delimited(s, i);
      if (r === null) return fail('an unterminated string');
      toks.push(strTok(i, r[1], [singleQuoted(r[0], "'")], [], false));
      i = r[1];
    } else if (c === '"' || c === '`') {
      const r = delimited(s, i);
      if (r === null) return fail('an unterminated string');
      toks.push(interp(i, r[1], r[0], c === '`' ? 'shell' : undefined));
      i = r[1];
    } else if (c === '<' && s[i + 1] === '<' && operand(i) && /^<<~?(["'`]|[A-Za-z_])/.test(s.slice(i, i + 4))) {
      const m = /^<<(~?)(?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([A-Za-z_]\w*))/.exec(s.slice(i))!;
      const tok = strTok(i, i + m[0].length, [], [], true);
      toks.push(tok);
      pending.push({ tok, id: m[2] ?? m[3] ?? m[4] ?? m[5]!, indented: m[1] === '~', strip: m[1] === '~', mode: m[3] !== undefined ? 'literal' : m[4] !== undefined ? 'shell' : 'interp' });
      i += m[0].length;
    } else if (c === '<' && operand(i) && /^<[^\s<>]*>/.test(s.slice(i))) {
      const m = /^<([^\s<>]*)>/.exec(s.slice(i))!;
      // `<STDIN>`, `<$fh>`, `<>`: a line read; anything else is a file glob.
      const glob = !/^\$?\w*$/.test(m[1]!);
      toks.push(glob ? strTok(i, i + m[0].length, [m[1]!], [], true, 'glob') : { k: 'id', v: 'readline', at: i, end: i + m[0].length });
      i += m[0].length;
    } else if (c === '/' && operand(i)) {
      const r = delimited(s, i);
      if (r === null) return fail('an unterminated pattern');
      const end = idEnd(s, r[1]);
      toks.push(strTok(i, end, [], [], true, 'regex'));
      i = end;
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
  if (pending.length > 0) return fail(`an unterminated heredoc (${pending[0]!.id})`);
  return depth > 0 ? fail('an unclosed bracket') : { toks, error: null };
}
