// The PowerShell reader's tokens: words (with their nested bodies and comma lists), parameters,
// commands and sequences as the lexer (lexer.ts) builds them, and what a program receives from them.
import type { Undeterminable } from '../types.js';

export interface Body {
  /** `group`: ( … ) $( … ) @( … ); `block`: { … }; `hash`: @{ … }; `deep`: nested too far, kept as text;
   *  `text`: an expandable here-string holding `$( … )`, kept as text. */
  kind: 'group' | 'block' | 'hash' | 'deep' | 'text';
  text: string;
  /** Where `text` stands in the lexed source. */
  start: number;
  end: number;
  seq: Seq | null;
}

export interface PWord {
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

export type Tok =
  | { t: 'word'; w: PWord }
  | { t: 'param'; name: string; display: string; colon: boolean; value: PWord | null }
  | { t: 'eop' };

export interface Redirect {
  op: string;
  target: PWord | null;
}

export interface PCommand {
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

export interface Seq {
  commands: PCommand[];
  text: string;
  /** The whole lexed source (command offsets index it). */
  src: string;
  /** Names assigned with `$env:NAME = …` in this sequence. */
  envNames: string[];
}

/** A variable's name as a lookup key: lower case, without a scope (`$script:x` is `x`, `$env:X` stays `env:x`). */
export function varKey(name: string): string {
  return name.toLowerCase().replace(/^(global|local|script|private|using):/, '');
}

/** Variables a text reads (`$x`, `${x}`, `$env:X`). */
export function varsIn(text: string): string[] {
  const out: string[] = [];
  const re = /\$(?:\{([^}]{1,256})\}|([A-Za-z0-9_:]{1,256}))/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(varKey(m[1] ?? m[2] ?? ''));
  return out;
}

export function emptyWord(): PWord {
  return { value: '', display: '', dynamic: false, sub: false, quoted: false, isBlock: false, bodies: [], list: null };
}

/** `a, b`: a comma list (grown in place, so a long list stays linear). */
export function joinList(a: PWord, b: PWord): PWord {
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

export function dynamicWordReason(w: PWord): Undeterminable {
  return w.sub
    ? { reason: 'substitution', detail: `${w.display} is computed by commands when the line runs` }
    : { reason: 'variable', detail: `${w.display} depends on a value that is not known before the command runs` };
}


export function elements(w: PWord): PWord[] {
  return w.list ?? [w];
}

/** A PowerShell drive other than a drive letter (`HKCU:`, `Env:`) or a provider-qualified path. */
export function isProviderPath(value: string): boolean {
  return value.includes('::') || /^[A-Za-z][\w.-]+:/.test(value);
}

export function hasWildcard(value: string): boolean {
  return /[*?[]/.test(value);
}

export function literalPWord(v: string): PWord {
  return { ...emptyWord(), value: v, display: v };
}

/** A token as the program receives it: quotes removed, expansions shown as written. */
export function tokValue(tok: Tok): string {
  if (tok.t === 'eop') return '--';
  if (tok.t === 'word') return tok.w.value;
  return tok.display + (tok.colon && tok.value ? tok.value.value : '');
}

export function paramDisplay(tok: Tok): string {
  if (tok.t === 'eop') return '--';
  if (tok.t === 'word') return tok.w.display;
  return tok.display + (tok.colon && tok.value ? tok.value.display : '');
}


/** Words as a native program receives them (a comma list is several arguments). */
export function nativeWords(toks: Tok[]): PWord[] {
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
