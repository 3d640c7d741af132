// The PowerShell reader's walker: the lexer's commands (lexer.ts) in, the same facts the POSIX
// reader produces out (one Op per operation of the vocabulary). Each command goes to its program's
// reader through two tables keyed by name (cmdlets and aliases; native programs); nested bodies
// (script blocks, subexpressions) are walked too. It decides nothing and touches nothing. Anything
// the lexer cannot place (an unterminated quote, a token PowerShell rejects, nesting deeper than it
// follows) is judged by the destructive smell only, and then as undeterminable: fail closed.
import type { Classification, ClassifyOptions, Op, Undeterminable, UndeterminableReason } from '../types.js';
import { clip, describeOp, finishClassification, isEffective, isUndeterminable, literalWord, makeOp, MAX_DEPTH } from '../kit.js';
import { windowsTarget } from '../winpath.js';
import { floorReason, isFloorVerb } from '../vocabulary.js';
import { gitOps as readGit } from '../gitops.js';
import { smellsDestructivePowerShell } from '../smell.js';
import { POSIX_SHELLS, POWERSHELL_CREATORS, POWERSHELL_VALUE_PARAMS, POWERSHELLS, WINDOWS_WRAPPERS } from '../names.js';
import { readShellArgs } from '../shells.js';
import { judgePosixText } from '../posix/walk.js';
import { Lexer } from './lexer.js';
import { classifyRemoveItem, locationDest, POP_LOCATION, PUSH_LOCATION, SET_LOCATION } from './remove-item.js';
import { hasWildcard, nativeWords, paramDisplay, tokValue, varsIn, type Body, type PCommand, type PWord, type Seq, type Tok } from './words.js';

/** Remove-Item and its aliases. */
const REMOVE: readonly string[] = ['remove-item', 'rm', 'ri', 'rd', 'rmdir', 'del', 'erase'];
const CREATORS: ReadonlySet<string> = new Set(POWERSHELL_CREATORS);
const PWSH: ReadonlySet<string> = new Set(POWERSHELLS);

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

function argvOf(cmd: PCommand): string[] {
  return cmd.toks.map(tokValue);
}

/** Is the text destructive when run as PowerShell? (The first effective op, or null.) */
function judgeText(text: string, dynamic: boolean, ctx: Ctx, cwd: string | null, depth: number): string | null {
  if (dynamic || depth >= MAX_DEPTH) return smellsWithValues(text, ctx) ? text : null;
  const inner = walkText(text, ctx, cwd, depth + 1);
  const effective = inner.ops.find(isEffective);
  if (effective) return describeOp(effective);
  if (inner.unbalanced && smellsDestructivePowerShell(text)) return text;
  return null;
}

function judgeSeq(seq: Seq, ctx: Ctx, scope: Scope, depth: number): { hit: string | null; walk: Walk; inner: Scope } {
  const inner: Scope = { ...scope };
  const walk: Walk = { ops: [], commandCount: 0, unbalanced: false };
  walkSeq(seq, ctx, inner, depth, walk);
  const effective = walk.ops.find(isEffective);
  return { hit: effective ? describeOp(effective) : null, walk, inner };
}

interface Walker {
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
function bodyOps(body: Body, env: Walker, res: Walk): boolean {
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
    const env: Walker = { ctx, scope, depth, lineText: seq.text, src: seq.src, lineSmells };
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

/** One command as its program's reader sees it. */
interface Call {
  cmd: PCommand;
  name: CommandName;
  /** The program word. */
  pw: PWord;
  args: Tok[];
  argv: string[];
  /** The command as written. */
  text: string;
  at: Walker;
}

type ProgramReader = (c: Call) => Op[];

function commandOps(cmd: PCommand, name: CommandName | null, at: Walker, reported: readonly Body[]): Op[] {
  const { ctx, scope } = at;
  const first = cmd.toks[0];
  if (!first) return [];
  const text = at.src.slice(Math.max(0, cmd.start), Math.max(0, cmd.end)) || argvOf(cmd).join(' ');
  const args = cmd.toks.slice(1);
  if (first.t !== 'word') return []; // `-x …` or `--` in command position: PowerShell reads a string or an error
  const pw = first.w;
  if (pw.isBlock) return []; // `& { … }`, `. { … }`, `{ … }`: the body was judged above
  if (pw.dynamic || name === null) {
    // `& $x …`, `$x.Delete()`, `(Get-Item x).Delete()`, `[IO.File]::Delete(…)`: what runs is known only then.
    const recurseOrForce = args.some((t) => t.t === 'param' && /^(r|re|rec|recu|recur|recurs|recurse|fo|for|forc|force)$/i.test(t.name));
    // Bodies already reported above are not smelled twice; the rest is (`& (gcm rm) x`, `(…).Delete()`).
    let outside = '';
    let from = Math.max(0, cmd.start);
    for (const b of reported) {
      if (b.start < from || b.end > cmd.end) continue;
      outside += at.src.slice(from, b.start);
      from = b.end;
    }
    outside += at.src.slice(from, Math.max(from, cmd.end));
    if (!smellsWithValues(outside, ctx) && !recurseOrForce) return [];
    return [opaque(pw.display, text, { reason: 'dynamic-program', detail: `the command ${pw.display} is known only when it runs` }, scope)];
  }
  if (pw.quoted && cmd.call === null) return []; // a string in command position is an expression
  const c: Call = { cmd, name, pw, args, argv: argvOf(cmd), text, at };
  if (cmd.call === '.' && (name.isPath || /\.ps1$/i.test(name.name))) {
    // Dot-sourcing a script: its commands are read only when it runs.
    if (!smellsDestructivePowerShell(text)) return [];
    return [indirect('.', c.argv, text, 'source', `. runs ${pw.display}, whose commands are read only when it runs`, scope, scope.cwd)];
  }
  // Cmdlets and aliases are found by name (never as a path); native programs by file name.
  const reader = (name.isPath ? undefined : CMDLETS.get(name.name)) ?? NATIVES.get(name.native);
  if (reader) return reader(c);
  if (isFloorVerb(pw.value, 'powershell')) {
    // The vocabulary floor: a destructive verb this front end does not read as its own (`shred f`, `rm.exe -rf x`).
    return [opaque(pw.display, text, floorReason(pw.display, 'powershell'), scope)];
  }
  return [];
}

function newOp(c: Call, program: string, kind: Op['kind']): Op {
  const { scope } = c.at;
  return makeOp({ program, kind, argv: c.argv, cwd: scope.cwd, cdBefore: scope.cd, createBefore: scope.create });
}

/** What a program reads from the pipeline when its text is the line's. */
function fromPipeline(c: Call, program: string, detail: string, cwd: string | null = c.at.scope.cwd): Op[] {
  return c.cmd.piped && c.at.lineSmells() ? [indirect(program, c.argv, c.at.lineText, 'indirect-shell', detail, c.at.scope, cwd)] : [];
}

function removeItemOps(c: Call): Op[] {
  const { scope, ctx } = c.at;
  const o = newOp(c, 'Remove-Item', 'fs-delete');
  Object.assign(o, classifyRemoveItem(c.args, c.cmd.piped, scope.cwd, ctx.opts.home));
  return [o];
}

function locationOps(c: Call): Op[] {
  const { scope, ctx } = c.at;
  scope.cwd = locationDest(c.name.name, c.args, scope.cwd, ctx.opts.home);
  scope.cd = true;
  return [];
}

function cmdOps(c: Call): Op[] {
  const words = nativeWords(c.args);
  const at = words.findIndex((w) => /^\/[ckr]/i.test(w.value));
  if (at < 0) return fromPipeline(c, 'cmd', 'cmd reads commands from the pipeline, known only when it runs');
  const inner = [words[at]!.value.slice(2), ...words.slice(at + 1).map((w) => w.value)].join(' ').trim();
  if (!smellsWithValues(inner, c.at.ctx)) return [];
  return [indirect('cmd', c.argv, inner, 'indirect-shell', `cmd runs text that is read only when it runs (${clip(inner)})`, c.at.scope, c.at.scope.cwd)];
}

function posixShellOps(c: Call): Op[] {
  const program = c.name.native;
  const words = nativeWords(c.args);
  let inner: string | null = null;
  if (program === 'wsl') inner = words.map((w) => w.value).join(' ');
  else {
    const sh = readShellArgs(words);
    if (sh.mode === 'command') inner = sh.text ?? words[sh.at]?.value ?? '';
    else if (sh.mode === 'script') return []; // a script file: its content is not seen (as under POSIX)
    else return fromPipeline(c, program, `${program} reads commands from the pipeline, known only when it runs`);
  }
  if (!smellsWithValues(inner, c.at.ctx)) return [];
  return [indirect(program, c.argv, inner, 'indirect-shell', `${program} runs text that is read only when it runs (${clip(inner)})`, c.at.scope, c.at.scope.cwd)];
}

function iexOps(c: Call): Op[] {
  const { args, at } = c;
  const words = args.filter((t): t is { t: 'word'; w: PWord } => t.t === 'word').map((t) => t.w);
  const colonValues = args.flatMap((t) => (t.t === 'param' && t.value ? [t.value] : []));
  const all = [...colonValues, ...words];
  if (all.length === 0) return fromPipeline(c, 'Invoke-Expression', 'Invoke-Expression runs text from the pipeline, known only when it runs');
  const dynamic = all.some((w) => w.dynamic);
  const inner = all.map((w) => (w.dynamic ? w.display : w.value)).join(' ');
  const hit = judgeText(inner, dynamic, at.ctx, at.scope.cwd, at.depth);
  if (hit === null) return [];
  return [indirect('Invoke-Expression', c.argv, inner, 'indirect-shell', `Invoke-Expression runs text that is read only when it runs (${clip(hit)})`, at.scope, at.scope.cwd)];
}

function startProcessOps(c: Call): Op[] {
  const inner = nativeWords(c.args).map((w) => w.value).join(' ');
  if (!smellsWithValues(inner, c.at.ctx)) return [];
  return [indirect('Start-Process', c.argv, inner, 'indirect-shell', `Start-Process runs a program whose effect is read only when it runs (${clip(inner)})`, c.at.scope, c.at.scope.cwd)];
}

function aliasDefOps(c: Call): Op[] {
  // An alias that names a destructive command makes a later, harmless-looking word destructive.
  const words = nativeWords(c.args);
  if (!words.some((w) => w.dynamic || REMOVE.includes(w.value.toLowerCase()) || smellsWithValues(w.value, c.at.ctx))) return [];
  return [opaque(c.pw.display, c.text, { reason: 'opaque-syntax', detail: `${c.pw.display} defines an alias for a destructive command` }, c.at.scope)];
}

function foreachOps(c: Call): Op[] {
  // `… | ForEach-Object Delete`, `… | % -MemberName Delete`: a method called on every pipeline item.
  const member = nativeWords(c.args).find((w) => !w.isBlock && !w.value.startsWith('-') && /^(delete|remove\w*|clear\w*|moveto)$/i.test(w.value));
  if (!member) return [];
  const o = newOp(c, c.pw.display, 'stdin-fed');
  o.inner = member.value;
  o.undeterminable = { reason: 'stdin-fed', detail: `${c.pw.display} calls ${member.value} on each pipeline item, known only when it runs` };
  return [o];
}

function wrapperOps(c: Call): Op[] {
  // Not unwrapped here: what runs is judged by its smell (fail closed).
  const inner = nativeWords(c.args).map((w) => w.value).join(' ');
  if (!smellsWithValues(inner, c.at.ctx)) return [];
  return [indirect(c.name.native, c.argv, inner, 'indirect-shell', `${c.name.native} runs ${clip(inner)}`, c.at.scope, c.at.scope.cwd)];
}

function xargsOps(c: Call): Op[] {
  const inner = nativeWords(c.args).map((w) => w.value).join(' ');
  if (!smellsWithValues(inner, c.at.ctx)) return [];
  const o = newOp(c, c.name.native, 'stdin-fed');
  o.inner = inner;
  o.undeterminable = { reason: 'stdin-fed', detail: `${c.name.native} feeds ${clip(inner)} a list that is known only when it runs` };
  return [o];
}

function findOps(c: Call): Op[] {
  // POSIX find (pwsh on Linux and macOS; on Windows find.exe searches text and has no -delete).
  const words = nativeWords(c.args).map((w) => w.value);
  const deletes = words.includes('-delete');
  const exec = words.findIndex((w) => /^-(exec|execdir|ok|okdir)$/.test(w));
  if (!deletes && (exec < 0 || !smellsDestructivePowerShell(words.slice(exec + 1).join(' ')))) return [];
  const o = newOp(c, 'find', deletes ? 'find-delete' : 'find-exec');
  o.recursive = true;
  o.undeterminable = deletes
    ? { reason: 'find-delete', detail: 'find -delete removes whatever the expression matches when it runs' }
    : { reason: 'find-exec', detail: 'find runs a destructive program on whatever the expression matches when it runs' };
  return [o];
}

function gitOps(c: Call): Op[] {
  const { ctx, scope, depth } = c.at;
  // pwsh on a POSIX host expands an unquoted pattern for a native program.
  const words = nativeWords(c.args).map((w, i) => literalWord(w.value, w.display, w.dynamic, !w.quoted && !w.dynamic && hasWildcard(w.value), i + 1));
  return readGit(words, {
    dialect: 'powershell',
    opts: ctx.opts,
    depth,
    at: { cwd: scope.cwd, cdBefore: scope.cd, createBefore: scope.create },
    argv: c.argv,
    text: c.argv.join(' '),
    // Environment names are case-insensitive on Windows: `$env:git_dir` is GIT_DIR.
    envNames: [...ctx.envNames].map((n) => n.toUpperCase()),
    smells: smellsDestructivePowerShell,
    judgeShell: (text, cwd, d) => judgePosixText(text, ctx.opts, cwd, d),
  });
}

/** Cmdlets and aliases, by lower-case name (never written as a path). */
const CMDLETS: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ...REMOVE.map((n) => [n, removeItemOps] as const),
  ...[...SET_LOCATION, ...PUSH_LOCATION, ...POP_LOCATION].map((n) => [n, locationOps] as const),
  ...['invoke-expression', 'iex'].map((n) => [n, iexOps] as const),
  ...['start-process', 'saps', 'start'].map((n) => [n, startProcessOps] as const),
  ...['set-alias', 'sal', 'new-alias', 'nal'].map((n) => [n, aliasDefOps] as const),
  ...['foreach-object', '%', 'foreach'].map((n) => [n, foreachOps] as const),
]);

/** Native programs, by file name without an executable suffix (a path is allowed). */
const NATIVES: ReadonlyMap<string, ProgramReader> = new Map<string, ProgramReader>([
  ['git', gitOps],
  ...POWERSHELLS.map((n) => [n, (c: Call) => pwshOps(c.name.native, c.cmd, c.args, c.at, c.argv)] as const),
  ['cmd', cmdOps],
  ...[...POSIX_SHELLS, 'wsl'].map((n) => [n, posixShellOps] as const),
  ...WINDOWS_WRAPPERS.map((n) => [n, wrapperOps] as const),
  ['xargs', xargsOps],
  ['parallel', xargsOps],
  ['find', findOps],
]);

const PWSH_VALUE_PARAMS: ReadonlySet<string> = new Set(POWERSHELL_VALUE_PARAMS);

function isPrefixOf(n: string, full: string, min = 1): boolean {
  return n.length >= min && full.startsWith(n);
}

function pwshOps(program: string, cmd: PCommand, args: Tok[], env: Walker, argv: string[]): Op[] {
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
    if (PWSH_VALUE_PARAMS.has(pname)) {
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
    // A script file: its content is not seen (as the POSIX reader does for `bash script.sh`); a file whose
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
