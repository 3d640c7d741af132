// The PowerShell dialect front end: a PowerShell command line in, the same facts the POSIX classifier
// produces out (one Op per operation of the vocabulary). It decides nothing and touches nothing.
//
// Two passes, both linear in the length of the text:
//   1. a lexer that reads PowerShell's argument mode (quotes, backtick escapes, `$` expansions,
//      parameters, comma lists, redirections, separators) into commands, keeping the bodies of
//      `{ … }`, `( … )`, `$( … )`, `@( … )` and `@{ … }` as nested command sequences;
//   2. a walker that turns each command into Ops, mirroring index.ts (cd/creation shapes, indirect
//      shells, git, the vocabulary floor).
// Anything the lexer cannot place (an unterminated quote, a token PowerShell rejects, nesting deeper
// than it follows) is judged by the destructive smell only, and then as undeterminable: fail closed.
import type { ClassifyOptions } from './index.js';
import type { Classification, Op, TargetSpec, Undeterminable, UndeterminableReason } from './types.js';
import type { Word } from './words.js';
import { finishClassification, literalWord, makeOp } from './op.js';
import { windowsTarget } from './winpath.js';
import { isUndeterminable } from './rm.js';
import { isFloorVerb, floorReason } from './vocabulary.js';
import { classifyGit } from './git.js';
import { smellsDestructive } from './smell.js';

/** How deep `pwsh -Command`, `Invoke-Expression` and nested blocks are followed (as index.ts). */
const MAX_DEPTH = 8;
/** How deep the lexer builds nested bodies before it skips one as text (keeps its recursion bounded). */
const LEX_NEST = MAX_DEPTH + 2;

// ---------------------------------------------------------------------------------------------
// Lexer

const DASHES = '-\u2013\u2014\u2015';
const SQUOTES = "'\u2018\u2019\u201A\u201B";
const DQUOTES = '"\u201C\u201D\u201E';

interface Body {
  /** `group`: ( … ) $( … ) @( … ); `block`: { … }; `hash`: @{ … }; `deep`: nested too far, kept as text;
   *  `text`: an expandable here-string holding `$( … )`, kept as text. */
  kind: 'group' | 'block' | 'hash' | 'deep' | 'text';
  text: string;
  /** Where `text` stands in the lexed source. */
  start: number;
  end: number;
  seq: Seq | null;
}

interface PWord {
  /** The value the command receives (meaningful when not dynamic). */
  value: string;
  /** The source text of the word. */
  display: string;
  /** Holds a variable, subexpression or script block whose value is unknown here. */
  dynamic: boolean;
  /** The unknown part is computed by commands (subexpression, group, block), not a variable. */
  sub: boolean;
  /** Some part of the word was quoted. */
  quoted: boolean;
  /** The word is a script block literal `{ … }`. */
  isBlock: boolean;
  bodies: Body[];
  /** Elements of a comma list (`a, b`), when the word is one. */
  list: PWord[] | null;
}

type Tok =
  | { t: 'word'; w: PWord }
  | { t: 'param'; name: string; display: string; colon: boolean; value: PWord | null }
  | { t: 'eop' };

interface Redirect {
  op: string;
  target: PWord | null;
}

interface PCommand {
  toks: Tok[];
  /** `&` (call operator) or `.` (dot-source) in front of the command. */
  call: '&' | '.' | null;
  /** Receives pipeline input (a `|` before it). */
  piped: boolean;
  redirects: Redirect[];
  start: number;
  end: number;
  /** `$name = …`: the variable the pipeline's output is assigned to (lower case). */
  assign: string | null;
}

interface Seq {
  commands: PCommand[];
  text: string;
  /** The whole lexed source (command offsets index it). */
  src: string;
  /** Names assigned with `$env:NAME = …` in this sequence. */
  envNames: string[];
}

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

/** A variable's name as a lookup key: lower case, without a scope (`$script:x` is `x`, `$env:X` stays `env:x`). */
function varKey(name: string): string {
  return name.toLowerCase().replace(/^(global|local|script|private|using):/, '');
}

/** Variables a text reads (`$x`, `${x}`, `$env:X`). */
function varsIn(text: string): string[] {
  const out: string[] = [];
  const re = /\$(?:\{([^}]{1,256})\}|([A-Za-z0-9_:]{1,256}))/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(varKey(m[1] ?? m[2] ?? ''));
  return out;
}

function emptyWord(): PWord {
  return { value: '', display: '', dynamic: false, sub: false, quoted: false, isBlock: false, bodies: [], list: null };
}

/** `a, b`: a comma list (grown in place, so a long list stays linear). */
function joinList(a: PWord, b: PWord): PWord {
  const w: PWord = a.list !== null ? a : { ...a, bodies: [...a.bodies], list: [a] };
  w.value += ',' + b.value;
  w.display += ',' + b.display;
  w.dynamic ||= b.dynamic;
  w.sub ||= b.sub;
  w.quoted ||= b.quoted;
  w.isBlock = false;
  for (const body of b.bodies) w.bodies.push(body);
  w.list!.push(b);
  return w;
}

const ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

class Lexer {
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

// ---------------------------------------------------------------------------------------------
// Vocabulary

const REMOVE = new Set(['remove-item', 'rm', 'ri', 'rd', 'rmdir', 'del', 'erase']);
const SET_LOCATION = new Set(['cd', 'chdir', 'set-location', 'sl']);
const PUSH_LOCATION = new Set(['pushd', 'push-location']);
const POP_LOCATION = new Set(['popd', 'pop-location']);
const CREATORS = new Set([
  'new-item', 'ni', 'mkdir', 'md', 'copy-item', 'copy', 'cp', 'cpi', 'move-item', 'move', 'mv', 'mi', 'rename-item', 'ren', 'rni',
  'set-content', 'sc', 'add-content', 'ac', 'out-file', 'tee-object', 'tee', 'xcopy', 'robocopy', 'mklink',
]);
const PWSH = new Set(['powershell', 'pwsh', 'powershell_ise']);
const POSIX_SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
const IEX = new Set(['invoke-expression', 'iex']);
const START_PROCESS = new Set(['start-process', 'saps', 'start']);
const ALIAS_DEFS = new Set(['set-alias', 'sal', 'new-alias', 'nal']);
const FOREACH = new Set(['foreach-object', '%', 'foreach']);
/** Programs that run the program in their arguments (pwsh on Linux and macOS runs POSIX tools natively). */
const WRAPPERS = new Set(['sudo', 'doas', 'gsudo', 'runas', 'env', 'nohup', 'nice', 'time', 'timeout', 'stdbuf', 'ionice', 'chroot', 'setsid', 'watch']);

/** Windows verbs the POSIX smell does not know (smell.ts is POSIX-oriented), and .NET deletions. */
const WINDOWS_SMELL: readonly RegExp[] = [
  /(^|[^\w.-])(remove-item|ri|rd|rmdir|del|erase|rm)($|[^\w-])/i,
  /(\.|::)\s*delete\s*\(/i,
];

/** Any word of the text that is a destructive verb of some dialect (`C:\bin\rm.exe`, `Remove-Item`). */
function hasFloorWord(text: string): boolean {
  for (const word of text.split(/[\s;&|(){}<>"'`,=@$]+/)) {
    if (word !== '' && isFloorVerb(word, 'powershell')) return true;
  }
  return false;
}

/** The destructive smell, widened with PowerShell's vocabulary. Only ever makes a decision stricter. */
export function smellsDestructivePowerShell(text: string): boolean {
  return smellsDestructive(text) || WINDOWS_SMELL.some((p) => p.test(text)) || hasFloorWord(text);
}

interface CommandName {
  /** Lower case; for a path, its last component. */
  name: string;
  /** `name` without an executable suffix (.exe .com .cmd .bat), for native programs. */
  native: string;
  /** Written as a path (`.\x`, `C:\bin\rm.exe`): never an alias, a function or a cmdlet. */
  isPath: boolean;
}

function commandName(value: string): CommandName {
  let name = value.toLowerCase();
  let isPath = false;
  const qualified = /^[a-z_][\w.]*\\([a-z_][\w-]*)$/i.exec(value);
  if (qualified && !/^[a-z]$/i.test(value.slice(0, value.indexOf('\\')))) {
    name = qualified[1]!.toLowerCase(); // Microsoft.PowerShell.Management\Remove-Item
  } else if (/[\\/]/.test(value)) {
    isPath = true;
    name = (value.split(/[\\/]/).pop() ?? '').toLowerCase();
  }
  return { name, native: name.replace(/\.(exe|com|cmd|bat)$/, ''), isPath };
}

// ---------------------------------------------------------------------------------------------
// Parameters of Remove-Item (and of the location cmdlets)

type ParamClass =
  | 'path'
  | 'literalpath'
  | 'filter'
  | 'include'
  | 'exclude'
  | 'recurse'
  | 'force'
  | 'credential'
  | 'whatif'
  | 'confirm'
  | 'stream'
  | 'passthru'
  | 'stackname'
  | 'benign-switch'
  | 'benign-value';

interface ParamDef {
  name: string;
  cls: ParamClass;
  value: boolean;
}

const COMMON: readonly ParamDef[] = [
  { name: 'Verbose', cls: 'benign-switch', value: false },
  { name: 'Debug', cls: 'benign-switch', value: false },
  { name: 'ErrorAction', cls: 'benign-value', value: true },
  { name: 'WarningAction', cls: 'benign-value', value: true },
  { name: 'InformationAction', cls: 'benign-value', value: true },
  { name: 'ErrorVariable', cls: 'benign-value', value: true },
  { name: 'WarningVariable', cls: 'benign-value', value: true },
  { name: 'InformationVariable', cls: 'benign-value', value: true },
  { name: 'OutVariable', cls: 'benign-value', value: true },
  { name: 'OutBuffer', cls: 'benign-value', value: true },
  { name: 'PipelineVariable', cls: 'benign-value', value: true },
  { name: 'ProgressAction', cls: 'benign-value', value: true },
];
const COMMON_ALIASES: Readonly<Record<string, string>> = {
  vb: 'Verbose', db: 'Debug', ea: 'ErrorAction', wa: 'WarningAction', infa: 'InformationAction', ev: 'ErrorVariable',
  wv: 'WarningVariable', iv: 'InformationVariable', ov: 'OutVariable', ob: 'OutBuffer', pv: 'PipelineVariable', proga: 'ProgressAction',
};

const REMOVE_ITEM_PARAMS: readonly ParamDef[] = [
  { name: 'Path', cls: 'path', value: true },
  { name: 'LiteralPath', cls: 'literalpath', value: true },
  { name: 'Filter', cls: 'filter', value: true },
  { name: 'Include', cls: 'include', value: true },
  { name: 'Exclude', cls: 'exclude', value: true },
  { name: 'Recurse', cls: 'recurse', value: false },
  { name: 'Force', cls: 'force', value: false },
  { name: 'Credential', cls: 'credential', value: true },
  { name: 'WhatIf', cls: 'whatif', value: false },
  { name: 'Confirm', cls: 'confirm', value: false },
  { name: 'Stream', cls: 'stream', value: true },
  ...COMMON,
];
const REMOVE_ITEM_ALIASES: Readonly<Record<string, string>> = { ...COMMON_ALIASES, pspath: 'LiteralPath', lp: 'LiteralPath', cf: 'Confirm', wi: 'WhatIf' };

const LOCATION_PARAMS: readonly ParamDef[] = [
  { name: 'Path', cls: 'path', value: true },
  { name: 'LiteralPath', cls: 'literalpath', value: true },
  { name: 'PassThru', cls: 'passthru', value: false },
  { name: 'StackName', cls: 'stackname', value: true },
  ...COMMON,
];
const LOCATION_ALIASES: Readonly<Record<string, string>> = { ...COMMON_ALIASES, pspath: 'LiteralPath', lp: 'LiteralPath' };

/** A dry-run switch must be spelled out: misreading one would let a real deletion through. */
const SPELLED_OUT: ReadonlySet<string> = new Set(['whatif']);

type Resolved = { def: ParamDef } | { unknown: string };

/** PowerShell's parameter lookup, narrowed: an exact name or alias, or a prefix that is unambiguous by effect. */
function resolveParam(typed: string, defs: readonly ParamDef[], aliases: Readonly<Record<string, string>>): Resolved {
  const n = typed.toLowerCase();
  const exact = defs.find((d) => d.name.toLowerCase() === n);
  if (exact) return { def: exact };
  const aliased = aliases[n];
  if (aliased !== undefined) {
    if (SPELLED_OUT.has(aliased.toLowerCase())) return { unknown: `-${typed} stands for -${aliased}, which agent-guard reads only spelled out` };
    const d = defs.find((x) => x.name === aliased);
    if (d) return { def: d };
  }
  const candidates = n === '' ? [] : defs.filter((d) => d.name.toLowerCase().startsWith(n));
  if (candidates.length === 0) return { unknown: `-${typed} is not a parameter agent-guard knows` };
  const spelled = candidates.find((d) => SPELLED_OUT.has(d.name.toLowerCase()));
  if (spelled) return { unknown: `-${typed} may abbreviate -${spelled.name}, which agent-guard reads only spelled out` };
  const classes = new Set(candidates.map((d) => d.cls));
  if (classes.size > 1) return { unknown: `-${typed} is ambiguous (${candidates.map((d) => '-' + d.name).join(', ')})` };
  return { def: candidates[0]! };
}

function dynamicWordReason(w: PWord): Undeterminable {
  return w.sub
    ? { reason: 'substitution', detail: `${w.display} is computed by commands when the line runs` }
    : { reason: 'variable', detail: `${w.display} depends on a value that is not known before the command runs` };
}

/** The value of a switch given as `-Switch:VALUE`. */
function switchValue(name: string, w: PWord | null): boolean | Undeterminable {
  if (w === null) return { reason: 'unknown-option', detail: `-${name}: has no value` };
  const d = w.display.toLowerCase();
  if (d === '$true') return true;
  if (d === '$false' || d === '$null') return false;
  if (/^\d{1,15}$/.test(d)) return Number(d) !== 0;
  if (w.dynamic) return dynamicWordReason(w);
  return { reason: 'unknown-option', detail: `-${name}:${w.display} is not a switch value agent-guard reads` };
}

function elements(w: PWord): PWord[] {
  return w.list ?? [w];
}

/** A PowerShell drive other than a drive letter (`HKCU:`, `Env:`) or a provider-qualified path. */
function isProviderPath(value: string): boolean {
  return value.includes('::') || /^[A-Za-z][\w.-]+:/.test(value);
}

function hasWildcard(value: string): boolean {
  return /[*?[]/.test(value);
}

interface RemoveFacts {
  recursive: boolean;
  dryRun: boolean;
  noTargets: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
}

function classifyRemoveItem(toks: Tok[], piped: boolean, cwd: string | null, home: string | null): RemoveFacts {
  const res: RemoveFacts = { recursive: false, dryRun: false, noTargets: false, targets: [], undeterminable: null };
  const unknown = (detail: string): void => {
    res.undeterminable ??= { reason: 'unknown-option', detail };
  };
  const paths: PWord[] = [];
  let pathParams = 0;
  let positionals = 0;
  let endOfParams = false;
  for (let k = 0; k < toks.length; k++) {
    const tok = toks[k]!;
    if (tok.t === 'eop') {
      endOfParams = true;
      continue;
    }
    if (tok.t === 'word' || endOfParams) {
      const w = tok.t === 'word' ? tok.w : literalPWord(paramDisplay(tok));
      positionals++;
      if (positionals > 1) unknown(`Remove-Item takes one positional argument; ${w.display} makes the call an error or something agent-guard does not read`);
      paths.push(...elements(w));
      continue;
    }
    if (tok.name === '?') {
      res.dryRun = true; // `-?` shows help
      continue;
    }
    const r = resolveParam(tok.name, REMOVE_ITEM_PARAMS, REMOVE_ITEM_ALIASES);
    if ('unknown' in r) {
      unknown(`Remove-Item ${r.unknown}`);
      continue;
    }
    const def = r.def;
    if (def.value) {
      let v = tok.value;
      if (!tok.colon) {
        const next = toks[k + 1];
        if (next?.t === 'word') {
          v = next.w;
          k++;
        }
      }
      if (v === null) {
        unknown(`Remove-Item -${def.name} has no value`);
        continue;
      }
      switch (def.cls) {
        case 'path':
          pathParams++;
          paths.push(...elements(v));
          break;
        case 'literalpath':
          unknown('-LiteralPath names items with escaping rules agent-guard does not read');
          break;
        case 'filter':
          unknown('-Filter selects items by a provider pattern evaluated only when it runs');
          break;
        case 'include':
          unknown('-Include selects items by a pattern evaluated only when it runs');
          break;
        case 'exclude':
          unknown('-Exclude selects items by a pattern evaluated only when it runs');
          break;
        case 'credential':
          unknown('-Credential: what the provider does with it is not known');
          break;
        case 'stream':
          unknown('-Stream removes an alternate data stream, not the item');
          break;
        default:
          break; // common parameters: no effect on what is removed
      }
      continue;
    }
    const on = tok.colon ? switchValue(def.name, tok.value) : true;
    if (typeof on !== 'boolean') {
      if (def.cls === 'recurse' || def.cls === 'whatif' || def.cls === 'confirm') res.undeterminable ??= on;
      continue;
    }
    if (def.cls === 'recurse') res.recursive = on;
    else if (def.cls === 'whatif') res.dryRun = on;
    else if (def.cls === 'confirm' && on) unknown('-Confirm asks before each removal: what is removed depends on the answers');
  }
  if (pathParams + (positionals > 0 ? 1 : 0) > 1) unknown('Remove-Item is given its -Path more than once, which is an error');
  for (const w of paths) {
    if (w.dynamic) {
      res.undeterminable ??= dynamicWordReason(w);
      continue;
    }
    if (w.value === '') continue; // PowerShell refuses an empty path
    if (isProviderPath(w.value)) {
      unknown(`${w.display} is on a PowerShell drive or provider agent-guard does not place`);
      continue;
    }
    const t = windowsTarget(w.value, cwd, { tilde: true, home, glob: hasWildcard(w.value) });
    if (isUndeterminable(t)) {
      res.undeterminable ??= t;
      continue;
    }
    t.raw = w.value; // quotes removed, as the POSIX reader shows an operand
    res.targets.push(t);
  }
  if (piped) {
    // The items come from the pipeline: which ones is known only when it runs.
    res.undeterminable = { reason: 'stdin-fed', detail: 'Remove-Item removes the items the pipeline feeds it, known only when it runs' };
  }
  res.noTargets = res.targets.length === 0 && res.undeterminable === null;
  return res;
}

function literalPWord(v: string): PWord {
  return { ...emptyWord(), value: v, display: v };
}

/** A token as the program receives it: quotes removed, expansions shown as written. */
function tokValue(tok: Tok): string {
  if (tok.t === 'eop') return '--';
  if (tok.t === 'word') return tok.w.value;
  return tok.display + (tok.colon && tok.value ? tok.value.value : '');
}

function paramDisplay(tok: Tok): string {
  if (tok.t === 'eop') return '--';
  if (tok.t === 'word') return tok.w.display;
  return tok.display + (tok.colon && tok.value ? tok.value.display : '');
}

/** Where a location cmdlet goes: a path, or null when it cannot be known. */
function locationDest(name: string, toks: Tok[], cwd: string | null, home: string | null): string | null {
  if (POP_LOCATION.has(name)) return null;
  let target: PWord | null = null;
  let literal = false;
  let count = 0;
  for (let k = 0; k < toks.length; k++) {
    const tok = toks[k]!;
    if (tok.t === 'eop') continue;
    if (tok.t === 'word') {
      target = tok.w;
      count++;
      continue;
    }
    const r = resolveParam(tok.name, LOCATION_PARAMS, LOCATION_ALIASES);
    if ('unknown' in r) return null;
    if (!r.def.value) continue;
    let v = tok.value;
    if (!tok.colon && toks[k + 1]?.t === 'word') {
      v = (toks[k + 1] as { t: 'word'; w: PWord }).w;
      k++;
    }
    if (r.def.cls === 'path' || r.def.cls === 'literalpath') {
      target = v;
      literal = r.def.cls === 'literalpath';
      count++;
    }
  }
  if (count > 1) return null;
  if (target === null) return PUSH_LOCATION.has(name) ? cwd : home; // PowerShell 7: `cd` alone goes home
  if (target.dynamic || target.list !== null) return null;
  const v = target.value;
  if (v === '-' || v === '+' || isProviderPath(v) || (!literal && hasWildcard(v))) return null;
  const t = windowsTarget(v === '' ? '.' : v, cwd, { tilde: true, home, glob: false });
  if (isUndeterminable(t) || t.foreign !== undefined || t.path === null) return null;
  return t.path;
}

// ---------------------------------------------------------------------------------------------
// Walker

interface Ctx {
  opts: ClassifyOptions;
  envNames: Set<string>;
  /** What each variable assigned on the line was assigned (`$c = 'Remove-Item'`), as source text. */
  assigned: Map<string, string>;
  /** Whether that text smells destructive, computed once per assignment state. */
  assignedSmell: Map<string, boolean>;
}

/** The smell of a text that reads variables: the text itself, or what the line assigned to them. */
function smellsWithValues(text: string, ctx: Ctx): boolean {
  if (smellsDestructivePowerShell(text)) return true;
  for (const v of new Set(varsIn(text))) {
    let smell = ctx.assignedSmell.get(v);
    if (smell === undefined) {
      const value = ctx.assigned.get(v);
      smell = value !== undefined && smellsDestructivePowerShell(value);
      ctx.assignedSmell.set(v, smell);
    }
    if (smell) return true;
  }
  return false;
}

interface Scope {
  cwd: string | null;
  cd: boolean;
  create: boolean;
}

interface Walk {
  ops: Op[];
  commandCount: number;
  unbalanced: boolean;
}

/** An op that changes or may change data when run (index.ts's isEffective, not imported: no cycle). */
function isEffective(op: Op): boolean {
  return op.undeterminable !== null || (!op.dryRun && !op.noTargets);
}

function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function opaque(program: string, text: string, u: Undeterminable, scope: Scope, kind: Op['kind'] = 'opaque'): Op {
  const op = makeOp({ program, kind, argv: [text], cwd: scope.cwd, cdBefore: scope.cd, createBefore: scope.create });
  op.undeterminable = u;
  op.inner = text;
  return op;
}

function indirect(program: string, argv: string[], inner: string, reason: UndeterminableReason, detail: string, scope: Scope, cwd: string | null): Op {
  const op = makeOp({ program, kind: 'indirect', argv, cwd, cdBefore: scope.cd, createBefore: scope.create });
  op.inner = inner;
  op.undeterminable = { reason, detail };
  return op;
}

/** Words as a native program receives them (a comma list is several arguments). */
function nativeWords(toks: Tok[]): PWord[] {
  const out: PWord[] = [];
  for (const tok of toks) {
    if (tok.t === 'eop') out.push(literalPWord('--'));
    else if (tok.t === 'word') out.push(...elements(tok.w));
    else {
      const v = tok.colon && tok.value ? tok.value : null;
      out.push({
        ...emptyWord(),
        value: '-' + tok.name + (tok.colon ? ':' : '') + (v ? v.value : ''),
        display: paramDisplay(tok),
        dynamic: v?.dynamic ?? false,
        sub: v?.sub ?? false,
      });
    }
  }
  return out;
}

function asWord(w: PWord): Word {
  // pwsh on a POSIX host expands an unquoted pattern for a native program.
  return literalWord(w.value, w.display, w.dynamic, !w.quoted && !w.dynamic && hasWildcard(w.value));
}

function argvOf(cmd: PCommand): string[] {
  return cmd.toks.map(tokValue);
}

/** Is the text destructive when run as PowerShell? (The first effective op, or null.) */
function judgeText(text: string, dynamic: boolean, ctx: Ctx, cwd: string | null, depth: number): string | null {
  if (dynamic || depth >= MAX_DEPTH) return smellsWithValues(text, ctx) ? text : null;
  const inner = walkText(text, ctx, cwd, depth + 1);
  const effective = inner.ops.find(isEffective);
  if (effective) return effective.argv.join(' ') || effective.program;
  if (inner.unbalanced && smellsDestructivePowerShell(text)) return text;
  return null;
}

function judgeSeq(seq: Seq, ctx: Ctx, scope: Scope, depth: number): { hit: string | null; walk: Walk; inner: Scope } {
  const inner: Scope = { ...scope };
  const walk: Walk = { ops: [], commandCount: 0, unbalanced: false };
  walkSeq(seq, ctx, inner, depth, walk);
  const effective = walk.ops.find(isEffective);
  return { hit: effective ? effective.argv.join(' ') || effective.program : null, walk, inner };
}

interface Env {
  ctx: Ctx;
  scope: Scope;
  depth: number;
  /** The text being walked, for a shell that reads the line from its pipeline. */
  lineText: string;
  /** Its destructive smell (computed at most once per sequence). */
  lineSmells: () => boolean;
  /** The whole lexed source. */
  src: string;
}

/** The ops of a nested body (a script block, a subexpression, a hash literal). True when it reported one. */
function bodyOps(body: Body, env: Env, res: Walk): boolean {
  const { ctx, scope, depth } = env;
  const text = body.text;
  if (body.kind === 'hash' || body.kind === 'text') {
    // A hash literal's values are statements; a here-string's subexpressions are commands: read as text.
    if (!smellsDestructivePowerShell(text)) return false;
    const what = body.kind === 'hash' ? 'a hash literal whose values run' : 'a here-string whose subexpressions run';
    res.ops.push(opaque('?', text, { reason: 'opaque-syntax', detail: `${what} commands agent-guard does not read` }, scope));
    return true;
  }
  if (body.kind === 'deep' || body.seq === null || depth + 1 > MAX_DEPTH) {
    res.commandCount++;
    if (!smellsDestructivePowerShell(text)) return false;
    res.ops.push(opaque('?', text, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, scope));
    return true;
  }
  const j = judgeSeq(body.seq, ctx, scope, depth + 1);
  res.commandCount += j.walk.commandCount;
  // A location change or a creation inside the body happens before what follows it.
  if (j.inner.cd) {
    scope.cd = true;
    scope.cwd = j.inner.cwd === scope.cwd ? scope.cwd : null;
  }
  if (j.inner.create) scope.create = true;
  const effective = j.walk.ops.find(isEffective);
  if (!effective) return false;
  res.ops.push(
    opaque(effective.program, text, {
      reason: 'opaque-syntax',
      detail: `${effective.program} runs inside a ${body.kind === 'block' ? 'script block' : 'subexpression'}, at a time and with inputs only PowerShell knows`,
    }, scope),
  );
  return true;
}

function wordBodies(w: PWord | null, out: Body[]): void {
  if (w === null) return;
  for (const b of w.bodies) out.push(b);
}

function walkSeq(seq: Seq, ctx: Ctx, scope: Scope, depth: number, res: Walk): void {
  for (const name of seq.envNames) ctx.envNames.add(name);
  let lineSmell: boolean | undefined;
  const lineSmells = (): boolean => (lineSmell ??= smellsDestructivePowerShell(seq.text));
  for (let cmd of seq.commands) {
    res.commandCount++;
    const env: Env = { ctx, scope, depth, lineText: seq.text, src: seq.src, lineSmells };
    // `return <pipeline>`, `throw <pipeline>`: the keyword runs the pipeline that follows it.
    while (cmd.call === null && cmd.toks.length > 1 && cmd.toks[0]!.t === 'word' && !cmd.toks[0]!.w.quoted && /^(return|throw)$/i.test(cmd.toks[0]!.w.value)) {
      cmd = { ...cmd, toks: cmd.toks.slice(1) };
    }
    const first = cmd.toks[0];
    const name = first?.t === 'word' && !first.w.dynamic ? commandName(first.w.value) : null;
    // Bodies run before the command (arguments) or are handed to it (blocks); a block given to
    // pwsh/powershell as its command is judged with the command instead.
    const consumed = new Set<Body>();
    if (name && PWSH.has(name.native)) {
      for (const t of cmd.toks) if (t.t === 'word' && t.w.isBlock) for (const b of t.w.bodies) consumed.add(b);
    }
    const bodies: Body[] = [];
    for (const t of cmd.toks) {
      if (t.t === 'word') wordBodies(t.w, bodies);
      else if (t.t === 'param') wordBodies(t.value, bodies);
    }
    for (const r of cmd.redirects) wordBodies(r.target, bodies);
    const reported: Body[] = [];
    for (const b of bodies) if (!consumed.has(b) && bodyOps(b, env, res)) reported.push(b);
    if (cmd.assign !== null) {
      const rhs = seq.src.slice(Math.max(0, cmd.start), Math.max(0, cmd.end));
      ctx.assigned.set(cmd.assign, (ctx.assigned.get(cmd.assign) ?? '') + ' ' + rhs);
      ctx.assignedSmell.delete(cmd.assign);
    }
    for (const o of commandOps(cmd, name, env, reported)) res.ops.push(o);
    const createsFile = cmd.redirects.some((r) => r.target !== null && !/^\$null$/i.test(r.target.display) && r.target.value.toLowerCase() !== 'nul');
    if (createsFile || (name !== null && CREATORS.has(name.native))) scope.create = true;
  }
}

function commandOps(cmd: PCommand, name: CommandName | null, env: Env, reported: readonly Body[]): Op[] {
  const { ctx, scope, depth } = env;
  const opts = ctx.opts;
  const first = cmd.toks[0];
  if (!first) return [];
  const cmdText = env.src.slice(Math.max(0, cmd.start), Math.max(0, cmd.end)) || argvOf(cmd).join(' ');
  const args = cmd.toks.slice(1);
  if (first.t !== 'word') return []; // `-x …` or `--` in command position: PowerShell reads a string or an error
  const pw = first.w;
  if (pw.isBlock) return []; // `& { … }`, `. { … }`, `{ … }`: the body was judged above
  if (pw.dynamic || name === null) {
    // `& $x …`, `$x.Delete()`, `(Get-Item x).Delete()`, `[IO.File]::Delete(…)`: what runs is known only then.
    const recurseOrForce = args.some((t) => t.t === 'param' && /^(r|re|rec|recu|recur|recurs|recurse|fo|for|forc|force)$/i.test(t.name));
    // Bodies already reported above are not smelled twice; the rest is (`& (gcm rm) x`, `(…).Delete()`).
    let outside = '';
    let at = Math.max(0, cmd.start);
    for (const b of reported) {
      if (b.start < at || b.end > cmd.end) continue;
      outside += env.src.slice(at, b.start);
      at = b.end;
    }
    outside += env.src.slice(at, Math.max(at, cmd.end));
    if (!smellsWithValues(outside, ctx) && !recurseOrForce) return [];
    return [opaque(pw.display, cmdText, { reason: 'dynamic-program', detail: `the command ${pw.display} is known only when it runs` }, scope)];
  }
  if (pw.quoted && cmd.call === null) return []; // a string in command position is an expression
  const argv = argvOf(cmd);
  const op = (program: string, kind: Op['kind']): Op => makeOp({ program, kind, argv, cwd: scope.cwd, cdBefore: scope.cd, createBefore: scope.create });
  const n = name.isPath ? '' : name.name;

  if (cmd.call === '.' && (name.isPath || /\.ps1$/i.test(name.name))) {
    // Dot-sourcing a script: its commands are read only when it runs.
    if (!smellsDestructivePowerShell(cmdText)) return [];
    return [indirect('.', argv, cmdText, 'source', `. runs ${pw.display}, whose commands are read only when it runs`, scope, scope.cwd)];
  }
  if (REMOVE.has(n)) {
    const f = classifyRemoveItem(args, cmd.piped, scope.cwd, opts.home);
    const o = op('Remove-Item', 'fs-delete');
    Object.assign(o, f);
    return [o];
  }
  if (SET_LOCATION.has(n) || PUSH_LOCATION.has(n) || POP_LOCATION.has(n)) {
    const dest = locationDest(n, args, scope.cwd, opts.home);
    scope.cwd = dest;
    scope.cd = true;
    return [];
  }
  if (name.native === 'git') return gitOps(cmd, args, env, argv);
  if (PWSH.has(name.native)) return pwshOps(name.native, cmd, args, env, argv);
  if (name.native === 'cmd') {
    const words = nativeWords(args);
    const at = words.findIndex((w) => /^\/[ckr]/i.test(w.value));
    if (at < 0) {
      if (cmd.piped && env.lineSmells()) return [indirect('cmd', argv, env.lineText, 'indirect-shell', 'cmd reads commands from the pipeline, known only when it runs', scope, scope.cwd)];
      return [];
    }
    const inner = [words[at]!.value.slice(2), ...words.slice(at + 1).map((w) => w.value)].join(' ').trim();
    if (!smellsWithValues(inner, ctx)) return [];
    return [indirect('cmd', argv, inner, 'indirect-shell', `cmd runs text that is read only when it runs (${clip(inner)})`, scope, scope.cwd)];
  }
  if (POSIX_SHELLS.has(name.native) || name.native === 'wsl') {
    const words = nativeWords(args);
    let inner: string | null = null;
    if (name.native === 'wsl') inner = words.map((w) => w.value).join(' ');
    else {
      const at = words.findIndex((w) => /^-[A-Za-z]*c[A-Za-z]*$/.test(w.value) || w.value === '--command');
      if (at >= 0) inner = words[at + 1]?.value ?? '';
      else if (words.some((w) => !w.value.startsWith('-'))) return []; // a script file: its content is not seen (as index.ts)
      else if (cmd.piped) {
        return env.lineSmells() ? [indirect(name.native, argv, env.lineText, 'indirect-shell', `${name.native} reads commands from the pipeline, known only when it runs`, scope, scope.cwd)] : [];
      }
    }
    if (inner === null || !smellsWithValues(inner, ctx)) return [];
    return [indirect(name.native, argv, inner, 'indirect-shell', `${name.native} runs text that is read only when it runs (${clip(inner)})`, scope, scope.cwd)];
  }
  if (IEX.has(n)) {
    const words = args.filter((t): t is { t: 'word'; w: PWord } => t.t === 'word').map((t) => t.w);
    const colonValues = args.flatMap((t) => (t.t === 'param' && t.value ? [t.value] : []));
    const all = [...colonValues, ...words];
    if (all.length === 0) {
      if (cmd.piped && env.lineSmells()) {
        return [indirect('Invoke-Expression', argv, env.lineText, 'indirect-shell', 'Invoke-Expression runs text from the pipeline, known only when it runs', scope, scope.cwd)];
      }
      return [];
    }
    const dynamic = all.some((w) => w.dynamic);
    const inner = all.map((w) => (w.dynamic ? w.display : w.value)).join(' ');
    const hit = judgeText(inner, dynamic, ctx, scope.cwd, depth);
    if (hit === null) return [];
    return [indirect('Invoke-Expression', argv, inner, 'indirect-shell', `Invoke-Expression runs text that is read only when it runs (${clip(hit)})`, scope, scope.cwd)];
  }
  if (START_PROCESS.has(n)) {
    const inner = nativeWords(args).map((w) => w.value).join(' ');
    if (!smellsWithValues(inner, ctx)) return [];
    return [indirect('Start-Process', argv, inner, 'indirect-shell', `Start-Process runs a program whose effect is read only when it runs (${clip(inner)})`, scope, scope.cwd)];
  }
  if (ALIAS_DEFS.has(n)) {
    // An alias that names a destructive command makes a later, harmless-looking word destructive.
    const words = nativeWords(args);
    if (!words.some((w) => w.dynamic || REMOVE.has(w.value.toLowerCase()) || smellsWithValues(w.value, ctx))) return [];
    return [opaque(pw.display, cmdText, { reason: 'opaque-syntax', detail: `${pw.display} defines an alias for a destructive command` }, scope)];
  }
  if (FOREACH.has(n)) {
    // `… | ForEach-Object Delete`, `… | % -MemberName Delete`: a method called on every pipeline item.
    const member = nativeWords(args).find((w) => !w.isBlock && !w.value.startsWith('-') && /^(delete|remove\w*|clear\w*|moveto)$/i.test(w.value));
    if (!member) return [];
    const o = op(pw.display, 'stdin-fed');
    o.inner = member.value;
    o.undeterminable = { reason: 'stdin-fed', detail: `${pw.display} calls ${member.value} on each pipeline item, known only when it runs` };
    return [o];
  }
  if (WRAPPERS.has(name.native)) {
    // Not unwrapped here: what runs is judged by its smell (fail closed).
    const inner = nativeWords(args).map((w) => w.value).join(' ');
    if (!smellsWithValues(inner, ctx)) return [];
    return [indirect(name.native, argv, inner, 'indirect-shell', `${name.native} runs ${clip(inner)}`, scope, scope.cwd)];
  }
  if (name.native === 'xargs' || name.native === 'parallel') {
    const inner = nativeWords(args).map((w) => w.value).join(' ');
    if (!smellsWithValues(inner, ctx)) return [];
    const o = op(name.native, 'stdin-fed');
    o.inner = inner;
    o.undeterminable = { reason: 'stdin-fed', detail: `${name.native} feeds ${clip(inner)} a list that is known only when it runs` };
    return [o];
  }
  if (name.native === 'find') {
    // POSIX find (pwsh on Linux and macOS; on Windows find.exe searches text and has no -delete).
    const words = nativeWords(args).map((w) => w.value);
    const deletes = words.includes('-delete');
    const exec = words.findIndex((w) => /^-(exec|execdir|ok|okdir)$/.test(w));
    if (!deletes && (exec < 0 || !smellsDestructivePowerShell(words.slice(exec + 1).join(' ')))) return [];
    const o = op('find', deletes ? 'find-delete' : 'find-exec');
    o.recursive = true;
    o.undeterminable = deletes
      ? { reason: 'find-delete', detail: 'find -delete removes whatever the expression matches when it runs' }
      : { reason: 'find-exec', detail: 'find runs a destructive program on whatever the expression matches when it runs' };
    return [o];
  }
  if (isFloorVerb(pw.value, 'powershell')) {
    // The vocabulary floor: a destructive verb this front end does not read as its own (`shred f`, `rm.exe -rf x`).
    return [opaque(pw.display, cmdText, floorReason(pw.display, 'powershell'), scope)];
  }
  return [];
}

function gitOps(cmd: PCommand, args: Tok[], env: Env, argv: string[]): Op[] {
  const { ctx, scope } = env;
  const words = nativeWords(args).map(asWord);
  const envNames = [...ctx.envNames];
  const g = classifyGit(words, scope.cwd, envNames);
  if (g.noop) return [];
  const cmdText = argv.join(' ');
  const mk = (): Op => makeOp({ program: 'git', kind: g.kind ?? 'opaque', argv, cwd: scope.cwd, cdBefore: scope.cd, createBefore: scope.create });
  // `-c core.pager=…`, `-c alias.x=!…`: configuration that runs commands.
  const configs = g.facts.globals.filter((_, i, a) => a[i - 1] === '-c');
  const runs = configs.find((c) => smellsDestructive(c.slice(c.indexOf('=') + 1)));
  if (runs !== undefined) return [indirect('git', argv, runs, 'indirect-shell', `git runs configured text (${clip(runs)})`, scope, scope.cwd)];
  if (g.dynamicSubcommand) {
    return smellsDestructivePowerShell(cmdText)
      ? [opaque('git', cmdText, g.undeterminable ?? { reason: 'dynamic-program', detail: 'the git subcommand is known only when the command runs' }, scope)]
      : [];
  }
  if (g.aliasCandidate !== undefined) {
    if (g.facts.globals.includes('--config-env') || envNames.some((x) => /^GIT_CONFIG/i.test(x))) {
      return [opaque('git', cmdText, { reason: 'git-environment', detail: `git ${g.aliasCandidate} may be an alias defined in the environment` }, scope)];
    }
    const key = `alias.${g.aliasCandidate}=`.toLowerCase();
    const onLine = configs.filter((c) => c.toLowerCase().startsWith(key)).pop();
    const expansion = onLine !== undefined ? onLine.slice(onLine.indexOf('=') + 1) : (ctx.opts.resolveGitAlias?.(g.aliasCandidate, scope.cwd, g.facts.globals) ?? null);
    if (expansion === null) return [];
    // The alias is not re-read through classifyGit here (its words would need git's own quoting
    // rules): a destructive-smelling expansion fails closed as undeterminable.
    const rest = words.slice(words.findIndex((w) => !w.dynamic && w.value === g.aliasCandidate) + 1).map((w) => w.value);
    const expanded = [expansion.startsWith('!') ? expansion.slice(1) : 'git ' + expansion, ...rest].join(' ');
    if (!smellsDestructivePowerShell(expanded)) return [];
    return expansion.startsWith('!')
      ? [indirect('git', argv, expanded, 'indirect-shell', `git alias ${g.aliasCandidate} runs a shell command (${clip(expanded)})`, scope, g.facts.dir)]
      : [opaque('git', cmdText, { reason: 'opaque-syntax', detail: `git ${g.aliasCandidate} is an alias for ${clip(expansion)}` }, scope)];
  }
  if (g.kind === null) return [];
  const o = mk();
  Object.assign(o, { git: g.facts, dryRun: g.dryRun, noTargets: g.noTargets, recursive: g.recursive, targets: g.targets, undeterminable: g.undeterminable });
  return [o];
}

const PWSH_VALUE_PARAMS = [
  'executionpolicy', 'ep', 'ex', 'workingdirectory', 'wd', 'configurationname', 'config', 'configurationfile', 'custompipename',
  'inputformat', 'inp', 'if', 'outputformat', 'o', 'of', 'op', 'windowstyle', 'w', 'settingsfile', 'settings', 'psconsolefile', 'version', 'v',
  'encodedarguments', 'ea', 'encodeda',
];

function isPrefixOf(n: string, full: string, min = 1): boolean {
  return n.length >= min && full.startsWith(n);
}

function pwshOps(program: string, cmd: PCommand, args: Tok[], env: Env, argv: string[]): Op[] {
  const { ctx, scope, depth } = env;
  let cwd = scope.cwd;
  let rest: Tok[] | null = null;
  let file = false;
  for (let k = 0; k < args.length; k++) {
    const tok = args[k]!;
    let pname: string | null = null;
    if (tok.t === 'param') pname = tok.name.toLowerCase();
    else if (tok.t === 'word' && !tok.w.dynamic && !tok.w.quoted && /^\/[A-Za-z?]+$/.test(tok.w.value)) pname = tok.w.value.slice(1).toLowerCase();
    else if (tok.t === 'eop') continue;
    if (pname === null) {
      // A bare argument: powershell.exe reads it as -Command, pwsh as -File. Read as a command (stricter).
      rest = args.slice(k);
      break;
    }
    if (pname === 'c' || isPrefixOf(pname, 'command', 2)) {
      rest = args.slice(k + 1);
      if (tok.t === 'param' && tok.colon && tok.value) rest = [{ t: 'word', w: tok.value }, ...rest];
      break;
    }
    if (pname === 'e' || pname === 'ec' || isPrefixOf(pname, 'encodedcommand', 3) || pname === 'en') {
      return [indirect(program, argv, argv.join(' '), 'indirect-shell', `${program} -EncodedCommand runs base64 text agent-guard does not decode`, scope, scope.cwd)];
    }
    if (isPrefixOf(pname, 'file', 1)) {
      rest = args.slice(k + 1);
      file = true;
      break;
    }
    if (pname === '?' || pname === 'h' || pname === 'help') return [];
    if (PWSH_VALUE_PARAMS.includes(pname)) {
      const v = tok.t === 'param' && tok.colon ? tok.value : args[k + 1]?.t === 'word' ? (args[k + 1] as { t: 'word'; w: PWord }).w : null;
      if (!(tok.t === 'param' && tok.colon)) k++;
      if (pname === 'workingdirectory' || pname === 'wd') {
        if (v === null || v.dynamic) cwd = null;
        else {
          const t = windowsTarget(v.value, scope.cwd, { tilde: true, home: ctx.opts.home, glob: false });
          cwd = isUndeterminable(t) || t.foreign !== undefined ? null : t.path;
        }
      }
    }
  }
  const fromPipe = (): Op[] =>
    cmd.piped && env.lineSmells()
      ? [indirect(program, argv, env.lineText, 'indirect-shell', `${program} reads commands from the pipeline, known only when it runs`, scope, cwd)]
      : [];
  if (rest === null || rest.length === 0) return fromPipe();
  if (file) {
    // A script file: its content is not seen (as index.ts does for `bash script.sh`); a file whose
    // name or arguments smell destructive is judged like a sourced file.
    const text = rest.map(paramDisplay).join(' ');
    if (!smellsDestructivePowerShell(text)) return [];
    return [indirect(program, argv, text, 'source', `${program} -File runs a script whose commands are read only when it runs`, scope, cwd)];
  }
  const head = rest[0]!;
  if (head.t === 'word' && head.w.isBlock) {
    const body = head.w.bodies[0];
    let hit: string | null = null;
    if (!body || body.seq === null || depth + 1 > MAX_DEPTH) hit = smellsDestructivePowerShell(head.w.display) ? head.w.display : null;
    else {
      const j = judgeSeq(body.seq, ctx, { ...scope, cwd }, depth + 1);
      hit = j.hit;
    }
    if (hit === null) return [];
    return [indirect(program, argv, body?.text ?? head.w.display, 'indirect-shell', `${program} runs a script block (${clip(hit)})`, scope, cwd)];
  }
  if (head.t === 'word' && !head.w.quoted && head.w.value === '-') return fromPipe();
  const words = nativeWords(rest);
  const dynamic = words.some((w) => w.dynamic);
  const inner = words.map((w) => (w.dynamic ? w.display : w.value)).join(' ');
  const hit = judgeText(inner, dynamic, ctx, cwd, depth);
  if (hit === null) return [];
  return [indirect(program, argv, inner, 'indirect-shell', `${program} runs text that is read only when it runs (${clip(hit)})`, scope, cwd)];
}

function walkText(text: string, ctx: Ctx, cwd: string | null, depth: number): Walk {
  if (depth > MAX_DEPTH) {
    const scope: Scope = { cwd, cd: false, create: false };
    return {
      ops: smellsDestructivePowerShell(text) ? [opaque('?', text, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, scope)] : [],
      commandCount: 1,
      unbalanced: false,
    };
  }
  const lx = new Lexer(text);
  const seq = lx.parse();
  const scope: Scope = { cwd, cd: false, create: false };
  if (lx.unbalanced || lx.parseError) {
    // PowerShell parses the whole text before it runs any of it: a parse error runs nothing, but a
    // misreading here must not let a deletion through, so a destructive smell fails closed.
    const ops = smellsDestructivePowerShell(text)
      ? [
          opaque('?', text, lx.unbalanced
            ? { reason: 'unbalanced', detail: 'the line has an unterminated quote, block or subexpression' }
            : { reason: 'opaque-syntax', detail: 'the line holds a token PowerShell rejects' }, scope),
        ]
      : [];
    return { ops, commandCount: 1, unbalanced: lx.unbalanced };
  }
  const res: Walk = { ops: [], commandCount: 0, unbalanced: false };
  walkSeq(seq, ctx, scope, depth, res);
  return res;
}

/** A PowerShell command line as facts (the same shape `classify` gives for POSIX). Never throws. */
export function classifyPowerShell(text: string, opts: ClassifyOptions): Classification {
  let res: Walk;
  try {
    res = walkText(String(text), { opts, envNames: new Set(), assigned: new Map(), assignedSmell: new Map() }, opts.cwdUnknown ? null : opts.cwd, 0);
  } catch (e) {
    // An internal error must not let a line through: fail closed.
    const op = opaque('?', String(text), { reason: 'opaque-syntax', detail: `agent-guard could not read the line (${e instanceof Error ? e.message : 'error'})` }, { cwd: opts.cwd, cd: false, create: false });
    res = { ops: [op], commandCount: 1, unbalanced: false };
  }
  return finishClassification(res.ops, res.commandCount, res.unbalanced);
}
