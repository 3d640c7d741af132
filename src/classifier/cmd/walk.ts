// The cmd.exe reader's walker: the lexer's commands (lex.ts) in, the same facts the POSIX reader
// produces out (one Op per operation of the vocabulary), each command handed to its program's reader
// through a table keyed by program name. It decides nothing; the policy rules judge the Ops.
import type { Classification, ClassifyOptions, Op, OpKind, TargetSpec, Undeterminable } from '../types.js';
import { gitOps as readGit } from '../gitops.js';
import { clip, describeOp, finishClassification, isEffective, isUndeterminable, literalWord, makeOp, MAX_DEPTH } from '../kit.js';
import { smellsDestructiveCmd as destructiveText } from '../smell.js';
import { floorReason, isFloorVerb, verbKey } from '../vocabulary.js';
import { CMD_CD, CMD_CREATORS, POSIX_SHELLS, POWERSHELL_VALUE_PARAMS, WINDOWS_WRAPPERS } from '../names.js';
import { readShellArgs } from '../shells.js';
import { judgePosixText } from '../posix/walk.js';
import { cmdTarget, commandText, isDynamic, lex, splitProgram, splitUnquoted, variableNames, type CWord, type SimpleCommand } from './lex.js';

const CREATORS: ReadonlySet<string> = new Set(CMD_CREATORS);
/** A working directory longer than this (PATH_MAX on the POSIX host) is read as unknown: no call could
 *  use it, and following ever longer ones would cost quadratic time. */
const PATH_LIMIT = 4096;

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

/** One simple command as its program's reader sees it. */
interface Call {
  program: string;
  first: CWord;
  args: CWord[];
  argv: string[];
  /** The command as written. */
  text: string;
  site: Site;
  cwd: string | null;
  wrappers: string[];
  depth: number;
  /** Runs in a new process (`start`): a cd there does not move the line. */
  detached: boolean;
}

type ProgramReader = (c: Call) => Op[];

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
  if (program === '') return [];
  if (CREATORS.has(program)) site.creates = true;
  const c: Call = { program, first, args: words.slice(1), argv, text, site, cwd, wrappers, depth, detached };
  const reader = PROGRAMS.get(program);
  if (reader) return reader(c);
  if (isFloorVerb(first.value, 'cmd')) {
    return [opaqueOp(program, text, floorReason(first.value, 'cmd'), site, cwd, wrappers, argv)];
  }
  return [];
}

function cdOps(c: Call): Op[] {
  if (!c.detached) changeDirectory(c.program, c.args, c.site);
  return [];
}

function callOps(c: Call): Op[] {
  // `call :label` runs a batch label, which a command line does not have.
  if (c.args.length === 0 || c.args[0]!.value.startsWith(':')) return [];
  return commandOps(c.args, c.site, c.cwd, [...c.wrappers, 'call'], c.depth + 1, c.detached);
}

function forfilesOps(c: Call): Op[] {
  let body: string | null = null;
  for (let k = 0; k < c.args.length; k++) {
    const v = c.args[k]!.value;
    if (/^[/-]c$/i.test(v)) body = c.args[k + 1]?.value ?? '';
    else if (/^[/-]c./i.test(v)) body = v.slice(2);
    else continue;
    break;
  }
  if (body === null || !destructiveText(body)) return [];
  return [opaqueOp('forfiles', body, { reason: 'opaque-syntax', detail: 'forfiles runs a destructive command on each file it finds' }, c.site, c.cwd, c.wrappers, c.argv)];
}

function setOps(c: Call): Op[] {
  const rest = c.args.filter((w) => !/^\/[ap]$/i.test(w.value));
  const assignment = rest.map((w) => w.value).join(' ');
  const m = /^\s*([^=\s]+)=/.exec(assignment);
  if (m) {
    const name = m[1]!.toUpperCase();
    c.site.scope.env.push(name);
    if (destructiveText(assignment.slice(m[0].length))) c.site.scope.tainted.add(name);
    else c.site.scope.tainted.delete(name);
  }
  return [];
}

/** `sudo …`, `gsudo …`, `runas …`, POSIX wrappers from a toolkit on PATH: what runs is judged by its
 *  smell (fail closed), as under PowerShell. */
function wrapperOps(c: Call): Op[] {
  const inner = c.args.map((w) => w.value).join(' ');
  if (!destructiveText(inner)) return [];
  return [indirectOp(c.program, inner, inner, c.argv, c.site, c.cwd, c.wrappers)];
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

function deleteOps(c: Call): Op[] {
  return [deleteOp(c.program, c.args, c.argv, c.site, c.cwd, c.wrappers)];
}

function deleteOp(program: string, args: CWord[], argv: string[], site: Site, cwd: string | null, wrappers: string[]): Op {
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

function gitOps(c: Call): Op[] {
  const { args, site } = c;
  // Git for Windows takes `\` as a separator; a drive or UNC path names no place on this host.
  const words = args.map((w, i) => literalWord(w.value.replace(/\\/g, '/'), w.value, w.dynamic, false, i + 1));
  const ops = readGit(words, {
    dialect: 'cmd',
    opts: site.opts,
    depth: c.depth,
    at: { cwd: c.cwd, cdBefore: site.scope.cd, createBefore: site.scope.created, wrappers: c.wrappers },
    argv: c.argv,
    text: c.text,
    envNames: site.scope.env,
    smells: destructiveText,
    judgeShell: (text, cwd, depth) => judgePosixText(text, site.opts, cwd, depth),
  });
  const foreign = args.find((w) => !w.dynamic && /^([A-Za-z]:|[\\/]{2})/.test(w.value));
  for (const op of ops) {
    if (foreign && op.kind !== 'indirect' && op.kind !== 'opaque') {
      op.undeterminable ??= { reason: 'unknown-cwd', detail: `${foreign.value} is a Windows drive or UNC path, which names no place agent-guard can judge` };
    }
  }
  return ops;
}

function cmdShellOps(c: Call): Op[] {
  const { args, argv, site, cwd, wrappers, depth } = c;
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
  if (effective) what = describeOp(effective);
  else if (nested.unbalanced && destructiveText(body)) what = body;
  if (what === null) return [];
  return [indirectOp('cmd', body, what, argv, site, cwd, wrappers)];
}

const PS_VALUE_OPTIONS: ReadonlySet<string> = new Set(POWERSHELL_VALUE_PARAMS);

function powershellOps(c: Call): Op[] {
  const { program, args, argv, site, cwd, wrappers } = c;
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

function posixShellOps(c: Call): Op[] {
  const { program, args, argv, site, cwd, wrappers } = c;
  let text: string | null = null;
  if (program === 'wsl') {
    // `wsl rm -rf x`, `wsl -e …`, `wsl -- …`, `wsl bash -c …`: judged as text.
    if (args.length > 0) text = args.map((w) => w.value).join(' ');
  } else {
    const sh = readShellArgs(args);
    if (sh.mode === 'command') {
      text = sh.text ?? args[sh.at]?.value ?? null;
      if (text === null) return [];
    } else if (sh.mode === 'script') return []; // a script file
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

function startOps(c: Call): Op[] {
  const { args, site, cwd, wrappers, depth } = c;
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

/** The programs this reader knows, by name. */
const PROGRAMS: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ...CMD_CD.map((n) => [n, cdOps] as const),
  ...['del', 'erase', 'rd', 'rmdir'].map((n) => [n, deleteOps] as const),
  ['git', gitOps],
  ['cmd', cmdShellOps],
  ['powershell', powershellOps],
  ['pwsh', powershellOps],
  ...[...POSIX_SHELLS, 'wsl'].map((n) => [n, posixShellOps] as const),
  ...WINDOWS_WRAPPERS.map((n) => [n, wrapperOps] as const),
  ['call', callOps],
  ['start', startOps],
  ['forfiles', forfilesOps],
  ['set', setOps],
]);

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
