// Facts, never decisions: what the classifier knows about one operation of a command line.

export type OpKind =
  | 'fs-delete' // rm, rmdir, unlink, shred
  | 'find-delete' // find … -delete
  | 'find-exec' // find … -exec/-execdir/-ok rm …
  | 'git-clean'
  | 'git-reset-hard' // git reset --hard, --merge or --keep (GitFacts.resetMode)
  | 'git-restore'
  | 'git-checkout'
  | 'git-switch'
  | 'git-push'
  | 'git-rm' // git rm -f: removes tracked files with their uncommitted changes
  | 'git-worktree-remove' // git worktree remove: deletes a linked work tree's directory
  | 'indirect' // bash -c, eval, source, a shell fed by stdin
  | 'stdin-fed' // xargs / parallel running a destructive program
  | 'opaque'; // text that could not be read, with a destructive smell

/** Why the effect of an op cannot be known statically (rule 2). */
export type UndeterminableReason =
  | 'variable' // an argument holds $VAR / ${…} whose value is unknown
  | 'substitution' // an argument is produced by $(…), `…`, <(…)
  | 'unbalanced' // unterminated quote or substitution
  | 'in-substitution' // the op itself runs inside a substitution
  | 'indirect-shell' // bash -c / sh -c / eval / a shell reading stdin, with a destructive smell
  | 'source' // source / . of a file, with a destructive smell
  | 'stdin-fed' // xargs / parallel
  | 'find-delete'
  | 'find-exec'
  | 'dynamic-program' // the program name itself is an expansion
  | 'unknown-cwd' // a relative target after a `cd` whose destination is unknown
  | 'unknown-option' // an option the classifier does not know the effect of
  | 'git-clean-unsupported' // -ff, -i, -e (rule 11a)
  | 'reset-not-standalone' // git reset --hard compound, wrapped or with extra arguments
  | 'git-environment' // GIT_DIR / GIT_WORK_TREE / core.worktree redirect the repository
  | 'opaque-syntax' // case clauses, function bodies, other structure read as opaque
  | 'depth-limit' // nesting deeper than the classifier follows
  | 'foreign-verb' // a destructive verb this dialect does not read as its own (another dialect's, odd casing)
  | 'recursive-match' // cmd's del /s: deletes what matches its operand in every subdirectory
  | 'computed'; // an interpreter's deletion (or the program it runs) takes a value its code computes

export interface Undeterminable {
  reason: UndeterminableReason;
  detail: string;
}

export interface TargetSpec {
  /** The operand as written. */
  raw: string;
  /** Index of the word it comes from in the simple command's argv (0 is the program, wrappers
   *  included: `sudo rm x` gives x 2); for argv input (`classify({argv})`) the index into that
   *  argv, which is the shim's 1-based `keep` index. Parents that `rmdir -p` adds share their
   *  operand's index. Absent for a target no word names (a git op's `scope`, a path inside interpreter code). */
  arg?: number;
  /** Lexical absolute path (normalized, `~` expanded); null when the operand is dynamic. */
  path: string | null;
  /** The same path before `..` and `.` are folded: what the kernel walks, for physical resolution. */
  joined: string | null;
  /** An unquoted shell pattern: the shell, not the program, picks the files. */
  glob: boolean;
  /** A trailing `/` (or `/.`): path resolution follows a symlink named by the operand. */
  followsLink: boolean;
  /** `scope`: the directory a git op works in (judged for the workspace boundary only, never deleted). */
  role?: 'scope';
  /** A Windows path that names no POSIX location (cmd/PowerShell dialects): a drive root (`C:\`, `D:`),
   *  another drive-absolute path (`C:\Users\x`, `C:x`) or a UNC path (`\\server\share`). `path` and
   *  `joined` then hold the Windows spelling with `/` separators, never a POSIX path. */
  foreign?: 'drive-root' | 'drive-path' | 'unc';
}

export interface GitFacts {
  subcommand: string;
  /** Directory git runs in after -C options (null when unknown). */
  dir: string | null;
  /** Global options as given, replayed for read-only queries. */
  globals: string[];
  /** The subcommand's own arguments. */
  args: string[];
  workTree: string | null;
  gitDir: string | null;
  // git clean
  cleanForce?: number;
  cleanDryRun?: boolean;
  cleanFlags?: string[];
  pathspecs?: string[];
  // git reset --hard/--merge/--keep
  commit?: string;
  resetMode?: 'hard' | 'merge' | 'keep';
  // git checkout -f / switch -f that moves to another tree: the commit-ish it checks out (the
  // preflight's target), and whether that word may be a path instead (`git checkout -f NAME`)
  treeTarget?: string;
  treeTargetMaybePath?: boolean;
  // a switch that keeps local changes (not forced): git refuses to write over untracked files
  // but writes over ignored ones the target tree has (the preflight looks for those only)
  keepsChanges?: boolean;
  // git checkout REV -- PATHS / git restore --source REV PATHS: the tree-ish the paths are written
  // from (git overwrites an untracked file there with no question) and the pathspecs as given
  // (empty: read from a file, so the whole tree). Without `--`, git takes the word for a path when
  // it is no revision.
  source?: string;
  sourcePaths?: string[];
  // git worktree remove: how many -f, and the work tree as named (git matches it as a path suffix
  // before it reads it as a path)
  worktreeForce?: number;
  worktreeArg?: string;
  // git push
  force?: boolean;
  forceWithLease?: boolean;
  mirror?: boolean;
  deletesRefs?: boolean;
  pushDryRun?: boolean;
  // git checkout with one positional that may be a ref or a path
  ambiguousRef?: string;
}

export interface Op {
  /** Position of the op among the ops of the line (0-based). */
  index: number;
  /** The program, normalized (`/bin/rm` and `\rm` are `rm`). */
  program: string;
  kind: OpKind;
  /** The argv as the program would receive it (values, with expansions shown as written). */
  argv: string[];
  /** Wrappers peeled off in front of it (sudo, env, nice, …). */
  wrappers: string[];
  /** Effective working directory of the op; null when unknown. */
  cwd: string | null;
  /** Dry run, `--help`, `--version`: runs but changes nothing. */
  dryRun: boolean;
  /** A deleting program called with no operands. */
  noTargets: boolean;
  recursive: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
  /** Shape F1: a `cd`/`pushd`/`popd` earlier in the line changed this op's directory. */
  cdBefore: boolean;
  /** Shape F2: a creating command or an output redirection runs earlier in the line. */
  createBefore: boolean;
  git?: GitFacts;
  /** For indirect / stdin-fed ops: the text or program that was judged. */
  inner?: string;
  /** For indirect ops: `inner` holds expansions (or nesting) read only when it runs. */
  innerDynamic?: boolean;
}

export interface Classification {
  ops: Op[];
  /** Simple commands in the line (substitution bodies included). */
  commandCount: number;
  /** The line could not be read as a whole (an unterminated quote or substitution). */
  unbalanced: boolean;
}

/** What a front end is told about where the line runs. */
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

/** A concrete argv (what a PATH shim receives: the shell has expanded it), classified without
 *  quoting it back into text. `cwd` overrides ClassifyOptions.cwd. */
export interface ArgvInput {
  argv: readonly string[];
  cwd?: string;
}

/** A word as the vocabulary readers see it, whatever dialect produced it. */
export interface Word {
  /** The literal value the program receives (markers decoded, known variables substituted). */
  value: string;
  /** How the word reads in the source, for messages. */
  display: string;
  /** Holds an expansion whose value is unknown (a variable, a substitution, `~user`). */
  dynamic: boolean;
  /** Holds an unquoted pattern the shell expands (`*`, `?`, `[…]`, `{a,b}`). */
  glob: boolean;
  /** Indexes into the POSIX ScanResult.subs of the substitutions this word runs. */
  subs: number[];
  /** Names of the variables this word reads (null for special/complex ones). */
  vars: (string | null)[];
  /** Its index in the simple command's argv (TargetSpec.arg). */
  arg?: number;
}
