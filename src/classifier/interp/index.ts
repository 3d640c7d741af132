// Interpreter one-liners and heredocs at text level (docs/classifier.md, "Interpreters"): the code
// given to `python -c`, `node -e`/`-p`, `perl -e`, `ruby -e`, or fed to them on standard input (a
// heredoc, a here-string), is read for its language's deletion calls and for the commands it hands
// to a shell. A lexer per language (exact about strings and comments), one tolerant call reader
// (calls.ts), the languages' tables (apis.ts), and the effects as ops (ops.ts). A script file is not
// read. Used by the POSIX walker's program table; it decides nothing.
import { MAX_DEPTH, opaqueOp, type OpPlace } from '../kit.js';
import { INTERPRETERS } from '../names.js';
import { joinRaw, normalizeAbs } from '../paths.js';
import { smellsDestructive } from '../smell.js';
import type { Op, Word } from '../types.js';
import { CALLS, REFS, takesBareArgs } from './apis.js';
import { readInterpreterArgs } from './argv.js';
import { parseCalls } from './calls.js';
import { srcOf, type Effect, type Scope } from './effects.js';
import { lexJs } from './lex-js.js';
import { lexPerl } from './lex-perl.js';
import { lexPython } from './lex-python.js';
import { lexRuby } from './lex-ruby.js';
import { interpreterOps } from './ops.js';
import type { Lang, Lexed } from './tokens.js';

export type { Lang } from './tokens.js';
export type { Effect } from './effects.js';

const LEXERS: Readonly<Record<Lang, (code: string) => Lexed>> = { python: lexPython, node: lexJs, perl: lexPerl, ruby: lexRuby };

/** The language of an interpreter named by a program word (`python3.12`, `nodejs`), or null. */
export function languageOf(program: string): Lang | null {
  return Object.prototype.hasOwnProperty.call(INTERPRETERS, program) ? INTERPRETERS[program]! : null;
}

/** What a language's code does, in source order: deletions, shell commands, directory changes, and
 *  what cannot be read. Code it runs by itself (`exec('…')`, an f-string's fields) is read too. */
export function analyze(lang: Lang, code: string, depth = 0): Effect[] {
  if (depth > MAX_DEPTH) return [{ kind: 'unreadable', why: 'code nested deeper than agent-guard follows' }];
  const lexed = LEXERS[lang](code);
  if (lexed.error !== null) return [{ kind: 'unreadable', why: lexed.error }];
  const parsed = parseCalls(lexed.toks, lang, (n) => takesBareArgs(lang, n));
  if (parsed.error !== null) return [{ kind: 'unreadable', why: parsed.error }];
  const scope: Scope = { lang, code, binds: new Map(), stars: [] };
  const out: Effect[] = [];
  for (const ev of parsed.events) {
    if (ev.e === 'bind') scope.binds.set(ev.name, ev.value);
    else if (ev.e === 'star') scope.stars.push(ev.module);
    else if (ev.e === 'ref') out.push(...REFS[lang](ev.node, scope));
    else if (ev.e === 'call') {
      for (const e of CALLS[lang](ev.node, scope)) {
        if (e.kind === 'code') out.push(...analyze(lang, e.code, depth + 1));
        else out.push(e);
      }
    } else {
      const t = ev.tok;
      if (t.flavor === 'shell') {
        const src = srcOf({ n: 'other', at: t.at, end: t.end }, scope);
        out.push({ kind: 'shell', api: src.startsWith('%x') ? '%x' : src.startsWith('qx') ? 'qx' : 'backticks', src, text: t.v !== null ? { lit: t.v } : { computed: 'a command built when it runs' } });
      }
      for (const c of t.code) out.push(...analyze(lang, c, depth + 1));
    }
  }
  return out;
}

/** What the interpreter's standard input holds: a text (a heredoc, a here-string; `dynamic` when the
 *  shell expands something in it), another command's output (a pipe), a file, or nothing known. */
export type Stdin = { kind: 'text'; text: string; dynamic: boolean; expands?: true } | { kind: 'pipe' } | { kind: 'file' } | { kind: 'none' };

/** An unquoted heredoc's body as the shell hands it on: `\$`, `\``, `\\` unescaped, `\`⏎ joined;
 *  dynamic when it holds an expansion (`$name`, `${…}`, `$(…)`, a backtick). */
function expanded(body: string): { text: string; dynamic: boolean } {
  return { text: body.replace(/\\\n/g, '').replace(/\\([$`\\])/g, '$1'), dynamic: /(^|[^\\])(\$[A-Za-z_{(0-9@*#?$!-]|`)/.test(body) };
}

export interface InterpCall {
  /** The interpreter as named, and its arguments. */
  program: string;
  args: readonly Word[];
  stdin: Stdin;
  at: OpPlace;
  /** The line the interpreter is on (a piped program is judged by its smell). */
  lineText: string;
  judgeShell(text: string, cwd: string | null): string | null;
}

/** The ops of an interpreter call: what its program deletes and hands to a shell. */
export function interpreterCallOps(c: InterpCall): Op[] {
  const lang = languageOf(c.program)!;
  const a = readInterpreterArgs(lang, c.args);
  let code: string;
  let dynamic = a.dynamic;
  if (a.source === 'code') code = a.code;
  else if (a.source === 'stdin' && c.stdin.kind === 'text') {
    const t = c.stdin.expands ? expanded(c.stdin.text) : c.stdin;
    code = t.text;
    dynamic = t.dynamic;
  } else if (a.source === 'stdin' && c.stdin.kind === 'pipe') {
    // Its program is another command's output, known only when it runs: judged by the line's smell
    // (`printf 'import os\nos.remove(…)'`: an escape sequence is a separator there).
    if (!smellsDestructive(c.lineText.replace(/\\[ntr]/g, ' '))) return [];
    return [opaqueOp(c.program, c.lineText, { reason: 'computed', detail: `${c.program} runs a program it reads from a pipe` }, c.at, [c.program])];
  } else return [];
  let at = c.at;
  if (a.chdir !== undefined) {
    // ruby -C DIR: the program runs in DIR (a directory change, as `cd DIR &&` is).
    const d = a.chdir;
    const dir = d.dynamic || (at.cwd === null && !d.value.startsWith('/')) ? null : normalizeAbs(joinRaw(at.cwd ?? '/', d.value));
    at = { ...at, cwd: dir, cdBefore: true };
  }
  return interpreterOps(analyze(lang, code), { program: c.program, code, dynamic, at, judgeShell: c.judgeShell });
}
