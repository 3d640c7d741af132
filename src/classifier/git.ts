// git: global options parsed the way git parses them, then the destructive subcommands of the
// vocabulary (clean, reset --hard/--merge/--keep, restore, checkout, switch, push, rm -f, worktree
// remove) read option by option with the shared reader (options.ts). The walkers turn this into Ops
// through gitops.ts; `gitSubcommandIndex` gives the shim the same reading of a concrete argv.
import type { GitFacts, OpKind, TargetSpec, Undeterminable, Word } from './types.js';
import { dynamicReason, isUndeterminable, literalWord, targetOf } from './kit.js';
import { joinRaw, normalizeAbs } from './paths.js';
import { OptionReader, type OptionSpec } from './options.js';

/** Index of git's subcommand in a concrete argv (after the global options), or -1 when there is
 *  none (`git --version`, an option git does not know: git then runs nothing). */
export function gitSubcommandIndex(args: readonly string[]): number {
  const r = new OptionReader(args, GIT_GLOBAL_OPTIONS);
  for (let item = r.next(); item !== null; item = r.next()) {
    if (GLOBAL_QUERIES.has(args[item.word] ?? '')) return -1;
    if (item.kind === 'operand') return item.value === '-' ? -1 : item.word;
    if (item.kind === 'end' || (item.kind === 'short' ? !item.known : item.status !== 'ok')) return -1;
  }
  return -1;
}

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

/** git's global options (git.c handle_options): each a word of its own, exact names only. */
export const GIT_GLOBAL_OPTIONS: OptionSpec = {
  shortFlags: 'pP',
  shortValues: 'Cc',
  longFlags: [
    'no-pager', 'paginate', 'bare', 'no-replace-objects', 'no-lazy-fetch', 'literal-pathspecs', 'glob-pathspecs', 'noglob-pathspecs',
    'icase-pathspecs', 'no-optional-locks', 'no-advice',
  ],
  longValues: ['git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix', 'attr-source', 'exec-path', 'list-cmds'],
  clusters: false,
};
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
  const resolve = (base: string | null, w: Word | undefined): string | null => {
    if (!w || w.dynamic) return null;
    if (w.value === '') return base;
    if (w.value.startsWith('/')) return normalizeAbs(w.value);
    return base === null ? null : normalizeAbs(joinRaw(base, w.value));
  };
  const r = new OptionReader(
    args.map((w) => w.value),
    GIT_GLOBAL_OPTIONS,
  );
  let k = args.length;
  const unknownOption = (at: number, v: string): boolean => {
    // An option git does not know makes it refuse to run; one it learned after us could take an argument.
    const rest = args.slice(at + 1).map((x) => x.value);
    if (!rest.some((x) => DESTRUCTIVE_SUBCOMMANDS.test(x))) return false;
    undeterminable ??= { reason: 'unknown-option', detail: `git option ${v} is not one agent-guard knows` };
    return true;
  };
  while (!r.done) {
    const at = r.index;
    const w = args[at];
    if (w === undefined) break;
    if (w.dynamic) {
      undeterminable ??= dynamicReason(w);
      r.skip();
      continue;
    }
    const v = w.value;
    if (GLOBAL_QUERIES.has(v)) return { facts, rest: [], undeterminable, noop: true };
    if (v === '-' || v === '--') {
      if (!unknownOption(at, v)) return { facts, rest: [], undeterminable, noop: true };
      r.skip();
      continue;
    }
    const item = r.next()!;
    if (item.kind === 'operand') {
      k = item.word;
      break;
    }
    if (item.kind === 'end') continue; // (`--` is read above)
    const known = item.kind === 'short' ? item.known : item.status === 'ok' || item.status === 'missing-value';
    if (!known) {
      if (!unknownOption(at, v)) return { facts, rest: [], undeterminable, noop: true };
      continue;
    }
    const takesValue = item.kind === 'short' ? item.takesValue : GIT_GLOBAL_OPTIONS.longValues!.includes(item.name);
    if (!takesValue) {
      facts.globals.push(v);
      continue;
    }
    const name = item.kind === 'short' ? '-' + item.name : '--' + item.name;
    const valueWord = item.valueWord !== undefined ? args[item.valueWord] : item.value !== undefined ? { ...w, value: item.value } : undefined;
    if (valueWord?.dynamic) undeterminable ??= dynamicReason(valueWord);
    facts.globals.push(name, valueWord?.value ?? '');
    if (name === '-C') facts.dir = resolve(facts.dir, valueWord);
    if (name === '--work-tree') facts.workTree = resolve(facts.dir, valueWord);
    if (name === '--git-dir') facts.gitDir = resolve(facts.dir, valueWord);
    if (name === '-c' && /^core\.(worktree|bare)=?/i.test(valueWord?.value ?? '')) {
      undeterminable ??= { reason: 'git-environment', detail: `-c ${valueWord?.value ?? ''} moves the work tree` };
    }
    if (name === '--config-env') undeterminable ??= { reason: 'git-environment', detail: `${v} reads configuration from the environment` };
  }
  const sub = args[k];
  facts.subcommand = sub?.value ?? '';
  if (sub?.dynamic) undeterminable ??= dynamicReason(sub);
  if (sub?.glob) undeterminable ??= { reason: 'dynamic-program', detail: `the git subcommand ${sub.display} is a pattern the shell expands` };
  return { facts, rest: args.slice(k + 1), undeterminable, noop: sub === undefined };
}

function emptyResult(facts: GitFacts, undeterminable: Undeterminable | null): GitClassified {
  return { kind: null, facts, dryRun: false, noTargets: false, recursive: false, targets: [], undeterminable, noop: false };
}

const CLEAN_OPTIONS: OptionSpec = {
  shortFlags: 'fndxXqi',
  shortValues: 'e',
  longFlags: ['force', 'dry-run', 'quiet', 'interactive'],
  longValues: ['exclude'],
  permute: true,
  abbreviations: true,
};

function classifyClean(r: GitClassified, rest: Word[]): void {
  const f = r.facts;
  f.cleanForce = 0;
  f.cleanDryRun = false;
  f.cleanFlags = [];
  f.pathspecs = [];
  const flags = f.cleanFlags;
  const reader = new OptionReader(
    rest.map((w) => w.value),
    CLEAN_OPTIONS,
  );
  for (let item = reader.next(); item !== null; item = reader.next()) {
    if (item.kind === 'end') continue;
    if (item.kind === 'operand') {
      const w = rest[item.word]!;
      f.pathspecs.push(w.value);
      if (w.glob) r.targets.push({ raw: w.display, path: null, joined: null, glob: true, followsLink: false, ...(w.arg !== undefined ? { arg: w.arg } : {}) });
      continue;
    }
    const name = item.name;
    if (item.kind === 'long') {
      if (item.status === 'unknown' || item.status === 'ambiguous') flags.push(rest[item.word]!.value);
      else if (name === 'force') f.cleanForce++;
      else if (name === 'dry-run') f.cleanDryRun = true;
      else if (name === 'quiet') flags.push('-q');
      else if (name === 'interactive') flags.push('-i');
      else if (name === 'exclude') flags.push('-e');
      continue;
    }
    if (name === 'f') f.cleanForce++;
    else if (name === 'n') f.cleanDryRun = true;
    else flags.push('-' + name);
  }
  r.kind = 'git-clean';
  r.recursive = flags.includes('-d');
  r.dryRun = f.cleanDryRun;
}

const RESET_MODES: ReadonlySet<string> = new Set(['hard', 'merge', 'keep']);
const RESET_OPTIONS: OptionSpec = {
  shortFlags: 'qpN',
  longFlags: ['hard', 'merge', 'keep', 'soft', 'mixed', 'quiet', 'patch', 'intent-to-add', 'refresh', 'no-refresh', 'pathspec-file-nul'],
  longValues: ['pathspec-from-file'],
  longOptional: ['recurse-submodules'],
  permute: true,
  abbreviations: true,
};

const SWITCH_OPTIONS: OptionSpec = {
  shortFlags: 'fdqtm',
  shortValues: 'cC',
  longFlags: ['force', 'discard-changes', 'detach', 'guess', 'ignore-other-worktrees', 'merge', 'overwrite-ignore', 'progress', 'quiet'],
  longValues: ['create', 'force-create', 'orphan', 'conflict'],
  longOptional: ['recurse-submodules', 'track'],
  permute: true,
  abbreviations: true,
};

/** `git switch` options (git's parse-options: short options bundle, -c/-C take a value). */
/** `--no-overwrite-ignore`: git then refuses to write over ignored files (the last of the pair wins). */
function noOverwriteIgnore(args: readonly string[]): boolean {
  const i = args.lastIndexOf('--no-overwrite-ignore');
  return i >= 0 && i > args.lastIndexOf('--overwrite-ignore');
}

function parseSwitch(args: readonly string[]): { force: boolean; creates: boolean; orphan: boolean; detach: boolean; positionals: string[] } {
  const out = { force: false, creates: false, orphan: false, detach: false, positionals: [] as string[] };
  for (const item of new OptionReader(args, SWITCH_OPTIONS).all()) {
    if (item.kind === 'operand') out.positionals.push(item.value);
    if (item.kind !== 'short' && item.kind !== 'long') continue;
    const n = item.name;
    if (n === 'f' || n === 'force' || n === 'discard-changes') out.force = true;
    else if (n === 'd' || n === 'detach') out.detach = true;
    else if (n === 'orphan') out.orphan = true;
    else if (n === 'c' || n === 'C' || n === 'create' || n === 'force-create') out.creates = true;
  }
  return out;
}

/** `git worktree remove [-f [-f]] <worktree>`: the work tree's directory goes, and with it what git
 *  does not hold (ignored files always; untracked and modified ones with --force). Other worktree
 *  subcommands delete nothing but administrative files. */
const WORKTREE_REMOVE_OPTIONS: OptionSpec = { shortFlags: 'f', longFlags: ['force'], permute: true, abbreviations: true };

function classifyWorktreeRemove(r: GitClassified, rest: Word[]): boolean {
  if (rest[0]?.value !== 'remove') return false;
  const f = r.facts;
  let force = 0;
  const operands: Word[] = [];
  const args = rest.slice(1);
  const reader = new OptionReader(
    args.map((w) => w.value),
    WORKTREE_REMOVE_OPTIONS,
  );
  while (!reader.done) {
    const at = args[reader.index];
    if (reader.atWordStart && at?.dynamic) {
      operands.push(at);
      reader.skip();
      continue;
    }
    const item = reader.next();
    if (item === null) break;
    if (item.kind === 'operand') operands.push(args[item.word]!);
    else if ((item.kind === 'short' && item.name === 'f') || (item.kind === 'long' && item.name === 'force' && item.status === 'ok')) force++; // `--forc` too: git takes any unambiguous prefix
    // any other option: git refuses it (nothing removed)
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

const RESTORE_OPTIONS: OptionSpec = {
  shortFlags: 'SWpqmh',
  shortValues: 's',
  longFlags: ['staged', 'worktree', 'patch', 'quiet', 'merge', 'ours', 'theirs', 'overlay', 'ignore-unmerged', 'ignore-skip-worktree-bits', 'progress', 'pathspec-file-nul', 'help'],
  longValues: ['source', 'conflict', 'pathspec-from-file'],
  longOptional: ['recurse-submodules'],
  permute: true,
  abbreviations: true,
};

const CHECKOUT_OPTIONS: OptionSpec = {
  shortFlags: 'fpqmtld',
  shortValues: 'bB',
  longFlags: [
    'force', 'patch', 'detach', 'quiet', 'merge', 'ours', 'theirs', 'guess', 'overlay', 'overwrite-ignore', 'ignore-other-worktrees',
    'ignore-skip-worktree-bits', 'progress', 'pathspec-file-nul',
  ],
  longValues: ['orphan', 'conflict', 'pathspec-from-file'],
  longOptional: ['recurse-submodules', 'track'],
  permute: true,
  abbreviations: true,
};

const GIT_RM_OPTIONS: OptionSpec = {
  shortFlags: 'fnrq',
  longFlags: ['force', 'dry-run', 'cached', 'quiet', 'ignore-unmatch', 'sparse', 'pathspec-file-nul'],
  longValues: ['pathspec-from-file'],
  permute: true,
  abbreviations: true,
};

const PUSH_OPTIONS: OptionSpec = {
  shortFlags: 'fdnuqv46',
  shortValues: 'o',
  longFlags: [
    'force', 'mirror', 'delete', 'prune', 'dry-run', 'all', 'branches', 'tags', 'follow-tags', 'force-if-includes', 'atomic', 'verbose', 'quiet',
    'ipv4', 'ipv6', 'no-verify', 'verify', 'porcelain', 'progress', 'set-upstream', 'thin',
  ],
  longOptional: ['force-with-lease', 'signed'],
  longValues: ['repo', 'receive-pack', 'exec', 'push-option', 'recurse-submodules'],
  permute: true,
  abbreviations: true,
};

function parseCheckout(args: readonly string[]): { force: boolean; patch: boolean; creates: boolean; detach: boolean; fromFile: boolean; dd: boolean; positionals: string[]; afterDd: number; paths: string[] } {
  const out = { force: false, patch: false, creates: false, detach: false, fromFile: false, dd: false, positionals: [] as string[], afterDd: 0, paths: [] as string[] };
  for (const item of new OptionReader(args, CHECKOUT_OPTIONS).all()) {
    if (item.kind === 'end') out.dd = true;
    else if (item.kind === 'operand') {
      if (out.dd) {
        out.afterDd++;
        out.paths.push(item.value);
      } else out.positionals.push(item.value);
    } else {
      const n = item.name;
      if (n === 'f' || n === 'force') out.force = true;
      else if (n === 'p' || n === 'patch') out.force = out.patch = true;
      else if (n === 'b' || n === 'B' || n === 'orphan') out.creates = true;
      else if (n === 'd' || n === 'detach') out.detach = true;
      else if (n === 'pathspec-from-file') out.fromFile = true;
    }
  }
  return out;
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
    const t = targetOf(literalWord(dir), '/');
    if (!isUndeterminable(t)) r.targets.push({ ...t, role: 'scope' });
  };
  const envRedirect = envNames.find((n) => GIT_ENV.test(n));

  if (sub === 'clean') {
    classifyClean(r, rest);
  } else if (sub === 'reset') {
    // --hard overwrites the work tree; --merge drops staged changes (and overwrites ignored files the
    // target tracks); --keep drops a staged version the work tree has moved on from. git takes the
    // last mode given.
    let mode: GitFacts['resetMode'] | undefined;
    const others: string[] = [];
    const commits: string[] = [];
    let lastWord = -1;
    for (const item of new OptionReader(f.args, RESET_OPTIONS).all()) {
      if (item.kind === 'operand' && item.value !== '-') {
        commits.push(item.value);
        continue;
      }
      if (item.kind !== 'operand' && item.kind !== 'end' && RESET_MODES.has(item.name)) mode = item.name as GitFacts['resetMode'];
      else if ((item.kind !== 'short' && item.kind !== 'long') || (item.name !== 'q' && item.name !== 'quiet')) {
        if (item.word !== lastWord) others.push(f.args[item.word]!);
      }
      lastWord = item.word;
    }
    if (mode === undefined) return emptyResult(f, null);
    r.kind = 'git-reset-hard';
    f.resetMode = mode;
    if (others.length > 0 || commits.length > 1) {
      r.undeterminable ??= { reason: 'reset-not-standalone', detail: `git reset --${mode} is compensable only with -q and at most one commit (got: ${[...others, ...commits].join(' ')})` };
    }
    f.commit = commits[0] ?? 'HEAD';
  } else if (sub === 'restore') {
    let staged = false;
    let worktree = false;
    let hasPaths = false;
    let patch = false;
    let fromFile = false;
    let source: string | undefined;
    const paths: string[] = [];
    for (const item of new OptionReader(f.args, RESTORE_OPTIONS).all()) {
      if (item.kind === 'operand') {
        hasPaths = true;
        paths.push(item.value);
      }
      if (item.kind !== 'short' && item.kind !== 'long') continue;
      const n = item.name;
      if (n === 'S' || n === 'staged') staged = true;
      else if (n === 'W' || n === 'worktree') worktree = true;
      else if (n === 'p' || n === 'patch') patch = true;
      else if (n === 'h' || n === 'help') r.dryRun = true;
      else if (n === 'pathspec-from-file') hasPaths = fromFile = true;
      else if ((n === 's' || n === 'source') && item.value !== undefined) source = item.value;
    }
    if (staged && !worktree) return emptyResult(f, null);
    r.kind = 'git-restore';
    r.noTargets = !hasPaths;
    // From another tree, git writes the paths over whatever the work tree holds there, an untracked
    // file included (a snapshot holds only tracked changes): the probe looks for those.
    if (source !== undefined && hasPaths && !patch) {
      f.source = source;
      f.sourcePaths = fromFile ? [] : paths;
    }
  } else if (sub === 'checkout') {
    const co = parseCheckout(f.args);
    if (co.force || co.fromFile || co.afterDd > 0 || (!co.creates && co.positionals.length >= 2)) {
      r.kind = 'git-checkout';
      // A forced checkout of another tree (`-f REV`, `-f -B x REV`, `-f` alone: HEAD) writes every
      // file that tree has: the preflight looks for what it would overwrite.
      if (co.force && !co.patch && !co.fromFile && !co.dd && co.positionals.length <= 1) {
        const named = co.positionals[0];
        f.treeTarget = named === '-' ? '@{-1}' : (named ?? 'HEAD');
        if (named !== undefined && named !== '-' && !co.creates && !co.detach) f.treeTargetMaybePath = true;
      } else if (!co.patch && !co.creates && (co.dd || co.fromFile ? co.positionals.length === 1 : co.positionals.length >= 2)) {
        // `git checkout REV -- PATHS` (or `REV PATHS`): the paths are written from REV, over an
        // untracked file there too.
        const named = co.positionals[0]!;
        f.source = named === '-' ? '@{-1}' : named;
        f.sourcePaths = co.fromFile ? [] : co.dd ? co.paths : co.positionals.slice(1);
      }
    } else if (!co.creates && co.positionals.length === 1 && !co.dd && co.positionals[0] !== '-') {
      // (`git checkout -` is the previous branch, never a path.)
      r.kind = 'git-checkout';
      f.ambiguousRef = co.positionals[0]!;
      if (!noOverwriteIgnore(f.args)) f.keepsChanges = true;
    } else if (!co.dd && !co.patch && co.positionals.length <= 1 && (co.positionals[0] === '-' || (co.positionals.length === 1 && (co.creates || co.detach))) && !noOverwriteIgnore(f.args)) {
      // A switch to another tree that keeps local changes (`checkout -`, `-b x REV`, `--detach REV`)
      // still writes over ignored files the tree has.
      r.kind = 'git-checkout';
      f.treeTarget = co.positionals[0] === '-' ? '@{-1}' : co.positionals[0]!;
      f.keepsChanges = true;
    } else return emptyResult(f, null);
  } else if (sub === 'switch') {
    const sw = parseSwitch(f.args);
    if (!sw.force) {
      // Keeping local changes, git still writes over ignored files the target tree has.
      const named = sw.positionals[0];
      if (sw.orphan || named === undefined || noOverwriteIgnore(f.args)) return emptyResult(f, null);
      r.kind = 'git-switch';
      f.treeTarget = named === '-' ? '@{-1}' : named;
      f.keepsChanges = true;
    } else {
      r.kind = 'git-switch';
      if (!sw.orphan) {
        const named = sw.positionals[0];
        const target = named ?? (sw.creates || sw.detach ? 'HEAD' : undefined);
        if (target !== undefined) f.treeTarget = target === '-' ? '@{-1}' : target;
      }
    }
  } else if (sub === 'rm') {
    // Without -f git removes only files whose content is the commit's (it refuses a file with
    // uncommitted or staged changes, and never touches untracked ones): nothing is lost. With -f
    // the uncommitted changes of the removed files go: a snapshot keeps them.
    let force = false;
    let dry = false;
    let pathspecs = 0;
    for (const item of new OptionReader(f.args, GIT_RM_OPTIONS).all()) {
      if (item.kind === 'operand') pathspecs++;
      if (item.kind !== 'short' && item.kind !== 'long') continue;
      const n = item.name;
      if (n === 'f' || n === 'force') force = true;
      else if (n === 'n' || n === 'dry-run') dry = true;
      else if (n === 'r' || n === 'recursive') r.recursive = true;
      else if (n === 'pathspec-from-file') pathspecs++;
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
    for (const item of new OptionReader(f.args, PUSH_OPTIONS).all()) {
      if (item.kind === 'operand') positionals.push(item.value);
      if (item.kind !== 'short' && item.kind !== 'long') continue;
      const n = item.name;
      if (n === 'f' || n === 'force') force = true;
      else if (n === 'force-with-lease' || n === 'force-if-includes') lease = true;
      else if (n === 'mirror') mirror = true;
      else if (n === 'd' || n === 'delete' || n === 'prune') del = true;
      else if (n === 'n' || n === 'dry-run') dry = true;
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
