// The pre-scanner: the part of POSIX lexing that shell-quote cannot represent faithfully.
//
// shell-quote (the tokenizer the user chose, used in tokenize.ts) splits words, removes quotes and
// recognises operators well, but it loses facts the policy depends on: it turns newlines into blanks
// (`echo a\nrm -rf b` becomes one command), splits a word at `$VAR`, reads `a#b` as a comment, forgets
// whether `*`, `[`, `{` or `~` were quoted, drops the adjacency of `2>`, and does not know command
// substitution, backticks, process substitution, heredocs or line continuations.
//
// This scanner walks the text once, quote-aware, and hands shell-quote a sanitized text in which every
// such construct is either resolved exactly (line continuations, comments, newlines) or replaced by a
// private-use marker that survives shell-quote unchanged and is decoded afterwards (words.ts). What it
// cannot read (an unterminated quote, substitution or parameter expansion) is reported as `unbalanced`,
// never guessed at. It runs in linear time: every construct is consumed once (no backtracking).

export const MARK = {
  STAR: '\uE001',
  QMARK: '\uE002',
  LBRACKET: '\uE003',
  LBRACE: '\uE004',
  TILDE: '\uE005',
  HASH: '\uE006',
  FD: '\uE007',
  BOTH: '\uE008',
  VAR_OPEN: '\uE010',
  QVAR_OPEN: '\uE011',
  SUB_OPEN: '\uE012',
  HEREDOC_OPEN: '\uE013',
  CLOSE: '\uE01F',
  UNKNOWN: '\uE0FF',
} as const;

/** Marker characters, and NUL: shells disagree on NUL (bash -c cuts the text there, a shell reading
 *  stdin drops it), so a line holding one cannot be read the way the shell will read it. */
const FOREIGN = /[\uE000-\uE0FF\0]/;

export interface VarRef {
  /** The parameter name for `$NAME` / `${NAME}`; null for special or complex expansions. */
  name: string | null;
  raw: string;
  /** Inside double quotes: no field splitting or globbing of the value. */
  quoted: boolean;
}

export type SubKind = 'command' | 'backtick' | 'process' | 'arith' | 'param';

export interface Substitution {
  kind: SubKind;
  /** The text the shell runs (command, backtick, process) or evaluates (arith, param). */
  body: string;
}

export interface Heredoc {
  delimiter: string;
  /** A quoted delimiter: the body is literal; otherwise it is expanded like a double-quoted string. */
  quoted: boolean;
  body: string;
  terminated: boolean;
}

export interface ScanResult {
  text: string;
  vars: VarRef[];
  subs: Substitution[];
  heredocs: Heredoc[];
  /** An unterminated quote, substitution or expansion: the shell would reject (part of) the line. */
  unbalanced: boolean;
  /** The input itself holds marker characters: its words cannot be decoded reliably. */
  foreignMarkers: boolean;
}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL_PARAM = /[0-9@*#?$!-]/;
const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

/** Index of the `)` closing a `(` opened just before `start`, skipping quotes and nesting; -1 if none. */
export function findParenClose(s: string, start: number): number {
  let depth = 1;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
    } else if (c === "'") {
      const j = s.indexOf("'", i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '"') {
      const j = skipDouble(s, i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '`') {
      const j = skipBacktick(s, i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '(') {
      depth++;
    } else if (c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Index of the closing `"` of a double-quoted string whose body starts at `start`; -1 if none. */
function skipDouble(s: string, start: number): number {
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '"') return i;
    else if (c === '$' && s[i + 1] === '(') {
      const j = findParenClose(s, i + 2);
      if (j < 0) return -1;
      i = j;
    } else if (c === '`') {
      const j = skipBacktick(s, i + 1);
      if (j < 0) return -1;
      i = j;
    }
  }
  return -1;
}

function skipBacktick(s: string, start: number): number {
  for (let i = start; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') return i;
  }
  return -1;
}

/** Index of the `}` closing a `${` whose body starts at `start`; -1 if none. */
function findBraceClose(s: string, start: number): number {
  let depth = 1;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === "'") {
      const j = s.indexOf("'", i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '"') {
      const j = skipDouble(s, i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '$' && s[i + 1] === '(') {
      const j = findParenClose(s, i + 2);
      if (j < 0) return -1;
      i = j;
    } else if (c === '`') {
      const j = skipBacktick(s, i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Removes the escapes that backticks add on top of the command text (`\\`, `` \` ``, `\$`). */
function unescapeBacktick(body: string): string {
  return body.replace(/\\([\\`$])/g, '$1');
}

interface PendingHeredoc {
  index: number;
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

export function scan(input: string): ScanResult {
  const res: ScanResult = {
    text: '',
    vars: [],
    subs: [],
    heredocs: [],
    unbalanced: false,
    foreignMarkers: FOREIGN.test(input),
  };
  const s = input;
  let out = '';
  let pending: PendingHeredoc[] = [];
  let i = 0;

  const atWordStart = (): boolean => {
    if (out.length === 0) return true;
    const prev = out[out.length - 1]!;
    return WORD_BREAK.has(prev);
  };
  const addSub = (kind: SubKind, body: string): void => {
    res.subs.push({ kind, body });
    out += MARK.SUB_OPEN + String(res.subs.length - 1) + MARK.CLOSE;
  };
  const addVar = (name: string | null, raw: string, quoted: boolean): void => {
    res.vars.push({ name, raw, quoted });
    out += (quoted ? MARK.QVAR_OPEN : MARK.VAR_OPEN) + String(res.vars.length - 1) + MARK.CLOSE;
  };

  // `$...` at s[i] (s[i] === '$'); returns the index after the construct.
  const dollar = (quoted: boolean): number => {
    const n = s[i + 1];
    if (n === '(' && s[i + 2] === '(') {
      const close = findParenClose(s, i + 3);
      // `$((` closes with `))`; anything else is a command substitution starting with a subshell.
      if (close >= 0 && s[close + 1] === ')') {
        addSub('arith', s.slice(i + 3, close));
        return close + 2;
      }
    }
    if (n === '(') {
      const close = findParenClose(s, i + 2);
      if (close < 0) {
        res.unbalanced = true;
        addSub('command', s.slice(i + 2));
        return s.length;
      }
      addSub('command', s.slice(i + 2, close));
      return close + 1;
    }
    if (n === '{') {
      const close = findBraceClose(s, i + 2);
      if (close < 0) {
        res.unbalanced = true;
        addVar(null, s.slice(i), quoted);
        return s.length;
      }
      const body = s.slice(i + 2, close);
      const simple = /^[A-Za-z_][A-Za-z0-9_]*$/.test(body);
      if (!simple && /[`]|\$\(/.test(body)) res.subs.push({ kind: 'param', body });
      addVar(simple ? body : null, s.slice(i, close + 1), quoted);
      return close + 1;
    }
    if (n !== undefined && NAME_START.test(n)) {
      let j = i + 1;
      while (j < s.length && NAME_CHAR.test(s[j]!)) j++;
      addVar(s.slice(i + 1, j), s.slice(i, j), quoted);
      return j;
    }
    if (n !== undefined && SPECIAL_PARAM.test(n)) {
      addVar(null, s.slice(i, i + 2), quoted);
      return i + 2;
    }
    // A lone `$` is literal.
    out += '\\$';
    return i + 1;
  };

  const backtick = (): number => {
    const close = skipBacktick(s, i + 1);
    if (close < 0) {
      res.unbalanced = true;
      addSub('backtick', unescapeBacktick(s.slice(i + 1)));
      return s.length;
    }
    addSub('backtick', unescapeBacktick(s.slice(i + 1, close)));
    return close + 1;
  };

  // Consumes heredoc bodies after the newline at s[i]; returns the index of the next line.
  const heredocBodies = (from: number): number => {
    let pos = from;
    for (const h of pending) {
      const lines: string[] = [];
      let terminated = false;
      while (pos < s.length) {
        let end = s.indexOf('\n', pos);
        if (end < 0) end = s.length;
        let line = s.slice(pos, end);
        pos = end + 1;
        if (h.stripTabs) line = line.replace(/^\t+/, '');
        if (line === h.delimiter) {
          terminated = true;
          break;
        }
        lines.push(line);
      }
      res.heredocs[h.index] = { delimiter: h.delimiter, quoted: h.quoted, body: lines.join('\n'), terminated };
    }
    pending = [];
    return Math.min(pos, s.length);
  };

  // `<<` at s[i]: read the delimiter word; returns the index after it.
  const heredocStart = (): number => {
    let j = i + 2;
    let stripTabs = false;
    if (s[j] === '-') {
      stripTabs = true;
      j++;
    }
    while (s[j] === ' ' || s[j] === '\t') j++;
    let delimiter = '';
    let quoted = false;
    while (j < s.length && !WORD_BREAK.has(s[j]!)) {
      const c = s[j]!;
      if (c === "'" || c === '"') {
        const close = c === "'" ? s.indexOf("'", j + 1) : skipDouble(s, j + 1);
        if (close < 0) {
          res.unbalanced = true;
          return s.length;
        }
        delimiter += s.slice(j + 1, close);
        quoted = true;
        j = close + 1;
      } else if (c === '\\' && s[j + 1] === '\n') {
        j += 2; // a line continuation inside the delimiter word is removed first, as the shell does
      } else if (c === '\\') {
        delimiter += s[j + 1] ?? '';
        quoted = true;
        j += 2;
      } else {
        delimiter += c;
        j++;
      }
    }
    if (delimiter === '') {
      // `<<` with no word is a syntax error: nothing the shell would run can be read past it.
      res.unbalanced = true;
      return s.length;
    }
    const index = res.heredocs.length;
    res.heredocs.push({ delimiter, quoted, body: '', terminated: false });
    pending.push({ index, delimiter, quoted, stripTabs });
    out += ' < ' + MARK.HEREDOC_OPEN + String(index) + MARK.CLOSE + ' ';
    return j;
  };

  const newline = (): void => {
    const trimmed = out.replace(/[ \t]+$/, '');
    // The line continues after an operator, unless that operator character was escaped (`echo \;`).
    const escapes = /\\*$/.exec(trimmed.slice(0, -1))![0].length;
    // `>&`, `<&`, `>|` are redirections, not separators: a newline after them ends the command.
    const continues = trimmed === '' || (/[;&|(]$/.test(trimmed) && !/[<>][&|]$/.test(trimmed) && escapes % 2 === 0);
    out = trimmed + (continues ? ' ' : ' ; ');
  };

  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\') {
      if (s[i + 1] === '\n') {
        i += 2; // line continuation: removed, exactly as the shell does
        continue;
      }
      if (i + 1 >= s.length) {
        i++; // a trailing lone backslash escapes nothing
        continue;
      }
      out += c + s[i + 1];
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) {
        res.unbalanced = true;
        out += s.slice(i) + "'";
        break;
      }
      out += s.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    if (c === '$' && s[i + 1] === "'") {
      let j = i + 2;
      while (j < s.length && s[j] !== "'") j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) {
        res.unbalanced = true;
        break;
      }
      out += s.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '"' || (c === '$' && s[i + 1] === '"')) {
      i += c === '$' ? 2 : 1;
      out += '"';
      let closed = false;
      while (i < s.length) {
        const d = s[i]!;
        if (d === '\\') {
          const e = s[i + 1];
          if (e === '\n') {
            i += 2;
            continue;
          }
          if (e === '`') {
            out += e; // shell-quote keeps the backslash of \` (the shell drops it); a bare ` is literal to it
          } else if (e === '$' || e === '"' || e === '\\') {
            out += '\\' + e;
          } else if (e !== undefined) {
            out += '\\\\' + e; // a backslash that escapes nothing stays literal
          }
          i += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === '$') {
          i = dollar(true);
          continue;
        }
        if (d === '`') {
          i = backtick();
          continue;
        }
        out += d;
        i++;
      }
      if (!closed) res.unbalanced = true;
      out += '"';
      continue;
    }
    if (c === '$') {
      i = dollar(false);
      continue;
    }
    if (c === '`') {
      i = backtick();
      continue;
    }
    if ((c === '<' || c === '>') && s[i + 1] === '(') {
      const close = findParenClose(s, i + 2);
      if (close < 0) {
        res.unbalanced = true;
        addSub('process', s.slice(i + 2));
        break;
      }
      if (!atWordStart()) out += ' ';
      addSub('process', s.slice(i + 2, close));
      i = close + 1;
      continue;
    }
    if (c === '<' && s[i + 1] === '<' && s[i + 2] !== '<') {
      i = heredocStart();
      continue;
    }
    if (c === '<' && s[i + 1] === '<' && s[i + 2] === '<') {
      out += ' <<< ';
      i += 3;
      continue;
    }
    if (c === '&' && s[i + 1] === '>') {
      out += ' ' + MARK.BOTH + ' ';
      i += 1;
      continue;
    }
    if (c === '#') {
      if (atWordStart()) {
        while (i < s.length && s[i] !== '\n') i++;
      } else {
        out += MARK.HASH;
        i++;
      }
      continue;
    }
    if (c === '\n') {
      newline();
      i++;
      if (pending.length > 0) i = heredocBodies(i);
      continue;
    }
    if (c === '*') out += MARK.STAR;
    else if (c === '?') out += MARK.QMARK;
    else if (c === '[') out += MARK.LBRACKET;
    else if (c === '{') out += MARK.LBRACE;
    else if (c === '~' && (atWordStart() || /(^|[\s;&|()<>])[A-Za-z_][A-Za-z0-9_]*=$/.test(out))) out += MARK.TILDE;
    else if (/[0-9]/.test(c) && atWordStart()) {
      let j = i;
      while (j < s.length && /[0-9]/.test(s[j]!)) j++;
      if (s[j] === '<' || s[j] === '>') out += MARK.FD;
      out += s.slice(i, j);
      i = j;
      continue;
    } else out += c;
    i++;
  }
  if (pending.length > 0) {
    // The line ended before the heredoc body: the shell reads an empty body.
    for (const h of pending) res.heredocs[h.index] = { delimiter: h.delimiter, quoted: h.quoted, body: '', terminated: false };
  }
  res.text = out;
  return res;
}
