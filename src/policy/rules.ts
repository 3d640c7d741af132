// The policy reference's rule table, rule for rule and in order (first match wins). Each rule reads
// facts (classifier + probe), never raw text, and carries hit and miss examples that one generic test
// runs (tests/policy/rules.test.ts) against the fixture workspace described there.
import type { ProbedOp, TargetFacts } from '../probe/index.js';
import type { OpKind } from '../classifier/types.js';
import type { Mode, ReasonCode } from './reasons.js';

export type { Mode } from './reasons.js';

export interface PolicyContext {
  mode: Mode;
  allowRegenerable: boolean;
  /** A human authorized this one execution of the line (an ASK answered yes at the terminal, or a
   *  one-time grant): the shape rules (2a, 2b), which only say that compensation is hard to plan,
   *  are skipped; every other rule still applies, so a BLOCK stays a BLOCK. */
  authorized?: boolean;
}

export interface RuleHit {
  /** Set when a rule can give more than one code (rule 8). */
  code?: ReasonCode;
  detail: string;
}

/** An example command, decided in the fixture workspace (cwd = its root unless `cwd` is given). */
export interface Example {
  cmd: string;
  mode?: Mode;
  /** Relative to the fixture workspace. */
  cwd?: string;
  /** Environment added for this example (AGENT_GUARD_TRASH, …); relative paths are from the workspace. */
  env?: Readonly<Record<string, string>>;
}

export interface Rule {
  /** The reference's row number (`2a`, `11b`); agent-guard's own rows say so in `note`. */
  id: string;
  name: string;
  code: ReasonCode;
  /** A shape rule (2a/2b): never outranks a BLOCK from a later rule. */
  shape?: true;
  when(p: ProbedOp, ctx: PolicyContext): RuleHit | null;
  examples: { hit: readonly (string | Example)[]; miss: readonly (string | Example)[] };
  note?: string;
}

const GIT_DESTRUCTIVE: ReadonlySet<OpKind> = new Set(['git-clean', 'git-reset-hard', 'git-restore', 'git-checkout', 'git-switch', 'git-push', 'git-rm', 'git-worktree-remove']);
const SNAPSHOT_KINDS: ReadonlySet<OpKind> = new Set(['git-reset-hard', 'git-restore', 'git-checkout', 'git-switch', 'git-rm']);
/** Ops whose target set is read from disk when they run (shape F2 applies to them). */
const TARGET_DEPENDENT: ReadonlySet<OpKind> = new Set(['fs-delete', 'git-clean', 'git-restore', 'git-checkout', 'git-switch', 'git-rm', 'git-worktree-remove']);

/** The shape (2a, 2b) an op has, described; null for none. */
const shapeOf = (p: ProbedOp): string | null =>
  p.op.cdBefore && p.op.kind !== 'git-push'
    ? `a cd earlier in the line decides where ${p.op.program} lands`
    : p.op.createBefore && TARGET_DEPENDENT.has(p.op.kind)
      ? `files are created earlier in the line, before ${p.op.program} reads its targets`
      : null;
const deleted = (p: ProbedOp): TargetFacts[] => p.targets.filter((t) => t.role !== 'scope');
const show = (t: TargetFacts): string => t.raw;
const first = (ts: TargetFacts[], f: (t: TargetFacts) => boolean): TargetFacts | undefined => ts.find(f);
const cleanUnsupported = (p: ProbedOp): string | null => {
  const g = p.op.git;
  if (p.op.kind !== 'git-clean' || !g) return null;
  if ((g.cleanForce ?? 0) > 1) return '-ff (also removes nested repositories)';
  const bad = (g.cleanFlags ?? []).filter((f) => !['-d', '-x', '-X', '-q'].includes(f));
  return bad.length > 0 ? bad.join(' ') : null;
};

export const RULES: readonly Rule[] = [
  {
    id: '1',
    name: 'dry-run-or-no-targets',
    code: 'ALLOW_NOOP',
    when: (p) =>
      p.op.undeterminable === null && p.op.kind !== 'git-clean' && (p.op.dryRun || p.op.noTargets || p.inert === true)
        ? { detail: p.op.dryRun ? `${p.op.program} changes nothing here (dry run or help)` : p.inert ? (p.inertDetail ?? 'a branch switch keeps local changes') : `${p.op.program} has no targets` }
        : p.refused
          ? { detail: 'git clean refuses to run without -f (clean.requireForce)' }
          : null,
    examples: { hit: ['rm', 'rm -rf', 'rm --help', 'git push --force --dry-run', 'git restore', 'git checkout main', 'git clean -d'], miss: ['rm -rf build', 'git clean -n', 'rm -rf $X'] },
  },
  {
    id: '2',
    name: 'undeterminable-effect',
    code: 'BLOCK_UNDETERMINABLE_EFFECT',
    when: (p) => (p.op.undeterminable ? { detail: p.op.undeterminable.detail } : null),
    examples: {
      hit: ['rm -rf $DIR/', 'rm -rf "$(cat list)"', 'echo "rm -rf x', 'bash -c "rm -rf build"', 'find . -name "*.o" -delete', 'find . -exec rm {} \\;', 'ls | xargs rm', 'git add . && git reset --hard', 'sudo git reset --hard', 'cd $X && rm -rf build', 'eval "rm -rf build"',
        `python3 -c "import shutil; shutil.rmtree(d)"`, `node -e "require('fs').rmSync(process.argv[1], {recursive: true})" build`, `perl -e 'unlink glob "*.o"'`, `ruby -e 'FileUtils.rm_rf "#{x}/build"'`, `python3 -c "import shutil; shutil.rmtree('build'"`,
        // A command handed to a shell is read as `sh -c` text is: a nested shell that deletes is rule 2.
        `python3 -c "import subprocess; subprocess.run('rm -rf build', shell=True)"`, `perl -e 'system("git clean -fd")'`, `ruby -e 'system("git", "reset", "--hard")'`,
        `node -e "require('child_process').execSync('git checkout -- .')"`, `python3 -c "import subprocess; subprocess.run(['git', 'push', '--force'])"`],
      miss: ['rm -rf build', 'D=./build; rm -rf "$D"', 'bash -c "ls -la"', 'find . -name "*.o"', 'ls | xargs echo', 'git reset --hard', `python3 -c "print(1)"`, `node -e "console.log('fs.rmSync(x)')"`, `python3 -c "# shutil.rmtree(d)"`, `python3 -c "import subprocess; subprocess.run(['git', 'status'])"`, `perl -e 'print "unlink $x\\n"'`],
    },
  },
  {
    id: '2a',
    name: 'shape-cd-then-delete',
    code: 'COMPOUND_CWD_DELETE',
    shape: true,
    when: (p) => (p.op.cdBefore && p.op.kind !== 'git-push' ? { detail: `a cd earlier in the line decides where ${p.op.program} lands` } : null),
    examples: { hit: ['cd src && rm -rf build', 'cd src; git clean -fd', 'cd src && rm old.txt', `python3 -c "import os; os.chdir('src'); os.remove('a.ts')"`, `ruby -C src -e 'File.delete("a.ts")'`], miss: ['rm -rf src/build', '(cd src); rm -rf build', 'cd / && rm -rf etc', 'cd src && git push --force'] },
  },
  {
    id: '2b',
    name: 'shape-create-then-delete',
    code: 'COMPOUND_CREATE_DELETE',
    shape: true,
    when: (p) => (p.op.createBefore && TARGET_DEPENDENT.has(p.op.kind) ? { detail: `files are created earlier in the line, before ${p.op.program} reads its targets` } : null),
    examples: { hit: ['touch f && rm f', 'mkdir -p out && rm -rf out', 'echo x > new.txt; rm -rf build', 'cp a b && git clean -fd'], miss: ['rm f && touch f', 'rm -rf build 2>/dev/null', 'touch f && git push --force', 'touch f && rm -rf /etc'] },
  },
  {
    id: '2c',
    name: 'protected-root',
    code: 'BLOCK_PROTECTED_ANCESTOR',
    when: (p) => {
      const t = first(deleted(p), (x) => x.protectedRoot !== null);
      return t ? { detail: `${show(t)} is ${t.protectedRoot === '/' ? 'the filesystem root' : `the protected location ${t.protectedRoot}`}` } : null;
    },
    examples: { hit: ['rm -rf /', 'rm -rf ~', 'rm -rf /usr', 'rm -rf $HOME', 'rmdir /tmp', 'rm -rf /srv/', `node -e "require('fs').rmSync('/', {recursive: true, force: true})"`, `perl -MFile::Path -e 'rmtree("/usr")'`], miss: ['rm -rf /usr/local/lib/x', 'rm -rf build', 'rm -rf ~/other'] },
  },
  {
    id: '3',
    name: 'quarantine-housekeeping',
    code: 'ALLOW_TRASH_GC',
    when: (p) => {
      const ts = deleted(p);
      return p.op.kind === 'fs-delete' && ts.length > 0 && ts.every((t) => t.inQuarantine) ? { detail: 'every target is inside the quarantine' } : null;
    },
    examples: { hit: ['rm -rf .agent-trash/tx-1', 'rm .agent-trash/tx-1/file', 'rm -rf ~/.cache/agent-guard/trash/tx-2'], miss: ['rm -rf .agent-trash', 'rm .agent-trash/audit.jsonl', 'rm -rf .agent-trash/tx-1 build'] },
    note: 'Applies when every target is inside the quarantine (the reference says "any"; a mixed op is judged on its other targets, so quarantine targets can never carry an outside target through). A scratch zone\'s quarantine counts as a quarantine.',
  },
  {
    id: '4',
    name: 'outside-workspace',
    code: 'BLOCK_OUT_OF_WORKSPACE',
    when: (p) => {
      // A filesystem delete inside a scratch zone is left to rule 8b.
      const t = first(p.targets, (x) => x.physical !== null && !x.insideWorkspace && !x.inQuarantine && !(x.zone !== null && p.op.kind === 'fs-delete'));
      return t ? { detail: `${show(t)} resolves to ${t.physical}, outside the workspace` } : null;
    },
    examples: {
      hit: ['rm -rf ../outside', 'rm /etc/passwd', 'rm -rf link-out/..', 'git -C ../outside clean -fd', 'rm -rf ~/other', 'rm -rf ~/.cache', 'rm -rf ~/.cache/agent-guard', 'rm -rf ~/.cache/agent-guard/trash', 'git -C ../../scratch/repo clean -fd', `python3 -c "import os; os.remove('/etc/passwd')"`, `ruby -e 'File.delete("../outside/f")'`],
      miss: ['rm -rf build', `python3 -c "import os; os.remove('src/a.ts')"`, 'rm link-out', 'rm -rf .agent-trash/tx-1', 'rm -rf link-out/', 'rm -rf ~/.cache/demo-tool'],
    },
  },
  {
    id: '5',
    name: 'protected-path',
    code: 'BLOCK_PROTECTED_PATH',
    when: (p) => {
      const ts = deleted(p);
      const root = first(ts, (x) => x.isWorkspaceRoot);
      if (root) return { detail: `${show(root)} is the workspace root` };
      // git's own lock files are left to rule 8a; everything else in .git stays here.
      const git = first(ts, (x) => x.isGitMetadata && !(x.gitLock && p.op.kind === 'fs-delete'));
      if (git) return { detail: `${show(git)} is git metadata` };
      const q = first(ts, (x) => x.isQuarantineControl);
      if (q) return { detail: `${show(q)} is the quarantine or part of it` };
      const h = first(ts, (x) => x.holdsQuarantine);
      return h ? { detail: `${show(h)} holds the quarantine (its transactions would go with it)` } : null;
    },
    examples: {
      hit: [
        'rm -rf .', 'rm -rf .git', 'rm -rf src/../.git/hooks', 'rm -rf .agent-trash', 'rm -rf ./', 'rm -rf ../ws',
        'rm -rf .git/dir.lock', 'rm .git/HEAD', 'rm -f .git/index.lock .git/config',
        'rm .agent-trash/index.json', 'rm -f .agent-trash/state.json.tmp', 'rm -rf .agent-trash/sessions', 'rm -f .agent-trash/.lock', 'rm -rf .agent-trash/tx-1/sub/.git',
        { cmd: 'rm -rf node_modules', env: { AGENT_GUARD_TRASH: 'node_modules/.trash' } },
        { cmd: 'rm -rf node_modules/x', env: { AGENT_GUARD_TRASH: 'node_modules/x/.trash' } },
        { cmd: 'git clean -fdx', env: { AGENT_GUARD_TRASH: 'node_modules/.trash' } },
        `node -e "require('fs').rmSync('.git', {recursive: true, force: true})"`, `python3 -c "import shutil; shutil.rmtree('.')"`,
      ],
      miss: ['rm -rf src', 'rm .gitignore', 'git clean -fd', 'rm -rf .agent-trash/tx-1', 'rm -f .git/index.lock', { cmd: 'rm -rf node_modules/x', env: { AGENT_GUARD_TRASH: 'node_modules/.trash' } }],
    },
  },
  {
    id: '6',
    name: 'wildcard',
    code: 'BLOCK_WILDCARD',
    when: (p) => {
      const t = first(p.targets, (x) => x.glob);
      return t ? { detail: `${show(t)} is expanded by the shell` } : null;
    },
    examples: { hit: ['rm *.log', 'rm -rf build/*', 'rm -rf src/{a,b}', 'git clean -f *.o'], miss: ["rm '*.log'", 'rm -rf build', "git clean -f '*.o'"] },
  },
  {
    id: '7',
    name: 'restricted-git',
    code: 'BLOCK_RESTRICTED_MODE',
    when: (p, ctx) => {
      if (ctx.mode !== 'RESTRICTED') return null;
      if (GIT_DESTRUCTIVE.has(p.op.kind)) return { detail: `git ${p.op.git?.subcommand ?? ''} is forbidden in RESTRICTED mode` };
      // A vetoed session cannot escalate to a human either: what a shape would ask (2a, 2b) is refused
      // — unless a human already authorized this very line (then the shapes do not apply at all).
      if (!ctx.authorized && shapeOf(p)) return { detail: `${shapeOf(p)}; RESTRICTED mode does not ask, it refuses` };
      return null;
    },
    examples: {
      hit: [
        { cmd: 'git reset --hard', mode: 'RESTRICTED' },
        { cmd: 'git clean -fd', mode: 'RESTRICTED' },
        { cmd: 'git push --force', mode: 'RESTRICTED' },
        { cmd: 'cd src && rm old.txt', mode: 'RESTRICTED' },
        { cmd: 'cd src && rm -rf build', mode: 'RESTRICTED' },
        { cmd: 'touch f && rm f', mode: 'RESTRICTED' },
        { cmd: 'cd .agent-trash && rm -rf tx-1', mode: 'RESTRICTED' },
      ],
      miss: ['git reset --hard', 'cd src && rm old.txt', { cmd: 'rm src/a.ts', mode: 'RESTRICTED' }, { cmd: 'rm -rf .agent-trash/tx-1', mode: 'RESTRICTED' }],
    },
    note: 'Also refuses, in RESTRICTED mode, what shapes 2a/2b would ask (the reference: "nothing may escalate to ASK").',
  },
  {
    id: '8',
    name: 'restricted-delete',
    code: 'RELOCATE_NARROW',
    when: (p, ctx) => {
      if (ctx.mode !== 'RESTRICTED' || p.op.kind !== 'fs-delete') return null;
      // rmdir (and cmd's rd without /s) removes only an empty directory: that is as narrow as a file.
      const emptyOnly = (p.op.program === 'rmdir' || p.op.program === 'rd') && !p.op.recursive;
      const wide = first(deleted(p), (t) => t.type === 'dir' && !(emptyOnly && t.emptyDir === true));
      return wide
        ? { code: 'BLOCK_RESTRICTED_MODE', detail: `${show(wide)} is a directory; RESTRICTED mode only quarantines named files` }
        : { detail: 'RESTRICTED mode: only named files, quarantined' };
    },
    examples: { hit: [{ cmd: 'rm src/a.ts', mode: 'RESTRICTED' }, { cmd: 'rm -rf build', mode: 'RESTRICTED' }], miss: ['rm src/a.ts', { cmd: 'git clean -fd', mode: 'RESTRICTED' }] },
  },
  {
    id: '8a',
    name: 'git-lock',
    code: 'RELOCATE_GIT_LOCK',
    when: (p) => {
      const t = p.op.kind === 'fs-delete' ? first(deleted(p), (x) => x.gitLock) : undefined;
      return t ? { detail: `${show(t)} is a lock file git left behind; it is kept restorable` } : null;
    },
    examples: {
      hit: ['rm -f .git/index.lock', 'rm .git/HEAD.lock', 'rm -f .git/refs/heads/main.lock', 'rm -f .git/worktrees/wt/index.lock', 'rm -f .git/MERGE_HEAD.lock build/out.js'],
      miss: ['rm -rf .git', 'rm -rf .git/dir.lock', 'rm -f .git/index', { cmd: 'rm -f .git/index.lock', mode: 'RESTRICTED' }],
    },
    note: 'agent-guard row (issue 14): rule 5 leaves these to it. Evaluated after every BLOCK that can apply to a delete (2c, 4, 5, 6, RESTRICTED), so a lock never carries a protected, outside or glob target through.',
  },
  {
    id: '8b',
    name: 'scratch-zone',
    code: 'RELOCATE_SCRATCH',
    when: (p) => {
      const t = p.op.kind === 'fs-delete' ? first(deleted(p), (x) => x.zone !== null) : undefined;
      return t ? { detail: `${show(t)} is in the scratch zone ${t.zone!.root}; it goes to that zone's quarantine` } : null;
    },
    examples: {
      hit: ['rm -rf link-out/', 'rm -rf ~/.cache/demo-tool', 'rm -f ../../scratch/f.txt', 'rm -rf ../../scratch/dir build', 'rmdir ../../scratch/empty'],
      miss: ['rm -rf link-out/..', 'rm -rf ~/.cache', 'rm -rf build', { cmd: 'rm -f ../../scratch/f.txt', mode: 'RESTRICTED' }, 'rm -rf ../../scratch/repo/.git', 'rm -rf ../../scratch/*.txt'],
    },
    note: 'agent-guard row (issue 14): rule 4 leaves a filesystem delete inside a scratch zone ($TMPDIR, /tmp, /var/tmp, the cache directory; never the zone itself) to it. Evaluated after every BLOCK that can apply to a delete, so protected roots, .git, globs and RESTRICTED mode keep their precedence.',
  },
  {
    id: '9',
    name: 'force-push',
    code: 'BLOCK_FORCE_PUSH',
    when: (p) => {
      const g = p.op.git;
      if (p.op.kind !== 'git-push' || !g) return null;
      const what = g.mirror ? '--mirror' : g.deletesRefs ? 'deletes remote refs' : g.forceWithLease && !g.force ? '--force-with-lease still rewrites remote history' : 'force';
      return { detail: `git push: ${what}` };
    },
    examples: { hit: ['git push --force', 'git push -f origin main', 'git push origin +main', 'git push --mirror', 'git push origin :old', 'git push --delete origin old', 'git push --force-with-lease'], miss: ['git push', 'git push origin main', 'git push --force --dry-run', `node -e "require('child_process').execSync('git push')"`] },
  },
  {
    id: '10',
    name: 'clean-dry-run',
    code: 'ALLOW_NOOP',
    when: (p) => (p.op.kind === 'git-clean' && p.op.git?.cleanDryRun && cleanUnsupported(p) === null ? { detail: 'git clean -n only lists' } : null),
    examples: { hit: ['git clean -n', 'git clean -nfd', 'git clean --dry-run -x'], miss: ['git clean -fd', 'git clean -n -e x'] },
  },
  {
    id: '11',
    name: 'clean-enumerate',
    code: 'RELOCATE_VIA_CLEAN_ENUMERATE',
    when: (p) => (p.op.kind === 'git-clean' && cleanUnsupported(p) === null && p.clean?.ok ? { detail: `git clean would remove ${p.clean.count} path(s)` } : null),
    examples: { hit: ['git clean -fd', 'git clean -f', 'git clean -fdx', 'git clean -fdX', 'git clean -f -- src'], miss: ['git clean -n', 'git clean -ffd'] },
  },
  {
    id: '11a',
    name: 'clean-unsupported',
    code: 'BLOCK_UNDETERMINABLE_EFFECT',
    when: (p) => {
      const bad = cleanUnsupported(p);
      return bad ? { detail: `git clean ${bad}: nested-repository, interactive and exclusion semantics are not mirrored safely` } : null;
    },
    examples: { hit: ['git clean -ffd', 'git clean -i', 'git clean -fd -e keep', 'git clean -n -e x'], miss: ['git clean -fd'] },
  },
  {
    id: '11b',
    name: 'clean-not-enumerable',
    code: 'BLOCK_UNDETERMINABLE_EFFECT',
    when: (p) => (p.op.kind === 'git-clean' ? { detail: `git clean's targets cannot be enumerated: ${p.clean?.error ?? 'not a git repository or git cannot run'}` } : null),
    examples: { hit: [{ cmd: 'git clean -fd', cwd: 'nogit' }], miss: ['git clean -fd'] },
  },
  {
    id: '12a',
    name: 'reset-collision',
    code: 'BLOCK_GIT_RESET_COLLISION',
    when: (p) =>
      (p.collisions?.length ?? 0) > 0
        ? { detail: `git ${p.op.git?.subcommand ?? ''} would overwrite untracked or ignored files, or the quarantine: ${p.collisions!.slice(0, 5).join(', ')}` }
        : null,
    examples: {
      hit: [
        'git reset --hard HEAD~1', 'git reset --merge HEAD~1', 'git reset --keep HEAD~1', 'git checkout -f HEAD~1', 'git checkout -f -B x HEAD~1', 'git switch --discard-changes --detach HEAD~1',
        'git checkout HEAD~1 -- old.txt', 'git checkout HEAD~1 old.txt', 'git checkout HEAD~1 -- .', 'git restore --source HEAD~1 old.txt', 'git restore -s HEAD~1 -SW .',
      ],
      miss: [
        'git reset --hard', 'git reset --hard HEAD', 'git checkout -f main', 'git checkout -f -- old.txt', 'git switch -f main',
        'git checkout HEAD~1 -- src/a.ts', 'git restore --source HEAD~1 README.md', 'git checkout HEAD -- .',
        // a switch keeping local changes: git refuses the untracked old.txt itself
        'git checkout --detach HEAD~1', 'git switch --detach HEAD~1',
      ],
    },
    note: 'agent-guard row, from the original tool: evaluated just before rule 12. Also for reset --merge/--keep, a forced checkout/switch to another tree, paths written from another tree (checkout REV -- PATHS, restore --source; the same preflight limited to the paths), and a switch keeping local changes over ignored files (tests/shims/git-vocabulary.test.ts).',
  },
  {
    id: '12',
    name: 'git-snapshot',
    code: 'SNAPSHOT_GIT_STASH',
    when: (p) => (SNAPSHOT_KINDS.has(p.op.kind) ? { detail: `git ${p.op.git?.subcommand ?? ''} overwrites tracked changes` } : null),
    examples: {
      hit: [
        'git reset --hard', 'git restore src/a.ts', 'git checkout -- .', 'git checkout -f main', 'git switch --discard-changes main', 'git checkout src/a.ts',
        'git reset -q --hard HEAD', 'git reset --merge', 'git reset --keep', 'git rm -f src/a.ts', 'git rm -rf src', 'git rm --force --cached src/a.ts',
        'git checkout -f -B x HEAD', 'git switch --discard-changes -C x HEAD',
      ],
      miss: ['git checkout main', 'git restore --staged src/a.ts', 'git reset HEAD~1', 'git rm src/a.ts', 'git rm -r src', 'git rm -rfn src', 'git checkout -B x HEAD', 'git switch -C x HEAD'],
    },
  },
  {
    id: '12b',
    name: 'worktree-relocate',
    code: 'RELOCATE_TREE',
    when: (p) => (p.op.kind === 'git-worktree-remove' ? { detail: 'git worktree remove deletes the work tree and what it holds that git does not: its directory is quarantined first' } : null),
    examples: {
      hit: ['git worktree remove --force trees/wt', 'git worktree remove trees/ign', 'git worktree remove -f -f trees/locked', 'git worktree remove -f wt'],
      miss: ['git worktree remove trees/wt', 'git worktree remove trees/clean', 'git worktree remove --force trees/locked', 'git worktree remove --force src', 'git worktree prune', 'git worktree list'],
    },
    note: 'agent-guard row: git deletes ignored files with the work tree, and with --force untracked and modified ones.',
  },
  {
    id: '13',
    name: 'regenerable',
    code: 'ALLOW_REGENERABLE',
    when: (p, ctx) => {
      const ts = deleted(p);
      return ctx.allowRegenerable && p.op.kind === 'fs-delete' && ts.length > 0 && ts.every((t) => t.artifact && t.ignored === true)
        ? { detail: 'git-ignored build artifacts' }
        : null;
    },
    examples: { hit: ['rm -rf node_modules', 'rm -rf dist node_modules', 'rm -rf pkg/node_modules/.cache', `node -e "require('fs').rmSync('node_modules', {recursive: true, force: true})"`], miss: ['rm -rf build', 'rm -rf src', 'rm -rf node_modules src'] },
  },
  {
    id: '14',
    name: 'relocate-tree',
    code: 'RELOCATE_TREE',
    when: (p) => (p.op.kind === 'fs-delete' && p.op.recursive ? { detail: 'recursive delete' } : null),
    examples: {
      hit: [
        'rm -rf build', 'rm -r src', 'rm -R -f build/', `python3 -c "import shutil; shutil.rmtree('src')"`, `ruby -rfileutils -e 'FileUtils.rm_rf "build"'`,
        `perl -MFile::Path -e 'rmtree("build")'`, `node -e "require('fs').rmSync('src', {recursive: true})"`, "python3 - <<'EOF'\nimport shutil\nshutil.rmtree('build')\nEOF",
      ],
      miss: ['rm src/a.ts', 'rmdir empty', `node -e "require('fs').unlinkSync('src/a.ts')"`],
    },
  },
  {
    id: '15',
    name: 'relocate-paths',
    code: 'RELOCATE_PATHS',
    when: (p) => (p.op.kind === 'fs-delete' ? { detail: 'named paths' } : null),
    examples: {
      hit: [
        'rm src/a.ts', 'rmdir empty', 'unlink src/a.ts', 'shred -u src/a.ts', 'rm -f missing.txt', `python3 -c "import os; os.remove('src/a.ts')"`, `perl -e 'unlink "src/a.ts"'`,
        `node -e "require('fs').unlinkSync('src/a.ts')"`, `python3 -c "from pathlib import Path; Path('empty').rmdir()"`, `ruby -e 'Dir.rmdir("empty")'`,
      ],
      miss: ['rm -rf build', `python3 -c "import shutil; shutil.rmtree('build')"`],
    },
  },
];
