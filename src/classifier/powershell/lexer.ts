// The PowerShell reader's lexer: PowerShell's argument mode (quotes, backtick escapes, `$`
// expansions, parameters, comma lists, redirections, separators) read into commands, keeping the
// bodies of `{ … }`, `( … )`, `$( … )`, `@( … )` and `@{ … }` as nested command sequences. Linear in
// the length of the text; what it cannot place sets `unbalanced` or `parseError`.
import { MAX_DEPTH } from '../kit.js';
import { emptyWord, joinList, varKey, type Body, type PCommand, type PWord, type Seq, type Tok } from './words.js';

/** How deep the lexer builds nested bodies before it skips one as text (keeps its recursion bounded). */
const LEX_NEST = MAX_DEPTH + 2;

export const DASHES = '-\u2013\u2014\u2015';
export const SQUOTES = "'\u2018\u2019\u201A\u201B";
export const DQUOTES = '"\u201C\u201D\u201E';

function isNewline(c: string | undefined): boolean {
  return c === '\n' || c === '\r';
}

function isSpace(c: string | undefined): boolean {
  if (c === undefined) return false;
  if (c === ' ' || c === '\t') return true;
  if (c === '\n' || c === '\r') return false;
  return (c === '\f' || c === '\v' || c > '\x7f') && /\s/.test(c);
}

/** Characters that end an unquoted word in argument mode. */
function endsWord(c: string | undefined): boolean {
  return c === undefined || isSpace(c) || isNewline(c) || c === ';' || c === '|' || c === '&' || c === ')' || c === '{' || c === '}' || c === ',' || c === '>' || c === '<';
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

const ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

export class Lexer {
  i = 0;
  unbalanced = false;
  parseError = false;
  constructor(readonly src: string) {}

  parse(): Seq {
    return this.seq(null, 0);
  }

  /** Commands up to `closer` (consumed) or the end of the text. */
  seq(closer: ')' | '}' | null, nest: number): Seq {
    const src = this.src;
    const bodyStart = this.i;
    let bodyEnd = src.length;
    const commands: PCommand[] = [];
    const envNames: string[] = [];
    const fresh = (piped: boolean): PCommand => ({ toks: [], call: null, piped, redirects: [], start: -1, end: -1, assign: null });
    let cur = fresh(false);
    let afterChain = false; // `|`, `&&`, `||` just seen: a newline continues the pipeline
    let pendingComma = false;
    const empty = (): boolean => cur.toks.length === 0 && cur.redirects.length === 0 && cur.call === null;
    const mark = (): void => {
      if (cur.start < 0) cur.start = this.i;
    };
    const finish = (): void => {
      if (!empty()) {
        if (cur.end < cur.start) cur.end = cur.start;
        commands.push(cur);
      }
      pendingComma = false;
    };
    const pushWord = (w: PWord): void => {
      const last = cur.toks[cur.toks.length - 1];
      if (last?.t === 'param' && last.colon && last.value === null) {
        last.value = w;
      } else if (pendingComma && last?.t === 'param' && last.value !== null) {
        last.value = joinList(last.value, w);
      } else if (pendingComma && last?.t === 'word') {
        last.w = joinList(last.w, w);
      } else {
        cur.toks.push({ t: 'word', w });
      }
      pendingComma = false;
    };
    for (;;) {
      while (isSpace(src[this.i])) this.i++;
      const c = src[this.i];
      if (c === undefined) {
        if (closer !== null) this.unbalanced = true;
        break;
      }
      const n = src[this.i + 1];
      if (closer !== null && c === closer) {
        bodyEnd = this.i;
        this.i++;
        break;
      }
      if (c === ')' || c === '}') {
        // PowerShell: "Unexpected token". Nothing on the line runs.
        this.parseError = true;
        this.i++;
        continue;
      }
      if (isNewline(c)) {
        this.i += c === '\r' && n === '\n' ? 2 : 1;
        if (empty() && afterChain) continue;
        if (pendingComma && !empty()) continue; // `a,` then a newline: the list goes on
        finish();
        cur = fresh(false);
        afterChain = false;
        continue;
      }
      if (c === '#') {
        while (this.i < src.length && !isNewline(src[this.i])) this.i++;
        continue;
      }
      if (c === '<' && n === '#') {
        const close = src.indexOf('#>', this.i + 2);
        if (close < 0) {
          this.unbalanced = true;
          this.i = src.length;
        } else this.i = close + 2;
        continue;
      }
      if (c === ';') {
        this.i++;
        finish();
        cur = fresh(false);
        afterChain = false;
        continue;
      }
      if (c === '|') {
        if (n === '|') {
          this.i += 2;
          finish();
          cur = fresh(false);
        } else {
          this.i++;
          if (empty()) {
            // A leading `|` on the next line (PowerShell 7) continues the previous pipeline.
            cur.piped = true;
          } else {
            finish();
            cur = fresh(true);
          }
        }
        afterChain = true;
        continue;
      }
      if (c === '&') {
        if (n === '&') {
          this.i += 2;
          finish();
          cur = fresh(false);
          afterChain = true;
          continue;
        }
        if (empty()) {
          mark();
          this.i++;
          cur.call = '&';
          continue;
        }
        // A trailing `&` runs the pipeline as a background job: it still runs.
        this.i++;
        finish();
        cur = fresh(false);
        afterChain = false;
        continue;
      }
      afterChain = false;
      if (c === '`') {
        if (isNewline(n)) {
          this.i += n === '\r' && src[this.i + 2] === '\n' ? 3 : 2; // line continuation
          continue;
        }
        if (n === undefined) {
          this.i++;
          continue;
        }
      }
      if (c === ',') {
        this.i++;
        // `a, b` after the command name is a list; a comma right after the name is a unary comma.
        pendingComma = cur.toks.length > 1;
        continue;
      }
      if (c === '<') {
        // `<` is reserved for future use: a parse error.
        this.parseError = true;
        this.i++;
        continue;
      }
      const redirect = /([1-6*])?(>>?)(&[12])?/y;
      redirect.lastIndex = this.i;
      const rm = c === '>' || ((/[1-6*]/.test(c) && n === '>')) ? redirect.exec(src) : null;
      if (rm) {
        mark();
        this.i += rm[0].length;
        if (rm[3]) {
          cur.redirects.push({ op: rm[0], target: null });
          cur.end = this.i;
          continue;
        }
        while (isSpace(src[this.i])) this.i++;
        const t = src[this.i];
        if (t === undefined || endsWord(t)) {
          this.parseError = true; // a redirection without a file
          continue;
        }
        cur.redirects.push({ op: rm[0], target: this.word(nest) });
        cur.end = this.i;
        continue;
      }
      if (empty() && c === '.' && (isSpace(n) || n === '{' || n === '$' || n === '(' || (n !== undefined && (SQUOTES + DQUOTES).includes(n)))) {
        mark();
        cur.call = '.';
        this.i++;
        continue;
      }
      if (cur.toks.length === 0 && c === '$') {
        // `$x = …`, `$env:NAME += …`: an assignment; what follows the operator is a pipeline of its own.
        const as = /\$(\{[^}\n]{0,256}\}|[A-Za-z0-9_:]{1,256})[ \t]{0,64}(?:[-+*/%]|\?\?)?=(?!=)/y;
        as.lastIndex = this.i;
        const am = as.exec(src);
        if (am) {
          mark();
          this.i += am[0].length;
          const name = am[1]!.replace(/^\{|\}$/g, '');
          if (/^env:/i.test(name)) envNames.push(name.slice(4));
          cur.assign = varKey(name);
          cur.start = this.i;
          continue;
        }
      }
      mark();
      if (DASHES.includes(c) && n !== undefined && (/[A-Za-z_?]/.test(n) || n > '\x7f') && !isSpace(n)) {
        cur.toks.push(this.param());
        pendingComma = false;
        cur.end = this.i;
        continue;
      }
      if (c === '-' && n === '-' && endsWord(src[this.i + 2])) {
        this.i += 2;
        cur.toks.push({ t: 'eop' });
        cur.end = this.i;
        continue;
      }
      if (c === '-' && n === '-' && src[this.i + 2] === '%') {
        // The stop-parsing token: the rest of the line goes to the program as written.
        this.i += 3;
        while (this.i < src.length && !isNewline(src[this.i]) && src[this.i] !== '|') {
          while (isSpace(src[this.i])) this.i++;
          const s = this.i;
          while (this.i < src.length && !isSpace(src[this.i]) && !isNewline(src[this.i]) && src[this.i] !== '|') this.i++;
          if (this.i > s) {
            const v = src.slice(s, this.i);
            cur.toks.push({ t: 'word', w: { ...emptyWord(), value: v, display: v, dynamic: v.includes('%') } });
          }
        }
        cur.end = this.i;
        continue;
      }
      pushWord(this.word(nest));
      cur.end = this.i;
    }
    finish();
    return { commands, text: src.slice(bodyStart, bodyEnd), src, envNames };
  }

  /** A parameter token `-Name` or `-Name:` (its value is the next word). */
  param(): Tok {
    const src = this.src;
    const start = this.i;
    this.i++;
    let name = '';
    for (;;) {
      const c = src[this.i];
      if (endsWord(c) || c === ':' || c === '(' || c === '$' || c === '`' || (c !== undefined && (SQUOTES + DQUOTES).includes(c))) break;
      name += c;
      this.i++;
    }
    let colon = false;
    if (src[this.i] === ':') {
      colon = true;
      this.i++;
    }
    return { t: 'param', name, display: src.slice(start, this.i), colon, value: null };
  }

  /** A body opened at this.i - 1 (the opener already consumed) and closed by `closer`. */
  body(kind: Body['kind'], closer: ')' | '}', nest: number): Body {
    if (nest + 1 > LEX_NEST) {
      const start = this.i;
      this.skipBalanced(closer);
      const end = Math.max(start, this.i - 1);
      return { kind: 'deep', text: this.src.slice(start, end), start, end, seq: null };
    }
    const start = this.i;
    const seq = this.seq(closer, nest + 1);
    return { kind, text: seq.text, start, end: start + seq.text.length, seq };
  }

  /** Skips to the matching closer without building structure (iterative; quotes honoured roughly). */
  skipBalanced(closer: ')' | '}'): void {
    const src = this.src;
    const stack: string[] = [closer];
    while (this.i < src.length && stack.length > 0) {
      const c = src[this.i]!;
      if (c === '`') {
        this.i += 2;
        continue;
      }
      if (SQUOTES.includes(c) || DQUOTES.includes(c)) {
        const quotes = SQUOTES.includes(c) ? SQUOTES : DQUOTES;
        this.i++;
        while (this.i < src.length && !quotes.includes(src[this.i]!)) this.i += src[this.i] === '`' && quotes === DQUOTES ? 2 : 1;
        if (this.i >= src.length) {
          this.unbalanced = true;
          return;
        }
        this.i++;
        continue;
      }
      if (c === '(') stack.push(')');
      else if (c === '{') stack.push('}');
      else if (c === ')' || c === '}') {
        if (stack[stack.length - 1] === c) stack.pop();
        else this.parseError = true;
      }
      this.i++;
    }
    if (stack.length > 0) this.unbalanced = true;
  }

  /** `$…` at this.i: a variable or a subexpression. Marks the word dynamic; its value keeps the text as written. */
  dollar(w: PWord, nest: number): void {
    const start = this.i;
    this.readDollar(w, nest);
    if (w.dynamic) w.value += this.src.slice(start, this.i);
  }

  readDollar(w: PWord, nest: number): void {
    const src = this.src;
    const n = src[this.i + 1];
    if (n === '(') {
      this.i += 2;
      w.bodies.push(this.body('group', ')', nest));
      w.dynamic = true;
      w.sub = true;
      return;
    }
    if (n === '{') {
      this.i += 2;
      while (this.i < src.length && src[this.i] !== '}') this.i += src[this.i] === '`' ? 2 : 1;
      if (this.i >= src.length) this.unbalanced = true;
      else this.i++;
      w.dynamic = true;
      return;
    }
    if (n === '$' || n === '?' || n === '^') {
      this.i += 2;
      w.dynamic = true;
      return;
    }
    if (isNameChar(n) || (n !== undefined && n > '\x7f' && /\p{L}/u.test(n))) {
      this.i++;
      for (;;) {
        const c = src[this.i];
        if (isNameChar(c) || (c !== undefined && c > '\x7f' && /\p{L}/u.test(c))) this.i++;
        else if (c === ':' && (isNameChar(src[this.i + 1]) || src[this.i + 1] === '{')) this.i++;
        else break;
      }
      w.dynamic = true;
      return;
    }
    // A lone `$` is literal.
    if (!w.dynamic) w.value += '$';
    this.i++;
  }

  /** A word: barewords, quoted parts, expansions, `{ … }`, `@( … )`, `@{ … }`, here-strings. */
  word(nest: number): PWord {
    const src = this.src;
    const start = this.i;
    const w = emptyWord();
    const done = (): PWord => {
      w.display = src.slice(start, this.i);
      if (w.isBlock || (w.dynamic && w.value === '')) w.value = w.display;
      return w;
    };
    const c0 = src[this.i];
    const n0 = src[this.i + 1];
    if (c0 === '{') {
      this.i++;
      w.bodies.push(this.body('block', '}', nest));
      w.isBlock = true;
      w.dynamic = true;
      w.sub = true;
      return done();
    }
    if (c0 === '@' && n0 === '{') {
      this.i += 2;
      w.bodies.push(this.body('hash', '}', nest));
      w.dynamic = true;
      w.sub = true;
      return done();
    }
    if (c0 === '@' && (n0 === '"' || n0 === "'")) {
      this.hereString(w, n0);
      return done();
    }
    if (c0 === '@' && (n0 === '(' || isNameChar(n0))) {
      if (n0 === '(') {
        this.i += 2;
        w.bodies.push(this.body('group', ')', nest));
        w.sub = true;
      } else {
        this.i++;
        while (isNameChar(src[this.i])) this.i++; // `@params`: splatting
      }
      w.dynamic = true;
    }
    for (;;) {
      const c = src[this.i];
      if (endsWord(c)) break;
      if (c === '`') {
        const n = src[this.i + 1];
        if (isNewline(n)) break; // a line continuation ends the word
        if (n === undefined) {
          this.i++;
          break;
        }
        w.value += n;
        this.i += 2;
        continue;
      }
      if (SQUOTES.includes(c!)) {
        this.quoted(w, false, nest);
        continue;
      }
      if (DQUOTES.includes(c!)) {
        this.quoted(w, true, nest);
        continue;
      }
      if (c === '$') {
        this.dollar(w, nest);
        continue;
      }
      if (c === '(') {
        this.i++;
        w.bodies.push(this.body('group', ')', nest));
        w.dynamic = true;
        w.sub = true;
        continue;
      }
      w.value += c;
      this.i++;
    }
    return done();
  }

  /** A quoted string (this.i at its opening quote). Both kinds end at their own quote, where a doubled
   *  quote is one literal quote; only a double-quoted (expandable) string reads backtick escapes and `$`. */
  quoted(w: PWord, expandable: boolean, nest: number): void {
    const src = this.src;
    const quotes = expandable ? DQUOTES : SQUOTES;
    w.quoted = true;
    this.i++;
    for (;;) {
      const c = src[this.i];
      if (c === undefined) {
        this.unbalanced = true;
        return;
      }
      if (quotes.includes(c)) {
        if (src[this.i + 1] !== undefined && quotes.includes(src[this.i + 1]!)) {
          w.value += expandable ? '"' : "'";
          this.i += 2;
          continue;
        }
        this.i++;
        return;
      }
      if (expandable && c === '`') {
        this.escape(w);
        continue;
      }
      if (expandable && c === '$') {
        this.dollar(w, nest);
        continue;
      }
      w.value += c;
      this.i++;
    }
  }

  /** A backtick escape inside double quotes (this.i at the backtick). */
  escape(w: PWord): void {
    const src = this.src;
    const n = src[this.i + 1];
    if (n === undefined) {
      this.i++;
      return;
    }
    if (n === 'u' && src[this.i + 2] === '{') {
      const m = /\{([0-9A-Fa-f]{1,6})\}/y;
      m.lastIndex = this.i + 2;
      const hex = m.exec(src);
      const cp = hex ? parseInt(hex[1]!, 16) : NaN;
      if (hex && cp <= 0x10ffff) {
        w.value += String.fromCodePoint(cp);
        this.i = m.lastIndex;
        return;
      }
    }
    w.value += ESCAPES[n] ?? n;
    this.i += 2;
  }

  /** `@"` … `"@` / `@'` … `'@`: the terminator stands at the start of a line. */
  hereString(w: PWord, q: string): void {
    const src = this.src;
    w.quoted = true;
    this.i += 2;
    while (isSpace(src[this.i])) this.i++;
    if (!isNewline(src[this.i])) this.parseError = true; // the opener must end its line
    this.i += src[this.i] === '\r' && src[this.i + 1] === '\n' ? 2 : 1;
    const contentStart = this.i;
    const term = src.indexOf('\n' + q + '@', contentStart - 1);
    if (term < 0 || term < contentStart - 1) {
      this.unbalanced = true;
      this.i = src.length;
      return;
    }
    let content = term < contentStart ? '' : src.slice(contentStart, term);
    if (content.endsWith('\r')) content = content.slice(0, -1);
    this.i = term + 3;
    if (q === "'") {
      w.value += content;
      return;
    }
    // Expandable: backticks are escapes, `$name` and `$( … )` are unknown here.
    let v = '';
    for (let k = 0; k < content.length; k++) {
      const c = content[k]!;
      if (c === '`' && k + 1 < content.length) {
        v += ESCAPES[content[k + 1]!] ?? content[k + 1]!;
        k++;
        continue;
      }
      if (c === '$' && /[A-Za-z0-9_{(?^$:]/.test(content[k + 1] ?? '')) {
        w.dynamic = true;
        if (content[k + 1] === '(') {
          w.sub = true;
          if (!w.bodies.some((b) => b.kind === 'text')) w.bodies.push({ kind: 'text', text: content, start: contentStart, end: contentStart + content.length, seq: null });
        }
      }
      v += c;
    }
    w.value += v;
  }
}
