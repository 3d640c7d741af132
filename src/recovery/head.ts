// Where HEAD is, and where an overwriting git command will leave it (docs/recovery.md, "Snapshot").
// A snapshot records both before the command runs — the shims and hooks compensate before the real
// git runs, so the after-state is read from the command's arguments, not observed. `restore` uses
// them to go back to the commit the changes were made on, and only from the state the command left.

/** Runs git (with the command's global options) in the command's directory. */
export type Git = (args: readonly string[]) => { ok: boolean; out: string };

/** HEAD: the branch it names (`refs/heads/x`; null when detached) and its commit (null: unborn). */
export interface HeadState {
  ref: string | null;
  sha: string | null;
}

/** HEAD now, in one git call. Unborn or unreadable: both null. */
export function headOf(git: Git): HeadState {
  // One call: the commit, then the full name (`HEAD` itself when detached).
  const r = git(['rev-parse', 'HEAD', '--symbolic-full-name', 'HEAD']);
  const [sha, name] = r.out.split('\n');
  if (!r.ok || !sha || !/^[0-9a-f]{40,64}$/.test(sha)) return { ref: null, sha: null };
  return { ref: name && name !== 'HEAD' ? name : null, sha };
}

const commitOf = (git: Git, rev: string): string | null => {
  const r = git(['rev-parse', '--verify', '-q', '--end-of-options', `${rev}^{commit}`]);
  return r.ok && r.out.trim() !== '' ? r.out.trim() : null;
};

/** A local branch by name (`-` / `@{-1}`: the previous one), or null. */
function branchOf(git: Git, name: string): HeadState | null {
  let ref = `refs/heads/${name}`;
  if (name === '-' || /^@\{-\d+\}$/.test(name)) {
    const full = git(['rev-parse', '--symbolic-full-name', name === '-' ? '@{-1}' : name]);
    ref = full.out.trim();
    if (!full.ok || !ref.startsWith('refs/heads/')) return null;
  }
  const sha = commitOf(git, ref);
  return sha ? { ref, sha } : null;
}

/** Splits a subcommand's arguments: options (those in `withValue` take a value: `--x=v`, the rest
 *  of a short bundle `-bname`, or the next argument), positionals before `--`, and whether paths
 *  follow `--`. */
function parse(rest: readonly string[], withValue: ReadonlySet<string>): { flags: Map<string, string | true>; positionals: string[]; paths: boolean } {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') return { flags, positionals, paths: rest.length > i + 1 };
    if (!a.startsWith('-') || a === '-') {
      positionals.push(a);
      continue;
    }
    if (a.startsWith('--')) {
      const name = a.split('=')[0]!;
      flags.set(name, !withValue.has(name) ? true : a.includes('=') ? a.slice(a.indexOf('=') + 1) : (rest[++i] ?? ''));
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const f = `-${a[k]}`;
      if (!withValue.has(f)) {
        flags.set(f, true);
        continue;
      }
      flags.set(f, k + 1 < a.length ? a.slice(k + 1) : (rest[++i] ?? ''));
      break;
    }
  }
  return { flags, positionals, paths: false };
}

const CHECKOUT_VALUES = new Set(['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']);
const SWITCH_VALUES = new Set(['-c', '-C', '--create', '--force-create', '--orphan', '--conflict']);

/** Where HEAD will be after `git <args>` (args: the subcommand and its arguments), predicted before
 *  it runs: `before` when the command does not move HEAD (restore, checkout -- paths, rm), null when
 *  it cannot be told (an orphan branch, a remote branch git would create, an unknown target). */
export function predictHead(git: Git, before: HeadState, args: readonly string[]): HeadState | null {
  const [sub, ...rest] = args;
  if (sub === 'reset') {
    const { flags, positionals, paths } = parse(rest, new Set(['--pathspec-from-file']));
    if (paths || flags.has('--pathspec-from-file') || positionals.length > 1) return before; // a path reset: HEAD stays (git refuses --hard with paths)
    const sha = commitOf(git, positionals[0] ?? 'HEAD');
    return sha ? { ref: before.ref, sha } : null;
  }
  if (sub === 'checkout') {
    const { flags, positionals, paths } = parse(rest, CHECKOUT_VALUES);
    if (flags.has('--orphan')) return null;
    const created = flags.get('-B') ?? flags.get('-b');
    if (typeof created === 'string') {
      const sha = commitOf(git, positionals[0] ?? 'HEAD');
      return sha ? { ref: `refs/heads/${created}`, sha } : null;
    }
    if (paths || flags.has('--pathspec-from-file') || flags.has('-p') || flags.has('--patch') || positionals.length >= 2) return before;
    if (flags.has('--detach')) {
      const sha = commitOf(git, positionals[0] ?? 'HEAD');
      return sha ? { ref: null, sha } : null;
    }
    if (positionals.length === 0) return before;
    const branch = branchOf(git, positionals[0]!);
    if (branch) return branch;
    const sha = commitOf(git, positionals[0]!);
    // A commit that is not a branch: detached. Otherwise a path (HEAD stays) or a branch git
    // creates from a remote one: not told apart here.
    return sha ? { ref: null, sha } : null;
  }
  if (sub === 'switch') {
    const { flags, positionals } = parse(rest, SWITCH_VALUES);
    if (flags.has('--orphan')) return null;
    const created = flags.get('-C') ?? flags.get('--force-create') ?? flags.get('-c') ?? flags.get('--create');
    if (typeof created === 'string') {
      const sha = commitOf(git, positionals[0] ?? 'HEAD');
      return sha ? { ref: `refs/heads/${created}`, sha } : null;
    }
    if (flags.has('--detach') || flags.has('-d')) {
      const sha = commitOf(git, positionals[0] ?? 'HEAD');
      return sha ? { ref: null, sha } : null;
    }
    return positionals[0] !== undefined ? branchOf(git, positionals[0]) : null;
  }
  return before;
}

export const sameHead = (a: HeadState | null | undefined, b: HeadState | null | undefined): boolean => !!a && !!b && a.sha === b.sha && a.ref === b.ref;

/** The git command (arguments after `git`) that takes HEAD back to `before`, never touching local
 *  changes or untracked files that would be overwritten (git refuses then). `fromLeft`: HEAD is
 *  exactly where the command left it, so the command's own move may be undone.
 *  - the same branch, moved by the command (a reset): `reset --keep <before>`;
 *  - another branch that still points where it did: `switch <branch>`;
 *  - detached before: `switch --detach <before>`;
 *  - a branch that has moved on since: a new branch at the old commit, `switch -c <name> <before>`
 *    (nothing the branch gained since is lost). */
export function returnArgs(git: Git, before: HeadState, now: HeadState, txid: string, fromLeft: boolean): string[] | null {
  if (before.sha === null) return null;
  if (before.ref === null) return ['switch', '-q', '--detach', before.sha];
  if (!before.ref.startsWith('refs/heads/')) return null;
  const name = before.ref.slice('refs/heads/'.length);
  if (fromLeft && now.ref === before.ref) return ['reset', '-q', '--keep', before.sha];
  if (now.ref !== before.ref && commitOf(git, before.ref) === before.sha) return ['switch', '-q', name];
  return ['switch', '-q', '-c', `agent-guard-restore-${txid}`, before.sha];
}
