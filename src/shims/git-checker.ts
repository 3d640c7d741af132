// The git shim's checker (docs/shims.md, 4b): the decision's own compensation (relocation of what
// `git clean` would remove, with its "Removing x" lines; a snapshot), and — beyond the policy
// reference — the commits a command drops kept first as a `refs` compensation: `git branch -d/-D`,
// `git stash drop/clear`, and the detached HEAD of a work tree `git worktree remove` deletes. The
// subcommand is found with the classifier's reading of git's global options (`gitSubcommandIndex`).
import path from 'node:path';
import { gitSubcommandIndex } from '../classifier/index.js';
import type { CheckResult } from '../engine.js';
import { planOf, type DroppedRefs, type Step } from '../enforce/index.js';
import { gitRunner, unreachableFromRefs, worktreeList } from '../probe/git.js';
import { realpathLoose } from '../probe/fs.js';
import { keptBy, notice } from '../notice.js';
import { quarantinePlace, workspaceAt } from '../workspace.js';
import { decideArgv, enforceShim, exit, refuse, run, type Decided, type Directive, type ShimContext } from './directive.js';

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

export function shimGit(real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = ['git', ...args];
  const d = decideArgv(argv, ctx, real);
  const { r } = d;
  if (r.decision === 'BLOCK' || r.decision === 'ASK') return refuse(ctx, argv, r);
  // -1: no subcommand, or a global option git does not know (git then runs nothing; a destructive
  // subcommand after one is refused by the decision).
  const sub = gitSubcommandIndex(args);
  if (r.decision === 'ALLOW') return keepDropped(real, args, sub, ctx, d, argv);
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
  // The decision's own compensation, after the commit a removed work tree's detached HEAD holds.
  const head = worktreeHead(real, args, sub, ctx, r);
  const own = head ? planOf(r) : null;
  const done = enforceShim(d, r, head && own && 'steps' in own ? { steps: [head, ...own.steps] } : {});
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done).filter((k) => k.refs === undefined), ctx.io.stderr); // (the relocation's line only)
  if (!cleaning) return run;
  const quiet = args.slice(sub + 1).some((a) => a === '-q' || a === '--quiet' || (/^-[a-zA-Z]+$/.test(a) && a.includes('q')));
  if (!quiet && lines.length > 0) ctx.io.stdout(lines.join('\n') + '\n');
  return exit(0);
}

/** Branches and stash entries a command drops are kept restorable first (a `refs` compensation). */
function keepDropped(real: string, args: readonly string[], sub: number, ctx: ShimContext, d: Decided, argv: readonly string[]): Directive {
  if (sub < 0 || (args[sub] !== 'branch' && args[sub] !== 'stash')) return run;
  const globals = args.slice(0, sub);
  const git = gitRunner(real, ctx.env);
  const runGit = (a: string[]): { ok: boolean; out: string } => {
    const x = git.run([...globals, ...a], ctx.cwd);
    return { ok: x.ok, out: x.stdout.toString('utf8') };
  };
  const dropped = droppedBy(args, sub, runGit);
  if (!dropped || dropped.refs.length + dropped.stashes.length === 0) return run;
  // The repository's workspace: the decision's, or (a line without ops has none) the work tree git
  // runs in, placed with the same checks.
  const top = runGit(['rev-parse', '--show-toplevel']).out.trim();
  const place = d.r.workspace ? quarantinePlace(d.r.workspace) : top ? quarantinePlace(workspaceAt(d.config, top, 'git')) : null;
  if (!place) return run;
  const done = enforceShim(d, d.r, { steps: [{ kind: 'refs', op: null, policyCode: d.r.code, place, cwd: ctx.cwd, globals, dropped }] });
  if (done.decision !== 'ALLOW') return refuse(ctx, argv, done);
  notice(ctx.env, ctx.cwd, keptBy(done), ctx.io.stderr);
  return run;
}

/** `git worktree remove` of a work tree on a detached HEAD whose commits no branch, tag or remote
 *  reaches: git deletes the records that reach them, so the commit is kept first, as a branch that
 *  `restore` re-creates (a `refs` step, like `git branch -D`), before the work tree's directory is
 *  quarantined. Null when there is nothing to keep. */
function worktreeHead(real: string, args: readonly string[], sub: number, ctx: ShimContext, r: CheckResult): Step | null {
  const op = r.ops.findIndex((o) => o.kind === 'git-worktree-remove' && o.decision === 'RELOCATE');
  const dir = op < 0 ? undefined : r.ops[op]!.targets.find((t) => t.role !== 'scope')?.physical;
  if (sub < 0 || !dir || !r.workspace) return null;
  const globals = args.slice(0, sub);
  const git = gitRunner(real, ctx.env);
  const entry = (worktreeList(git, ctx.cwd, globals) ?? []).find((e) => realpathLoose(e.path) === dir);
  if (!entry || entry.branch !== null || entry.head === null || unreachableFromRefs(git, ctx.cwd, globals, entry.head) === false) return null;
  const ref = `refs/heads/worktree-${path.basename(dir).replace(/[^A-Za-z0-9._-]/g, '_')}-${entry.head.slice(0, 12)}`;
  return { kind: 'refs', op, policyCode: r.ops[op]!.code, place: quarantinePlace(r.workspace), cwd: ctx.cwd, globals, dropped: { refs: [{ ref, sha: entry.head }], stashes: [] } };
}
