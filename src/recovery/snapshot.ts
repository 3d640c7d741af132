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
