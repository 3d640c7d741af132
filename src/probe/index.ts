// The probe: reads what the policy needs from the filesystem and from git (never writing anything),
// and turns the classifier's lexical facts into physical ones.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Op, TargetSpec } from '../classifier/types.js';
import { entryType, exists, isEmptyDir, physicalBytes, physicalOf, realpathLoose, type EntryType } from './fs.js';
import { cleanRequiresForce, enumerateClean, gitRunner, ignoredUntracked, isRef, remoteBranchCommit, resetPreflight, toplevelOf, unreachableFromRefs, worktreeList, worktreeStatus, type GitRunner } from './git.js';
import { isWithin } from '../classifier/paths.js';
import { zoneOf, type Zone } from './zones.js';
import type { Workspace } from '../workspace.js';

export { aliasOf, gitRunner, type GitRunner } from './git.js';

/** Top-level names in the quarantine that are its own state, not transactions: the records, the
 *  index, the lock, session modes, grants and the nested-repository marker. A name that starts with
 *  a record's name and a dot is one of its temporary files (`state.json.tmp`, `index.json.tmp-…`). */
const QUARANTINE_CONTROL = new Set(['state.json', 'manifest.jsonl', 'audit.jsonl', 'index.json', 'sessions', 'grants', 'lock', '.lock', '.gitignore', '.git']);
const CONTROL_PREFIXES = ['state.json.', 'manifest.jsonl.', 'audit.jsonl.', 'index.json.', '.lock.'];

/** Is `rel` (a path inside the quarantine `q`, '' for `q` itself) the quarantine or part of its
 *  state rather than quarantined content? A `.git` at any depth stays git metadata (the quarantine
 *  is no way around rule 5), and a transaction is a directory: anything else at the top is state. */
function quarantineControl(q: string, rel: string): boolean {
  if (rel === '') return true;
  const parts = rel.split('/');
  const top = parts[0]!;
  if (QUARANTINE_CONTROL.has(top) || CONTROL_PREFIXES.some((p) => top.startsWith(p)) || parts.includes('.git')) return true;
  const t = entryType(path.posix.join(q, top));
  return t !== 'dir' && t !== 'missing';
}

export interface TargetFacts extends TargetSpec {
  physical: string | null;
  /** The exact physical path when a name is not valid UTF-8 (`physical` is then its lossy display
   *  form, good for the policy's location facts but not for touching the entry). */
  bytes?: Buffer;
  type: EntryType;
  insideWorkspace: boolean;
  isWorkspaceRoot: boolean;
  isGitMetadata: boolean;
  /** Inside a quarantine transaction (not the quarantine itself or its records). */
  inQuarantine: boolean;
  /** The quarantine directory or one of its records. */
  isQuarantineControl: boolean;
  /** Deleting it would delete the quarantine or lose its name: an ancestor of it, a symlink that
   *  resolves to it, or a directory or link on the configured path to it. */
  holdsQuarantine: boolean;
  /** The protected root this target is, or null. */
  protectedRoot: string | null;
  /** Matches an artifact pattern (rule 13). */
  artifact: boolean;
  /** Outside the workspace, inside a scratch zone (not the zone itself): the zone (rule 8b). */
  zone: Zone | null;
  /** One of git's own lock files: a regular file (or a dangling name) ending in `.lock` below a
   *  `.git` directory (rule 8a). */
  gitLock: boolean;
  /** Git-ignored and holding no tracked file (rule 13); undefined when not asked. */
  ignored?: boolean;
  emptyDir?: boolean;
}

export interface ProbedOp {
  op: Op;
  targets: TargetFacts[];
  /** git clean: the enumeration (rule 11/11b); absent when not attempted. */
  clean?: { ok: boolean; error?: string; count: number; skippedRepositories: string[]; quarantineExcluded: boolean };
  /** git clean without -f that git refuses to run (clean.requireForce). */
  refused?: boolean;
  /** git reset --hard: untracked/ignored paths the reset would overwrite. */
  collisions?: string[];
  /** git checkout NAME where NAME is a commit: a branch switch, not a path checkout. Also any git op
   *  that git itself will refuse or that loses nothing (`inertDetail` says which). */
  inert?: boolean;
  inertDetail?: string;
}

/** `<base>/<rel>` with its directory resolved physically, as bytes (`rel` may end with a slash, as
 *  git prints directories); null when the directory cannot be resolved. */
function exactPhysical(base: string, rel: Buffer): Buffer | null {
  let end = rel.length;
  while (end > 0 && rel[end - 1] === 0x2f) end--;
  try {
    return physicalBytes(Buffer.concat([Buffer.from(base.endsWith('/') ? base : `${base}/`), rel.subarray(0, end)]));
  } catch {
    return null;
  }
}

function matchesArtifact(rel: string, patterns: readonly string[]): boolean {
  const parts = rel.split('/').filter((p) => p !== '');
  return parts.some((part) =>
    patterns.some((pat) => {
      if (!/[*?[]/.test(pat)) return part === pat;
      const re = new RegExp('^' + pat.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
      return re.test(part);
    }),
  );
}

/** Facts for a target that names no entry to look at on this host. */
function unplaced(t: TargetSpec, facts: Pick<TargetFacts, 'physical' | 'insideWorkspace' | 'protectedRoot'>): TargetFacts {
  return { ...t, ...facts, type: 'missing', isWorkspaceRoot: false, isGitMetadata: false, inQuarantine: false, isQuarantineControl: false, holdsQuarantine: false, artifact: false, zone: null, gitLock: false };
}

/** Is `physical` (of type `type`) one of git's lock files: below a `.git` directory (lexically or
 *  physically), named `*.lock`, a regular file, a name that does not exist, or a dangling link? A
 *  directory named x.lock is not a lock. */
function isGitLock(lexical: string, physical: string, type: EntryType): boolean {
  const name = path.posix.basename(physical);
  if (!name.endsWith('.lock') || name === '.lock') return false;
  const inGitDir = (p: string): boolean => path.posix.dirname(p).split('/').includes('.git');
  if (!inGitDir(physical) && !inGitDir(lexical)) return false;
  if (type === 'file' || type === 'missing') return true;
  return type === 'symlink' && !exists(realpathLoose(physical));
}

export function targetFacts(t: TargetSpec, ws: Workspace, artifacts: readonly string[]): TargetFacts {
  if (t.foreign !== undefined) {
    // A Windows drive or UNC path (cmd/PowerShell dialects): no POSIX location, so never inside the
    // workspace; a drive root is a protected root by identity (rule 2c), anything else is outside (rule 4).
    return unplaced(t, { physical: t.path, insideWorkspace: false, protectedRoot: t.foreign === 'drive-root' ? t.path : null });
  }
  if (t.joined === null || t.path === null || t.glob) {
    return unplaced(t, { physical: null, insideWorkspace: t.glob && t.path !== null ? isWithin(t.path, ws.root) : false, protectedRoot: null });
  }
  const physical = physicalOf(t.joined, t.followsLink);
  const lexical = t.path;
  const protectedRoot =
    [lexical, physical].find((p) => ws.protectedRoots.has(p) || /^\/[^/]+$/.test(p)) ?? null;
  const type = entryType(physical);
  let inQuarantine = false;
  let isQuarantineControl = false;
  // The workspace's quarantine, or a zone's: the same rules for each (rules 3 and 5).
  const quarantines = [ws.quarantine, ...ws.zones.map((z) => z.quarantine)];
  const q = quarantines.find((x) => isWithin(physical, x));
  if (q !== undefined) {
    if (quarantineControl(q, path.posix.relative(q, physical))) isQuarantineControl = true;
    else inQuarantine = true;
  }
  // Holding the quarantine: it lies below the target, the target is a link to it (another name for
  // it), or the target is on the configured path to it (a link the setting goes through). A link to
  // one of its ancestors is not: removing a link removes nothing behind it.
  const configured = ws.quarantineConfigured;
  const holdsQuarantine =
    !isQuarantineControl &&
    (quarantines.some((x) => isWithin(x, physical)) ||
      (type === 'symlink' && quarantines.includes(realpathLoose(physical))) ||
      (configured !== undefined && (isWithin(configured, lexical) || isWithin(configured, physical))));
  const insideWorkspace = isWithin(physical, ws.root);
  const rel = insideWorkspace ? path.posix.relative(ws.root, physical) : '';
  const gitMeta = (p: string): boolean => p.split('/').includes('.git');
  const isGitMetadata = gitMeta(lexical) || gitMeta(physical);
  return {
    ...t,
    physical,
    type,
    insideWorkspace,
    isWorkspaceRoot: physical === ws.root,
    isGitMetadata,
    inQuarantine,
    isQuarantineControl,
    holdsQuarantine,
    protectedRoot,
    artifact: insideWorkspace && rel !== '' && matchesArtifact(rel, artifacts),
    zone: insideWorkspace || ws.zones.length === 0 ? null : zoneOf(physical, ws.zones, ws.barriers),
    gitLock: isGitMetadata && isGitLock(lexical, physical, type),
  };
}

export interface ProbeOptions {
  mode: 'NORMAL' | 'RESTRICTED';
}

/** Physical facts for every op, plus the git queries the policy's rules need for them. */
export function probe(ops: Op[], config: Config, ws: Workspace, options: ProbeOptions, git: GitRunner = gitRunner(config.gitBinary, config.env)): ProbedOp[] {
  const out: ProbedOp[] = [];
  for (const op of ops) {
    const p: ProbedOp = { op, targets: op.targets.map((t) => targetFacts(t, ws, config.artifacts)) };
    out.push(p);
    if (op.undeterminable) continue;
    const g = op.git;
    const dir = g?.dir ?? null;
    // git runs where the op runs; its global options (-C …) are replayed, so paths it prints are
    // relative to `dir`.
    const at = op.cwd !== null ? realpathLoose(op.cwd) : '/';
    if (op.kind === 'git-clean' && g && dir !== null) {
      const unsupported = (g.cleanForce ?? 0) > 1 || (g.cleanFlags ?? []).some((f) => !['-d', '-x', '-X', '-q'].includes(f));
      if (unsupported || g.cleanDryRun) continue;
      if ((g.cleanForce ?? 0) === 0 && cleanRequiresForce(git, at, g.globals)) {
        p.refused = true;
        continue;
      }
      const e = enumerateClean(git, at, g.globals, g.cleanFlags ?? [], g.pathspecs ?? []);
      let quarantineExcluded = false;
      if (e.ok) {
        for (const raw of e.remove) {
          const rel = raw.toString('utf8');
          let exact: Buffer | null = null;
          if (!Buffer.from(rel, 'utf8').equals(raw)) {
            // Not valid UTF-8: the policy judges the lossy form (its directories are what decide the
            // location facts), and the compensation moves the exact bytes.
            exact = exactPhysical(realpathLoose(dir), raw);
            if (exact === null) {
              op.undeterminable = { reason: 'git-clean-unsupported', detail: `git clean would remove a path whose name is not valid UTF-8 and whose directory cannot be resolved (${JSON.stringify(rel)})` };
              break;
            }
          }
          const joined = path.posix.join(realpathLoose(dir), rel);
          const spec: TargetSpec = { raw: rel, path: path.posix.resolve(joined), joined, glob: false, followsLink: false };
          const facts = targetFacts(spec, ws, config.artifacts);
          if (exact !== null) {
            facts.bytes = exact;
            facts.type = entryType(exact);
          }
          // The quarantine is never a target: git clean -x lists it when its nested-repository
          // marker is missing, and the marker is made again before the real git clean runs (which
          // then skips it). What holds it stays a target, and rule 5 refuses it. Anything *inside*
          // it is listed only when git takes the marker for the work tree (git run inside the
          // quarantine): the real git clean would delete it outright, so rule 5 refuses that too.
          if (facts.physical === ws.quarantine) {
            quarantineExcluded = true;
            continue;
          }
          if (facts.inQuarantine) {
            facts.inQuarantine = false;
            facts.isQuarantineControl = true;
          }
          p.targets.push(facts);
        }
      }
      p.clean = { ok: e.ok, ...(e.error !== undefined ? { error: e.error } : {}), count: e.remove.length, skippedRepositories: e.skipped, quarantineExcluded };
    }
    if (op.kind === 'git-reset-hard' && g && dir !== null) {
      const pre = resetPreflight(git, at, g.globals, g.commit ?? 'HEAD', ws.quarantine);
      if (!pre.ok) {
        op.undeterminable = { reason: 'reset-not-standalone', detail: `the reset preflight failed: ${pre.error ?? 'unknown error'}` };
        continue;
      }
      p.collisions = pre.collisions;
      if (pre.toplevel) p.targets = p.targets.filter((t) => t.role !== 'scope').concat(scopeTarget(pre.toplevel, ws, config));
    }
    if ((op.kind === 'git-switch' || op.kind === 'git-checkout') && g?.treeTarget !== undefined && g.keepsChanges && dir !== null) {
      // A switch that keeps local changes: only ignored files in the way are written over.
      const commit = switchTarget(git, at, g.globals, g.treeTarget, false, realpathLoose(dir));
      if (!ignoredInTheWay(p, git, at, g.globals, commit, ws.quarantine)) continue;
    } else if ((op.kind === 'git-switch' || op.kind === 'git-checkout') && g?.treeTarget !== undefined && dir !== null) {
      // A forced switch to another tree: the reset's preflight, against the commit it checks out.
      const commit = switchTarget(git, at, g.globals, g.treeTarget, g.treeTargetMaybePath === true, realpathLoose(dir));
      if (commit !== null) {
        const pre = resetPreflight(git, at, g.globals, commit, ws.quarantine);
        if (!pre.ok) {
          op.undeterminable = { reason: 'reset-not-standalone', detail: `the preflight of git ${g.subcommand} -f failed: ${pre.error ?? 'unknown error'}` };
          continue;
        }
        p.collisions = pre.collisions;
        if (pre.toplevel) p.targets = p.targets.filter((t) => t.role !== 'scope').concat(scopeTarget(pre.toplevel, ws, config));
      }
    }
    if ((op.kind === 'git-checkout' || op.kind === 'git-restore') && g?.source !== undefined && dir !== null) {
      // Paths written from another tree go over untracked files too: the preflight, limited to them.
      // A name that is no revision writes nothing from a tree: `git checkout NAME PATH` then takes
      // NAME for a path (the paths come from the index, which never holds an untracked file), and
      // `checkout NAME -- PATH` / `restore --source NAME` fail ("invalid reference").
      if (isRef(git, at, g.globals, g.source)) {
        const pre = resetPreflight(git, at, g.globals, g.source, ws.quarantine, g.sourcePaths ?? []);
        if (!pre.ok) {
          op.undeterminable = { reason: 'reset-not-standalone', detail: `the preflight of git ${g.subcommand} from ${g.source} failed: ${pre.error ?? 'unknown error'}` };
          continue;
        }
        p.collisions = pre.collisions;
      }
    }
    if ((op.kind === 'git-switch' || (op.kind === 'git-checkout' && g?.ambiguousRef === undefined && !op.argv.includes('--'))) && g && dir !== null && p.collisions === undefined) {
      const top = toplevelOf(git, at, g.globals);
      if (top) p.targets = p.targets.filter((t) => t.role !== 'scope').concat(scopeTarget(top, ws, config));
    }
    if (op.kind === 'git-worktree-remove' && g && dir !== null && p.targets.some((t) => t.role !== 'scope')) {
      probeWorktreeRemove(p, git, at, ws, config);
    }
    if (op.kind === 'git-checkout' && g?.ambiguousRef !== undefined && dir !== null) {
      const name = g.ambiguousRef;
      const onDisk = exists(path.posix.resolve(realpathLoose(dir), name));
      if (isRef(git, at, g.globals, name)) {
        // A branch switch: only ignored files in the way are written over.
        if (g.keepsChanges && !ignoredInTheWay(p, git, at, g.globals, name, ws.quarantine)) continue;
        if (p.collisions === undefined || p.collisions.length === 0) p.inert = true;
      } else if (!onDisk) p.inert = true;
    }
    if (op.kind === 'fs-delete' && options.mode === 'RESTRICTED') {
      for (const t of p.targets) if (t.type === 'dir' && t.physical) t.emptyDir = isEmptyDir(t.physical);
    }
    if (op.kind === 'fs-delete' && config.allowRegenerable && p.targets.length > 0 && p.targets.every((t) => t.artifact && t.physical && t.type !== 'symlink')) {
      const ignored = ignoredUntracked(git, ws.root, p.targets.map((t) => t.physical!));
      for (const t of p.targets) t.ignored = ignored !== null && ignored.has(t.physical!);
    }
  }
  return out;
}

/** A switch that keeps local changes to `commit` (null: it moves nowhere git can name; git then
 *  reports its error): git refuses to write over untracked files in the way, but writes over
 *  ignored ones (`--overwrite-ignore`, its default), which no snapshot holds. Sets p.collisions to
 *  those (and to anything in the quarantine the move would write), and p.inert when there are none.
 *  Returns false when the preflight failed (the op is then undeterminable). */
function ignoredInTheWay(p: ProbedOp, git: GitRunner, at: string, globals: readonly string[], commit: string | null, quarantine: string): boolean {
  if (commit === null) {
    p.inert = true;
    return true;
  }
  const pre = resetPreflight(git, at, globals, commit, quarantine);
  if (!pre.ok || pre.toplevel === undefined) {
    p.op.undeterminable = { reason: 'reset-not-standalone', detail: `the preflight of git ${p.op.git?.subcommand ?? ''} to ${commit} failed: ${pre.error ?? 'unknown error'}` };
    return false;
  }
  const top = pre.toplevel;
  const inQ = new Set(pre.inQuarantine);
  const others = pre.collisions.filter((rel) => !inQ.has(rel));
  const ignored = others.length === 0 ? new Set<string>() : ignoredUntracked(git, top, others.map((rel) => path.posix.join(top, rel)));
  if (ignored === null) {
    p.op.undeterminable = { reason: 'reset-not-standalone', detail: `git ls-files failed: which files git ${p.op.git?.subcommand ?? ''} would write over is not known` };
    return false;
  }
  p.collisions = pre.collisions.filter((rel) => inQ.has(rel) || ignored.has(path.posix.join(top, rel)));
  if (p.collisions.length === 0) {
    p.inert = true;
    p.inertDetail = 'a branch switch keeps local changes';
  }
  return true;
}

/** The commit a forced checkout/switch moves to, or null when it moves to none: a name that is no
 *  commit is a path (`git checkout -f FILE` when FILE exists, or when no remote branch has that
 *  name) or an error git reports. */
function switchTarget(git: GitRunner, at: string, globals: readonly string[], name: string, maybePath: boolean, dir: string): string | null {
  if (isRef(git, at, globals, name)) return name;
  if (maybePath && exists(path.posix.resolve(dir, name))) return null;
  return remoteBranchCommit(git, at, globals, name);
}

/** `git worktree remove`: which work tree git will remove (it matches a unique path suffix first,
 *  then the path), whether it will refuse (not a work tree, the main one, locked without -f -f,
 *  modified or untracked files without -f), and whether anything git does not hold goes with it.
 *  The target becomes the work tree's directory, as git resolves it. */
function probeWorktreeRemove(p: ProbedOp, git: GitRunner, at: string, ws: Workspace, config: Config): void {
  const g = p.op.git!;
  const named = p.targets.find((t) => t.role !== 'scope')!;
  const list = worktreeList(git, at, g.globals);
  if (list === null) {
    p.op.undeterminable = { reason: 'unknown-option', detail: 'git worktree list failed: which work tree would be removed is not known' };
    return;
  }
  const arg = g.worktreeArg ?? '';
  const bySuffix = arg === '' ? [] : list.filter((e) => e.path === arg || e.path.endsWith('/' + arg));
  const physical = named.joined !== null ? realpathLoose(named.joined) : '';
  const entry = bySuffix.length === 1 ? bySuffix[0]! : list.find((e) => realpathLoose(e.path) === physical);
  const refuse = (why: string): void => {
    p.inert = true;
    p.inertDetail = `git refuses: ${why}`;
  };
  if (!entry) return refuse(`${named.raw} is not a work tree of this repository`);
  if (entry.main) return refuse('it is the main work tree');
  const force = g.worktreeForce ?? 0;
  if (entry.locked && force < 2) return refuse('the work tree is locked (it takes -f -f)');
  const where = realpathLoose(entry.path);
  const t = targetFacts({ raw: named.raw, path: entry.path, joined: where, glob: false, followsLink: false }, ws, config.artifacts);
  p.targets = p.targets.map((x) => (x === named ? t : x));
  if (t.type === 'missing') return refuse('nothing is left of its directory (git only drops its administrative files)');
  if (force === 0) {
    const st = worktreeStatus(git, where);
    if (st === null) {
      p.op.undeterminable = { reason: 'unknown-option', detail: `git status failed in ${entry.path}: what git worktree remove would delete is not known` };
      return;
    }
    if (st.dirty) return refuse('the work tree holds modified or untracked files (it takes --force)');
    // A detached HEAD's own commits are reachable only through the work tree's records, which git
    // deletes: then it is not "nothing" (the git shim keeps that commit with a ref).
    const ownCommits = entry.branch === null && entry.head !== null && unreachableFromRefs(git, at, g.globals, entry.head) !== false;
    if (!st.ignored && !ownCommits) {
      p.inert = true;
      p.inertDetail = 'the work tree holds nothing git does not (no changes, no untracked or ignored files)';
    }
  }
}

function scopeTarget(dir: string, ws: Workspace, config: Config): TargetFacts {
  return { ...targetFacts({ raw: dir, path: path.posix.resolve(dir), joined: dir, glob: false, followsLink: true }, ws, config.artifacts), role: 'scope' };
}
