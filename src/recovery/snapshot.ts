// Snapshots: the compensation for git operations that overwrite tracked changes (reset --hard,
// restore, checkout -- / -f, switch --discard-changes). `git stash create` records the index and the
// work tree as a commit without touching either; a ref of agent-guard's own,
// `refs/agent-guard/<txid>/snapshot`, keeps it reachable (never `refs/stash`: the user's stash list
// stays theirs). HEAD before the command, and where the command will leave it, are recorded too, so
// that `restore` applies the changes on the commit they were made on. Any failure blocks the command.
import path from 'node:path';
import type { GitRunner } from '../probe/git.js';
import { appendRecord } from './records.js';
import { ensureQuarantine, manifestPath, newTxid, type QuarantinePlace, type RelocationContext } from './quarantine.js';
import { headOf, predictHead, returnArgs, sameHead, type Git, type HeadState } from './head.js';
import type { Snap } from './txindex.js';

export interface SnapshotResult {
  txid: string;
  status: 'done' | 'failed';
  /** The stash commit, or null when there was nothing to snapshot (no local changes). */
  stash: string | null;
  /** The ref that keeps it (`refs/agent-guard/<txid>/snapshot`). */
  ref?: string;
  error?: string;
}

/** The keep-alive ref of a snapshot. */
export const snapshotRef = (txid: string): string => `refs/agent-guard/${txid}/snapshot`;

function gitIn(git: GitRunner, cwd: string, globals: readonly string[]): Git {
  return (args) => {
    const r = git.run([...globals, ...args], cwd);
    return { ok: r.ok, out: r.ok ? r.stdout.toString('utf8') : r.stderr };
  };
}

/** `where.args`: the subcommand and its arguments (after the global options), from which the HEAD
 *  the command will leave is predicted; without them it is unknown. */
export function snapshot(q: QuarantinePlace, git: GitRunner, where: { cwd: string; globals: readonly string[]; args?: readonly string[] }, ctx: RelocationContext, isIgnored: (dir: string) => boolean): SnapshotResult {
  const txid = newTxid();
  const failed = (error: string): SnapshotResult => ({ txid, status: 'failed', stash: null, error });
  try {
    ensureQuarantine(q, isIgnored);
    appendRecord(manifestPath(q), { kind: 'tx-start', txid, session: ctx.session, command: ctx.command, cwd: ctx.cwd, strategy: 'snapshot' });
  } catch (err) {
    return failed(`the quarantine cannot record a transaction: ${err instanceof Error ? err.message : String(err)}`);
  }
  const repo = path.resolve(where.cwd);
  const g = gitIn(git, repo, where.globals);
  const message = `agent-guard snapshot ${txid}`;
  const created = git.run([...where.globals, 'stash', 'create', message], repo);
  if (!created.ok) return failed(`git stash create failed: ${created.stderr}`);
  const sha = created.stdout.toString('utf8').trim();
  const before = headOf(g);
  const after = where.args ? predictHead(g, before, where.args) : null;
  const base = { kind: 'snapshot' as const, txid, session: ctx.session, repo, globals: [...where.globals], before, after };
  if (sha === '') {
    appendRecord(manifestPath(q), { ...base, stash: null });
    return { txid, status: 'done', stash: null };
  }
  const ref = snapshotRef(txid);
  // An empty old value: created, never moved (a txid is new).
  const kept = git.run([...where.globals, 'update-ref', '-m', message, ref, sha, ''], repo);
  if (!kept.ok) return failed(`git update-ref ${ref} failed: ${kept.stderr}`);
  try {
    appendRecord(manifestPath(q), { ...base, stash: sha, ref, message });
  } catch (err) {
    // The snapshot is kept (under its ref); only the record is missing.
    return { txid, status: 'failed', stash: sha, ref, error: `the snapshot ${sha} is kept as ${ref}, but its record is not: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { txid, status: 'done', stash: sha, ref };
}

export interface SnapshotRestore {
  restored: string[];
  skipped: { origin: string; reason: string }[];
  /** The commands that would finish the restore by hand, when it was refused. */
  commands?: string[];
}

/** `git -C <repo> <globals> <args>` as a user would type it. */
function shown(snap: Snap, args: readonly string[]): string {
  const q = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return ['git', '-C', snap.repo, ...snap.globals, ...args].map(q).join(' ');
}

/** Applies a snapshot with its index (`stash apply --index`); when the index cannot be restored as
 *  it was, the work tree alone (git changes nothing before it refuses). */
function apply(git: Git, sha: string): { ok: boolean; note: string; message: string } {
  const withIndex = git(['stash', 'apply', '--index', sha]);
  if (withIndex.ok) return { ok: true, note: '', message: '' };
  const plain = git(['stash', 'apply', sha]);
  return plain.ok ? { ok: true, note: ' (work tree only: the index could not be restored as it was)', message: '' } : { ok: false, note: '', message: plain.out || withIndex.out };
}

/** Re-applies a stored snapshot where it was taken. When HEAD has moved since (the command reset or
 *  switched it), HEAD goes back first — only from exactly the state the command left and with no
 *  local changes; otherwise nothing is changed and the commands to do it by hand are given. Then the
 *  snapshot is applied with its index; git refuses (changing nothing) when local changes conflict.
 *  Its keep-alive ref is removed once it is applied. Records of an older version (kept in
 *  `refs/stash`, no HEAD recorded) are applied where HEAD is. */
export function restoreSnapshot(runner: GitRunner, txid: string, snap: Snap): SnapshotRestore {
  const sha = snap.stash!;
  const origin = `stash ${sha}`;
  const git = gitIn(runner, snap.repo, snap.globals);
  const before = snap.before;
  let back: string | null = null;
  if (before?.sha) {
    const now = headOf(git);
    if (!sameHead(now, before)) {
      const left = sameHead(now, snap.after);
      const to = returnArgs(git, before, now, txid, left);
      const where = `${before.ref ? before.ref.replace(/^refs\/heads\//, '') + ' at ' : ''}${before.sha.slice(0, 12)}`;
      const commands = [...(to ? [shown(snap, to)] : []), shown(snap, ['stash', 'apply', '--index', sha])];
      const refuse = (why: string): SnapshotRestore => ({ restored: [], skipped: [{ origin, reason: `${why}; nothing was changed. To apply the changes where they were made (${where}), run:\n${commands.map((c) => `    ${c}`).join('\n')}` }], commands });
      if (!left) return refuse(`HEAD has moved since the command${snap.after ? '' : ' (where it left HEAD is not known)'}`);
      if (!to) return refuse('HEAD cannot be taken back automatically');
      const status = git(['status', '--porcelain', '-z', '--untracked-files=no']);
      if (!status.ok || status.out !== '') return refuse(status.ok ? 'the work tree has changes made after the command (commit or stash them first)' : `git status failed: ${status.out}`);
      const moved = git(to);
      if (!moved.ok) return refuse(`git ${to.join(' ')} refused: ${moved.out}`);
      const at = headOf(git);
      if (at.sha !== before.sha) return { restored: [], skipped: [{ origin, reason: `HEAD is at ${at.sha ?? 'nothing'} after git ${to.join(' ')}, not at ${before.sha}: the snapshot was not applied` }], commands };
      back = ` (HEAD back to ${where})`;
    }
  }
  const applied = apply(git, sha);
  if (!applied.ok) return { restored: [], skipped: [{ origin, reason: `git stash apply refused${back ? ` after HEAD went back${back}` : ''}: ${applied.message}` }], commands: [shown(snap, ['stash', 'apply', '--index', sha])] };
  if (snap.ref) git(['update-ref', '-d', snap.ref, sha]);
  return { restored: [`${origin}${back ?? ''}${applied.note}`], skipped: [] };
}

export interface SnapshotFile {
  /** Relative to the top of the work tree, as git names it. */
  path: string;
  /** What the snapshot holds for it, compared with the commit it was taken on. */
  change: 'modified' | 'added' | 'deleted' | 'type-changed';
  /** Its size in the snapshot (null: deleted). */
  bytes: number | null;
}

const CHANGES: Record<string, SnapshotFile['change']> = { M: 'modified', A: 'added', D: 'deleted', T: 'type-changed' };

/** The files a snapshot changes (its work tree against the commit it was taken on), and the top
 *  of the work tree they are relative to. */
export function snapshotFiles(runner: GitRunner, snap: Snap): { top: string; files: SnapshotFile[] } | { error: string } {
  const git = gitIn(runner, snap.repo, snap.globals);
  const top = git(['rev-parse', '--show-toplevel']);
  if (!top.ok) return { error: `git rev-parse --show-toplevel failed: ${top.out}` };
  const raw = runner.run([...snap.globals, 'diff-tree', '-r', '-z', '--no-renames', `${snap.stash}^1`, snap.stash!], snap.repo);
  if (!raw.ok) return { error: `git diff-tree failed (is the snapshot ${snap.stash} still there?): ${raw.stderr}` };
  // `:old-mode new-mode old-blob new-blob status NUL path NUL`, repeated.
  const parts = raw.stdout.toString('utf8').split('\0');
  const files: SnapshotFile[] = [];
  const blobs: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!.split(' ');
    const blob = meta[3] ?? '';
    files.push({ path: parts[i + 1]!, change: CHANGES[meta[4]?.[0] ?? ''] ?? 'modified', bytes: null });
    blobs.push(blob);
  }
  const wanted = files.map((f, i) => (f.change === 'deleted' ? null : blobs[i]!));
  if (wanted.some((b) => b !== null)) {
    const sizes = runner.run([...snap.globals, 'cat-file', '--batch-check=%(objectsize)'], snap.repo, Buffer.from(wanted.filter((b) => b !== null).join('\n') + '\n'));
    const list = sizes.ok ? sizes.stdout.toString('utf8').split('\n') : [];
    let k = 0;
    for (const [i, b] of wanted.entries()) {
      if (b === null) continue;
      const n = Number.parseInt(list[k++] ?? '', 10);
      files[i]!.bytes = Number.isFinite(n) ? n : null;
    }
  }
  return { top: top.out.trim(), files };
}

/** The files of a snapshot that absolute paths name (a file, or a directory for what is below it),
 *  as paths relative to the top of the work tree; the paths that name none. */
export function chooseSnapshotFiles(runner: GitRunner, snap: Snap, paths: readonly string[]): { files: string[]; unknown: string[] } {
  const listed = snapshotFiles(runner, snap);
  if ('error' in listed) return { files: [], unknown: [...paths] };
  const files = new Set<string>();
  const unknown: string[] = [];
  for (const p of paths) {
    const rel = path.relative(listed.top, p);
    const hits = rel.startsWith('..') || path.isAbsolute(rel) ? [] : listed.files.filter((f) => rel === '' || f.path === rel || f.path.startsWith(`${rel}/`));
    if (hits.length === 0) unknown.push(p);
    for (const f of hits) files.add(f.path);
  }
  return { files: [...files].sort(), unknown };
}

/** Restores chosen files of a snapshot: the snapshot's change to them (against the commit it was
 *  taken on) is applied to the work tree with `git apply`, which changes nothing unless each file is
 *  still as it was on that commit; then to the index as it was, when that applies too. HEAD is not
 *  moved. The snapshot stays (the rest of it is still restorable). */
export function restoreSnapshotPaths(runner: GitRunner, snap: Snap, files: readonly string[]): SnapshotRestore {
  const git = gitIn(runner, snap.repo, snap.globals);
  const top = git(['rev-parse', '--show-toplevel']).out.trim();
  const specs = files.map((f) => `:(top,literal)${f}`);
  const shownFiles = files.map((f) => path.join(top, f));
  const diff = (to: string): Buffer => runner.run([...snap.globals, 'diff', '--binary', '--no-renames', '--full-index', `${snap.stash}^1`, to, '--', ...specs], snap.repo).stdout;
  const manual = [`${shown(snap, ['diff', '--binary', `${snap.stash}^1`, snap.stash!, '--', ...specs])} | git -C ${top} apply`];
  const work = diff(snap.stash!);
  const applied = runner.run([...snap.globals, '-C', top, 'apply', '--whitespace=nowarn'], snap.repo, work);
  if (!applied.ok) return { restored: [], skipped: shownFiles.map((origin) => ({ origin, reason: `git apply refused (the file changed since the command?), nothing was changed: ${applied.stderr}` })), commands: manual };
  const index = diff(`${snap.stash}^2`);
  const staged = index.length === 0 || runner.run([...snap.globals, '-C', top, 'apply', '--cached', '--whitespace=nowarn'], snap.repo, index).ok;
  return { restored: shownFiles.map((f) => (staged ? f : `${f} (work tree only: the index could not be restored as it was)`)), skipped: [] };
}

export interface DroppedRefs {
  /** Branches (or other refs) about to be deleted, with the commit each points at. */
  refs: { ref: string; sha: string }[];
  /** Stash entries about to be dropped: their commit and message. */
  stashes: { sha: string; message: string }[];
}

/** The compensation for `git branch -d/-D`, `git stash drop` and `git stash clear` (beyond the
 *  policy reference): before they run, every commit they drop gets a keep-alive ref
 *  `refs/agent-guard/<txid>/<n>` (so git gc never prunes it), and a `refs` record says what to
 *  re-create. `restore <txid>` brings the branches and stash entries back and removes the
 *  keep-alive refs. Any failure blocks the command. */
export function recordRefs(q: QuarantinePlace, git: GitRunner, where: { cwd: string; globals: readonly string[] }, ctx: RelocationContext, isIgnored: (dir: string) => boolean, dropped: DroppedRefs): { txid: string; error?: string } {
  const txid = newTxid();
  try {
    ensureQuarantine(q, isIgnored);
    appendRecord(manifestPath(q), { kind: 'tx-start', txid, session: ctx.session, command: ctx.command, cwd: ctx.cwd, strategy: 'refs' });
  } catch (err) {
    return { txid, error: `the quarantine cannot record a transaction: ${err instanceof Error ? err.message : String(err)}` };
  }
  const shas = [...dropped.refs.map((r) => r.sha), ...dropped.stashes.map((s) => s.sha)];
  for (const [i, sha] of shas.entries()) {
    const kept = git.run([...where.globals, 'update-ref', `refs/agent-guard/${txid}/${i}`, sha], where.cwd);
    if (!kept.ok) return { txid, error: `git update-ref (keeping ${sha}) failed: ${kept.stderr}` };
  }
  try {
    appendRecord(manifestPath(q), { kind: 'refs', txid, session: ctx.session, repo: path.resolve(where.cwd), globals: [...where.globals], refs: dropped.refs, stashes: dropped.stashes });
  } catch (err) {
    return { txid, error: `the commits are kept under refs/agent-guard/${txid}/, but the record is not: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { txid };
}

/** Re-creates what recordRefs kept: a ref only where none exists now (never moved), a stash entry
 *  by `git stash store`; then removes the keep-alive refs of the transaction. */
export function restoreRefs(git: GitRunner, txid: string, repo: string, globals: readonly string[], dropped: DroppedRefs): { restored: string[]; skipped: { origin: string; reason: string }[] } {
  const out: { restored: string[]; skipped: { origin: string; reason: string }[] } = { restored: [], skipped: [] };
  for (const r of dropped.refs) {
    // An empty old value: the ref must not exist (git refuses, changing nothing, if it does).
    const made = git.run([...globals, 'update-ref', r.ref, r.sha, ''], repo);
    if (made.ok) out.restored.push(`ref ${r.ref}`);
    else out.skipped.push({ origin: `ref ${r.ref}`, reason: `not re-created (it exists now, or git refused): ${made.stderr}` });
  }
  // Listed newest first; stored oldest first, so the stash list reads as it did.
  for (const s of [...dropped.stashes].reverse()) {
    const stored = git.run([...globals, 'stash', 'store', '-m', s.message, s.sha], repo);
    if (stored.ok) out.restored.push(`stash ${s.sha}`);
    else out.skipped.push({ origin: `stash ${s.sha}`, reason: `git stash store refused: ${stored.stderr}` });
  }
  if (out.skipped.length === 0) dropKeptRefs(git, txid, repo, globals);
  return out;
}

/** Removes every keep-alive ref of a transaction (`refs/agent-guard/<txid>/…`: a snapshot, or the
 *  commits of dropped refs). Null when done, else what failed. */
export function dropKeptRefs(git: GitRunner, txid: string, repo: string, globals: readonly string[]): string | null {
  const kept = git.run([...globals, 'for-each-ref', '--format=%(refname)', `refs/agent-guard/${txid}/`], repo);
  if (!kept.ok) return `git for-each-ref failed: ${kept.stderr}`;
  for (const ref of kept.stdout.toString('utf8').split('\n').filter((l) => l !== '')) {
    const gone = git.run([...globals, 'update-ref', '-d', ref], repo);
    if (!gone.ok) return `git update-ref -d ${ref} failed: ${gone.stderr}`;
  }
  return null;
}
