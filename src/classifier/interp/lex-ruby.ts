// Ruby's tokens, as far as finding calls needs them: `#` comments, `=begin`/`=end`, `__END__`,
// variables with their sigils, '…' (only \\ and \' escape), "…" and backticks (interpolating: `#{…}`
// is code, `#@x` computed), %-literals with any delimiter (%q %Q %w %W %i %I %x %r %s, `%(…)`),
// heredocs (<<~X, <<-X, <<X, quoted), symbols, `?x` characters, and `/…/` patterns told from
// division. A line end outside ( and [ ends a statement.
import { cEscape, closeOf, delimited, endsValue, idEnd, isDigit, isIdStart, numEnd, opAt, readHeredocs, strTok, type Lexed, type PendingHeredoc, type StrTok, type Tok } from './tokens.js';

const OPS = ['**=', '<=>', '===', '...', '||=', '&&=', '<<=', '>>=', '::', '&.', '->', '=>', '=~', '!~', '==', '!=', '<=', '>=', '&&', '||', '<<', '>>', '**', '+=', '-=', '*=', '/=', '%=', '|=', '&=', '^=', '..'];
const BEFORE_PATTERN = new Set(['if', 'unless', 'while', 'until', 'and', 'or', 'not', 'return', 'when', 'then', 'do', 'else', 'elsif', 'case', 'in', 'yield', 'puts', 'print', 'p', 'split', 'scan', 'match', 'gsub', 'sub', 'grep', 'raise']);

/** The body of an interpolating string: escapes resolved; `#{…}` is code, `#@x`/`#$x` computed. */
export function rubyInterpolate(body: string): { frags: string[]; code: string[]; interpolated: boolean } {
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
    } else if (c === '#' && body[j + 1] === '{') {
      const end = closeOf(body, j + 1);
      code.push(end < 0 ? body.slice(j + 2) : body.slice(j + 2, end));
      frags.push(val);
      val = '';
      interpolated = true;
      j = end < 0 ? body.length : end + 1;
    } else if (c === '#' && (body[j + 1] === '@' || body[j + 1] === '$') && (isIdStart(body[j + 2]) || body[j + 2] === '@')) {
      frags.push(val);
      val = '';
      interpolated = true;
      j = idEnd(body, j + 2 + (body[j + 2] === '@' ? 1 : 0));
    } else {
      val += c;
      j++;
    }
  }
  frags.push(val);
  return { frags, code, interpolated };
}

/** The end of a "…" or `…` string at `i` (its `#{…}` may hold quotes of its own): the index after
 *  the closing quote, or -1. */
function dqEnd(s: string, i: number): number {
  const q = s[i]!;
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') j++;
    else if (c === '#' && s[j + 1] === '{') {
      const close = closeOf(s, j + 1);
      if (close < 0) return -1;
      j = close;
    } else if (c === q) return j + 1;
  }
  return -1;
}

export function lexRuby(s: string): Lexed {
  const toks: Tok[] = [];
  const pending: PendingHeredoc[] = [];
  const stack: string[] = [];
  let i = 0;
  const fail = (why: string): Lexed => ({ toks, error: why });
  const prev = (): Tok | undefined => toks[toks.length - 1];
  /** At an operand: `/`, `%`, `<<`, `?` start a literal here. */
  const operand = (at: number): boolean => {
    const p = prev();
    if (!endsValue(p, BEFORE_PATTERN) && !(p?.k === 'op' && p.v === '}')) return true;
    // `foo /x/`, `puts %w[a]`, `foo <<~EOS`: a space before and none after, as ruby guesses.
    return p?.k === 'id' && !/^[$@]/.test(p.v) && /^[a-z_]/.test(p.v) && /\s/.test(s[at - 1] ?? '') && !/\s/.test(s[at + 1] ?? ' ');
  };
  const interp = (at: number, end: number, body: string, flavor?: StrTok['flavor']): StrTok => {
    const r = rubyInterpolate(body);
    return strTok(at, end, r.frags, r.code, r.interpolated, flavor);
  };
  while (i < s.length) {
    const c = s[i]!;
    const lineStart = i === 0 || s[i - 1] === '\n';
    if (c === '\n') {
      if (!stack.some((b) => b === '(' || b === '[') && prev()?.k !== 'nl' && toks.length > 0) toks.push({ k: 'nl', at: i, end: i + 1 });
      i++;
      if (pending.length > 0) {
        const r = readHeredocs(s, i, pending, rubyInterpolate);
        if (typeof r === 'string') return fail(r);
        i = r;
      }
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') i++;
    else if (c === '\\' && s[i + 1] === '\n') i += 2;
    else if (c === '#') {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (lineStart && s.startsWith('=begin', i)) {
      const end = /^=end\b.*$/m.exec(s.slice(i));
      if (!end) return fail('an unterminated =begin comment');
      i += end.index + end[0].length;
    } else if (lineStart && /^__END__\s*$/m.test(s.slice(i, i + 8))) break;
    else if ((c === '$' || c === '@') && (isIdStart(s[i + 1]) || (c === '@' && s[i + 1] === '@') || (c === '$' && s[i + 1] !== undefined && /[0-9!@&`'+~=\/\\,;.<>_*$?:"]/.test(s[i + 1]!)))) {
      let end = i + 1;
      if (c === '@' && s[end] === '@') end++;
      end = isIdStart(s[end]) ? idEnd(s, end) : end + 1;
      toks.push({ k: 'id', v: s.slice(i, end), at: i, end });
      i = end;
    } else if (isIdStart(c)) {
      let end = idEnd(s, i);
      if ((s[end] === '?' || s[end] === '!') && s[end + 1] !== '=') end++;
      toks.push({ k: 'id', v: s.slice(i, end), at: i, end });
      i = end;
    } else if (c === "'") {
      const r = delimited(s, i);
      if (r === null) return fail('an unterminated string');
      toks.push(strTok(i, r[1], [r[0].replace(/\\([\\'])/g, '$1')], [], false));
      i = r[1];
    } else if (c === '"' || c === '`') {
      const end = dqEnd(s, i);
      if (end < 0) return fail('an unterminated string');
      toks.push(interp(i, end, s.slice(i + 1, end - 1), c === '`' ? 'shell' : undefined));
      i = end;
    } else if (c === ':' && s[i + 1] !== ':' && (isIdStart(s[i + 1]) || s[i + 1] === '"' || s[i + 1] === "'") && !(prev()?.k === 'id' && prev()!.end === i)) {
      // A symbol: `:rm_rf`, `:"name"`.
      if (isIdStart(s[i + 1])) {
        let end = idEnd(s, i + 1);
        if (/[?!=]/.test(s[end] ?? '') && s[end + 1] !== '=' && s[end + 1] !== '>') end++;
        toks.push(strTok(i, end, [s.slice(i + 1, end)], [], false));
        i = end;
      } else {
        const end = s[i + 1] === '"' ? dqEnd(s, i + 1) : (delimited(s, i + 1)?.[1] ?? -1);
        if (end < 0) return fail('an unterminated symbol');
        toks.push(s[i + 1] === '"' ? interp(i, end, s.slice(i + 2, end - 1)) : strTok(i, end, [s.slice(i + 2, end - 1)], [], false));
        i = end;
      }
    } else if (c === '%' && operand(i) && /^%[qQwWiIxrs]?[^\w\s]/.test(s.slice(i, i + 3)) && !(s[i + 1] === '=' && /\s/.test(s[i + 2] ?? ' '))) {
      const type = /[qQwWiIxrs]/.test(s[i + 1]!) ? s[i + 1]! : 'Q';
      const at = type === s[i + 1] ? i + 2 : i + 1;
      const r = delimited(s, at);
      if (r === null) return fail('an unterminated %-literal');
      const end = type === 'r' ? idEnd(s, r[1]) : r[1];
      if (type === 'q' || type === 's') toks.push(strTok(i, end, [r[0].replace(/\\([\\'])/g, '$1')], [], false));
      else if (type === 'w' || type === 'i') toks.push({ ...strTok(i, end, [], [], true, 'words'), words: r[0].split(/\s+/).filter((x) => x !== '') });
      else if (type === 'W' || type === 'I') {
        const t = interp(i, end, r[0], 'words');
        if (t.v !== null) t.words = t.v.split(/\s+/).filter((x) => x !== '');
        t.v = null;
        toks.push(t);
      } else if (type === 'r') toks.push(strTok(i, end, [], [], true, 'regex'));
      else toks.push(interp(i, end, r[0], type === 'x' ? 'shell' : undefined));
      i = end;
    } else if (c === '<' && s[i + 1] === '<' && operand(i) && /^<<[~-]?(["'`]|[A-Za-z_])/.test(s.slice(i, i + 4))) {
      const m = /^<<([~-]?)(?:"([^"\n]*)"|'([^'\n]*)'|`([^`\n]*)`|([A-Za-z_]\w*))/.exec(s.slice(i))!;
      const tok = strTok(i, i + m[0].length, [], [], true);
      toks.push(tok);
      pending.push({ tok, id: m[2] ?? m[3] ?? m[4] ?? m[5]!, indented: m[1] !== '', strip: m[1] === '~', mode: m[3] !== undefined ? 'literal' : m[4] !== undefined ? 'shell' : 'interp' });
      i += m[0].length;
    } else if (c === '?' && operand(i) && s[i + 1] !== undefined && !/\s/.test(s[i + 1]!) && !isIdStart(s[i + 2]) && !isDigit(s[i + 2])) {
      // A character literal: `?a`, `?\n`.
      const end = s[i + 1] === '\\' ? i + 3 : i + 2;
      toks.push(strTok(i, end, [s[i + 1] === '\\' ? cEscape(s, i + 1, false)[0] : s[i + 1]!], [], false));
      i = end;
    } else if (c === '/' && operand(i)) {
      const r = delimited(s, i);
      if (r === null) return fail('an unterminated pattern');
      const end = idEnd(s, r[1]);
      toks.push(strTok(i, end, [], [], true, 'regex'));
      i = end;
    } else if (isDigit(c)) {
      const end = numEnd(s, i);
      toks.push({ k: 'num', at: i, end });
      i = end;
    } else {
      const op = opAt(s, i, OPS);
      if (op === '(' || op === '[' || op === '{') stack.push(op);
      else if (op === ')' || op === ']' || op === '}') {
        if (stack.pop() === undefined) return fail(`an unmatched ${op}`);
      }
      toks.push({ k: 'op', v: op, at: i, end: i + op.length });
      i += op.length;
    }
  }
  if (pending.length > 0) return fail(`an unterminated heredoc (${pending[0]!.id})`);
  return stack.length > 0 ? fail('an unclosed bracket') : { toks, error: null };
}
