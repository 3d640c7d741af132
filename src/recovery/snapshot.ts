// Snapshots: the compensation for git operations that overwrite tracked changes (reset --hard,
// restore, checkout -- / -f, switch --discard-changes). `git stash create` records the index and the
// work tree as a commit without touching either; `git stash store` keeps it reachable. Any failure
// blocks the command.
import path from 'node:path';
import type { GitRunner } from '../probe/git.js';
import { appendRecord } from './records.js';
import { ensureQuarantine, manifestPath, newTxid, type QuarantinePlace, type RelocationContext } from './quarantine.js';

export interface SnapshotResult {
  txid: string;
  status: 'done' | 'failed';
  /** The stash commit, or null when there was nothing to snapshot (no local changes). */
  stash: string | null;
  error?: string;
}

export function snapshot(q: QuarantinePlace, git: GitRunner, where: { cwd: string; globals: readonly string[] }, ctx: RelocationContext, isIgnored: (dir: string) => boolean): SnapshotResult {
  const txid = newTxid();
  const failed = (error: string): SnapshotResult => ({ txid, status: 'failed', stash: null, error });
  try {
    ensureQuarantine(q, isIgnored);
    appendRecord(manifestPath(q), { kind: 'tx-start', txid, session: ctx.session, command: ctx.command, cwd: ctx.cwd, strategy: 'snapshot' });
  } catch (err) {
    return failed(`the quarantine cannot record a transaction: ${err instanceof Error ? err.message : String(err)}`);
  }
  const created = git.run([...where.globals, 'stash', 'create', `agent-guard snapshot ${txid}`], where.cwd);
  if (!created.ok) return failed(`git stash create failed: ${created.stderr}`);
  const sha = created.stdout.toString('utf8').trim();
  if (sha === '') {
    appendRecord(manifestPath(q), { kind: 'snapshot', txid, session: ctx.session, stash: null, repo: where.cwd, globals: [...where.globals] });
    return { txid, status: 'done', stash: null };
  }
  const message = `agent-guard snapshot ${txid}`;
  const stored = git.run([...where.globals, 'stash', 'store', '-m', message, sha], where.cwd);
  if (!stored.ok) return failed(`git stash store failed: ${stored.stderr}`);
  try {
    appendRecord(manifestPath(q), { kind: 'snapshot', txid, session: ctx.session, stash: sha, message, repo: path.resolve(where.cwd), globals: [...where.globals] });
  } catch (err) {
    // The stash is stored (and listed by `git stash list`); only the record is missing.
    return { txid, status: 'failed', stash: sha, error: `the snapshot ${sha} is stored, but its record is not: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { txid, status: 'done', stash: sha };
}

/** Re-applies a stored snapshot. git refuses (and changes nothing) when local changes conflict. */
export function applySnapshot(git: GitRunner, repo: string, globals: readonly string[], sha: string): { ok: boolean; message: string } {
  const r = git.run([...globals, 'stash', 'apply', sha], repo);
  return { ok: r.ok, message: r.ok ? 'applied' : r.stderr || `git stash apply exited ${r.status}` };
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
  if (out.skipped.length === 0) {
    const kept = git.run([...globals, 'for-each-ref', '--format=%(refname)', `refs/agent-guard/${txid}/`], repo);
    for (const ref of kept.stdout.toString('utf8').split('\n').filter((l) => l !== '')) git.run([...globals, 'update-ref', '-d', ref], repo);
  }
  return out;
}
