// The checker side of the PATH shims (shims/shim.sh, docs/shims.md): the shell has expanded the
// command, so the argv is concrete. The same policy decides; a SAFE decision is compensated here;
// then a directive tells the shim what to exec so that what is left on disk (outside the
// quarantine), the output and the exit status are what the real tool would have produced:
//   run            exec the real tool with the original argv
//   keep I1 I2 …   exec it with only those arguments (1-based), e.g. rm without the operands that
//                  were quarantined (so `rm file` without -f does not fail on the moved file)
//   exit N         exit N (what the tool would have printed has been printed)
// A refusal prints the reason and the fix on stderr and is `exit 2` (BLOCK) or `exit 3` (ASK).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Env } from '../config.js';
import { quoteArgv } from '../classifier/index.js';
import { explain, type CheckResult } from '../engine.js';
import { decideLine, enforce } from '../enforce.js';
import { EXIT } from '../exit-codes.js';
import type { ReasonCode } from '../policy/reasons.js';
import { gitRunner, isIgnoredPath, unreachableFromRefs, worktreeList } from '../probe/git.js';
import { physicalBytes, physicalOf, realpathLoose } from '../probe/fs.js';
import { discoverWorkspace } from '../probe/index.js';
import { relocate } from '../recovery/quarantine.js';
import { relocateByPlace, type PlacedRelocation, type PlacedTarget } from '../recovery/places.js';
import { leftToDelete, needsCompensation, relocateRegenerable } from '../recovery/compensate.js';
import { isWithin } from '../classifier/paths.js';
import { recordRefs, type DroppedRefs } from '../recovery/snapshot.js';
import { redact } from '../recovery/redact.js';
import { appendRecord } from '../recovery/records.js';
import { auditPath } from '../recovery/quarantine.js';
import { parseFindArgs, planFindDelete } from './find.js';
import { keptBy, notice } from '../notice.js';
import { shimOverwrite } from '../overwrite/shims.js';

export interface ShimIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface ShimContext {
  env: Env;
  cwd: string;
  io: ShimIO;
  /** Opens the controlling terminal for a question (rm -i); null when there is none. */
  ask?: (question: string) => boolean | null;
}

export type Directive = { kind: 'run' } | { kind: 'keep'; indexes: number[] } | { kind: 'exit'; code: number };

export function formatDirective(d: Directive): string {
  if (d.kind === 'run') return 'run\n';
  if (d.kind === 'exit') return `exit ${d.code}\n`;
  return d.indexes.length === 0 ? 'keep\n' : `keep ${d.indexes.join(' ')}\n`;
}

const run: Directive = { kind: 'run' };
const exit = (code: number): Directive => ({ kind: 'exit', code });

/** The refusal every entry point prints: decision, code, explanation (with the fix), the command. */
function refuse(ctx: ShimContext, argv: readonly string[], r: { decision: string; code: string; explanation: string }): Directive {
  ctx.io.stderr(`agent-guard: refused \`${quoteArgv(argv)}\`: ${r.decision} ${r.code}: ${r.explanation}\n`);
  if (r.decision === 'ASK') ctx.io.stderr('agent-guard: a human must authorize this one execution: ask the user to run it in their own terminal.\n');
  return exit(r.decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK);
}

function blockWith(ctx: ShimContext, argv: readonly string[], code: ReasonCode, detail: string): Directive {
  return refuse(ctx, argv, { decision: 'BLOCK', code, explanation: explain(code, detail) });
}

/** Is `physical` quarantined content (inside the quarantine, not the quarantine itself)? The policy
 *  has refused the quarantine, its state and what holds it (rule 5) before this is asked. */
function inQuarantine(r: CheckResult, physical: string | null): boolean {
  const q = r.workspace?.quarantine;
  return q !== undefined && physical !== null && physical !== q && isWithin(physical, q);
}

/** A shim sees a concrete argv and cannot tell a path typed by hand from one a find, xargs or glob
 *  produced: what the quarantine holds is never deleted and never nested into another transaction.
 *  It stays in place, dropped from the real tool's argv, and one line says so. */
function leftInQuarantine(ctx: ShimContext, program: string, shown: readonly string[]): void {
  if (shown.length === 0) return;
  const what = shown.length === 1 ? JSON.stringify(shown[0]) : `${shown.length} paths (${JSON.stringify(shown[0])}, …)`;
  ctx.io.stderr(`agent-guard: ${program}: ${what} ${shown.length === 1 ? 'is' : 'are'} in the quarantine: left in place (restore it with agent-guard restore, or purge the quarantine with agent-guard gc)\n`);
}

/** The physical target of each operand (matched by its text), for argv-level decisions. */
function targetOf(r: CheckResult, value: string): string | null {
  for (const o of r.ops) for (const t of o.targets) if (t.role !== 'scope' && t.raw === value && t.physical !== null) return t.physical;
  return null;
}

/** Decides `argv` (the program and its concrete arguments) as one line, in `ctx.cwd`. The probes
 *  use the real git, never a shim (gitRunner). */
function decideArgv(argv: readonly string[], ctx: ShimContext, real: string): { r: CheckResult; text: string; config: ReturnType<typeof loadConfig> } {
  const base = loadConfig(ctx.env, ctx.cwd);
  // The git shim's probes use the real git it found; any other probe's bare `git` is looked up past
  // the shim directories by gitRunner itself.
  const config = argv[0] === 'git' ? { ...base, gitBinary: real } : base;
  const text = quoteArgv(argv);
  return { r: decideLine({ text, config, mode: 'NORMAL', dialect: 'posix' }), text, config };
}

/** The shim's entry: decide, compensate, and say what to exec. */
export function shim(name: string, real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = [name, ...args];
  // Arguments reach Node decoded as UTF-8: bytes that are not UTF-8 cannot be checked exactly.
  if (args.some((a) => a.includes('\uFFFD'))) {
    return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', 'an argument is not valid UTF-8 and cannot be checked exactly; use `agent-guard delete` with a pattern for such names');
  }
  switch (name) {
    case 'rm':
      return shimRm(real, args, ctx);
    case 'unlink':
      return shimUnlink(real, args, ctx);
    case 'rmdir':
      return shimRmdir(real, args, ctx);
    case 'shred':
      return shimShred(real, args, ctx);
    case 'git':
      return shimGit(real, args, ctx);
    case 'find':
      return shimFind(real, args, ctx);
    case 'mv':
    case 'cp':
    case 'truncate':
    case 'rsync':
      return shimOverwrite(name, real, args, ctx);
    default:
      return blockWith(ctx, argv, 'BLOCK_INTERNAL_ERROR', `no shim logic for ${JSON.stringify(name)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// rm

interface RmArgs {
  /** Indexes (0-based into args) of options and of `--`. */
  options: number[];
  operands: { i: number; value: string }[];
  recursive: boolean;
  dir: boolean;
  interactive: boolean;
  verbose: boolean;
}

/** GNU rm's argv (options anywhere before `--`, as GNU permutes them). Null for an option it does
 *  not know: the real rm then reports it. */
function parseRm(args: readonly string[]): RmArgs | null {
  const out: RmArgs = { options: [], operands: [], recursive: false, dir: false, interactive: false, verbose: false };
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || a === '-' || !a.startsWith('-')) {
      out.operands.push({ i, value: a });
      continue;
    }
    out.options.push(i);
    if (a === '--') {
      ended = true;
      continue;
    }
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0]!;
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : null;
      if (name === 'recursive') out.recursive = true;
      else if (name === 'dir') out.dir = true;
      else if (name === 'verbose') out.verbose = true;
      else if (name === 'interactive') out.interactive = value !== 'never' && value !== 'no' && value !== 'none';
      else if (!['force', 'one-file-system', 'no-preserve-root', 'preserve-root'].includes(name)) return null;
      continue;
    }
    for (const c of a.slice(1)) {
      if (c === 'r' || c === 'R') out.recursive = true;
      else if (c === 'd') out.dir = true;
      else if (c === 'v') out.verbose = true;
      else if (c === 'i' || c === 'I') out.interactive = true;
      else if (c === 'f') out.interactive = false; // the last of -f / -i wins
      else return null;
    }
  }
  return out;
}

/** Would the real rm remove this operand (given its flags)? Otherwise it stays for the real rm,
 *  which reports it exactly as it would have. */
function rmRemoves(abs: string, value: string, a: RmArgs): boolean {
  const base = path.basename(value.replace(/\/+$/, ''));
  if (base === '.' || base === '..' || value.replace(/\/+$/, '') === '') return false; // rm refuses these
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return false;
  if (st.isDirectory()) {
    if (a.recursive) return true;
    return a.dir && fs.readdirSync(abs).length === 0;
  }
  return true;
}

/** GNU rm's quoting of a name in messages, for the plain cases ('name'; "it's" with a quote). */
function rmQuote(p: string): string {
  return p.includes("'") ? `"${p}"` : `'${p}'`;
}

/** What `rm -v` prints for an entry it removes: children first, in directory order. */
function verboseLines(shown: string, dest: string, out: string[]): void {
  const st = fs.lstatSync(dest, { throwIfNoEntry: false });
  if (st?.isDirectory()) {
    for (const n of fs.readdirSync(dest)) verboseLines(`${shown.replace(/\/+$/, '')}/${n}`, path.join(dest, n), out);
    out.push(`removed directory ${rmQuote(shown)}`);
  } else out.push(`removed ${rmQuote(shown)}`);
}

/** The decision, restricted to the given physical targets (what the real tool would remove). */
function restrictTo(r: CheckResult, keep: ReadonlySet<string>): CheckResult {
  return { ...r, ops: r.ops.map((o) => ({ ...o, targets: o.targets.filter((t) => t.role === 'scope' || (t.physical !== null && keep.has(t.physical))) })) };
}

function shimRm(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['rm', ...args];
  const { r, text, config } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const a = parseRm(args);
  if (a === null) return run;
  // Quarantined content the real rm would remove stays where it is (ALLOW_TRASH_GC is for paths
  // named in command text, which the text entry points see; here the argv may come from find/xargs).
  const kept = a.operands.filter((op) => inQuarantine(r, targetOf(r, op.value)) && rmRemoves(path.resolve(ctx.cwd, op.value), op.value, a));
  if (!needsCompensation(r) && kept.length === 0) return run;
  leftInQuarantine(ctx, 'rm', kept.map((k) => k.value));
  const keptAt = new Set(kept.map((k) => k.i));
  // RELOCATE (and a regenerable ALLOW): each operand the real rm would remove is quarantined; the
  // rest stay for the real rm.
  const targets = needsCompensation(r) ? r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope')) : [];
  const chosen: { i: number; value: string; physical: string }[] = [];
  for (const op of a.operands) {
    const t = targets.find((x) => x.raw === op.value && x.physical !== null);
    if (!t || keptAt.has(op.i)) continue;
    if (op.value.endsWith('/') && fs.lstatSync(path.resolve(ctx.cwd, op.value.replace(/\/+$/, '')), { throwIfNoEntry: false })?.isSymbolicLink()) {
      // `rm -r link/` acts on the directory behind the link: refused rather than guessed.
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `${op.value} is a symlink named with a trailing slash; name the link (no slash) or the directory itself`);
    }
    if (rmRemoves(path.resolve(ctx.cwd, op.value), op.value, a)) chosen.push({ ...op, physical: t.physical! });
  }
  if (chosen.length > 0 && a.interactive) {
    const yes = ctx.ask?.(`agent-guard: rm: move ${chosen.length} path(s) to the quarantine (restorable with agent-guard restore)? [y/N] `) ?? null;
    if (yes === null) return refuse(ctx, argv, { decision: 'ASK', code: r.code, explanation: 'rm -i asks about each file, and there is no terminal to ask: drop -i (what rm removes is quarantined and restorable).' });
    if (!yes) return exit(0);
  }
  // What the compensation left for rm itself (a regenerable artifact on another filesystem than the
  // quarantine) stays in its argv.
  let direct = new Set<string>();
  if (chosen.length > 0) {
    const done = enforce(restrictTo(r, new Set(chosen.map((c) => c.physical))), text, config);
    if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
    notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
    direct = leftToDelete(done);
    if (a.verbose) {
      const lines: string[] = [];
      const moved = done.compensations.flatMap((c) => (Array.isArray(c.moved) ? (c.moved as { origin: string; dest: string }[]) : []));
      for (const c of chosen) {
        const m = moved.find((x) => x.origin === c.physical);
        if (m) verboseLines(c.value, m.dest, lines);
      }
      if (lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
    }
  }
  const gone = new Set([...chosen.filter((c) => !direct.has(c.physical)).map((c) => c.i), ...keptAt]);
  const remaining = a.operands.filter((o) => !gone.has(o.i));
  if (remaining.length === 0) return exit(0);
  return { kind: 'keep', indexes: [...a.options, ...remaining.map((o) => o.i)].sort((x, y) => x - y).map((i) => i + 1) };
}

// ---------------------------------------------------------------------------------------------
// unlink, rmdir, shred

function shimUnlink(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['unlink', ...args];
  const { r, text, config } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  if (args.length !== 1 || args[0]!.startsWith('-')) return run;
  const st = fs.lstatSync(path.resolve(ctx.cwd, args[0]!), { throwIfNoEntry: false });
  if (!st || st.isDirectory()) return run; // the real unlink reports it
  if (inQuarantine(r, targetOf(r, args[0]!))) {
    leftInQuarantine(ctx, 'unlink', args);
    return exit(0);
  }
  if (!needsCompensation(r)) return run;
  const done = enforce(r, text, config);
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  return leftToDelete(done).size > 0 ? run : exit(0);
}

/** The operands (0-based indexes into args) of rmdir or shred: every argument that is not an
 *  option, where `valued` options take the next argument as their value. */
function operandsOf(args: readonly string[], valued: ReadonlySet<string>): number[] {
  const out: number[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || a === '-' || !a.startsWith('-')) out.push(i);
    else if (a === '--') ended = true;
    else if (valued.has(a)) i++;
  }
  return out;
}

/** Drops the operands that name quarantined content (it stays in place, with one line saying so);
 *  null when there are none. */
function dropQuarantined(program: string, args: readonly string[], operands: readonly number[], r: CheckResult, ctx: ShimContext, present: (abs: string) => boolean): Directive | null {
  const kept = operands.filter((i) => inQuarantine(r, targetOf(r, args[i]!)) && present(path.resolve(ctx.cwd, args[i]!)));
  if (kept.length === 0) return null;
  leftInQuarantine(ctx, program, kept.map((i) => args[i]!));
  if (kept.length === operands.length) return exit(0);
  const drop = new Set(kept);
  return { kind: 'keep', indexes: args.map((_, i) => i).filter((i) => !drop.has(i)).map((i) => i + 1) };
}

/** rmdir removes only empty directories: nothing in them to keep. The policy still decides (a
 *  protected path, RESTRICTED mode), then the real rmdir runs as it is — without the directories
 *  inside the quarantine. */
function shimRmdir(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['rmdir', ...args];
  const { r } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const isDir = (abs: string): boolean => fs.lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;
  return dropQuarantined('rmdir', args, operandsOf(args, new Set()), r, ctx, isDir) ?? run;
}

/** shred's options that take the next argument as their value. */
const SHRED_VALUED = new Set(['-n', '-s', '--iterations', '--size', '--random-source']);

/** shred overwrites files in place (and with -u removes them): a verified copy of each goes to the
 *  quarantine first, then the real shred runs. */
function shimShred(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['shred', ...args];
  const { r, text, config } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  const isFile = (abs: string): boolean => fs.lstatSync(abs, { throwIfNoEntry: false })?.isFile() === true;
  // Quarantined content is never overwritten: dropped from the argv; the rest is copied as usual.
  const dropped = dropQuarantined('shred', args, operandsOf(args, SHRED_VALUED), r, ctx, isFile);
  if (dropped?.kind === 'exit') return dropped;
  if (!needsCompensation(r) || !r.workspace) return dropped ?? run;
  const place = { root: r.workspace.root, quarantine: r.workspace.quarantine };
  const targets = r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope' && t.physical !== null && t.type === 'file' && !inQuarantine(r, t.physical)).map((t) => ({ path: t.physical!, ...(t.zone !== undefined ? { zone: t.zone } : {}) })));
  if (targets.length === 0) return dropped ?? run;
  const git = gitRunner(config.gitBinary, config.env);
  // A regenerable file (rule 13) is copied too: shred has no rename to offer, and a file is small.
  const results = relocateByPlace(r.workspace, targets, { session: config.session, command: redact(text), cwd: config.cwd }, (dir) => isIgnoredPath(git, place.root, dir), { keepOrigin: true, regenerable: r.decision === 'ALLOW' });
  const refused = placedOutcome(ctx, argv, place, text, config, r.code, results);
  if (refused) return refused;
  notice(ctx.env, ctx.cwd, results.map((x) => ({ txid: x.txid, moved: x.moved, copied: true })), ctx.io.stderr);
  return dropped ?? run;
}

/** Audits a shim's relocations (one per quarantine) and refuses when one failed; null when all
 *  were done. */
function placedOutcome(ctx: ShimContext, argv: readonly string[], place: { root: string; quarantine: string }, text: string, config: ReturnType<typeof loadConfig>, code: string, results: readonly PlacedRelocation[]): Directive | null {
  const failed = results.find((x) => x.failure);
  auditShim(place, text, config, failed ? 'BLOCK' : 'ALLOW', failed?.failure?.code ?? code, results[0]?.txid ?? null);
  if (!failed?.failure) return null;
  const moved = results.filter((x) => x.moved.length > 0).map((x) => x.txid);
  const message = failed.failure.message + (moved.length > 0 ? `; already moved, restorable: ${moved.join(' ')}` : '; nothing was moved');
  return refuse(ctx, argv, { decision: 'BLOCK', code: failed.failure.code, explanation: explain(failed.failure.code, message) });
}

function auditShim(place: { root: string; quarantine: string }, text: string, config: ReturnType<typeof loadConfig>, decision: string, code: string, txid: string | null): void {
  try {
    appendRecord(auditPath(place), { kind: 'decision', txid, session: config.session, decision, code, command: redact(text), cwd: config.cwd, mode: 'NORMAL', via: 'shim' }, { sync: false });
  } catch {
    // best effort, as for check --enforce: the manifest holds what moved
  }
}

// ---------------------------------------------------------------------------------------------
// git

const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--attr-source', '--list-cmds', '--shallow-file']);

/** Index of git's subcommand in args (after the global options), or -1. */
function gitSubcommandIndex(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GIT_GLOBAL_WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return i;
  }
  return -1;
}

/** What `git branch -d/-D/--delete` or `git stash drop/clear` is about to drop (null: nothing of
 *  that kind in this call). Names git cannot resolve are left to git, which reports them. */
function droppedBy(args: readonly string[], sub: number, runGit: (a: string[]) => { ok: boolean; out: string }): DroppedRefs | null {
  const rest = args.slice(sub + 1);
  if (args[sub] === 'branch') {
    const flags = rest.filter((a) => a.startsWith('-'));
    const deleting = flags.some((f) => f === '--delete' || (/^-[a-zA-Z]+$/.test(f) && /[dD]/.test(f)));
    if (!deleting) return null;
    const remote = flags.some((f) => f === '--remotes' || (/^-[a-zA-Z]+$/.test(f) && f.includes('r')));
    const refs: DroppedRefs['refs'] = [];
    for (const name of rest.filter((a) => !a.startsWith('-'))) {
      const ref = `${remote ? 'refs/remotes/' : 'refs/heads/'}${name}`;
      const sha = runGit(['rev-parse', '--verify', '-q', `${ref}^{commit}`]);
      if (sha.ok && sha.out.trim() !== '') refs.push({ ref, sha: sha.out.trim() });
    }
    return { refs, stashes: [] };
  }
  if (args[sub] === 'stash' && (rest[0] === 'drop' || rest[0] === 'clear')) {
    const list = runGit(['stash', 'list', '--format=%gd%x00%H%x00%gs']);
    const entries = list.out.split('\n').filter((l) => l !== '').map((l) => l.split('\0')).map(([name, sha, message]) => ({ name: name ?? '', sha: sha ?? '', message: message ?? '' }));
    if (rest[0] === 'clear') return { refs: [], stashes: entries.map((e) => ({ sha: e.sha, message: e.message })) };
    const which = rest.slice(1).find((a) => !a.startsWith('-')) ?? 'stash@{0}';
    const name = /^\d+$/.test(which) ? `stash@{${which}}` : which;
    const e = entries.find((x) => x.name === name);
    return { refs: [], stashes: e ? [{ sha: e.sha, message: e.message }] : [] };
  }
  return null;
}

function shimGit(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['git', ...args];
  const { r, text, config } = decideArgv(argv, ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  if (r.decision === 'ALLOW') return keepDropped(real, args, ctx, r, text, config, argv);
  const sub = gitSubcommandIndex(args);
  const failed = keepWorktreeHead(real, args, sub, ctx, r, text, config, argv);
  if (failed) return failed;
  const cleaning = r.code === 'RELOCATE_VIA_CLEAN_ENUMERATE' && sub >= 0 && args[sub] === 'clean';
  // git clean: what it would print ("Removing x"), taken from the same enumeration, before the
  // entries move; the real git clean would then find nothing and print nothing.
  let lines: string[] = [];
  if (cleaning) {
    const dry = [...args.slice(0, sub + 1), '-n', ...args.slice(sub + 1)];
    const child = process.getBuiltinModule('node:child_process').spawnSync(real, dry, { cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (child.status !== 0) return run; // git reports its own error
    lines = child.stdout.split('\n').filter((l) => l !== '').map((l) => l.replace(/^Would remove /, 'Removing ').replace(/^Would skip repository /, 'Skipping repository '));
  }
  const done = enforce(r, text, config);
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  if (!cleaning) return run;
  const quiet = args.slice(sub + 1).some((a) => a === '-q' || a === '--quiet' || (/^-[a-zA-Z]+$/.test(a) && a.includes('q')));
  if (!quiet && lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
  return exit(0);
}

/** Branches and stash entries a command drops are kept restorable first (recordRefs). */
function keepDropped(real: string, args: readonly string[], ctx: ShimContext, r: CheckResult, text: string, config: ReturnType<typeof loadConfig>, argv: readonly string[]): Directive {
  const sub = gitSubcommandIndex(args);
  if (sub < 0 || (args[sub] !== 'branch' && args[sub] !== 'stash')) return run;
  const globals = args.slice(0, sub);
  const git = gitRunner(real, ctx.env);
  const runGit = (a: string[]): { ok: boolean; out: string } => {
    const x = git.run([...globals, ...a], ctx.cwd);
    return { ok: x.ok, out: x.stdout.toString('utf8') };
  };
  const dropped = droppedBy(args, sub, runGit);
  if (!dropped || dropped.refs.length + dropped.stashes.length === 0) return run;
  const top = runGit(['rev-parse', '--show-toplevel']).out.trim();
  const place = r.workspace ?? (top ? placeOf(top, config) : null);
  if (!place) return run;
  const res = recordRefs(place, git, { cwd: ctx.cwd, globals }, { session: config.session, command: redact(text), cwd: config.cwd }, (dir) => isIgnoredPath(git, place.root, dir), dropped);
  auditShim(place, text, config, res.error ? 'BLOCK' : 'ALLOW', res.error ? 'COMPENSATION_FAILED' : r.code, res.txid);
  if (res.error) return refuse(ctx, argv, { decision: 'BLOCK', code: 'COMPENSATION_FAILED', explanation: explain('COMPENSATION_FAILED', res.error) });
  notice(ctx.env, ctx.cwd, [{ txid: res.txid, refs: dropped.refs.map((x) => x.ref), stashes: dropped.stashes.length }], ctx.io.stderr);
  return run;
}

/** `git worktree remove` of a work tree on a detached HEAD whose commits no branch, tag or remote
 *  reaches: git deletes the records that reach them, so the commit is kept first, as a branch that
 *  `restore` re-creates (a `refs` transaction, like `git branch -D`). Before the work tree's
 *  directory is quarantined; null when there is nothing to keep, a refusal when keeping fails. */
function keepWorktreeHead(real: string, args: readonly string[], sub: number, ctx: ShimContext, r: CheckResult, text: string, config: ReturnType<typeof loadConfig>, argv: readonly string[]): Directive | null {
  const op = r.ops.find((o) => o.kind === 'git-worktree-remove' && o.decision === 'RELOCATE');
  const dir = op?.targets.find((t) => t.role !== 'scope')?.physical;
  if (sub < 0 || !op || !dir || !r.workspace) return null;
  const globals = args.slice(0, sub);
  const git = gitRunner(real, ctx.env);
  const entry = (worktreeList(git, ctx.cwd, globals) ?? []).find((e) => realpathLoose(e.path) === dir);
  if (!entry || entry.branch !== null || entry.head === null || unreachableFromRefs(git, ctx.cwd, globals, entry.head) === false) return null;
  const place = { root: r.workspace.root, quarantine: r.workspace.quarantine };
  const ref = `refs/heads/worktree-${path.basename(dir).replace(/[^A-Za-z0-9._-]/g, '_')}-${entry.head.slice(0, 12)}`;
  const res = recordRefs(place, git, { cwd: ctx.cwd, globals }, { session: config.session, command: redact(text), cwd: config.cwd }, (d) => isIgnoredPath(git, place.root, d), { refs: [{ ref, sha: entry.head }], stashes: [] });
  auditShim(place, text, config, res.error ? 'BLOCK' : 'ALLOW', res.error ? 'COMPENSATION_FAILED' : r.code, res.txid);
  return res.error ? refuse(ctx, argv, { decision: 'BLOCK', code: 'COMPENSATION_FAILED', explanation: explain('COMPENSATION_FAILED', res.error) }) : null;
}

/** The quarantine of a workspace root (AGENT_GUARD_TRASH overrides), as the engine places it. */
function placeOf(root: string, config: ReturnType<typeof loadConfig>): { root: string; quarantine: string } {
  return { root, quarantine: config.trash ?? path.join(root, '.agent-trash') };
}

// ---------------------------------------------------------------------------------------------
// find

const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'git', 'find']);

function shimFind(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['find', ...args];
  // `-delete` as an action (not, say, the pattern of `-name -delete`): the planner's parser knows.
  const parsed = args.includes('-delete') ? parseFindArgs(args) : null;
  if (parsed && (parsed.ok || parsed.hasDelete)) return shimFindDelete(real, args, ctx);
  // -exec rm … reaches the rm shim by PATH; a program named by its path does not.
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
    const prog = args[i + 1] ?? '';
    if (prog.includes('/') && DELETERS.has(path.basename(prog))) {
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `${args[i]} ${prog} runs ${path.basename(prog)} by its path, past the guard: name it without a path (${path.basename(prog)}) so each call is checked`);
    }
  }
  return run;
}

function shimFindDelete(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['find', ...args];
  const base = loadConfig(ctx.env, ctx.cwd);
  const q = discoverWorkspace(base).quarantine;
  // find's enumeration never reaches into the quarantine. A starting point inside it is left out
  // (one line says so); below the others, every -delete is guarded (planFindDelete).
  let use = args.map((_, i) => i); // indexes into args of the argv find is planned with
  const parsed = parseFindArgs(args);
  if (parsed.ok && parsed.find.starts.length === 0) {
    // No starting point: find searches ".".
    const here = physicalOf(ctx.cwd, true);
    if (here !== q && isWithin(here, q)) {
      leftInQuarantine(ctx, 'find', ['.']);
      return exit(0);
    }
  } else if (parsed.ok) {
    const first = parsed.find.leading.length;
    const inside = parsed.find.starts
      .map((st, k) => ({ st, at: first + k, p: physicalOf(path.resolve(ctx.cwd, st), /\/\.?$/.test(st)) }))
      .filter(({ p }) => p !== q && isWithin(p, q));
    if (inside.length > 0) {
      leftInQuarantine(ctx, 'find', inside.map((x) => x.st));
      const drop = new Set(inside.map((x) => x.at));
      use = use.filter((i) => !drop.has(i));
      if (drop.size === parsed.find.starts.length) return exit(0);
    }
  }
  const planned = use.map((i) => args[i]!);
  const plan = planFindDelete(planned, { real, cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv, quarantine: q });
  if (!plan.ok) return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `find -delete: ${plan.reason}`);
  // The real find runs again only to report what it could not delete, or to delete what is left for
  // it (a regenerable artifact on another filesystem than the quarantine), without the starting
  // points that were moved whole: as a `keep` of the original argv, or — when its -delete had to be
  // guarded against the quarantine — run from here with the guarded expression.
  const finish = (direct: readonly Buffer[]): Directive => {
    if (!plan.rerun && direct.length === 0) return exit(0);
    const starts = plan.starts.filter((st, k) => !plan.startMoved[k] || direct.some((d) => d.equals(Buffer.from(st))));
    if (plan.starts.length > 0 && starts.length === 0) return exit(0); // find would default to "."
    const runArgs = [...plan.leading, ...starts, ...plan.expression];
    if (plan.guarded) {
      const child = process.getBuiltinModule('node:child_process').spawnSync(real, runArgs, { cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv, stdio: 'inherit', argv0: 'find' });
      return exit(child.status ?? 128 + (child.signal ? (process.getBuiltinModule('node:os').constants.signals[child.signal] ?? 0) : 0));
    }
    const indexes: number[] = [];
    let from = 0;
    for (const a of runArgs) {
      const at = planned.indexOf(a, from);
      if (at < 0) return blockWith(ctx, argv, 'BLOCK_INTERNAL_ERROR', 'find -delete: the rerun is not a part of the original argv');
      indexes.push(use[at]! + 1);
      from = at + 1;
    }
    return indexes.length === args.length ? run : { kind: 'keep', indexes };
  };
  // The quarantine itself, or what holds it, matched: find would fail on it (its content is never
  // deleted), but it is refused like rm -rf of it (rule 5). The starting point "." is skipped by find.
  const holders = plan.matches
    .filter((m) => !(m.length === 1 && m[0] === 0x2e))
    .map((m) => m.toString('utf8'))
    .filter((m) => !m.includes('\uFFFD') && isWithin(q, physicalOf(path.resolve(ctx.cwd, m), false)));
  if (plan.relocate.length === 0 && holders.length === 0) return finish([]);
  // The policy judges the concrete entries as `rm -rf -- <entries>` would be judged.
  const shown = plan.relocate.map((b) => b.toString('utf8'));
  const { r, config } = decideArgv(['rm', '-rf', '--', ...shown, ...holders], ctx, real);
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  // ALLOW other than a regenerable one: the real find deletes them itself.
  if (!needsCompensation(r) || !r.workspace) return finish(plan.relocate);
  const place = { root: r.workspace.root, quarantine: r.workspace.quarantine };
  // find prints paths below the starting points as it walked them (no links followed): relative ones
  // are placed under the physical cwd, which is where the policy's facts place them too.
  const cwd = Buffer.from(fs.realpathSync(ctx.cwd));
  // The zone the probe found for each entry (by its physical path; the i-th operand otherwise).
  const decided = r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope'));
  const exact: PlacedTarget[] = [];
  for (const [i, b] of plan.relocate.entries()) {
    let bytes: Buffer;
    try {
      // The directory physically (`./`, `..`, links in the starting point), the name as bytes.
      bytes = physicalBytes(b[0] === 0x2f ? b : Buffer.concat([cwd, Buffer.from('/'), b]));
    } catch (err) {
      return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', `find -delete: the directory of ${b.toString('utf8')} cannot be resolved (${(err as Error).message})`);
    }
    const shownPath = bytes.toString('utf8');
    const zone = (decided.find((t) => t.physical === shownPath) ?? decided[i])?.zone;
    exact.push({ path: bytes, ...(zone !== undefined ? { zone } : {}) });
  }
  const git = gitRunner(config.gitBinary, config.env);
  const findText = quoteArgv(argv);
  const relocation = { session: config.session, command: redact(findText), cwd: config.cwd };
  const isIgnored = (dir: string): boolean => isIgnoredPath(git, place.root, dir);
  if (r.decision === 'ALLOW') {
    // Regenerable artifacts (rule 13, inside the workspace: its quarantine): relocated when one
    // rename does it, else find deletes them.
    const paths = exact.map((e) => e.path);
    const c = relocateRegenerable(place, paths, 0, relocation, isIgnored);
    auditShim(place, findText, config, 'ALLOW', r.code, typeof c.txid === 'string' ? c.txid : null);
    const left = new Set(c.direct as string[]);
    return finish(plan.relocate.filter((_, i) => left.has(paths[i]!.toString('utf8'))));
  }
  const results = relocateByPlace(r.workspace, exact, relocation, isIgnored);
  const refused = placedOutcome(ctx, argv, place, findText, config, r.code, results);
  if (refused) return refused;
  notice(ctx.env, ctx.cwd, results.map((x) => ({ txid: x.txid, moved: x.moved })), ctx.io.stderr);
  return finish([]);
}
