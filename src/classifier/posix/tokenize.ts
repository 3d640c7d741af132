// Tokenizing: the only module that imports shell-quote. It receives the sanitized text from scan.ts
// (markers in place of everything shell-quote cannot represent) and turns shell-quote's token stream
// into simple commands with their separators, redirections and subshell depth.
import { parse as shellQuoteParse, quote as shellQuoteQuote } from 'shell-quote';
import { MARK } from './scan.js';

export type Connector = 'start' | ';' | '&' | '&&' | '||' | '|' | '|&';

export interface Redirect {
  op: string;
  /** The file descriptor written before the operator (`2>`), `&` for `&>`, or null. */
  fd: string | null;
  /** The raw (marked) target word; null when missing. */
  target: string | null;
}

export interface Command {
  /** Raw (marked) words: leading assignments first, then the command and its arguments. */
  words: string[];
  redirects: Redirect[];
  /** The separator before this command. */
  connector: Connector;
  /** The separator after it (null at the end of the list). */
  next: Connector | null;
  /** Subshell nesting depth, `( … )`. */
  depth: number;
  /** Identity of the enclosing subshell chain, e.g. `0/2`: a `cd` affects commands of the same or a deeper scope. */
  scope: string;
  /** Set when the command cannot be read as a simple command (a case clause, a function definition). */
  opaque?: 'case' | 'function' | 'syntax';
  /** Set for a `for`/`select` header: the loop variable is assigned by the shell. */
  loopVar?: string;
}

const CONNECTORS = new Set([';', '&', '&&', '||', '|', '|&']);
const REDIRECT_OPS = new Set(['<', '>', '>>', '>|', '<>', '>&', '<&', '<<<']);
/** Reserved words that may precede a command and run nothing themselves. */
const TRANSPARENT = new Set(['!', '{', '}', 'then', 'else', 'elif', 'do', 'if', 'while', 'until', 'fi', 'done']);

type Token = string | { op: string } | { comment: string } | { pattern: string };

function tokens(text: string): Token[] {
  // Every `$` has been replaced or escaped by the scanner, so the env callback should never run;
  // if it does, the word is marked unknown rather than silently expanded.
  return shellQuoteParse(text, () => MARK.UNKNOWN) as Token[];
}

function opOf(t: Token): string | null {
  return typeof t === 'object' && 'op' in t ? t.op : null;
}

function decodeReserved(w: string): string {
  return w === MARK.LBRACE ? '{' : w;
}

/** Splits a sanitized command line into simple commands. Never throws on odd input: what it cannot
 *  place becomes an opaque command, which the classifier treats as unreadable. */
export function tokenize(text: string): Command[] {
  const toks = tokens(text);
  const out: Command[] = [];
  let depth = 0;
  const scopes: number[] = [0];
  let scopeCounter = 0;
  let cur: Command | null = null;
  let connector: Connector = 'start';
  let inTest = false; // inside `[[ … ]]`, `<` and `>` compare strings

  let assignmentsOnly = true; // the current command holds only NAME=value words so far
  const open = (): Command => {
    if (!cur) {
      assignmentsOnly = true;
      cur = { words: [], redirects: [], connector, next: null, depth, scope: scopes.join('/') };
      out.push(cur);
    }
    return cur;
  };
  const close = (next: Connector | null): void => {
    if (cur) cur.next = next;
    cur = null;
  };

  for (let k = 0; k < toks.length; k++) {
    let t = toks[k]!;
    // Unquoted * and ? reach shell-quote as markers, so a glob token here comes from an escaped
    // character (`\*`): a literal word.
    if (typeof t === 'object' && 'pattern' in t) t = t.pattern;
    const op = opOf(t);
    if (op === null) {
      if (typeof t !== 'string') continue; // comments were stripped by the scanner
      const c = cur as Command | null;
      const atStart = c === null || assignmentsOnly;
      const word = decodeReserved(t);
      if ((c === null || c.words.length === 0) && TRANSPARENT.has(word)) continue;
      if (atStart && (word === 'case' || word === 'function' || word === 'coproc')) {
        const cmd = open();
        cmd.words.push(...[t]);
        cmd.opaque = word === 'case' ? 'case' : word === 'function' ? 'function' : 'syntax';
        // Nothing after a case clause or a function body can be placed reliably.
        return out;
      }
      if (atStart && (word === 'for' || word === 'select')) {
        // `for NAME in words; do` — the header runs nothing; NAME is assigned by the shell.
        const name = toks[k + 1];
        const cmd = open();
        cmd.words.push(t);
        cmd.loopVar = typeof name === 'string' ? name : '';
        while (k + 1 < toks.length && opOf(toks[k + 1]!) === null && toks[k + 1] !== 'do') k++;
        continue;
      }
      if (word === '[[') inTest = true;
      if (word === ']]') inTest = false;
      open().words.push(t);
      assignmentsOnly &&= /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(t);
      continue;
    }
    if (inTest && (op === '<' || op === '>')) {
      open().words.push(op);
      continue;
    }
    if (CONNECTORS.has(op)) {
      close(op as Connector);
      connector = op as Connector;
      continue;
    }
    if (op === ';;' || op === ';&' || op === ';;&') {
      const cmd = open();
      cmd.opaque = 'case';
      return out;
    }
    if (op === '(') {
      const c = cur as Command | null;
      if (c && c.words.length > 0) {
        // `name ( )` is a function definition: its body runs later, or never.
        c.opaque = 'function';
        return out;
      }
      close(null);
      depth++;
      scopes.push(++scopeCounter);
      connector = 'start';
      continue;
    }
    if (op === ')') {
      close(null);
      depth = Math.max(0, depth - 1);
      if (scopes.length > 1) scopes.pop();
      continue;
    }
    if (REDIRECT_OPS.has(op)) {
      const cmd = open();
      let fd: string | null = null;
      const last = cmd.words[cmd.words.length - 1];
      if (last !== undefined && (last.startsWith(MARK.FD) || last === MARK.BOTH)) {
        cmd.words.pop();
        fd = last === MARK.BOTH ? '&' : last.slice(MARK.FD.length);
      }
      const next = toks[k + 1];
      let target: string | null = null;
      if (typeof next === 'string') {
        target = next;
        k++;
      }
      cmd.redirects.push({ op, fd, target });
      continue;
    }
    // Any other operator (`<(`, `>(`, `<<` survive only if the scanner missed them) is unreadable.
    const cmd = open();
    cmd.opaque = 'syntax';
    return out;
  }
  return out;
}

/** An argv as shell text that reads back to exactly that argv. */
export function quoteArgv(argv: readonly string[]): string {
  return shellQuoteQuote([...argv]);
}
