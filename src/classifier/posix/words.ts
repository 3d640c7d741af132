// Decoding the marked words that tokenize.ts returns: what the shell would pass to the program,
// or the fact that it cannot be known statically.
import { MARK, type ScanResult } from './scan.js';
import type { Word } from '../types.js';

export type { Word } from '../types.js';

/** A variable's known value, or null when it is known to be set to something unknown. */
export type ValueTable = Map<string, string | null>;

export interface WordContext {
  scan: ScanResult;
  values: ValueTable;
  home: string | null;
}

const IFS_OR_GLOB = /[\s*?[\]{}]/;

function readIndex(raw: string, at: number): { index: number; end: number } {
  const close = raw.indexOf(MARK.CLOSE, at);
  const end = close < 0 ? raw.length : close;
  return { index: Number(raw.slice(at, end)), end: end + 1 };
}

/** `arg`: the word's index in its simple command (TargetSpec.arg). */
export function decodeWord(raw: string, ctx: WordContext, arg?: number): Word {
  const w: Word = { value: '', display: '', dynamic: false, glob: false, subs: [], vars: [], arg };
  let hasBracket = false;
  let braceOpen = -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    switch (c) {
      case MARK.STAR:
        w.value += '*';
        w.display += '*';
        w.glob = true;
        break;
      case MARK.QMARK:
        w.value += '?';
        w.display += '?';
        w.glob = true;
        break;
      case MARK.LBRACKET:
        w.value += '[';
        w.display += '[';
        hasBracket = true;
        break;
      case MARK.LBRACE:
        braceOpen = w.value.length;
        w.value += '{';
        w.display += '{';
        break;
      case MARK.HASH:
        w.value += '#';
        w.display += '#';
        break;
      case MARK.TILDE: {
        // `~` and `~/…` expand to HOME; `~user`, `~+`, `~-` depend on state we do not read.
        const next = raw[i + 1];
        w.display += '~';
        if ((next === undefined || next === '/') && ctx.home) w.value += ctx.home;
        else {
          w.value += '~';
          w.dynamic = true;
        }
        break;
      }
      case MARK.FD:
        break;
      case MARK.BOTH:
        w.value += '&';
        w.display += '&';
        break;
      case MARK.VAR_OPEN:
      case MARK.QVAR_OPEN: {
        const { index, end } = readIndex(raw, i + 1);
        const ref = ctx.scan.vars[index];
        i = end - 1;
        w.vars.push(ref?.name ?? null);
        w.display += ref?.raw ?? '$?';
        const known = ref?.name != null && ctx.values.has(ref.name) ? ctx.values.get(ref.name) : undefined;
        if (typeof known === 'string' && (c === MARK.QVAR_OPEN || !IFS_OR_GLOB.test(known))) {
          w.value += known;
        } else {
          w.dynamic = true;
        }
        break;
      }
      case MARK.SUB_OPEN: {
        const { index, end } = readIndex(raw, i + 1);
        i = end - 1;
        w.subs.push(index);
        const sub = ctx.scan.subs[index];
        w.display += sub ? (sub.kind === 'backtick' ? '`' + sub.body + '`' : sub.kind === 'process' ? '<(' + sub.body + ')' : sub.kind === 'arith' ? '$((' + sub.body + '))' : '$(' + sub.body + ')') : '$(…)';
        w.dynamic = true;
        break;
      }
      case MARK.HEREDOC_OPEN: {
        const { end } = readIndex(raw, i + 1);
        i = end - 1;
        w.display += '<<heredoc';
        break;
      }
      case MARK.UNKNOWN:
        w.dynamic = true;
        w.display += '$?';
        break;
      default:
        if (c === ']' && hasBracket) w.glob = true;
        if (c === '}' && braceOpen >= 0) {
          const inner = w.value.slice(braceOpen + 1);
          if (inner.includes(',') || inner.includes('..')) w.glob = true;
        }
        w.value += c;
        w.display += c;
    }
  }
  return w;
}

/** Is this raw word an assignment (`NAME=value`, `NAME+=value`)? Returns the name. */
export function assignmentName(raw: string): string | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(raw);
  return m ? m[1]! : null;
}

/** The value part of an assignment word. */
export function assignmentValue(raw: string): string {
  return raw.slice(raw.indexOf('=') + 1);
}
