// The cmd.exe dialect front end: a cmd command line in, the same facts the POSIX classifier produces
// out (one Op per operation of the vocabulary). It decides nothing; the policy rules judge the Ops.
//
// cmd reads a line in a few passes that matter here: `%…%` expansion first (so a word holding one is
// unknown, quoted or not), then `^` escapes and double quotes (no backslash escapes: `\` is a path
// separator), then the separators `& && | ||`, newlines, parenthesized blocks and redirections, which
// need no spaces around them (`del a&del b` is two commands). Internal commands end their name at `/`
// (`del/q`, `rd/s/q`, `cd..`) and read `, ; =` as spaces between operands.
import type { ClassifyOptions } from './index.js';
import type { Classification, Op, OpKind, TargetSpec, Undeterminable } from './types.js';
import type { Word } from './words.js';
import { classifyGit } from './git.js';
import { isUndeterminable } from './rm.js';
import { smellsDestructive } from './smell.js';
import { floorReason, isFloorVerb, verbKey } from './vocabulary.js';
import { windowsTarget } from './winpath.js';
import { finishClassification, literalWord, makeOp } from './op.js';

/** How deep cmd /c, call and start are followed before the text counts as unreadable (as index.ts). */
const MAX_DEPTH = 8;
/** Programs that create files or directories (shape F2). */
const CREATORS: ReadonlySet<string> = new Set(['copy', 'xcopy', 'robocopy', 'md', 'mkdir', 'mklink', 'ren', 'rename', 'move']);
const CD: ReadonlySet<string> = new Set(['cd', 'chdir', 'pushd', 'popd']);
const POSIX_SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
/** Internal commands: cmd ends their name at `/ \ . ( + , ; = [ ]` (`del/q x`, `cd..`, `cd\`). */
const BUILTIN_PREFIX = /^(del|erase|rmdir|rd|chdir|cd|mkdir|md|pushd|popd|copy|move|rename|ren|echo|type|call|start|set)([\\/.(+,;=[\]].*)$/i;
/** A working directory longer than this (PATH_MAX on the POSIX host) is read as unknown: no call could
 *  use it, and following ever longer ones would cost quadratic time. */
const PATH_LIMIT = 4096;

// ---------------------------------------------------------------------------------------------
// Lexing

interface CWord {
  /** What the program receives: quotes and `^` escapes removed, `%VAR%` left as written. */
  value: string;
  /** Quotes kept, `^` escapes removed: what a nested `cmd /c` reads again. */
  text: string;
  /** As written in the line. */
  raw: string;
  /** One character per character of `value`: '1' when it was neither quoted nor escaped. */
  unq: string;
  /** The word begins with a double quote (`start "title"`). */
  quoted: boolean;
  /** Holds `%VAR%`, `%1`, `%~dp0`, `%%i` or `!VAR!`: a value known only when cmd runs the line. */
  dynamic: boolean;
}

interface Redirect {
  op: '>' | '>>' | '<';
  handle: string;
  /** The file; null for a handle duplication (`2>&1`) or a missing target. */
  target: CWord | null;
}

type Connector = 'start' | '&' | '&&' | '|' | '||' | 'newline' | '(' | ')' | 'end';

interface SimpleCommand {
  type: 'command';
  words: CWord[];
  redirects: Redirect[];
  before: Connector;
  after: Connector;
  /** The command as written. */
  text: string;
}

/** `if …` / `for …`: cmd reads the rest of the line (blocks included) as the statement's body. */
interface Statement {
  type: 'statement';
  keyword: 'if' | 'for';
  body: string;
  text: string;
  before: Connector;
  after: Connector;
}

type Item = SimpleCommand | Statement;

interface Lexed {
  items: Item[];
  /** An unterminated quote or an unclosed block. */
  unbalanced: boolean;
}

const DYNAMIC_PERCENT = /%[^%]*%|%[~0-9*]/;
const DYNAMIC_BANG = /![^!]+!/;

function isDynamic(s: string): boolean {
  return s.includes('%') ? DYNAMIC_PERCENT.test(s) : s.includes('!') && DYNAMIC_BANG.test(s);
}

/** The names a word's `%NAME%`, `%NAME:~0,3%` and `!NAME!` expansions read, upper case. */
function variableNames(raw: string): string[] {
  const names: string[] = [];
  for (const m of raw.matchAll(/%([^%:]+)(?::[^%]*)?%|!([^!:]+)(?::[^!]*)?!/g)) names.push((m[1] ?? m[2] ?? '').toUpperCase());
  return names;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\v' || c === '\f';
}

function keywordOf(w: CWord): 'if' | 'for' | null {
  const v = w.value.toLowerCase();
  if (v === 'if' || v.startsWith('if/')) return 'if';
  if (v === 'for' || v.startsWith('for/')) return 'for';
  return null;
}

function lex(src: string): Lexed {
  const n = src.length;
  const items: Item[] = [];
  let unbalanced = false;
  let depth = 0;

  let words: CWord[] = [];
  let redirects: Redirect[] = [];
  let pending: Redirect | null = null;
  let cmdStart = -1;
  let before: Connector = 'start';

  let inWord = false;
  let wStart = 0;
  let wv: string[] = [];
  let wt: string[] = [];
  let wu: string[] = [];
  let inQuote = false;

  const resetWord = (): void => {
    inWord = false;
    wv = [];
    wt = [];
    wu = [];
  };
  const startWord = (i: number): void => {
    if (inWord) return;
    inWord = true;
    wStart = i;
    if (cmdStart < 0) cmdStart = i;
  };
  const finishWord = (end: number): void => {
    if (!inWord) return;
    const raw = src.slice(wStart, end);
    const value = wv.join('');
    const w: CWord = { value, text: wt.join(''), raw, unq: wu.join(''), quoted: raw.startsWith('"'), dynamic: isDynamic(raw) || isDynamic(value) };
    resetWord();
    if (pending) {
      pending.target = w;
      redirects.push(pending);
      pending = null;
    } else words.push(w);
  };
  const atCommandStart = (): boolean => !inWord && words.length === 0 && redirects.length === 0 && pending === null;
  const finishCommand = (end: number, after: Connector): void => {
    finishWord(end);
    if (pending) {
      redirects.push(pending);
      pending = null;
    }
    if (words.length > 0 || redirects.length > 0) {
      items.push({ type: 'command', words, redirects, before, after, text: src.slice(Math.max(cmdStart, 0), end) });
    }
    words = [];
    redirects = [];
    cmdStart = -1;
    before = after;
  };
  /** From `from` (after the keyword) to the end of the statement: a newline outside any block the
   *  statement opened, a `)` closing a block around it, or the end of the text. */
  const statementEnd = (from: number): number => {
    let j = from;
    let d = 0;
    let q = false;
    while (j < n) {
      const c = src[j]!;
      if (q) {
        if (c === '"') q = false;
        else if (c === '\n') {
          q = false;
          unbalanced = true;
          if (d === 0) break;
        }
        j++;
        continue;
      }
      if (c === '"') q = true;
      else if (c === '^') {
        j += src[j + 1] === '\r' && src[j + 2] === '\n' ? 3 : 2; // an escape, or a continued line
        continue;
      } else if (c === '(') d++;
      else if (c === ')') {
        if (d > 0) d--;
        else if (depth > 0) break;
      } else if (c === '\n' && d === 0) break;
      j++;
    }
    if (q || d > 0) unbalanced = true;
    return Math.min(j, n);
  };

  for (let i = 0; i < n; i++) {
    const c = src[i]!;
    if (c === '\r') continue; // cmd drops every carriage return before it reads the line
    if (inQuote) {
      if (c === '"') {
        inQuote = false;
        wt.push(c);
        continue;
      }
      if (c !== '\n') {
        wv.push(c);
        wt.push(c);
        wu.push('0');
        continue;
      }
      // A quote ends with its line: cmd accepts that; agent-guard reads the line as unbalanced.
      inQuote = false;
      unbalanced = true;
    }
    if (c === '"') {
      startWord(i);
      wt.push(c);
      inQuote = true;
      continue;
    }
    if (c === '^') {
      let j = i + 1;
      while (j < n && src[j] === '\r') j++;
      if (j >= n) {
        i = n;
        continue;
      }
      if (src[j] === '\n') {
        // `^` at the end of a line continues it. (cmd also escapes the first character of the next
        // line; here it is read as written, so a separator there still separates: the stricter reading.)
        i = j;
        continue;
      }
      startWord(i);
      wv.push(src[j]!);
      wt.push(src[j]!);
      wu.push('0');
      i = j;
      continue;
    }
    if (c === '\n') {
      finishCommand(i, 'newline');
      continue;
    }
    if (c === '&' || c === '|') {
      const doubled = src[i + 1] === c;
      finishCommand(i, doubled ? (c === '&' ? '&&' : '||') : c);
      if (doubled) i++;
      continue;
    }
    if (c === '(' && atCommandStart()) {
      depth++;
      before = '(';
      continue;
    }
    if (c === ')' && depth > 0) {
      finishCommand(i, ')');
      depth--;
      continue;
    }
    if (c === '<' || c === '>') {
      let handle = '';
      if (inWord && wv.length === 1 && wu[0] === '1' && /[0-9]/.test(wv[0]!)) {
        handle = wv[0]!;
        resetWord();
      } else finishWord(i);
      if (cmdStart < 0) cmdStart = i;
      if (pending) redirects.push(pending);
      pending = null;
      let op: Redirect['op'] = c === '<' ? '<' : '>';
      if (c === '>' && src[i + 1] === '>') {
        op = '>>';
        i++;
      }
      if (src[i + 1] === '&') {
        // `2>&1`, `>&2`: a handle duplication, no file.
        i++;
        while (i + 1 < n && /[0-9]/.test(src[i + 1]!)) i++;
        redirects.push({ op, handle, target: null });
        continue;
      }
      pending = { op, handle, target: null };
      continue;
    }
    if (isSpace(c)) {
      finishWord(i);
      const first = words[0];
      if (words.length === 1 && redirects.length === 0 && pending === null && first) {
        const kw = keywordOf(first);
        if (kw) {
          const end = statementEnd(i);
          items.push({ type: 'statement', keyword: kw, body: src.slice(i, end), text: src.slice(Math.max(cmdStart, 0), end), before, after: 'end' });
          words = [];
          cmdStart = -1;
          i = Math.max(i, end - 1); // the `)`, newline or end is read next
          continue;
        }
      }
      continue;
    }
    if (atCommandStart() && (c === '@' || c === ',' || c === ';' || c === '=')) continue; // `@del x`, `;del x`
    startWord(i);
    wv.push(c);
    wt.push(c);
    wu.push('1');
  }
  if (inQuote) unbalanced = true;
  finishCommand(n, 'end');
  if (depth > 0) unbalanced = true;
  // Record what follows each item (a pipe on either side runs it in a child cmd).
  for (let k = 0; k + 1 < items.length; k++) items[k]!.after = items[k + 1]!.before;
  return { items, unbalanced };
}

// ---------------------------------------------------------------------------------------------
// Smells

/** Does `text` name a destructive verb? The POSIX smell, or any word that is a destructive verb of some
 *  dialect (`del`, `rd`, `Remove-Item`, `C:\x\rm.exe`). Linear in the length of the text. */
function destructiveText(text: string): boolean {
  for (const token of text.split(/[^A-Za-z0-9_.-]+/)) {
    if (token !== '' && isFloorVerb(token, 'cmd')) return true;
  }
  return smellsDestructive(text);
}

/** Words whose splitting on unquoted characters is needed by internal commands (`del a,b`, `del x/s`). */
function splitUnquoted(w: CWord, chars: string): CWord[] {
  const out: CWord[] = [];
  let start = 0;
  for (let k = 0; k <= w.value.length; k++) {
    if (k < w.value.length && !(w.unq[k] === '1' && chars.includes(w.value[k]!))) continue;
    if (k > start || (k === w.value.length && start === 0 && w.value === '')) {
      const value = w.value.slice(start, k);
      out.push({ ...w, value, unq: w.unq.slice(start, k), raw: start === 0 && k === w.value.length ? w.raw : value, dynamic: w.dynamic && isDynamic(value) });
    }
    start = k + 1;
  }
  return out;
}

/** Win32 drops trailing dots and spaces from path components (`del "x. "` deletes `x`, `rd "C:\\ "` is
 *  the drive root, `"sub\\.. "` is the parent). */
function win32Trim(v: string): string {
  if (!/[. ]([\\/]|$)/.test(v) || /^[\\/]{2}[?.][\\/]/.test(v)) return v; // nothing to trim, or a \\?\ path taken verbatim
  return v
    .split(/[\\/]/)
    .map((c) => {
      const t = c.replace(/ +$/, '');
      if (t === '') return c === '' ? c : '.';
      if (t === '.' || t === '..') return t;
      // `...`, `. .`: read as the parent, the wider of the directories it could name (fail closed).
      return /^[. ]+$/.test(t) ? '..' : t.replace(/[. ]+$/, '');
    })
    .join('\\');
}

/** A cmd operand as a target (`raw` as written). */
function cmdTarget(value: string, cwd: string | null, home: string | null, glob: boolean): TargetSpec | Undeterminable {
  const t = windowsTarget(win32Trim(value), cwd, { tilde: false, home, glob });
  return isUndeterminable(t) ? t : { ...t, raw: value };
}

// ---------------------------------------------------------------------------------------------
// Walking

interface Scope {
  cwd: string | null;
  /** A cd/pushd/popd ran earlier in the line. */
  cd: boolean;
  /** A creating command or an output redirection ran earlier in the line. */
  created: boolean;
  /** pushd's directory stack, as far as this line built it. */
  stack: (string | null)[];
  /** Environment names `set` on the line (for git's environment checks). */
  env: string[];
  /** Names `set` on the line to text that names a destructive verb (upper case). cmd expands a variable
   *  before it splits commands, so `%X%` may run what X holds. */
  tainted: Set<string>;
}

interface Walk {
  ops: Op[];
  commandCount: number;
  unbalanced: boolean;
  /** Something in the text created files (propagated out of a nested cmd /c). */
  created: boolean;
}

interface Site {
  opts: ClassifyOptions;
  scope: Scope;
  lineText: string;
  item: SimpleCommand | null;
  /** The command being read creates files (set by commandOps, applied after the command). */
  creates: boolean;
}

function isEffective(op: Op): boolean {
  return op.undeterminable !== null || (!op.dryRun && !op.noTargets);
}

function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function newOp(program: string, kind: OpKind, argv: string[], site: Site, cwd: string | null, wrappers: string[]): Op {
  const op = makeOp({ program, kind, argv, cwd, cdBefore: site.scope.cd, createBefore: site.scope.created });
  op.wrappers = [...wrappers];
  return op;
}

function opaqueOp(program: string, text: string, reason: Undeterminable, site: Site, cwd: string | null, wrappers: string[], argv: string[] = [text]): Op {
  const op = newOp(program, 'opaque', argv, site, cwd, wrappers);
  op.undeterminable = reason;
  op.inner = text;
  return op;
}

function indirectOp(program: string, text: string, what: string, argv: string[], site: Site, cwd: string | null, wrappers: string[], reason: 'indirect-shell' | 'source' = 'indirect-shell'): Op {
  const op = newOp(program, 'indirect', argv, site, cwd, wrappers);
  op.inner = text;
  op.undeterminable = { reason, detail: `${program} runs text that is read only when it runs (${clip(what)})` };
  return op;
}

function variableReason(w: CWord): Undeterminable {
  return { reason: 'variable', detail: `${w.raw} depends on a value that is not known before the command runs` };
}

function commandText(words: CWord[]): string {
  return words.map((w) => w.raw).join(' ');
}

/** The program word, with an internal command's glued remainder split off (`del/q` → `del`, `/q`). */
function splitProgram(words: CWord[]): CWord[] {
  const first = words[0]!;
  if (first.dynamic) return words;
  const m = BUILTIN_PREFIX.exec(first.value);
  if (!m || /^\.(exe|com|bat|cmd)$/i.test(m[2]!)) return words;
  const len = m[1]!.length;
  const name: CWord = { ...first, value: m[1]!, text: m[1]!, raw: m[1]!, unq: first.unq.slice(0, len) };
  const restValue = m[2]!;
  const rest: CWord = {
    value: restValue,
    text: first.text.toLowerCase().startsWith(m[1]!.toLowerCase()) ? first.text.slice(len) : restValue,
    raw: first.raw.toLowerCase().startsWith(m[1]!.toLowerCase()) ? first.raw.slice(len) : restValue,
    unq: first.unq.slice(len),
    quoted: false,
    dynamic: isDynamic(restValue),
  };
  return [name, rest, ...words.slice(1)];
}

function walk(text: string, opts: ClassifyOptions, cwd: string | null, depth: number, createdBefore: boolean): Walk {
  const lx = lex(text);
  const res: Walk = { ops: [], commandCount: lx.items.length, unbalanced: lx.unbalanced, created: false };
  const scope: Scope = { cwd, cd: false, created: createdBefore, stack: [], env: [], tainted: new Set() };
  if (lx.unbalanced) {
    // cmd runs such a line, but where the quote or block ends decides what is an operand: fail closed.
    res.commandCount = Math.max(1, res.commandCount);
    if (destructiveText(text)) {
      const site: Site = { opts, scope, lineText: text, item: null, creates: false };
      res.ops.push(opaqueOp('?', text, { reason: 'unbalanced', detail: 'the line has an unterminated quote or block' }, site, cwd, []));
    }
    return res;
  }
  for (const item of lx.items) {
    const site: Site = { opts, scope, lineText: text, item: item.type === 'command' ? item : null, creates: false };
    if (item.type === 'statement') {
      // The loop variable (or the condition) decides what the body touches: opaque when destructive.
      if (destructiveText(item.body)) {
        res.ops.push(
          opaqueOp(item.keyword, item.text, { reason: 'opaque-syntax', detail: `an ${item.keyword} statement whose body runs a destructive command on operands known only when it runs` }, site, scope.cwd, []),
        );
      }
      // A directory change or a creation inside the body may or may not happen.
      if (/(^|[^A-Za-z0-9_-])(cd|chdir|pushd|popd)([^A-Za-z0-9_-]|$)/i.test(item.body)) {
        scope.cwd = null;
        scope.cd = true;
      }
      if (/(^|[^A-Za-z0-9_-])(copy|xcopy|robocopy|md|mkdir|mklink|ren|rename|move)([^A-Za-z0-9_-]|$)/i.test(item.body) || /[>]+[ \t]*(?![ \t]|&|nul\b|"nul")/i.test(item.body)) {
        scope.created = true;
        res.created = true;
      }
      continue;
    }
    for (const op of commandOps(item.words, site, scope.cwd, [], depth, false)) res.ops.push(op);
    const output = item.redirects.some((r) => r.op !== '<' && (r.target === null ? false : r.target.dynamic || !/^nul:?$/i.test(r.target.value)));
    if (site.creates || output) {
      scope.created = true;
      res.created = true;
    }
  }
  return res;
}

function commandOps(input: CWord[], site: Site, cwd: string | null, wrappers: string[], depth: number, detached: boolean): Op[] {
  if (input.length === 0) return [];
  const text = commandText(input);
  if (depth > MAX_DEPTH) {
    return destructiveText(text) ? [opaqueOp('?', text, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, site, cwd, wrappers)] : [];
  }
  if (site.scope.tainted.size > 0) {
    const tainted = input.find((w) => w.dynamic && variableNames(w.raw).some((name) => site.scope.tainted.has(name)));
    if (tainted) {
      return [opaqueOp(verbKey(input[0]!.value) || '?', text, { reason: 'variable', detail: `${tainted.raw} expands to a destructive command set earlier on the line` }, site, cwd, wrappers, input.map((w) => w.value))];
    }
  }
  const words = splitProgram(input);
  const first = words[0]!;
  const argv = words.map((w) => w.value);
  if (first.dynamic) {
    if (!destructiveText(text)) return [];
    return [opaqueOp(first.raw, text, { reason: 'dynamic-program', detail: `the program ${first.raw} is known only when the command runs` }, site, cwd, wrappers, argv)];
  }
  const program = verbKey(first.value);
  const args = words.slice(1);
  if (program === '') return [];
  if (CREATORS.has(program)) site.creates = true;

  if (CD.has(program)) {
    if (!detached) changeDirectory(program, args, site);
    return [];
  }
  if (program === 'del' || program === 'erase' || program === 'rd' || program === 'rmdir') {
    return [deleteOp(program, args, argv, site, cwd, wrappers)];
  }
  if (program === 'git') return gitOps(args, argv, text, site, cwd, wrappers);
  if (program === 'cmd') return cmdShellOps(args, argv, site, cwd, wrappers, depth);
  if (program === 'powershell' || program === 'pwsh') return powershellOps(program, args, argv, site, cwd, wrappers);
  if (POSIX_SHELLS.has(program) || program === 'wsl') return posixShellOps(program, args, argv, site, cwd, wrappers);
  if (program === 'call') {
    // `call :label` runs a batch label, which a command line does not have.
    if (args.length === 0 || args[0]!.value.startsWith(':')) return [];
    return commandOps(args, site, cwd, [...wrappers, 'call'], depth + 1, detached);
  }
  if (program === 'start') return startOps(args, site, cwd, wrappers, depth);
  if (program === 'forfiles') {
    let body: string | null = null;
    for (let k = 0; k < args.length; k++) {
      const v = args[k]!.value;
      if (/^[/-]c$/i.test(v)) body = args[k + 1]?.value ?? '';
      else if (/^[/-]c./i.test(v)) body = v.slice(2);
      else continue;
      break;
    }
    if (body === null || !destructiveText(body)) return [];
    return [opaqueOp('forfiles', body, { reason: 'opaque-syntax', detail: 'forfiles runs a destructive command on each file it finds' }, site, cwd, wrappers, argv)];
  }
  if (program === 'set') {
    const rest = args.filter((w) => !/^\/[ap]$/i.test(w.value));
    const assignment = rest.map((w) => w.value).join(' ');
    const m = /^\s*([^=\s]+)=/.exec(assignment);
    if (m) {
      const name = m[1]!.toUpperCase();
      site.scope.env.push(name);
      if (destructiveText(assignment.slice(m[0].length))) site.scope.tainted.add(name);
      else site.scope.tainted.delete(name);
    }
    return [];
  }
  if (isFloorVerb(first.value, 'cmd')) {
    return [opaqueOp(program, text, floorReason(first.value, 'cmd'), site, cwd, wrappers, argv)];
  }
  return [];
}

function changeDirectory(program: string, args: CWord[], site: Site): void {
  const scope = site.scope;
  const piped = site.item !== null && (site.item.before === '|' || site.item.after === '|');
  if (program === 'popd') {
    scope.cwd = scope.stack.length > 0 && !piped ? scope.stack.pop()! : null;
    scope.cd = true;
    return;
  }
  const operands = args.filter((w) => w.dynamic || !/^\/d$/i.test(w.value));
  if (operands.some((w) => w.value === '/?')) return; // help
  const joined = operands.map((w) => w.value).join(' ').trim(); // `cd Program Files` needs no quotes
  if (joined === '') return; // `cd`, `pushd` alone only print
  let dest: string | null = null;
  if (!piped && !operands.some((w) => w.dynamic)) {
    const t = cmdTarget(joined, scope.cwd, site.opts.home, false);
    // A drive or UNC destination names no place on this host (and `cd D:\x` without /d does not even
    // change the current drive): the directory later ops run in is unknown.
    if (!isUndeterminable(t) && t.foreign === undefined && t.path !== null && t.path.length <= PATH_LIMIT) dest = t.path;
  }
  if (program === 'pushd') scope.stack.push(scope.cwd);
  scope.cwd = dest;
  scope.cd = true;
}

function deleteOp(program: 'del' | 'erase' | 'rd' | 'rmdir', args: CWord[], argv: string[], site: Site, cwd: string | null, wrappers: string[]): Op {
  const op = newOp(program, 'fs-delete', argv, site, cwd, wrappers);
  const isDel = program === 'del' || program === 'erase';
  const operands: CWord[] = [];
  const switchGroup = (group: string, w: CWord): void => {
    for (const sw of group.split('/')) {
      const s = sw.toLowerCase();
      if (s === '?') op.dryRun = true;
      else if (s === 's') op.recursive = true;
      else if (s === 'q') continue;
      else if (isDel && (s === 'f' || s === 'p' || /^a:?[-rhsailox]*$/.test(s))) continue;
      else op.undeterminable ??= { reason: 'unknown-option', detail: `${program} switch /${sw} (in ${w.raw}) is not one agent-guard knows the effect of` };
    }
  };
  for (const word of args) {
    if (word.dynamic) {
      // An expansion may turn into switches as well as operands: the whole call is unknown.
      op.undeterminable ??= variableReason(word);
      continue;
    }
    for (const piece of splitUnquoted(word, ',;=')) {
      const v = piece.value;
      if (v.startsWith('/')) {
        switchGroup(v.slice(1), word);
        continue;
      }
      // Internal commands find switches anywhere outside quotes: `del x/s` is `del x /s`.
      let slash = -1;
      for (let k = 0; k < v.length; k++) {
        if (v[k] === '/' && piece.unq[k] === '1') {
          slash = k;
          break;
        }
      }
      if (slash >= 0) {
        switchGroup(v.slice(slash + 1), word);
        operands.push({ ...piece, value: v.slice(0, slash), unq: piece.unq.slice(0, slash) });
      } else operands.push(piece);
    }
  }
  const targets: TargetSpec[] = [];
  for (const w of operands) {
    if (w.value === '') continue; // `del ""` names nothing
    // del and rd expand `*` and `?` themselves, quoted or not.
    const t = cmdTarget(w.value, cwd, site.opts.home, /[*?]/.test(w.value));
    if (isUndeterminable(t)) op.undeterminable ??= t;
    else targets.push(t);
  }
  op.targets = targets;
  op.noTargets = targets.length === 0 && op.undeterminable === null;
  if (isDel && op.recursive && !op.dryRun && !op.noTargets) {
    // `del /s NAME` deletes the files matching NAME in NAME's directory and in every directory below
    // it (`del /s x.txt` removes each x.txt of the tree): more than the named path, and a set that is
    // known only when it runs. (`rd /s` removes the one named tree and stays relocatable.)
    op.undeterminable ??= { reason: 'recursive-match', detail: `${program} /s deletes what matches its operand in every subdirectory, a set known only when it runs (rd /s removes one named tree)` };
  }
  return op;
}

function gitOps(args: CWord[], argv: string[], text: string, site: Site, cwd: string | null, wrappers: string[]): Op[] {
  // Git for Windows takes `\` as a separator; a drive or UNC path names no place on this host.
  const gw: Word[] = args.map((w) => literalWord(w.value.replace(/\\/g, '/'), w.value, w.dynamic, false));
  const g = classifyGit(gw, cwd, site.scope.env);
  if (g.noop) return [];
  const configs = g.facts.globals.filter((_, i, a) => a[i - 1] === '-c');
  const runs = configs.find((c) => destructiveText(c.slice(c.indexOf('=') + 1)));
  if (runs !== undefined) return [indirectOp('git', runs, runs, argv, site, cwd, wrappers)];
  if (g.dynamicSubcommand) {
    if (!destructiveText(text)) return [];
    return [opaqueOp('git', text, g.undeterminable ?? { reason: 'dynamic-program', detail: 'the git subcommand is known only when the command runs' }, site, cwd, wrappers, argv)];
  }
  if (g.aliasCandidate !== undefined) {
    if (g.facts.globals.includes('--config-env') || site.scope.env.some((n) => /^GIT_CONFIG/.test(n))) {
      return [opaqueOp('git', text, { reason: 'git-environment', detail: `git ${g.aliasCandidate} may be an alias defined in the environment` }, site, cwd, wrappers, argv)];
    }
    const key = `alias.${g.aliasCandidate}=`.toLowerCase();
    const onLine = configs.filter((c) => c.toLowerCase().startsWith(key)).pop();
    const expansion = onLine !== undefined ? onLine.slice(onLine.indexOf('=') + 1) : (site.opts.resolveGitAlias?.(g.aliasCandidate, cwd, g.facts.globals) ?? null);
    if (expansion === null) return [];
    // The expansion is not followed here (fail closed): a destructive-smelling alias is opaque.
    const expanded = `${expansion} ${args.map((w) => w.value).join(' ')}`;
    if (!destructiveText(expanded) && !destructiveText(`git ${expanded}`)) return [];
    return [opaqueOp('git', text, { reason: 'opaque-syntax', detail: `git ${g.aliasCandidate} is an alias for ${clip(expansion)}, which the cmd dialect does not follow` }, site, cwd, wrappers, argv)];
  }
  if (g.kind === null) return [];
  const op = newOp('git', g.kind, argv, site, cwd, wrappers);
  Object.assign(op, { git: g.facts, dryRun: g.dryRun, noTargets: g.noTargets, recursive: g.recursive, targets: g.targets, undeterminable: g.undeterminable });
  const foreign = args.find((w) => !w.dynamic && /^([A-Za-z]:|[\\/]{2})/.test(w.value));
  if (foreign) op.undeterminable ??= { reason: 'unknown-cwd', detail: `${foreign.value} is a Windows drive or UNC path, which names no place agent-guard can judge` };
  return [op];
}

function cmdShellOps(args: CWord[], argv: string[], site: Site, cwd: string | null, wrappers: string[], depth: number): Op[] {
  // Switches up to /c, /k (or /r, the old /c); the command text is the rest of the line as the nested
  // cmd reads it: quotes kept, the outer `^` escapes gone.
  let inner: string | null = null;
  for (let k = 0; k < args.length && inner === null; k++) {
    const w = args[k]!;
    if (w.dynamic && !w.text.startsWith('/')) {
      inner = args.slice(k).map((x) => x.text).join(' ');
      break;
    }
    if (!w.text.startsWith('/')) break; // not a switch: cmd starts an interactive shell
    const pieces = w.text.split('/');
    for (let p = 1; p < pieces.length; p++) {
      const s = pieces[p]!;
      if (/^[ckr]/i.test(s)) {
        const glued = [s.slice(1), ...pieces.slice(p + 1)].join('/');
        inner = [glued, ...args.slice(k + 1).map((x) => x.text)].filter((x) => x !== '').join(' ');
        break;
      }
    }
  }
  if (inner === null) {
    // `… | cmd`, `cmd < file`: the shell reads its commands from standard input.
    const item = site.item;
    const input = item !== null && item.redirects.some((r) => r.op === '<');
    const piped = item !== null && item.before === '|';
    if ((input || piped) && destructiveText(site.lineText)) return [indirectOp('cmd', site.lineText, site.lineText, argv, site, cwd, wrappers, input ? 'source' : 'indirect-shell')];
    return [];
  }
  // cmd strips the first quote and the last one when the text begins with a quote.
  let body = inner.trimStart();
  if (body.startsWith('"')) {
    const last = body.lastIndexOf('"');
    body = last > 0 ? body.slice(1, last) + body.slice(last + 1) : body.slice(1);
  }
  if (depth >= MAX_DEPTH) {
    return destructiveText(body) ? [opaqueOp('cmd', body, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, site, cwd, wrappers, argv)] : [];
  }
  const nested = walk(body, site.opts, cwd, depth + 1, false);
  if (nested.created) site.creates = true;
  const effective = nested.ops.find(isEffective);
  let what: string | null = null;
  if (effective) what = effective.argv.join(' ') || effective.program;
  else if (nested.unbalanced && destructiveText(body)) what = body;
  if (what === null) return [];
  return [indirectOp('cmd', body, what, argv, site, cwd, wrappers)];
}

const PS_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  'executionpolicy', 'ep', 'ex', 'exe', 'exec', 'windowstyle', 'w', 'win', 'window', 'version', 'v', 'psconsolefile', 'inputformat', 'if', 'inp', 'outputformat', 'of', 'o', 'out',
  'configurationname', 'config', 'workingdirectory', 'wd', 'custompipename', 'settingsfile', 'settings', 'configurationfile', 'encodedarguments', 'ea', 'encodeda',
]);

function powershellOps(program: string, args: CWord[], argv: string[], site: Site, cwd: string | null, wrappers: string[]): Op[] {
  let textWords: CWord[] | null = null;
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!;
    const m = /^(?:--?|\/)([A-Za-z]+)(?::.*)?$/.exec(w.value);
    if (w.dynamic || !m) {
      // Windows PowerShell runs positional arguments as a command; pwsh takes them as a script file.
      // Both are read as a command here (the stricter reading).
      textWords = args.slice(k);
      break;
    }
    const name = m[1]!.toLowerCase();
    if (name === 'e' || name === 'ec' || (name.length >= 2 && 'encodedcommand'.startsWith(name))) {
      return [indirectOp(program, args.slice(k).map((x) => x.value).join(' '), '-EncodedCommand hides the command text', argv, site, cwd, wrappers)];
    }
    if (name === 'c' || (name.length >= 3 && 'command'.startsWith(name))) {
      textWords = args.slice(k + 1);
      break;
    }
    if ('file'.startsWith(name)) return []; // a script file: what it does inside is not seen
    if (PS_VALUE_OPTIONS.has(name) && !w.value.includes(':')) k++;
  }
  if (textWords === null || textWords.length === 0) return [];
  let text = textWords.map((w) => w.value).join(' ');
  if (text === '-') text = site.lineText; // -Command - reads standard input
  if (!destructiveText(text)) return [];
  return [indirectOp(program, text, text, argv, site, cwd, wrappers)];
}

function posixShellOps(program: string, args: CWord[], argv: string[], site: Site, cwd: string | null, wrappers: string[]): Op[] {
  let text: string | null = null;
  if (program === 'wsl') {
    // `wsl rm -rf x`, `wsl -e …`, `wsl -- …`, `wsl bash -c …`: judged as text.
    if (args.length > 0) text = args.map((w) => w.value).join(' ');
  } else {
    let k = 0;
    let commandMode = false;
    for (; k < args.length; k++) {
      const v = args[k]!.value;
      if (v === '--' || v === '-') {
        k++;
        break;
      }
      if (v.startsWith('--')) continue;
      if (!/^[-+]/.test(v) || args[k]!.dynamic) break;
      if (v.slice(1).includes('c')) commandMode = true;
    }
    if (commandMode) {
      const w = args[k];
      if (!w) return [];
      text = w.value;
    } else if (k < args.length) return []; // a script file
  }
  if (text === null) {
    const item = site.item;
    const input = item !== null && item.redirects.some((r) => r.op === '<');
    const piped = item !== null && item.before === '|';
    if ((input || piped) && destructiveText(site.lineText)) return [indirectOp(program, site.lineText, site.lineText, argv, site, cwd, wrappers, input ? 'source' : 'indirect-shell')];
    return [];
  }
  return destructiveText(text) ? [indirectOp(program, text, text, argv, site, cwd, wrappers)] : [];
}

function startOps(args: CWord[], site: Site, cwd: string | null, wrappers: string[], depth: number): Op[] {
  let k = 0;
  if (args[0]?.quoted) k = 1; // the window title
  let dir = cwd;
  for (; k < args.length; k++) {
    const v = args[k]!.value;
    if (!v.startsWith('/')) break;
    const name = v.slice(1).toLowerCase();
    if (name === 'd' || name === 'node' || name === 'affinity') {
      if (name === 'd') dir = startDir(args[k + 1], site, cwd);
      k++;
    } else if (name.startsWith('d')) dir = startDir({ ...args[k]!, value: v.slice(2), dynamic: isDynamic(v.slice(2)) }, site, cwd);
  }
  const rest = args.slice(k);
  if (rest.length === 0) return [];
  // The program runs in a new process: a cd there does not change this line's directory.
  return commandOps(rest, site, dir, [...wrappers, 'start'], depth + 1, true);
}

function startDir(w: CWord | undefined, site: Site, cwd: string | null): string | null {
  if (!w || w.dynamic) return null;
  const t = cmdTarget(w.value, cwd, site.opts.home, false);
  return isUndeterminable(t) || t.foreign !== undefined || t.path === null || t.path.length > PATH_LIMIT ? null : t.path;
}

// ---------------------------------------------------------------------------------------------

/** Classifies a cmd.exe command line: facts for the policy, never a decision. Never throws. */
export function classifyCmd(text: string, opts: ClassifyOptions): Classification {
  const line = typeof text === 'string' ? text : String(text);
  try {
    const res = walk(line, opts, opts.cwdUnknown ? null : opts.cwd, 0, false);
    return finishClassification(res.ops, res.commandCount, res.unbalanced);
  } catch {
    // An internal error: fail closed on the text alone.
    let destructive = true;
    try {
      destructive = destructiveText(line);
    } catch {
      destructive = true;
    }
    const ops: Op[] = [];
    if (destructive) {
      const op = makeOp({ program: '?', kind: 'opaque', argv: [line], cwd: opts?.cwd ?? null, cdBefore: false, createBefore: false });
      op.undeterminable = { reason: 'opaque-syntax', detail: 'the line could not be read' };
      op.inner = line;
      ops.push(op);
    }
    return { ops, commandCount: 1, unbalanced: false };
  }
}
