// git: global options parsed the way git parses them, then the destructive subcommands of the
// vocabulary (clean, reset --hard/--merge/--keep, restore, checkout, switch, push, rm -f, worktree
// remove) read option by option.
import type { GitFacts, OpKind, TargetSpec, Undeterminable } from './types.js';
import type { Word } from './words.js';
import { dynamicReason, isUndeterminable, targetOf } from './rm.js';
import { joinRaw, normalizeAbs } from './paths.js';

/** Git's builtin commands: an alias never shadows them, so only other names are looked up as aliases. */
const BUILTINS = new Set(
  (
    'add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap ' +
    'check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree ' +
    'config count-objects credential describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import ' +
    'fetch fetch-pack filter-branch for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help ' +
    'hook index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge ' +
    'merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects ' +
    'pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog remote repack replace ' +
    'request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog show show-branch show-index ' +
    'show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects ' +
    'update-index update-ref update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree'
  ).split(' '),
);

const GLOBAL_WITH_ARG = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--attr-source', '--exec-path', '--list-cmds']);
const GLOBAL_FLAGS = new Set([
  '--no-pager', '-p', '--paginate', '-P', '--bare', '--no-replace-objects', '--no-lazy-fetch', '--literal-pathspecs',
  '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--no-advice',
]);
const GLOBAL_QUERIES = new Set(['--version', '--help', '-h', '--html-path', '--man-path', '--info-path', '--exec-path']);
/** Environment names that move the repository or the work tree away from what the line shows. */
const GIT_ENV = /^GIT_(DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|OBJECT_DIRECTORY|CONFIG|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|NAMESPACE)$/;
const DESTRUCTIVE_SUBCOMMANDS = /^(clean|reset|restore|checkout|switch|push|rm|worktree)$/;

export interface GitClassified {
  kind: OpKind | null;
  facts: GitFacts;
  dryRun: boolean;
  noTargets: boolean;
  recursive: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
  /** A subcommand that is not a builtin: it may be an alias. */
  aliasCandidate?: string;
  /** Nothing runs (`git --version`). */
  noop: boolean;
  /** The subcommand word is an expansion or a pattern: which subcommand runs is unknown. */
  dynamicSubcommand?: boolean;
}

interface Parsed {
  facts: GitFacts;
  rest: Word[];
  undeterminable: Undeterminable | null;
  noop: boolean;
}

function parseGlobals(args: Word[], cwd: string | null): Parsed {
  const facts: GitFacts = { subcommand: '', dir: cwd, globals: [], args: [], workTree: null, gitDir: null };
  let undeterminable: Undeterminable | null = null;
  let k = 0;
  const resolve = (base: string | null, w: Word | undefined): string | null => {
    if (!w || w.dynamic) return null;
    if (w.value === '') return base;
    if (w.value.startsWith('/')) return normalizeAbs(w.value);
    return base === null ? null : normalizeAbs(joinRaw(base, w.value));
  };
  for (; k < args.length; k++) {
    const w = args[k]!;
    const v = w.value;
    if (w.dynamic) {
      undeterminable ??= dynamicReason(w);
      continue;
    }
    if (!v.startsWith('-')) break;
    const eq = v.startsWith('--') ? v.indexOf('=') : -1;
    const name = eq < 0 ? v : v.slice(0, eq);
    if (GLOBAL_QUERIES.has(v)) return { facts, rest: [], undeterminable, noop: true };
    if (GLOBAL_FLAGS.has(v)) {
      facts.globals.push(v);
      continue;
    }
    if (GLOBAL_WITH_ARG.has(name)) {
      const valueWord = eq >= 0 ? { ...w, value: v.slice(eq + 1) } : args[k + 1];
      if (eq < 0) k++;
      if (valueWord?.dynamic) undeterminable ??= dynamicReason(valueWord);
      facts.globals.push(name, valueWord?.value ?? '');
      if (name === '-C') facts.dir = resolve(facts.dir, valueWord);
      if (name === '--work-tree') facts.workTree = resolve(facts.dir, valueWord);
      if (name === '--git-dir') facts.gitDir = resolve(facts.dir, valueWord);
      if (name === '-c' && /^core\.(worktree|bare)=?/i.test(valueWord?.value ?? '')) {
        undeterminable ??= { reason: 'git-environment', detail: `-c ${valueWord?.value ?? ''} moves the work tree` };
      }
      if (name === '--config-env') undeterminable ??= { reason: 'git-environment', detail: `${v} reads configuration from the environment` };
      continue;
    }
    // An option git does not know makes it refuse to run; one it learned after us could take an argument.
    const rest = args.slice(k + 1).map((x) => x.value);
    if (rest.some((r) => DESTRUCTIVE_SUBCOMMANDS.test(r))) {
      undeterminable ??= { reason: 'unknown-option', detail: `git option ${v} is not one agent-guard knows` };
    } else return { facts, rest: [], undeterminable, noop: true };
  }
  const sub = args[k];
  facts.subcommand = sub?.value ?? '';
  if (sub?.dynamic) undeterminable ??= dynamicReason(sub);
  if (sub?.glob) undeterminable ??= { reason: 'dynamic-program', detail: `the git subcommand ${sub.display} is a pattern the shell expands` };
  return { facts, rest: args.slice(k + 1), undeterminable, noop: sub === undefined };
}

function bundle(v: string): string[] {
  return v.startsWith('--') ? [v] : v.slice(1).split('').map((c) => '-' + c);
}

function emptyResult(facts: GitFacts, undeterminable: Undeterminable | null): GitClassified {
  return { kind: null, facts, dryRun: false, noTargets: false, recursive: false, targets: [], undeterminable, noop: false };
}

function classifyClean(r: GitClassified, rest: Word[]): void {
  const f = r.facts;
  f.cleanForce = 0;
  f.cleanDryRun = false;
  f.cleanFlags = [];
  f.pathspecs = [];
  let endOfOptions = false;
  for (let k = 0; k < rest.length; k++) {
    const w = rest[k]!;
    const v = w.value;
    if (!endOfOptions && v === '--') {
      endOfOptions = true;
      continue;
    }
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      f.pathspecs.push(v);
      if (w.glob) r.targets.push({ raw: w.display, path: null, joined: null, glob: true, followsLink: false });
      continue;
    }
    if (v.startsWith('--')) {
      const name = v.split('=')[0]!;
      if (name === '--force') f.cleanForce++;
      else if (name === '--dry-run') f.cleanDryRun = true;
      else if (name === '--quiet') f.cleanFlags.push('-q');
      else if (name === '--interactive') f.cleanFlags.push('-i');
      else if (name === '--exclude') {
        f.cleanFlags.push('-e');
        if (!v.includes('=')) k++;
      } else f.cleanFlags.push(v);
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const o = v[j]!;
      if (o === 'f') f.cleanForce++;
      else if (o === 'n') f.cleanDryRun = true;
      else if (o === 'e') {
        f.cleanFlags.push('-e');
        if (j === v.length - 1) k++;
        break;
      } else f.cleanFlags.push('-' + o);
    }
  }
  r.kind = 'git-clean';
  r.recursive = f.cleanFlags.includes('-d');
  r.dryRun = f.cleanDryRun;
}

const RESET_MODES: ReadonlySet<string> = new Set(['--hard', '--merge', '--keep']);

/** `git switch` options (git's parse-options: short options bundle, -c/-C take a value). */
function parseSwitch(args: readonly string[]): { force: boolean; creates: boolean; orphan: boolean; detach: boolean; positionals: string[] } {
  const out = { force: false, creates: false, orphan: false, detach: false, positionals: [] as string[] };
  for (let k = 0; k < args.length; k++) {
    const v = args[k]!;
    if (v === '--') {
      out.positionals.push(...args.slice(k + 1));
      break;
    }
    if (!v.startsWith('-') || v === '-') {
      out.positionals.push(v);
      continue;
    }
    if (v.startsWith('--')) {
      const name = v.split('=')[0]!;
      if (name === '--force' || name === '--discard-changes') out.force = true;
      else if (name === '--detach') out.detach = true;
      else if (name === '--create' || name === '--force-create' || name === '--orphan') {
        if (name === '--orphan') out.orphan = true;
        else out.creates = true;
        if (!v.includes('=')) k++;
      }
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const o = v[j]!;
      if (o === 'f') out.force = true;
      else if (o === 'd') out.detach = true;
      else if (o === 'c' || o === 'C') {
        out.creates = true;
        if (j === v.length - 1) k++; // the value is the next word, else the rest of this one
        break;
      }
    }
  }
  return out;
}

/** `git worktree remove [-f [-f]] <worktree>`: the work tree's directory goes, and with it what git
 *  does not hold (ignored files always; untracked and modified ones with --force). Other worktree
 *  subcommands delete nothing but administrative files. */
function classifyWorktreeRemove(r: GitClassified, rest: Word[]): boolean {
  if (rest[0]?.value !== 'remove') return false;
  const f = r.facts;
  let force = 0;
  const operands: Word[] = [];
  let endOfOptions = false;
  for (const w of rest.slice(1)) {
    const v = w.value;
    if (!endOfOptions && !w.dynamic && v === '--') {
      endOfOptions = true;
      continue;
    }
    if (!endOfOptions && !w.dynamic && v.startsWith('-') && v !== '-') {
      if (v === '--force') force++;
      else if (/^-f+$/.test(v)) force += v.length - 1;
      // any other option: git refuses it (nothing removed)
      continue;
    }
    operands.push(w);
  }
  r.kind = 'git-worktree-remove';
  r.recursive = true;
  f.worktreeForce = force;
  if (operands.length !== 1) {
    // git removes nothing without exactly one work tree named.
    r.noTargets = true;
    return true;
  }
  f.worktreeArg = operands[0]!.value;
  const t = targetOf(operands[0]!, f.dir);
  if (isUndeterminable(t)) r.undeterminable ??= t;
  else r.targets.push(t);
  return true;
}

export function classifyGit(args: Word[], cwd: string | null, envNames: readonly string[]): GitClassified {
  const parsed = parseGlobals(args, cwd);
  const f = parsed.facts;
  const r = emptyResult(f, parsed.undeterminable);
  r.noop = parsed.noop;
  if (parsed.noop) return r;
  const subWord = args[args.length - parsed.rest.length - 1];
  if (subWord && (subWord.dynamic || subWord.glob)) {
    r.dynamicSubcommand = true;
    return r;
  }
  const rest = parsed.rest;
  f.args = rest.map((w) => w.value);
  const dyn = rest.find((w) => w.dynamic);
  const sub = f.subcommand;
  const scope = (): void => {
    const dir = f.workTree ?? f.dir;
    if (dir === null) {
      r.undeterminable ??= { reason: 'unknown-cwd', detail: 'git runs in a directory that is not known before the command runs' };
      return;
    }
    const t = targetOf({ value: dir, display: dir, dynamic: false, glob: false, subs: [], vars: [] }, '/');
    if (!isUndeterminable(t)) r.targets.push({ ...t, role: 'scope' });
  };
  const envRedirect = envNames.find((n) => GIT_ENV.test(n));

  if (sub === 'clean') {
    classifyClean(r, rest);
  } else if (sub === 'reset') {
    // --hard overwrites the work tree; --merge drops staged changes (and overwrites ignored files the
    // target tracks); --keep drops a staged version the work tree has moved on from. git takes the
    // last mode given.
    const values = f.args;
    const modes = values.filter((v) => RESET_MODES.has(v));
    if (modes.length === 0) return emptyResult(f, null);
    r.kind = 'git-reset-hard';
    f.resetMode = modes[modes.length - 1]!.slice(2) as GitFacts['resetMode'];
    const others = values.filter((v) => !RESET_MODES.has(v) && v !== '-q' && v !== '--quiet');
    const commits = others.filter((v) => !v.startsWith('-'));
    if (others.length !== commits.length || commits.length > 1) {
      r.undeterminable ??= { reason: 'reset-not-standalone', detail: `git reset --${f.resetMode} is compensable only with -q and at most one commit (got: ${others.join(' ')})` };
    }
    f.commit = commits[0] ?? 'HEAD';
  } else if (sub === 'restore') {
    const values = f.args;
    const staged = values.some((v) => v === '--staged' || /^-[a-zA-Z]*S/.test(v));
    const worktree = values.some((v) => v === '--worktree' || /^-[a-zA-Z]*W/.test(v));
    if (staged && !worktree) return emptyResult(f, null);
    r.kind = 'git-restore';
    if (values.some((v) => v === '-h' || v === '--help')) r.dryRun = true;
    const hasPaths = values.some((v) => !v.startsWith('-')) || values.some((v) => v.startsWith('--pathspec-from-file'));
    r.noTargets = !hasPaths;
  } else if (sub === 'checkout') {
    const values = f.args;
    const dd = values.indexOf('--');
    const opts = (dd < 0 ? values : values.slice(0, dd)).filter((v) => v.startsWith('-'));
    const flags = opts.flatMap(bundle);
    const withArg = new Set(['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']);
    const positionals: string[] = [];
    const head = dd < 0 ? values : values.slice(0, dd);
    for (let k = 0; k < head.length; k++) {
      const v = head[k]!;
      if (v.startsWith('-')) {
        const last = bundle(v).pop()!;
        if (withArg.has(last) && !v.includes('=')) k++;
        continue;
      }
      positionals.push(v);
    }
    const creates = flags.some((o) => o === '-b' || o === '-B' || o === '--orphan');
    const force = flags.some((o) => o === '-f' || o === '--force' || o === '-p' || o === '--patch');
    const fromFile = values.some((v) => v.startsWith('--pathspec-from-file'));
    const pathsAfterDd = dd >= 0 && values.length > dd + 1;
    if (force || fromFile || pathsAfterDd || (!creates && positionals.length >= 2)) {
      r.kind = 'git-checkout';
      // A forced checkout of another tree (`-f REV`, `-f -B x REV`, `-f` alone: HEAD) writes every
      // file that tree has: the preflight looks for what it would overwrite.
      const patch = flags.some((o) => o === '-p' || o === '--patch');
      if (force && !patch && !fromFile && dd < 0 && positionals.length <= 1) {
        const named = positionals[0];
        f.treeTarget = named === '-' ? '@{-1}' : (named ?? 'HEAD');
        if (named !== undefined && !creates && !flags.includes('--detach')) f.treeTargetMaybePath = true;
      }
    } else if (!creates && positionals.length === 1 && dd < 0) {
      r.kind = 'git-checkout';
      f.ambiguousRef = positionals[0]!;
    } else return emptyResult(f, null);
  } else if (sub === 'switch') {
    const sw = parseSwitch(f.args);
    if (!sw.force) return emptyResult(f, null);
    r.kind = 'git-switch';
    if (!sw.orphan) {
      const named = sw.positionals[0];
      const target = named ?? (sw.creates || sw.detach ? 'HEAD' : undefined);
      if (target !== undefined) f.treeTarget = target === '-' ? '@{-1}' : target;
    }
  } else if (sub === 'rm') {
    // Without -f git removes only files whose content is the commit's (it refuses a file with
    // uncommitted or staged changes, and never touches untracked ones): nothing is lost. With -f
    // the uncommitted changes of the removed files go: a snapshot keeps them.
    let force = false;
    let dry = false;
    let pathspecs = 0;
    let endOfOptions = false;
    for (const v of f.args) {
      if (!endOfOptions && v === '--') {
        endOfOptions = true;
        continue;
      }
      if (endOfOptions || !v.startsWith('-') || v === '-') {
        pathspecs++;
        continue;
      }
      if (v.startsWith('--')) {
        const name = v.split('=')[0]!;
        if (name === '--force') force = true;
        else if (name === '--dry-run') dry = true;
        else if (name === '--pathspec-from-file') pathspecs++;
        else if (name === '--recursive') r.recursive = true;
        continue;
      }
      if (v.includes('f')) force = true;
      if (v.includes('n')) dry = true;
      if (v.includes('r')) r.recursive = true;
    }
    if (!force) return emptyResult(f, null);
    r.kind = 'git-rm';
    r.dryRun = dry;
    r.noTargets = pathspecs === 0;
  } else if (sub === 'worktree') {
    if (!classifyWorktreeRemove(r, rest)) return emptyResult(f, null);
  } else if (sub === 'push') {
    let force = false;
    let lease = false;
    let mirror = false;
    let del = false;
    let dry = false;
    const positionals: string[] = [];
    for (let k = 0; k < f.args.length; k++) {
      const v = f.args[k]!;
      if (v.startsWith('--')) {
        const name = v.split('=')[0]!;
        if (name === '--force') force = true;
        else if (name === '--force-with-lease' || name === '--force-if-includes') lease = true;
        else if (name === '--mirror') mirror = true;
        else if (name === '--delete' || name === '--prune') del = true;
        else if (name === '--dry-run') dry = true;
        else if ((name === '--repo' || name === '--receive-pack' || name === '--exec' || name === '--push-option') && !v.includes('=')) k++;
        continue;
      }
      if (v.startsWith('-') && v !== '-') {
        for (const o of v.slice(1)) {
          if (o === 'f') force = true;
          if (o === 'd') del = true;
          if (o === 'n') dry = true;
        }
        if (/^-[a-zA-Z]*o$/.test(v)) k++;
        continue;
      }
      positionals.push(v);
    }
    const refspecs = positionals.slice(1);
    if (refspecs.some((s) => s.startsWith('+'))) force = true;
    if (refspecs.some((s) => s.startsWith(':'))) del = true;
    if (!force && !lease && !mirror && !del) return emptyResult(f, parsed.undeterminable);
    r.kind = 'git-push';
    f.force = force;
    f.forceWithLease = lease;
    f.mirror = mirror;
    f.deletesRefs = del;
    f.pushDryRun = dry;
    r.dryRun = dry;
    return r;
  } else {
    if (sub !== '' && !BUILTINS.has(sub) && !sub.startsWith('-')) r.aliasCandidate = sub;
    return r.aliasCandidate ? r : emptyResult(f, null);
  }
  if (dyn) r.undeterminable ??= dynamicReason(dyn);
  if (envRedirect) r.undeterminable ??= { reason: 'git-environment', detail: `${envRedirect} redirects git to another repository or work tree` };
  scope();
  return r;
}
