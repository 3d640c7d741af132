// The POSIX shell reader's walker: a line (or a concrete argv) in, facts out. It threads the value
// table and the working directory through the line's commands, peels wrappers, and hands each
// simple command to the program's reader, found in a table keyed by program name. It decides
// nothing and touches nothing; the only outside knowledge it may be handed is a git alias resolver.
import { MARK, scan, type ScanResult } from './scan.js';
import { tokenize, type Command } from './tokenize.js';
import { assignmentName, assignmentValue, decodeWord, type ValueTable } from './words.js';
import { programName, unwrap, type Unwrapped } from './unwrap.js';
import { classifyFsDelete, FS_DELETERS } from '../rm.js';
import { classifyFind } from '../find.js';
import { gitOps } from '../gitops.js';
import { DYNAMIC_PROGRAM, smellsDestructive } from '../smell.js';
import { joinRaw, normalizeAbs } from '../paths.js';
import { floorReason, isFloorVerb, verbKey } from '../vocabulary.js';
import { argvWords, clip, describeOp, finishClassification, indirectOp, isEffective, makeOp, MAX_DEPTH, opaqueOp, type OpPlace } from '../kit.js';
import { INTERPRETERS, POSIX_CD, POSIX_CREATORS, POSIX_SHELLS } from '../names.js';
import { interpreterCallOps, type Stdin } from '../interp/index.js';
import { OptionReader, type OptionSpec } from '../options.js';
import { readShellArgs } from '../shells.js';
import type { ArgvInput, Classification, ClassifyOptions, Op, OpKind, Undeterminable, Word } from '../types.js';

const CREATORS: ReadonlySet<string> = new Set(POSIX_CREATORS);
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '<>']);

interface Scope {
  cwd: string | null;
  cd: boolean;
  values: ValueTable;
}

interface Walk {
  ops: Op[];
  commandCount: number;
  unbalanced: boolean;
}

interface Site {
  opts: ClassifyOptions;
  depth: number;
  scope: Scope;
  scan: ScanResult;
  command: Command | null;
  prefixNames: string[];
  lineText: string;
  createBefore: boolean;
}

function baseValues(opts: ClassifyOptions, cwd: string | null): ValueTable {
  const values: ValueTable = new Map();
  if (opts.home) values.set('HOME', opts.home);
  values.set('PWD', cwd);
  return values;
}

function place(site: Site, cwd: string | null, wrappers: readonly string[] = []): OpPlace {
  return { cwd, cdBefore: site.scope.cd, createBefore: site.createBefore, wrappers };
}

function newOp(program: string, kind: OpKind, words: Word[], site: Site, cwd: string | null, wrappers: string[]): Op {
  return makeOp({ program, kind, argv: words.map((w) => w.display), cwd, cdBefore: site.scope.cd, createBefore: site.createBefore, wrappers });
}

function opaque(program: string, text: string, why: Undeterminable, site: Site): Op {
  return opaqueOp(program, text, why, place(site, site.scope.cwd));
}

/** The first effective op of POSIX text read at `depth`, described; null when it has none (an
 *  unreadable text that smells destructive counts as one). */
export function judgePosixText(text: string, opts: ClassifyOptions, cwd: string | null, depth: number): string | null {
  const inner = walk(text, opts, cwd, baseValues(opts, cwd ?? '/'), depth);
  const effective = inner.ops.find(isEffective);
  if (effective) return describeOp(effective);
  return inner.unbalanced && smellsDestructive(text) ? text : null;
}

/** A program that runs `text` as shell commands (`bash -c`, `eval`, `su -c`, a fed shell). */
function shellTextOps(program: string, text: string, dynamic: boolean, c: Call, cwd: string | null, reason: 'indirect-shell' | 'source'): Op[] {
  const { site } = c;
  const deep = dynamic || site.depth >= MAX_DEPTH;
  const destructive = deep ? (smellsDestructive(text) ? text : null) : judgePosixText(text, site.opts, cwd, site.depth + 1);
  if (destructive === null) return [];
  const op = indirectOp(program, text, reason, `${program} runs text that is read only when it runs (${clip(destructive)})`, place(site, cwd, c.wrappers), c.words.map((w) => w.display));
  op.innerDynamic = deep;
  return [op];
}

/** What the reader knows of one simple command when it reaches the program's entry in the table. */
interface Call {
  program: string;
  /** The words as given (wrappers included), the words from the program on, and its arguments. */
  input: Word[];
  words: Word[];
  args: Word[];
  site: Site;
  cwd: string | null;
  wrappers: string[];
  unwrapped: Unwrapped;
  topLevel: boolean;
}

type ProgramReader = (c: Call) => Op[];

function op(c: Call, kind: OpKind): Op {
  return newOp(c.program, kind, c.words, c.site, c.cwd, c.wrappers);
}

/** An option in front of the program that a wrapper did not know: the wrapped command may not be it. */
function uncertain(c: Call, o: Op): Op {
  if (c.unwrapped.uncertain) o.undeterminable ??= { reason: 'unknown-option', detail: `a wrapper option in front of ${c.program} is not one agent-guard knows` };
  return o;
}

function shellOps(c: Call): Op[] {
  const { args, site } = c;
  const sh = readShellArgs(args);
  if (sh.mode === 'command') {
    const textWord = sh.text !== undefined ? { value: sh.text, dynamic: args[sh.at]!.dynamic } : args[sh.at];
    return textWord ? shellTextOps(c.program, textWord.value, textWord.dynamic, c, c.cwd, 'indirect-shell') : [];
  }
  if (sh.mode === 'script') return []; // a script file: what it does inside is not seen (docs/limitations.md)
  // The shell reads its commands from standard input.
  const input = stdinOf(site);
  if (input.kind === 'text') return shellTextOps(c.program, input.text, input.dynamic, c, c.cwd, 'indirect-shell');
  if (input.kind === 'file') return shellTextOps(c.program, site.lineText, true, c, c.cwd, 'source');
  return input.kind === 'pipe' ? shellTextOps(c.program, site.lineText, true, c, c.cwd, 'indirect-shell') : [];
}

/** What a command reads on standard input: a here-string's or heredoc's text (`expands`: an unquoted
 *  heredoc, which the shell expands; `dynamic`: it may), a file, a pipe, or nothing known. */
function stdinOf(site: Site): Stdin {
  for (const r of site.command?.redirects ?? []) {
    if (r.target === null) continue;
    if (r.op === '<<<') {
      const w = decodeWord(r.target, { scan: site.scan, values: site.scope.values, home: site.opts.home });
      return { kind: 'text', text: w.value, dynamic: w.dynamic };
    }
    if (r.op === '<' && r.target.startsWith(MARK.HEREDOC_OPEN)) {
      const h = site.scan.heredocs[Number(r.target.slice(1, -1))];
      if (h) return { kind: 'text', text: h.body, dynamic: !h.quoted && /\$|`/.test(h.body), ...(h.quoted ? {} : { expands: true }) };
    } else if (r.op === '<') return { kind: 'file' };
  }
  const piped = site.command !== null && (site.command.connector === '|' || site.command.connector === '|&');
  return { kind: piped ? 'pipe' : 'none' };
}

/** `python3 -c CODE`, `node -e CODE`, `perl -e`, `ruby -e`, or their program on standard input:
 *  what the code deletes and hands to a shell (interp/). */
function interpreterOps(c: Call): Op[] {
  const { site } = c;
  return interpreterCallOps({
    program: c.program,
    args: c.args,
    stdin: stdinOf(site),
    at: place(site, c.cwd, c.wrappers),
    lineText: site.lineText,
    judgeShell: (text, cwd) => judgePosixText(text, site.opts, cwd, site.depth + 1),
  }).map((o) => uncertain(c, o));
}

const XARGS_OPTIONS: OptionSpec = {
  shortFlags: '0eilprtx',
  shortValues: 'adEILnPs',
  longFlags: ['null', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'open-tty', 'show-limits', 'help', 'version'],
  longValues: ['arg-file', 'delimiter', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
  longOptional: ['eof', 'replace'],
};

/** The command xargs runs; null when xargs only prints (`--help`, `--version`: checked with GNU
 *  xargs; `--show-limits` still runs the command on its input, so it is not one of them). */
function xargsCommand(args: Word[]): Word[] | null {
  const r = new OptionReader(
    args.map((w) => w.value),
    XARGS_OPTIONS,
  );
  for (let item = r.next(); item !== null; item = r.next()) {
    if (item.kind === 'operand') return args.slice(item.word);
    if (item.kind === 'end') break;
    if (item.kind === 'long' && !item.inline && (item.typed === 'help' || item.typed === 'version')) return null;
  }
  return args.slice(r.index);
}

/** The first effective op of a simple command given as words (for find -exec and xargs). */
function destructiveProgram(words: Word[], site: Site, cwd: string | null): string | null {
  if (words.length === 0) return null;
  const nested: Site = { ...site, depth: site.depth + 1, scope: { ...site.scope, cwd, values: new Map(site.scope.values) }, command: null };
  const effective = opsFor(words, nested, false).find(isEffective);
  return effective ? effective.program : null;
}

const SU_OPTIONS: OptionSpec = {
  shortFlags: 'flmpPh',
  shortValues: 'cgGsw',
  longFlags: ['login', 'preserve-environment', 'pty', 'fast', 'help', 'version'],
  longValues: ['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment'],
  permute: true,
};
const SU_FAMILY: Readonly<Record<string, OptionSpec>> = {
  su: SU_OPTIONS,
  runuser: { ...SU_OPTIONS, shortValues: 'cgGswu', longValues: [...SU_OPTIONS.longValues!, 'user'] },
  script: {
    shortFlags: 'aefqthV',
    shortValues: 'cTOIBEmo',
    longFlags: ['append', 'return', 'flush', 'force', 'quiet', 'help', 'version'],
    longValues: ['command', 'log-timing', 'log-out', 'log-in', 'log-io', 'echo', 'logging-format', 'output-limit'],
    longOptional: ['timing'],
    permute: true,
  },
};
const WATCH_OPTIONS: OptionSpec = {
  shortFlags: 'bcdefgptwhvrx',
  shortValues: 'nq',
  longValues: ['interval', 'equexit'],
  longOptional: ['differences'],
};
/** runuser's options up to the command it runs (`runuser -u USER [--] CMD…`). */
const RUNUSER_COMMAND: OptionSpec = { ...SU_FAMILY.runuser!, permute: false };

/** `su -c CMD`, `script -c CMD`, `runuser -c CMD`: a command string run by a shell; `runuser -u
 *  USER [--] CMD…` runs CMD directly. */
function suOps(c: Call): Op[] {
  const { args, site } = c;
  for (const item of new OptionReader(args.map((w) => w.value), SU_FAMILY[c.program]!).all()) {
    if ((item.kind === 'short' && item.name === 'c') || (item.kind === 'long' && (item.name === 'command' || item.name === 'session-command'))) {
      const text = item.valueWord !== undefined ? args[item.valueWord] : item.value !== undefined ? { ...args[item.word]!, value: item.value } : undefined;
      return text ? shellTextOps(c.program, text.value, text.dynamic, c, c.cwd, 'indirect-shell') : [];
    }
  }
  if (c.program !== 'runuser') return [];
  const r = new OptionReader(
    args.map((w) => w.value),
    RUNUSER_COMMAND,
  );
  let k = args.length;
  for (let item = r.next(); item !== null; item = r.next()) {
    if (item.kind === 'operand' || item.kind === 'end') {
      k = item.kind === 'operand' ? item.word : r.index;
      break;
    }
  }
  return opsFor(args.slice(k), { ...site, depth: site.depth + 1 }, false).map((o) => ({ ...o, wrappers: [...c.wrappers, 'runuser', ...o.wrappers] }));
}

function evalOps(c: Call): Op[] {
  let rest = c.args;
  if (c.program === 'watch') {
    const r = new OptionReader(
      rest.map((w) => w.value),
      WATCH_OPTIONS,
    );
    let k = rest.length;
    for (let item = r.next(); item !== null; item = r.next()) {
      if (item.kind === 'operand' || item.kind === 'end') {
        k = item.kind === 'operand' ? item.word : r.index;
        break;
      }
    }
    rest = rest.slice(k);
  }
  return shellTextOps(c.program, rest.map((w) => w.value).join(' '), rest.some((w) => w.dynamic), c, c.cwd, 'indirect-shell');
}

function cdOps(c: Call): Op[] {
  const { site, program } = c;
  if (!c.topLevel) return [];
  const target = c.args.filter((w) => w.dynamic || !/^-[LPe@]+$/.test(w.value))[0];
  let dest: string | null;
  if (program === 'popd') dest = null;
  else if (!target) dest = program === 'pushd' ? null : site.opts.home;
  else if (target.dynamic || target.value === '-') dest = null;
  else if (site.opts.cdpath && !/^(\/|\.\/|\.\.\/|\.$|\.\.$)/.test(target.value)) dest = null;
  else dest = resolveDir(site, target);
  site.scope.cwd = dest;
  site.scope.cd = true;
  site.scope.values.set('PWD', dest);
  return [];
}

function fsDeleteOps(c: Call): Op[] {
  const f = classifyFsDelete(c.program, c.args, c.cwd);
  const o = op(c, 'fs-delete');
  Object.assign(o, { recursive: f.recursive, dryRun: f.dryRun, noTargets: f.noTargets, targets: f.targets, undeterminable: f.undeterminable });
  return [uncertain(c, o)];
}

function findOps(c: Call): Op[] {
  const f = classifyFind(c.args, c.cwd, (cmd) => destructiveProgram(cmd, c.site, c.cwd));
  if (!f.deletes && f.execDestructive === null) return [];
  const o = op(c, f.deletes ? 'find-delete' : 'find-exec');
  o.targets = f.startingPoints;
  o.recursive = true;
  o.undeterminable = f.deletes
    ? { reason: 'find-delete', detail: 'find -delete removes whatever the expression matches when it runs' }
    : { reason: 'find-exec', detail: `find runs ${f.execDestructive} on whatever the expression matches when it runs` };
  return [o];
}

function posixGitOps(c: Call): Op[] {
  const { site } = c;
  const ops = gitOps(c.args, {
    dialect: 'posix',
    opts: site.opts,
    depth: site.depth,
    at: place(site, c.cwd, c.wrappers),
    argv: c.words.map((w) => w.display),
    text: c.input.map((w) => w.display).join(' '),
    envNames: [...site.prefixNames, ...c.unwrapped.envNames],
    smells: smellsDestructive,
    judgeShell: (text, cwd, depth) => judgePosixText(text, site.opts, cwd, depth),
  });
  return ops.map((o) => (o.kind === 'indirect' || o.kind === 'opaque' ? o : uncertain(c, o)));
}

function xargsOps(c: Call): Op[] {
  const { program, args, site } = c;
  const cmd = program === 'xargs' ? xargsCommand(args) : args;
  if (cmd === null) return [];
  // The items xargs reads become operands: judge the program as if it had one.
  const item: Word = { value: 'xargs-item', display: 'ITEM', dynamic: false, glob: false, subs: [], vars: [] };
  const inner =
    program === 'xargs'
      ? destructiveProgram(cmd.length > 0 ? [...cmd, item] : [], site, c.cwd)
      : smellsDestructive(args.map((w) => w.display).join(' '))
        ? args.map((w) => w.value).join(' ')
        : null;
  if (inner === null) return [];
  const o = op(c, 'stdin-fed');
  o.inner = inner;
  o.undeterminable = { reason: 'stdin-fed', detail: `${program} feeds ${inner} a list that is known only when it runs` };
  return [o];
}

/** `chroot NEWROOT CMD…`: CMD's paths are inside another root, known only when it runs: judged by
 *  its smell (as the Windows readers judge every wrapper). */
function chrootOps(c: Call): Op[] {
  const text = c.args.map((w) => w.display).join(' ');
  if (!smellsDestructive(text)) return [];
  return [indirectOp('chroot', text, 'indirect-shell', `chroot runs ${clip(text)} under another root`, place(c.site, c.cwd, c.wrappers), c.words.map((w) => w.display))];
}

/** `trap HANDLER SIGNAL…`: the handler is shell text run later, when the signal comes (EXIT at the
 *  end), in whatever directory the shell is in then, and past the shell hooks (bash shows its DEBUG
 *  trap a stale text while a handler runs, zsh none). Judged as `eval` judges its text, with no
 *  known directory; `trap -p`, `trap -l`, a reset (`trap - INT`, `trap INT`) and an ignore
 *  (`trap '' INT`) run nothing. */
function trapOps(c: Call): Op[] {
  let args = c.args;
  if (args[0]?.value === '--' && !args[0].dynamic) args = args.slice(1);
  const handler = args[0];
  if (handler === undefined || args.length < 2) return [];
  if (!handler.dynamic && (handler.value === '-' || handler.value === '' || /^-[lp]+$/.test(handler.value))) return [];
  // One expanded when the trap is set (`trap "rm -f $tmp" EXIT`, SC2064) is read as written, its
  // expansions unexpanded, so that `$tmp` is a value the handler's rm is given and `$cmd` a program
  // known only then. (Their values could still add commands; that is `eval`'s risk too.)
  const text = handler.dynamic ? handler.display : handler.value;
  if (DYNAMIC_PROGRAM.test(text)) {
    return [indirectOp('trap', text, 'indirect-shell', `trap runs a program named by a value, known only when the handler runs (${clip(text)})`, place(c.site, null, c.wrappers), c.words.map((w) => w.display))];
  }
  return shellTextOps('trap', text, false, c, null, 'indirect-shell');
}

function sourceOps(c: Call): Op[] {
  const text = c.input.map((w) => w.display).join(' ');
  if (!smellsDestructive(text)) return [];
  const o = op(c, 'indirect');
  o.inner = text;
  o.undeterminable = { reason: 'source', detail: `${c.program} runs a file whose commands are read only when it runs` };
  return [o];
}

/** The programs this reader knows, by name (like ShellCheck's per-command checks). */
const PROGRAMS: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ...POSIX_CD.map((n) => [n, cdOps] as const),
  ...[...FS_DELETERS].map((n) => [n, fsDeleteOps] as const),
  ['find', findOps],
  ['git', posixGitOps],
  ['xargs', xargsOps],
  ['parallel', xargsOps],
  ...POSIX_SHELLS.map((n) => [n, shellOps] as const),
  ['su', suOps],
  ['script', suOps],
  ['runuser', suOps],
  ['eval', evalOps],
  ['watch', evalOps],
  ['trap', trapOps],
  ['source', sourceOps],
  ['.', sourceOps],
  ['chroot', chrootOps],
  ...Object.keys(INTERPRETERS).map((n) => [n, interpreterOps] as const),
]);

function resolveDir(site: Site, w: Word): string | null {
  if (w.dynamic) return null;
  if (w.value.startsWith('/')) return normalizeAbs(w.value);
  return site.scope.cwd === null ? null : normalizeAbs(joinRaw(site.scope.cwd, w.value));
}

function opsFor(input: Word[], site: Site, topLevel: boolean): Op[] {
  if (input.length === 0) return [];
  if (site.depth > MAX_DEPTH) {
    const text = input.map((w) => w.display).join(' ');
    return smellsDestructive(text) ? [opaque('?', text, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, site)] : [];
  }
  const u = unwrap(input, (w) => resolveDir(site, w));
  if (u.noop) return [];
  const cwd = u.chdir === undefined ? site.scope.cwd : u.chdir;
  const words = u.words;
  const wrappers = u.wrappers;
  const first = words[0];
  const call = (program: string): Call => ({ program, input, words, args: words.slice(1), site, cwd, wrappers, unwrapped: u, topLevel });
  if (u.splitString) {
    const text = [u.splitString.value, ...words.map((w) => w.value)].join(' ');
    const c = { ...call(wrappers[wrappers.length - 1] ?? 'env'), words: input };
    return shellTextOps(c.program, text, u.splitString.dynamic || words.some((w) => w.dynamic), c, cwd, 'indirect-shell');
  }
  if (!first) return [];
  if (first.dynamic || first.glob) {
    // `$RM -rf x`, `{rm,} -rf /`, `/bin/r[m]`: the program is known only when the shell expands it.
    // A pattern in program position is never benign enough to pass on smell alone.
    const text = input.map((w) => w.display).join(' ');
    const subText = first.subs.map((i) => site.scan.subs[i]?.body ?? '').join(' ');
    // `CMD="rm -rf src"; $CMD`: a value the table knows but cannot use (field splitting) smells too.
    const valueText = first.vars.map((v) => (v === null ? '' : (site.scope.values.get(v) ?? ''))).join(' ');
    if (!first.glob && !smellsDestructive(text) && !smellsDestructive(subText) && !smellsDestructive(valueText)) return [];
    return [opaque(first.display, text, { reason: 'dynamic-program', detail: `the program ${first.display} is known only when the command runs` }, site)];
  }
  // git named by a Windows path or executable name (`"C:/Program Files/Git/bin/git.exe"` under Git
  // Bash, `/mnt/c/…/git.exe` through WSL interop, `'C:\Git\bin\git.exe'`, `GIT` on a
  // case-insensitive filesystem) is git. (Unquoted, `C:\Git\bin\git.exe` is `C:Gitbingit.exe` to a
  // POSIX shell: no such program.)
  const program = verbKey(first.value) === 'git' ? 'git' : programName(first);
  const reader = PROGRAMS.get(program);
  if (reader) return reader(call(program));
  if (isFloorVerb(program, 'posix')) {
    // `RM -rf x` (a case-insensitive filesystem finds rm), `DEL x`, `Remove-Item x`, `srm x`: a
    // destructive verb this reader does not model. The rm family in another case is read as rm only
    // to see that it changes nothing (`RM --version`, `Rmdir --help`, `RM` alone): the program is
    // either that tool, which then only prints, or another one.
    const key = verbKey(first.value);
    const args = words.slice(1);
    if (FS_DELETERS.has(key) && key !== program) {
      const f = classifyFsDelete(key, args, cwd);
      if (f.undeterminable === null && !u.uncertain && (f.dryRun || f.noTargets)) return [];
    }
    const c = call(program);
    const o = op(c, 'opaque');
    o.undeterminable = floorReason(first.display, 'posix');
    return [uncertain(c, o)];
  }
  return [];
}

function walk(text: string, opts: ClassifyOptions, cwd: string | null, values: ValueTable, depth: number): Walk {
  const sr = scan(text);
  const res: Walk = { ops: [], commandCount: 0, unbalanced: sr.unbalanced };
  const root: Scope = { cwd, cd: false, values };
  const scopes = new Map<string, Scope>([['0', root]]);
  const scopeOf = (id: string): Scope => {
    const found = scopes.get(id);
    if (found) return found;
    const parent = scopeOf(id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '0');
    const s: Scope = { cwd: parent.cwd, cd: parent.cd, values: new Map(parent.values) };
    scopes.set(id, s);
    return s;
  };
  // Sites are built field by field: an object spread here was the walk's largest cost (V8's slow path).
  const siteAt = (scope: Scope, command: Command | null, createBefore: boolean): Site => ({ opts, depth, scan: sr, lineText: text, scope, command, prefixNames: [], createBefore });
  const rootSite = (): Site => siteAt(root, null, false);
  if (sr.unbalanced || sr.foreignMarkers) {
    // The shell rejects the line (or part of it) and may still run what precedes the error.
    if (smellsDestructive(text)) {
      const why: Undeterminable = sr.unbalanced
        ? { reason: 'unbalanced', detail: 'the line has an unterminated quote or substitution' }
        : { reason: 'opaque-syntax', detail: 'the line holds characters agent-guard reserves for its own parsing' };
      res.ops.push(opaque('?', text, why, rootSite()));
    }
    res.commandCount = 1;
    return res;
  }
  let createSeen = false;
  for (const cmd of tokenize(sr.text)) {
    res.commandCount++;
    const scope = scopeOf(cmd.scope);
    const site = siteAt(scope, cmd, createSeen);
    if (cmd.opaque) {
      const what = cmd.opaque === 'syntax' ? 'construct' : cmd.opaque === 'case' ? 'case clause' : 'function body';
      if (smellsDestructive(text)) res.ops.push(opaque('?', text, { reason: 'opaque-syntax', detail: `a ${what} whose commands run at a time agent-guard cannot tell` }, site));
      break;
    }
    if (cmd.loopVar !== undefined) {
      if (cmd.loopVar) scope.values.set(cmd.loopVar, null);
      continue;
    }
    const ctx = { scan: sr, values: scope.values, home: opts.home };
    let k = 0;
    const assigned: [string, Word][] = [];
    for (; k < cmd.words.length; k++) {
      const name = assignmentName(cmd.words[k]!);
      if (name === null) break;
      assigned.push([name, decodeWord(assignmentValue(cmd.words[k]!), ctx)]);
      site.prefixNames.push(name);
    }
    const hasOutput = cmd.redirects.some((r) => OUTPUT_REDIRECTS.has(r.op) && r.target !== null && !/^\/dev\//.test(decodeWord(r.target, ctx).value));
    if (k === cmd.words.length) {
      // NAME=value alone sets a shell variable for what follows, when it runs unconditionally.
      const unconditional = (cmd.connector === 'start' || cmd.connector === ';' || cmd.connector === '&') && cmd.next !== '|' && cmd.next !== '|&' && cmd.next !== '&';
      for (const [name, w] of assigned) scope.values.set(name, unconditional && !w.dynamic ? w.value : null);
      if (hasOutput) createSeen = true;
      continue;
    }
    const words = cmd.words.slice(k).map((raw, arg) => decodeWord(raw, ctx, arg));
    const first = words[0]!;
    if (['export', 'readonly', 'declare', 'typeset', 'local'].includes(first.value)) {
      for (const w of words.slice(1)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w.value);
        if (m) scope.values.set(m[1]!, w.dynamic ? null : w.value.slice(m[0].length));
      }
      continue;
    }
    if (first.value === 'unset') {
      for (const w of words.slice(1)) if (!w.value.startsWith('-')) scope.values.set(w.value, w.dynamic ? null : '');
      continue;
    }
    if (first.value === 'read' || first.value === 'mapfile' || first.value === 'readarray' || first.value === 'getopts') {
      for (const w of words.slice(1)) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(w.value)) scope.values.set(w.value, null);
    }
    for (const o of opsFor(words, site, true)) res.ops.push(o);
    if (CREATORS.has(programName(unwrap(words, () => null).words[0] ?? first)) || hasOutput) createSeen = true;
  }
  // Commands that run inside substitutions: their timing and inputs are the shell's, so any effective op
  // among them is undeterminable.
  const nestedBodies: string[] = [];
  for (const sub of sr.subs) {
    if (sub.kind === 'arith') nestedBodies.push(...scan(sub.body).subs.map((s) => s.body));
    else nestedBodies.push(sub.body);
  }
  for (const h of sr.heredocs) {
    if (!h.quoted && /\$\(|`/.test(h.body)) nestedBodies.push(...scan('"' + h.body.replace(/(["\\])/g, '\\$1') + '"').subs.map((s) => s.body));
  }
  for (const body of nestedBodies) {
    const inner = depth >= MAX_DEPTH ? null : walk(body, opts, cwd, new Map(values), depth + 1);
    res.commandCount += inner ? Math.max(1, inner.commandCount) : 1;
    if (inner === null) {
      if (smellsDestructive(body)) res.ops.push(opaque('?', body, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, rootSite()));
      continue;
    }
    for (const o of inner.ops) {
      if (!isEffective(o)) continue;
      o.undeterminable ??= { reason: 'in-substitution', detail: `${o.program} runs inside a substitution, whose timing and inputs only the shell knows` };
      res.ops.push(o);
    }
  }
  return res;
}

const NO_SCAN: ScanResult = scan('');

/** A POSIX command line, or a concrete argv (its words go to the program's reader as they are: no
 *  quoting back into text, no lexing, no expansion), as facts. */
export function classifyPosix(input: string | ArgvInput, opts: ClassifyOptions): Classification {
  if (typeof input === 'string') {
    const cwd = opts.cwdUnknown ? null : opts.cwd;
    const res = walk(input, opts, cwd, baseValues(opts, cwd), 0);
    return finishClassification(res.ops, res.commandCount, res.unbalanced);
  }
  const o = input.cwd === undefined ? opts : { ...opts, cwd: input.cwd };
  const words = argvWords(input.argv);
  const site: Site = {
    opts: o,
    depth: 0,
    scope: { cwd: o.cwd, cd: false, values: baseValues(o, o.cwd) },
    scan: NO_SCAN,
    command: null,
    prefixNames: [],
    lineText: input.argv.join(' '),
    createBefore: false,
  };
  return finishClassification(opsFor(words, site, true), words.length > 0 ? 1 : 0, false);
}
