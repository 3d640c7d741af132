// Overwrites (docs/overwrites.md): before a redirection truncates, `truncate` shrinks, `mv`/`cp`
// replace or `rsync` deletes or replaces an existing file, the content worth keeping is copied into
// the quarantine (the copy-then-run path `shred` uses: the origin stays for the command).
//
// One decision for "these existing entries are about to lose their content":
// 1. Nothing to lose: the entry is gone, not a regular file (a directory, a device, a FIFO — or,
//    where the write goes through links, whatever a link leads to that is not a regular file), or an
//    empty file. A symlink that is itself replaced (mv, rsync) is kept like a file.
// 2. Decided as `rm -- PATH…` would be, by the same engine, policy and session mode: outside the
//    workspace and every scratch zone, a protected path (.git, the workspace root), RESTRICTED mode
//    → refused as rm is; quarantined content → refused (an overwrite would destroy a kept copy); an
//    ignored build artifact (ALLOW_REGENERABLE) → nothing; a file in a scratch zone (/tmp, the
//    cache: docs/zones.md) → nothing: rewriting temp files is what scratch is for (a harness's cwd
//    file, a log in $TMPDIR), and a copy per rewrite would fill the zone's quarantine.
// 3. What git can give back: a file git tracks with no change (work tree and index as HEAD) or one
//    git ignores → nothing. Tracked with changes (staged or not), untracked, outside a repository
//    → a verified copy, one transaction per quarantine, audited.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type Env } from '../config.js';
import { quoteArgv } from '../classifier/index.js';
import type { CheckResult } from '../engine.js';
import { decideLine, enforce, type PlacedTarget } from '../enforce/index.js';
import { keptBy, notice } from '../notice.js';
import { explain, type ReasonCode } from '../policy/reasons.js';
import { findGitRoot } from '../probe/fs.js';
import { gitRunner, type GitRunner } from '../probe/git.js';
import { inAnyQuarantine } from '../workspace.js';

export interface OverwriteTarget {
  /** The entry as the command names it: absolute, or relative to the request's cwd. */
  path: string;
  /** The write goes through symlinks to what they lead to (a redirection, cp, truncate); otherwise
   *  the entry itself is replaced or removed (mv, rsync). */
  follow: boolean;
}

export interface OverwriteRequest {
  targets: readonly OverwriteTarget[];
  cwd: string;
  env: Env;
  /** The command, for the records (redacted there): the shell text, or the argv. */
  command: string;
  /** Who asks, for the audit record: `hook` (a shell redirection) or `shim`. */
  via: 'hook' | 'shim';
  /** The program that overwrites: `bash`, `zsh`, `mv`, `cp`, `truncate`, `rsync`. */
  program: string;
}

/** Why an entry needs no copy. */
export type Needless = 'missing' | 'not-a-file' | 'empty' | 'clean' | 'ignored' | 'regenerable' | 'scratch';

export type OverwriteVerdict =
  | { action: 'run'; txids: string[]; kept: string[]; needless: { path: string; why: Needless }[] }
  | { action: 'refuse'; decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string };

/** The entry a target names, physically: the file a followed write lands in, or the entry itself. */
function physicalOf(abs: string, follow: boolean): { physical: string; st: fs.Stats } | null {
  try {
    if (follow) {
      const physical = fs.realpathSync(abs);
      return { physical, st: fs.statSync(physical) };
    }
    const st = fs.lstatSync(abs);
    const trimmed = abs.replace(/\/+$/, '');
    const dir = fs.realpathSync(path.dirname(trimmed));
    return { physical: path.join(dir, path.basename(trimmed)), st };
  } catch {
    return null; // gone, or a link that leads nowhere (the write creates its target)
  }
}

/** git's word for each path (physical, each inside a work tree or not): `clean` (tracked, no change
 *  in the index or the work tree), `ignored`, or `keep` (tracked with changes, untracked, or not in a
 *  repository / git cannot tell). One `git status` per repository. */
export function gitStates(git: GitRunner, paths: readonly string[]): Map<string, 'clean' | 'ignored' | 'keep'> {
  const out = new Map<string, 'clean' | 'ignored' | 'keep'>();
  const byRoot = new Map<string, string[]>();
  for (const p of paths) {
    // The nearest work tree (a nested repository or a submodule has its own): no spawn.
    const root = findGitRoot(path.dirname(p));
    if (root === null) out.set(p, 'keep');
    else byRoot.set(root, [...(byRoot.get(root) ?? []), p]);
  }
  for (const [root, members] of byRoot) {
    for (let i = 0; i < members.length; i += 500) {
      const chunk = members.slice(i, i + 500);
      const specs = chunk.map((p) => `:(top,literal)${path.relative(root, p)}`);
      const r = git.run(['status', '--porcelain=v1', '-z', '--no-renames', '--ignored=matching', '--untracked-files=all', '--', ...specs], root);
      if (!r.ok) {
        for (const p of chunk) out.set(p, 'keep');
        continue;
      }
      // `XY path` entries, relative to the top of the work tree; a directory entry (`!! build/`,
      // `?? new/`) covers what is below it.
      const entries = r.stdout
        .toString('utf8')
        .split('\0')
        .filter((e) => e.length > 3)
        .map((e) => ({ xy: e.slice(0, 2), rel: e.slice(3) }));
      for (const p of chunk) {
        const rel = path.relative(root, p);
        const hit = entries.find((e) => e.rel === rel || (e.rel.endsWith('/') && rel.startsWith(e.rel)));
        out.set(p, !hit ? 'clean' : hit.xy === '!!' ? 'ignored' : 'keep');
      }
    }
  }
  return out;
}

const refuse = (decision: 'BLOCK' | 'ASK', code: ReasonCode, explanation: string): OverwriteVerdict => ({ action: 'refuse', decision, code, explanation });

/** Keeps what the overwrite would destroy (copies into the quarantine), or refuses. Never throws: an
 *  internal error refuses (BLOCK_INTERNAL_ERROR). `stderr` gets the AGENT_GUARD_NOTICE line. */
export function keepOverwritten(req: OverwriteRequest, stderr: (s: string) => void = () => {}): OverwriteVerdict {
  try {
    return keep(req, stderr);
  } catch (err) {
    return refuse('BLOCK', 'BLOCK_INTERNAL_ERROR', explain('BLOCK_INTERNAL_ERROR', err instanceof Error ? err.message : String(err)));
  }
}

function keep(req: OverwriteRequest, stderr: (s: string) => void): OverwriteVerdict {
  const needless: { path: string; why: Needless }[] = [];
  const candidates = new Map<string, string>(); // physical → the target as named
  for (const t of req.targets) {
    const abs = path.resolve(req.cwd, t.path);
    const found = physicalOf(abs, t.follow);
    if (!found) needless.push({ path: t.path, why: 'missing' });
    else if (found.st.isSymbolicLink()) candidates.set(found.physical, t.path); // replaced itself (mv, rsync)
    else if (!found.st.isFile()) needless.push({ path: t.path, why: 'not-a-file' });
    else if (found.st.size === 0) needless.push({ path: t.path, why: 'empty' });
    else candidates.set(found.physical, t.path);
  }
  if (candidates.size === 0) return { action: 'run', txids: [], kept: [], needless };
  const physicals = [...candidates.keys()];
  // The policy judges the entries as `rm -- <entries>` would be judged, in the command's directory.
  const config = loadConfig(req.env, req.cwd);
  const r: CheckResult = decideLine({ text: quoteArgv(['rm', '--', ...physicals]), config, mode: 'NORMAL', dialect: 'posix' });
  const what = physicals.length === 1 ? JSON.stringify(physicals[0]) : `${physicals.length} files`;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') {
    return refuse(r.decision, r.code, `${r.explanation} (the command would overwrite or remove ${what})`);
  }
  if (r.workspace) {
    const inQ = physicals.find((p) => inAnyQuarantine(r.workspace!, p));
    if (inQ !== undefined) {
      return refuse('BLOCK', 'BLOCK_PROTECTED_PATH', explain('BLOCK_PROTECTED_PATH', `${inQ} is a copy the quarantine keeps; overwriting it would lose it (restore it first with agent-guard restore)`));
    }
  }
  // An ignored build artifact (rule 13) is regenerable, a file in a scratch zone is scratch: nothing
  // to keep.
  const targets = r.ops.flatMap((o) => o.targets.filter((t) => t.role !== 'scope' && t.physical !== null).map((t) => ({ t, regenerable: o.code === 'ALLOW_REGENERABLE' })));
  const git = gitRunner(config.gitBinary, config.env);
  const open: string[] = [];
  for (const p of physicals) {
    const hit = targets.find((x) => x.t.physical === p);
    if (hit?.regenerable) needless.push({ path: candidates.get(p)!, why: 'regenerable' });
    else if (hit?.t.zone !== undefined) needless.push({ path: candidates.get(p)!, why: 'scratch' });
    else open.push(p);
  }
  const states = gitStates(git, open);
  const chosen: PlacedTarget[] = [];
  for (const p of open) {
    const s = states.get(p) ?? 'keep';
    if (s === 'keep') chosen.push({ path: p });
    else needless.push({ path: candidates.get(p)!, why: s });
  }
  if (chosen.length === 0) return { action: 'run', txids: [], kept: [], needless };
  if (!r.workspace) return refuse('BLOCK', 'COMPENSATION_FAILED', explain('COMPENSATION_FAILED', `no quarantine for ${what}`));
  // Copies, the origins left for the command: the enforcement wing's `copy` step (as for shred),
  // audited there with the entry point that asked.
  const policyCode: ReasonCode = r.code === 'ALLOW_NOOP' || r.code === 'ALLOW_REGENERABLE' ? 'RELOCATE_PATHS' : r.code;
  const out = enforce(r, req.command, config, { steps: [{ kind: 'copy', op: null, policyCode, targets: chosen, regenerable: false }], via: { via: req.via, program: req.program, overwrite: 'true' } });
  if (out.decision === 'BLOCK' || out.decision === 'ASK') return refuse(out.decision, out.code, out.explanation);
  const kept = keptBy(out);
  notice(req.env, req.cwd, kept, stderr);
  const txids = kept.flatMap((k) => (typeof k.txid === 'string' && (k.moved?.length ?? 0) > 0 ? [k.txid] : []));
  return { action: 'run', txids, kept: kept.flatMap((k) => (k.moved ?? []).map((m) => m.origin)), needless };
}
