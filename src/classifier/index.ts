// The classifier: a command line in, facts out (one Op per operation of the vocabulary). It decides
// nothing and touches nothing; the only outside knowledge it may be handed is a git alias resolver.
import { scan, type ScanResult } from './scan.js';
import { tokenize, type Command } from './tokenize.js';
import { assignmentName, assignmentValue, decodeWord, type ValueTable, type Word } from './words.js';
import { programName, unwrap } from './unwrap.js';
import { classifyFsDelete, dynamicReason, FS_DELETERS } from './rm.js';
import { classifyFind } from './find.js';
import { classifyGit } from './git.js';
import { smellsDestructive } from './smell.js';
import { joinRaw, normalizeAbs } from './paths.js';
import { floorReason, isFloorVerb, verbKey } from './vocabulary.js';
import { finishClassification } from './op.js';
import { classifyCmd } from './cmd.js';
import { classifyPowerShell, smellsDestructivePowerShell } from './powershell.js';
import type { Dialect } from '../dialect.js';
import type { Classification, Op, OpKind, Undeterminable } from './types.js';

export type { Classification, Op, OpKind, TargetSpec, GitFacts, Undeterminable, UndeterminableReason } from './types.js';
export { smellsDestructive } from './smell.js';

export interface ClassifyOptions {
  /** Absolute working directory the line runs in. */
  cwd: string;
  /** The directory the line runs in is not known (a harness that does not say where its shell tool
   *  runs): relative targets and git's repository are then undeterminable ('unknown-cwd'). */
  cwdUnknown?: boolean;
  /** HOME, for `~` and `$HOME`; null when unknown. */
  home: string | null;
  /** CDPATH is set: `cd name` may go elsewhere than ./name. */
  cdpath?: boolean;
  /** Expands a git alias (`git config alias.NAME`), or returns null. */
  resolveGitAlias?: (name: string, cwd: string | null, globals: readonly string[]) => string | null;
}

/** How deep bash -c / eval / substitutions / aliases are followed before the text counts as unreadable. */
const MAX_DEPTH = 8;
const CREATORS = new Set(['touch', 'mkdir', 'cp', 'mv', 'install', 'ln', 'tee']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'ksh', 'dash', 'mksh', 'yash', 'ash', 'fish']);
const CD = new Set(['cd', 'pushd', 'popd', 'chdir']);
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

function newOp(program: string, kind: OpKind, words: Word[], site: Site, cwd: string | null, wrappers: string[]): Op {
  return {
    index: 0,
    program,
    kind,
    argv: words.map((w) => w.display),
    wrappers,
    cwd,
    dryRun: false,
    noTargets: false,
    recursive: false,
    targets: [],
    undeterminable: null,
    cdBefore: site.scope.cd,
    createBefore: site.createBefore,
  };
}

function opaqueOp(program: string, text: string, reason: Undeterminable, site: Site): Op {
  const op = newOp(program, 'opaque', [], site, site.scope.cwd, []);
  op.argv = [text];
  op.undeterminable = reason;
  op.inner = text;
  return op;
}

/** An op that changes or may change data when run (as opposed to a dry run or a call with nothing to do). */
export function isEffective(op: Op): boolean {
  return op.undeterminable !== null || (!op.dryRun && !op.noTargets);
}

function indirectOp(program: string, text: string, dynamic: boolean, words: Word[], site: Site, cwd: string | null, wrappers: string[], reason: 'indirect-shell' | 'source'): Op[] {
  let destructive: string | null = null;
  if (dynamic || site.depth >= MAX_DEPTH) {
    if (smellsDestructive(text)) destructive = text;
  } else {
    const inner = walk(text, site.opts, cwd, baseValues(site.opts, cwd ?? '/'), site.depth + 1);
    const effective = inner.ops.find(isEffective);
    if (effective) destructive = effective.argv.join(' ') || effective.program;
    else if (inner.unbalanced && smellsDestructive(text)) destructive = text;
  }
  if (destructive === null) return [];
  const op = newOp(program, 'indirect', words, site, cwd, wrappers);
  op.inner = text;
  op.innerDynamic = dynamic || site.depth >= MAX_DEPTH;
  op.undeterminable = {
    reason,
    detail: `${program} runs text that is read only when it runs (${destructive.length > 80 ? destructive.slice(0, 77) + '...' : destructive})`,
  };
  return [op];
}

function shellOps(program: string, args: Word[], words: Word[], site: Site, cwd: string | null, wrappers: string[]): Op[] {
  let k = 0;
  let commandMode = false;
  let stdinMode = false;
  for (; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === '--' || v === '-') {
      k++;
      break;
    }
    if (v.startsWith('--')) {
      if (v === '--rcfile' || v === '--init-file') k++;
      continue;
    }
    if (!/^[-+]/.test(v) || args[k]!.dynamic) break;
    for (let j = 1; j < v.length; j++) {
      if (v[j] === 'c') commandMode = true;
      if (v[j] === 's') stdinMode = true;
      if ((v[j] === 'o' || v[j] === 'O') && j === v.length - 1) k++;
    }
  }
  if (commandMode) {
    const textWord = args[k];
    if (!textWord) return [];
    return indirectOp(program, textWord.value, textWord.dynamic, words, site, cwd, wrappers, 'indirect-shell');
  }
  if (k < args.length && !stdinMode) return []; // a script file: what it does inside is not seen (docs/limitations.md)
  // The shell reads its commands from standard input.
  const redirects = site.command?.redirects ?? [];
  for (const r of redirects) {
    if (r.op === '<<<' && r.target !== null) {
      const w = decodeWord(r.target, { scan: site.scan, values: site.scope.values, home: site.opts.home });
      return indirectOp(program, w.value, w.dynamic, words, site, cwd, wrappers, 'indirect-shell');
    }
    if (r.op === '<' && r.target !== null && r.target.startsWith('\uE013')) {
      const index = Number(r.target.slice(1, -1));
      const h = site.scan.heredocs[index];
      if (h) return indirectOp(program, h.body, !h.quoted && /\$|`/.test(h.body), words, site, cwd, wrappers, 'indirect-shell');
    }
    if (r.op === '<' && r.target !== null) {
      return indirectOp(program, site.lineText, true, words, site, cwd, wrappers, 'source');
    }
  }
  const piped = site.command !== null && (site.command.connector === '|' || site.command.connector === '|&');
  if (piped) return indirectOp(program, site.lineText, true, words, site, cwd, wrappers, 'indirect-shell');
  return [];
}

/** The command xargs runs; null when xargs only prints (`--help`, `--version`: checked with GNU
 *  xargs; `--show-limits` still runs the command on its input, so it is not one of them). */
function xargsCommand(args: Word[]): Word[] | null {
  const withArg = new Set(['a', 'd', 'E', 'I', 'L', 'n', 'P', 's']);
  const longWithArg = new Set(['--arg-file', '--delimiter', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var']);
  let k = 0;
  for (; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === '--') {
      k++;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    if (v.startsWith('--')) {
      if (v === '--help' || v === '--version') return null;
      if (longWithArg.has(v)) k++;
      continue;
    }
    const o = v[1]!;
    if (withArg.has(o) && v.length === 2) k++;
  }
  return args.slice(k);
}

/** The first effective op of a simple command given as words (for find -exec and xargs). */
function destructiveProgram(words: Word[], site: Site, cwd: string | null): string | null {
  if (words.length === 0) return null;
  const nested: Site = { ...site, depth: site.depth + 1, scope: { ...site.scope, cwd, values: new Map(site.scope.values) }, command: null };
  const ops = opsFor(words, nested, false);
  const op = ops.find(isEffective);
  return op ? op.program : null;
}

function opsFor(input: Word[], site: Site, topLevel: boolean): Op[] {
  if (input.length === 0) return [];
  if (site.depth > MAX_DEPTH) {
    const text = input.map((w) => w.display).join(' ');
    return smellsDestructive(text) ? [opaqueOp('?', text, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, site)] : [];
  }
  const resolveDir = (w: Word): string | null => {
    if (w.dynamic) return null;
    if (w.value.startsWith('/')) return normalizeAbs(w.value);
    return site.scope.cwd === null ? null : normalizeAbs(joinRaw(site.scope.cwd, w.value));
  };
  const u = unwrap(input, resolveDir);
  if (u.noop) return [];
  const cwd = u.chdir === undefined ? site.scope.cwd : u.chdir;
  const words = u.words;
  const wrappers = u.wrappers;
  if (u.splitString) {
    const text = [u.splitString.value, ...words.map((w) => w.value)].join(' ');
    return indirectOp(wrappers[wrappers.length - 1] ?? 'env', text, u.splitString.dynamic || words.some((w) => w.dynamic), input, site, cwd, wrappers, 'indirect-shell');
  }
  const first = words[0];
  if (!first) return [];
  if (first.dynamic || first.glob) {
    // `$RM -rf x`, `{rm,} -rf /`, `/bin/r[m]`: the program is known only when the shell expands it.
    // A pattern in program position is never benign enough to pass on smell alone.
    const text = input.map((w) => w.display).join(' ');
    const subText = first.subs.map((i) => site.scan.subs[i]?.body ?? '').join(' ');
    if (!first.glob && !smellsDestructive(text) && !smellsDestructive(subText)) return [];
    return [opaqueOp(first.display, text, { reason: 'dynamic-program', detail: `the program ${first.display} is known only when the command runs` }, site)];
  }
  // git named by a Windows path or executable name (`"C:/Program Files/Git/bin/git.exe"` under Git
  // Bash, `/mnt/c/…/git.exe` through WSL interop, `'C:\Git\bin\git.exe'`, `GIT` on a
  // case-insensitive filesystem) is git. (Unquoted, `C:\Git\bin\git.exe` is `C:Gitbingit.exe` to a
  // POSIX shell: no such program.)
  const program = verbKey(first.value) === 'git' ? 'git' : programName(first);
  const args = words.slice(1);
  const op = (kind: OpKind): Op => newOp(program, kind, words, site, cwd, wrappers);
  const uncertain = (o: Op): Op => {
    if (u.uncertain) o.undeterminable ??= { reason: 'unknown-option', detail: `a wrapper option in front of ${program} is not one agent-guard knows` };
    return o;
  };

  if (CD.has(program)) {
    if (!topLevel) return [];
    const operands = args.filter((w) => w.dynamic || !/^-[LPe@]+$/.test(w.value));
    const target = operands[0];
    let dest: string | null;
    if (program === 'popd') dest = null;
    else if (!target) dest = program === 'pushd' ? null : site.opts.home;
    else if (target.dynamic || target.value === '-') dest = null;
    else if (site.opts.cdpath && !/^(\/|\.\/|\.\.\/|\.$|\.\.$)/.test(target.value)) dest = null;
    else dest = resolveDir(target);
    site.scope.cwd = dest;
    site.scope.cd = true;
    if (dest !== null) site.scope.values.set('PWD', dest);
    else site.scope.values.set('PWD', null);
    return [];
  }
  if (FS_DELETERS.has(program)) {
    const f = classifyFsDelete(program, args, cwd);
    const o = op('fs-delete');
    Object.assign(o, { recursive: f.recursive, dryRun: f.dryRun, noTargets: f.noTargets, targets: f.targets, undeterminable: f.undeterminable });
    return [uncertain(o)];
  }
  if (program === 'find') {
    const f = classifyFind(args, cwd, (cmd) => destructiveProgram(cmd, site, cwd));
    if (!f.deletes && f.execDestructive === null) return [];
    const o = op(f.deletes ? 'find-delete' : 'find-exec');
    o.targets = f.startingPoints;
    o.recursive = true;
    o.undeterminable = f.deletes
      ? { reason: 'find-delete', detail: 'find -delete removes whatever the expression matches when it runs' }
      : { reason: 'find-exec', detail: `find runs ${f.execDestructive} on whatever the expression matches when it runs` };
    return [o];
  }
  if (program === 'git') {
    const g = classifyGit(args, cwd, [...site.prefixNames, ...u.envNames]);
    if (g.noop) return [];
    // `-c core.pager=…`, `-c alias.x=!…`, `-c core.sshCommand=…`: configuration that runs commands.
    const configs = g.facts.globals.filter((_, i, a) => a[i - 1] === '-c');
    const runs = configs.find((c) => smellsDestructive(c.slice(c.indexOf('=') + 1)));
    if (runs !== undefined) {
      // Judged as text (dynamic): whether git runs it here depends on the key, which we do not model.
      return indirectOp('git', runs, true, words, site, cwd, wrappers, 'indirect-shell');
    }
    if (g.dynamicSubcommand) {
      const text = input.map((w) => w.display).join(' ');
      return smellsDestructive(text) ? [opaqueOp('git', text, g.undeterminable ?? { reason: 'dynamic-program', detail: 'the git subcommand is known only when the command runs' }, site)] : [];
    }
    if (g.aliasCandidate !== undefined) {
      if (g.facts.globals.includes('--config-env') || [...site.prefixNames, ...u.envNames].some((n) => /^GIT_CONFIG/.test(n))) {
        return [opaqueOp('git', input.map((w) => w.display).join(' '), { reason: 'git-environment', detail: `git ${g.aliasCandidate} may be an alias defined in the environment` }, site)];
      }
      // An alias set on the line itself (`git -c alias.x=clean x`) needs no lookup; the last one wins.
      const key = `alias.${g.aliasCandidate}=`.toLowerCase();
      const onLine = configs.filter((c) => c.toLowerCase().startsWith(key)).pop();
      const expansion = onLine !== undefined ? onLine.slice(onLine.indexOf('=') + 1) : (site.opts.resolveGitAlias?.(g.aliasCandidate, cwd, g.facts.globals) ?? null);
      if (expansion === null) return [];
      const restIndex = args.findIndex((w) => !w.dynamic && w.value === g.aliasCandidate);
      const rest = args.slice(restIndex + 1);
      if (expansion.startsWith('!')) {
        const text = [expansion.slice(1), ...rest.map((w) => w.display)].join(' ');
        return indirectOp('git', text, rest.some((w) => w.dynamic), words, site, g.facts.dir, wrappers, 'indirect-shell');
      }
      const aliasScan = scan(expansion);
      const aliasWords = (tokenize(aliasScan.text)[0]?.words ?? []).map((raw) =>
        decodeWord(raw, { scan: aliasScan, values: new Map(), home: site.opts.home }),
      );
      const globals = args.slice(0, restIndex);
      const gitWord: Word = { ...first, value: 'git', display: 'git' };
      const expanded = [gitWord, ...globals, ...aliasWords, ...rest];
      return opsFor(expanded, { ...site, depth: site.depth + 1 }, false).map((o) => {
        o.wrappers = wrappers;
        return o;
      });
    }
    if (g.kind === null) return [];
    const o = op(g.kind);
    Object.assign(o, { git: g.facts, dryRun: g.dryRun, noTargets: g.noTargets, recursive: g.recursive, targets: g.targets, undeterminable: g.undeterminable });
    return [uncertain(o)];
  }
  if (program === 'xargs' || program === 'parallel') {
    const cmd = program === 'xargs' ? xargsCommand(args) : args;
    if (cmd === null) return [];
    // The items xargs reads become operands: judge the program as if it had one.
    const item: Word = { value: 'xargs-item', display: 'ITEM', dynamic: false, glob: false, subs: [], vars: [] };
    const inner = program === 'xargs' ? destructiveProgram(cmd.length > 0 ? [...cmd, item] : [], site, cwd) : smellsDestructive(args.map((w) => w.display).join(' ')) ? args.map((w) => w.value).join(' ') : null;
    if (inner === null) return [];
    const o = op('stdin-fed');
    o.inner = inner;
    o.undeterminable = { reason: 'stdin-fed', detail: `${program} feeds ${inner} a list that is known only when it runs` };
    return [o];
  }
  if (SHELLS.has(program)) return shellOps(program, args, words, site, cwd, wrappers);
  if (program === 'su' || program === 'script' || program === 'runuser') {
    // `su -c CMD`, `script -c CMD`, `runuser -c CMD`: a command string run by a shell.
    const at = args.findIndex((w) => /^-[a-zA-Z]*c$/.test(w.value) || w.value === '--command' || w.value.startsWith('--command='));
    if (at < 0) {
      if (program !== 'runuser') return [];
      // `runuser -u USER [--] CMD…` runs CMD directly.
      let k = 0;
      while (k < args.length && args[k]!.value.startsWith('-') && args[k]!.value !== '--') k += /^-[ugGs]$/.test(args[k]!.value) ? 2 : 1;
      if (args[k]?.value === '--') k++;
      return opsFor(args.slice(k), { ...site, depth: site.depth + 1 }, false).map((o) => ({ ...o, wrappers: [...wrappers, 'runuser', ...o.wrappers] }));
    }
    const a = args[at]!;
    const textWord = a.value.startsWith('--command=') ? { ...a, value: a.value.slice('--command='.length) } : args[at + 1];
    return textWord ? indirectOp(program, textWord.value, textWord.dynamic, words, site, cwd, wrappers, 'indirect-shell') : [];
  }
  if (program === 'eval' || program === 'watch') {
    let rest = args;
    if (program === 'watch') {
      let k = 0;
      while (k < rest.length && rest[k]!.value.startsWith('-')) k += /^-(n|-interval|q|-equexit)$/.test(rest[k]!.value) ? 2 : 1;
      rest = rest.slice(k);
    }
    const text = rest.map((w) => w.value).join(' ');
    return indirectOp(program, text, rest.some((w) => w.dynamic), words, site, cwd, wrappers, 'indirect-shell');
  }
  if (program === 'source' || program === '.') {
    const text = input.map((w) => w.display).join(' ');
    if (!smellsDestructive(text)) return [];
    const o = op('indirect');
    o.inner = text;
    o.undeterminable = { reason: 'source', detail: `${program} runs a file whose commands are read only when it runs` };
    return [o];
  }
  if (isFloorVerb(program, 'posix')) {
    // `RM -rf x` (a case-insensitive filesystem finds rm), `DEL x`, `Remove-Item x`, `srm x`: a
    // destructive verb this reader does not model. The rm family in another case is read as rm only
    // to see that it changes nothing (`RM --version`, `Rmdir --help`, `RM` alone): the program is
    // either that tool, which then only prints, or another one.
    const key = verbKey(first.value);
    if (FS_DELETERS.has(key) && key !== program) {
      const f = classifyFsDelete(key, args, cwd);
      if (f.undeterminable === null && !u.uncertain && (f.dryRun || f.noTargets)) return [];
    }
    const o = op('opaque');
    o.undeterminable = floorReason(first.display, 'posix');
    return [uncertain(o)];
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
  const siteBase = { opts, depth, scan: sr, lineText: text };
  if (sr.unbalanced || sr.foreignMarkers) {
    // The shell rejects the line (or part of it) and may still run what precedes the error.
    if (smellsDestructive(text)) {
      const site: Site = { ...siteBase, scope: root, command: null, prefixNames: [], createBefore: false };
      res.ops.push(
        opaqueOp('?', text, sr.unbalanced
          ? { reason: 'unbalanced', detail: 'the line has an unterminated quote or substitution' }
          : { reason: 'opaque-syntax', detail: 'the line holds characters agent-guard reserves for its own parsing' }, site),
      );
    }
    res.commandCount = 1;
    return res;
  }
  let createSeen = false;
  for (const cmd of tokenize(sr.text)) {
    res.commandCount++;
    const scope = scopeOf(cmd.scope);
    const site: Site = { ...siteBase, scope, command: cmd, prefixNames: [], createBefore: createSeen };
    if (cmd.opaque) {
      if (smellsDestructive(text)) res.ops.push(opaqueOp('?', text, { reason: 'opaque-syntax', detail: `a ${cmd.opaque === 'syntax' ? 'construct' : cmd.opaque === 'case' ? 'case clause' : 'function body'} whose commands run at a time agent-guard cannot tell` }, site));
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
    const words = cmd.words.slice(k).map((raw) => decodeWord(raw, ctx));
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
      if (smellsDestructive(body)) res.ops.push(opaqueOp('?', body, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, { ...siteBase, scope: root, command: null, prefixNames: [], createBefore: false }));
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

/** The front end for a dialect: POSIX shell (this file), cmd.exe (cmd.ts) or PowerShell (powershell.ts).
 *  Each turns its own spelling into the same facts; the policy never sees the dialect. */
export function classifyDialect(dialect: Dialect, text: string, opts: ClassifyOptions): Classification {
  if (dialect === 'cmd') return classifyCmd(text, opts);
  if (dialect === 'powershell') return classifyPowerShell(text, opts);
  return classify(text, opts);
}

/** The destructive smell for a dialect's text: the shared one, widened with the Windows dialects'
 *  vocabulary (another dialect's verb in the text smells too). Used where the text could not be read.
 *  `null` (no usable dialect): the widest. */
export function smellsDestructiveIn(dialect: Dialect | null, text: string): boolean {
  if (dialect === 'posix') return smellsDestructive(text);
  return smellsDestructivePowerShell(text);
}

export function classify(text: string, opts: ClassifyOptions): Classification {
  const res = walk(text, opts, opts.cwdUnknown ? null : opts.cwd, baseValues(opts, opts.cwdUnknown ? null : opts.cwd), 0);
  return finishClassification(res.ops, res.commandCount, res.unbalanced);
}

export { dynamicReason };
