// Read-only git queries the policy needs (enumeration for git clean, the reset preflight, ignore
// status). node:child_process is used directly rather than execa: these run on the checker's hot path,
// synchronously, and execa's module graph would add measurable start-up to every check (bench/). It is
// loaded on the first spawn only: loading it costs ~5 ms, and most lines never spawn git
// (docs/performance.md).
let spawnSyncLazy: typeof SpawnSync | undefined;
function spawnSync(cmd: string, args: readonly string[], opts: SpawnSyncOptionsWithBufferEncoding): SpawnSyncReturns<Buffer> {
  spawnSyncLazy ??= process.getBuiltinModule('node:child_process').spawnSync;
  return spawnSyncLazy(cmd, args, opts);
}
import type { SpawnSyncOptionsWithBufferEncoding, SpawnSyncReturns, spawnSync as SpawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../config.js';
import { entryType, exists } from './fs.js';
import { findReal } from './realbin.js';

export interface GitRun {
  ok: boolean;
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface GitRunner {
  run(args: readonly string[], cwd: string, input?: Buffer): GitRun;
}

export function gitRunner(binary: string, env: Env): GitRunner {
  // A bare name is looked up on PATH past any agent-guard shim directory: a probe must never run
  // the git shim (it would start the checker again). No real git: a path that cannot run, so the
  // probe fails and the decision is the restrictive one.
  let resolved: string | null = null;
  const bin = (): string => (resolved ??= binary.includes('/') ? binary : (findReal(binary, env.PATH) ?? `/nonexistent/agent-guard-no-real-${binary}`));
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  Object.assign(childEnv, { LC_ALL: 'C', LANGUAGE: '', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' });
  return {
    run(args, cwd, input) {
      const r = spawnSync(bin(), ['--no-pager', ...args], {
        cwd,
        env: childEnv,
        encoding: 'buffer',
        timeout: 15_000,
        maxBuffer: 256 * 1024 * 1024,
        ...(input ? { input } : { stdio: ['ignore', 'pipe', 'pipe'] as const }),
      });
      return {
        ok: r.status === 0 && !r.error,
        status: r.status,
        stdout: r.stdout ?? Buffer.alloc(0),
        stderr: r.error ? String(r.error.message) : (r.stderr ?? Buffer.alloc(0)).toString('utf8').trim(),
      };
    },
  };
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Decodes a path as git prints it with core.quotePath: `"…"` with C escapes and octal bytes. The
 *  result is bytes, exactly the file name on disk (which need not be valid UTF-8). */
export function decodeGitPath(s: string): Buffer {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return Buffer.from(s, 'utf8');
  const body = s.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
      continue;
    }
    const n = body[i + 1] ?? '';
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 3;
    } else if (n in C_ESCAPES) {
      bytes.push(C_ESCAPES[n]!);
      i += 1;
    } else {
      throw new Error(`unknown escape \\${n} in git path ${s}`);
    }
  }
  return Buffer.from(bytes);
}

export interface CleanEnumeration {
  ok: boolean;
  error?: string;
  /** Paths git clean would remove, relative to the directory it runs in, as bytes. */
  remove: Buffer[];
  /** Nested repositories git clean would skip. */
  skipped: string[];
}

/** `git clean -n` with the same global options and flags: the exact set `git clean -f` would remove. */
export function enumerateClean(git: GitRunner, cwd: string, globals: readonly string[], flags: readonly string[], pathspecs: readonly string[]): CleanEnumeration {
  const kept = flags.filter((f) => f !== '-q');
  const r = git.run(['-c', 'core.quotePath=true', '-c', 'color.ui=never', ...globals, 'clean', '-n', ...kept, '--', ...pathspecs], cwd);
  if (!r.ok) return { ok: false, error: r.stderr || `git clean -n exited ${r.status}`, remove: [], skipped: [] };
  const remove: Buffer[] = [];
  const skipped: string[] = [];
  for (const line of r.stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    if (line.startsWith('Would remove ')) remove.push(decodeGitPath(line.slice('Would remove '.length)));
    else if (line.startsWith('Would skip repository ')) skipped.push(decodeGitPath(line.slice('Would skip repository '.length)).toString('utf8'));
    else return { ok: false, error: `unexpected git clean -n output: ${line}`, remove: [], skipped: [] };
  }
  return { ok: true, remove, skipped };
}

/** Does `git clean` without -f/-n refuse to run (clean.requireForce, default true)? */
export function cleanRequiresForce(git: GitRunner, cwd: string, globals: readonly string[]): boolean {
  const r = git.run([...globals, 'config', '--bool', 'clean.requireForce'], cwd);
  return r.stdout.toString('utf8').trim() !== 'false';
}

export interface ResetPreflight {
  ok: boolean;
  error?: string;
  toplevel?: string;
  /** Untracked or ignored paths (relative to the top level) that the reset would overwrite, and
   *  paths in the quarantine it would write or delete. */
  collisions: string[];
  /** Those of `collisions` that lie in the quarantine (or are it). */
  inQuarantine?: string[];
}

/** With `pathspecs` (`git checkout REV -- PATHS`, `git restore --source REV PATHS`, which write
 *  those paths from REV over whatever is there): the same, limited to the pathspecs.
 *
 *  What moving the work tree to COMMIT (`git reset --hard/--merge/--keep COMMIT`, `git checkout -f
 *  COMMIT`) would overwrite that a stash cannot hold:
 *  - paths the target tree has and the index lacks, where the work tree already holds something (or
 *    a non-directory sits where the tree needs a directory);
 *  - with core.ignorecase, the same for an entry whose name differs only in case (a case-insensitive
 *    filesystem opens it for the tree's path), unless the index tracks that entry;
 *  - anything the move would write, change or delete in the quarantine (`quarantine`, absolute,
 *    when it lies in the work tree): a target tree tracking `.agent-trash/…` or a file or symlink
 *    named `.agent-trash`, an index tracking quarantine files. */
export function resetPreflight(git: GitRunner, cwd: string, globals: readonly string[], commit: string, quarantine?: string, pathspecs?: readonly string[]): ResetPreflight {
  if (commit.startsWith('-')) return { ok: false, error: `not a commit: ${commit}`, collisions: [] };
  const rp = git.run([...globals, 'rev-parse', '--show-toplevel', `${commit}^{commit}`], cwd);
  if (!rp.ok) return { ok: false, error: rp.stderr || 'git rev-parse failed (no commits yet?)', collisions: [] };
  const [toplevel, sha] = rp.stdout.toString('utf8').trim().split('\n');
  if (!toplevel || !sha || !/^[0-9a-f]{40,64}$/.test(sha)) return { ok: false, error: 'git rev-parse gave no commit', collisions: [] };
  const limit = pathspecs !== undefined && pathspecs.length > 0 ? ['--', ...pathspecs] : [];
  const diff = git.run([...globals, 'diff-index', '--cached', '--no-renames', '--name-only', '--diff-filter=D', '-z', sha, ...limit], cwd);
  if (!diff.ok) return { ok: false, error: diff.stderr || 'git diff-index failed', collisions: [] };
  const created = diff.stdout.toString('utf8').split('\0').filter((p) => p !== '');
  const collisions: string[] = [];
  const prefixes = new Set<string>();
  for (const rel of created) {
    if (exists(path.posix.join(toplevel, rel))) {
      collisions.push(rel);
      continue;
    }
    const parts = rel.split('/');
    for (let n = 1; n < parts.length; n++) {
      const prefix = parts.slice(0, n).join('/');
      const t = entryType(path.posix.join(toplevel, prefix));
      if (t === 'missing') break;
      if (t !== 'dir') prefixes.add(prefix);
    }
  }
  if (prefixes.size > 0) {
    const tracked = git.run([...globals, 'ls-files', '-z', '--', ...[...prefixes].map((p) => ':(literal)' + p)], cwd);
    if (!tracked.ok) return { ok: false, error: tracked.stderr || 'git ls-files failed', collisions: [] };
    const known = new Set(tracked.stdout.toString('utf8').split('\0'));
    for (const p of prefixes) if (!known.has(p)) collisions.push(p);
  }
  const variants = caseVariants(toplevel, created.filter((rel) => !collisions.includes(rel)));
  if (variants.size > 0) {
    const ic = git.run([...globals, 'config', '--bool', 'core.ignorecase'], cwd);
    if (ic.stdout.toString('utf8').trim() === 'true') {
      const tracked = git.run([...globals, 'ls-files', '-z', '--', ...[...variants].map((p) => ':(literal)' + p)], cwd);
      if (!tracked.ok) return { ok: false, error: tracked.stderr || 'git ls-files failed', collisions: [] };
      const known = new Set(tracked.stdout.toString('utf8').split('\0'));
      for (const v of variants) if (!known.has(v)) collisions.push(v);
    }
  }
  const q = quarantine !== undefined ? path.posix.relative(toplevel, quarantine) : '..';
  const qInside = q !== '' && q !== '..' && !q.startsWith('../') && !path.posix.isAbsolute(q);
  const inQuarantine: string[] = [];
  if (pathspecs !== undefined) {
    // Paths written from a tree (`checkout REV -- PATHS`): what they create in the quarantine
    // (case-insensitively). A tracked file in the quarantine they would change is one of the
    // command's own targets.
    const lq = q.toLowerCase();
    if (qInside) for (const rel of created) if (rel.toLowerCase() === lq || rel.toLowerCase().startsWith(lq + '/')) inQuarantine.push(rel);
    for (const rel of inQuarantine) if (!collisions.includes(rel)) collisions.push(rel);
  } else if (qInside) {
    // Index or target entries at or under the quarantine that differ from the work tree: the move
    // would write, change or delete them. icase: `.Agent-Trash` is the quarantine on a
    // case-insensitive filesystem.
    const touched = git.run([...globals, 'diff-index', '--no-renames', '--name-only', '-z', sha, '--', `:(literal,icase)${q}`], cwd);
    if (!touched.ok) return { ok: false, error: touched.stderr || 'git diff-index failed', collisions: [] };
    for (const p of touched.stdout.toString('utf8').split('\0')) if (p !== '') inQuarantine.push(p);
    collisions.push(...inQuarantine);
  }
  return { ok: true, toplevel, collisions, inQuarantine };
}

/** Entries of the work tree whose path differs from one of `rels` only in case (relative to
 *  `top`, as named on disk): what a case-insensitive lookup of that path would open. A component
 *  named exactly is followed as it is; the walk stops at the first component with no match, and at
 *  a non-directory (which the path would then overwrite as a prefix). */
function caseVariants(top: string, rels: readonly string[]): Set<string> {
  const listings = new Map<string, string[]>();
  const list = (dir: string): string[] => {
    let names = listings.get(dir);
    if (names === undefined) {
      try {
        names = fs.readdirSync(dir);
      } catch {
        names = [];
      }
      listings.set(dir, names);
    }
    return names;
  };
  const out = new Set<string>();
  for (const rel of rels) {
    const parts = rel.split('/');
    const onDisk: string[] = [];
    let differs = false;
    for (let i = 0; i < parts.length; i++) {
      const names = list(path.posix.join(top, ...onDisk));
      const want = parts[i]!;
      const name = names.includes(want) ? want : names.find((n) => n.toLowerCase() === want.toLowerCase());
      if (name === undefined) break;
      if (name !== want) differs = true;
      onDisk.push(name);
      const last = i === parts.length - 1;
      if (differs && (last || entryType(path.posix.join(top, ...onDisk)) !== 'dir')) {
        out.add(onDisk.join('/'));
        break;
      }
      if (!last && entryType(path.posix.join(top, ...onDisk)) !== 'dir') break;
    }
  }
  return out;
}

export function toplevelOf(git: GitRunner, cwd: string, globals: readonly string[]): string | null {
  const r = git.run([...globals, 'rev-parse', '--show-toplevel'], cwd);
  return r.ok ? r.stdout.toString('utf8').trim() : null;
}

export function isRef(git: GitRunner, cwd: string, globals: readonly string[], name: string): boolean {
  if (name.startsWith('-')) return false;
  return git.run([...globals, 'rev-parse', '--verify', '-q', `${name}^{commit}`], cwd).ok;
}

/** Which of `paths` (absolute, inside the repository at `cwd`) are git-ignored and hold no tracked
 *  file. One query: `ls-files --others --ignored --directory` lists an ignored directory as `dir/`
 *  only when nothing in it is tracked (else its ignored entries one by one), and a path inside such a
 *  directory shows up as that directory. */
export function ignoredUntracked(git: GitRunner, cwd: string, paths: readonly string[]): Set<string> | null {
  const r = git.run(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--', ...paths.map((p) => ':(literal)' + p)], cwd);
  if (!r.ok) return null;
  const entries = r.stdout.toString('utf8').split('\0').filter((e) => e !== '').map((e) => path.posix.resolve(cwd, e.replace(/\/$/, '')));
  const res = new Set<string>();
  for (const p of paths) if (entries.some((e) => p === e || p.startsWith(e + '/'))) res.add(p);
  return res;
}

/** Does an ignore rule already cover `p`? (The quarantine is kept out of git by one.) */
export function isIgnoredPath(git: GitRunner, root: string, p: string): boolean {
  return git.run(['check-ignore', '-q', '--', p], root).status === 0;
}

/** The alias's expansion as git would see it: the line's global options (`-c alias.x=…`, `-C`) apply. */
export function aliasOf(git: GitRunner, cwd: string, globals: readonly string[], name: string): string | null {
  const r = git.run([...globals, 'config', '--get', `alias.${name}`], cwd);
  if (!r.ok) return null;
  const v = r.stdout.toString('utf8').replace(/\n$/, '');
  return v === '' ? null : v;
}

export interface WorktreeEntry {
  path: string;
  head: string | null;
  branch: string | null;
  locked: boolean;
  /** The main work tree (listed first): git never removes it. */
  main: boolean;
}

/** `git worktree list --porcelain -z`; null when git cannot list them. */
export function worktreeList(git: GitRunner, cwd: string, globals: readonly string[]): WorktreeEntry[] | null {
  const r = git.run([...globals, 'worktree', 'list', '--porcelain', '-z'], cwd);
  if (!r.ok) return null;
  const out: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of r.stdout.toString('utf8').split('\0')) {
    if (field === '') {
      cur = null;
      continue;
    }
    if (field.startsWith('worktree ')) {
      cur = { path: field.slice('worktree '.length), head: null, branch: null, locked: false, main: out.length === 0 };
      out.push(cur);
    } else if (cur && field.startsWith('HEAD ')) cur.head = field.slice(5);
    else if (cur && field.startsWith('branch ')) cur.branch = field.slice(7);
    else if (cur && (field === 'locked' || field.startsWith('locked '))) cur.locked = true;
  }
  return out;
}

/** What `git worktree remove` without --force looks at in the work tree: does it hold modified or
 *  untracked files (then git refuses), and ignored ones (then git deletes them)? null: git cannot say. */
export function worktreeStatus(git: GitRunner, dir: string): { dirty: boolean; ignored: boolean } | null {
  const r = git.run(['status', '--porcelain=v1', '-z', '--ignored=matching', '--ignore-submodules=none'], dir);
  if (!r.ok) return null;
  let dirty = false;
  let ignored = false;
  for (const e of r.stdout.toString('utf8').split('\0')) {
    if (e.length < 3) continue;
    if (e.startsWith('!! ')) ignored = true;
    else if (/^[ MADRCUT?!]{2} /.test(e)) dirty = true;
  }
  return { dirty, ignored };
}

/** The commit a branch name switches to when it is no local ref: git's DWIM picks the one
 *  remote-tracking branch of that name (`git switch topic` with only origin/topic). */
export function remoteBranchCommit(git: GitRunner, cwd: string, globals: readonly string[], name: string): string | null {
  if (name.startsWith('-')) return null;
  const r = git.run([...globals, 'for-each-ref', '--format=%(objectname)', `refs/remotes/*/${name}`], cwd);
  if (!r.ok) return null;
  const shas = r.stdout.toString('utf8').split('\n').filter((l) => l !== '');
  return shas.length === 1 ? shas[0]! : null;
}

/** Does `sha` hold commits no branch, tag or remote-tracking branch reaches (a detached HEAD's own
 *  work)? null: git cannot say. */
export function unreachableFromRefs(git: GitRunner, cwd: string, globals: readonly string[], sha: string): boolean | null {
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return null;
  const r = git.run([...globals, 'rev-list', '-n', '1', sha, '--not', '--branches', '--tags', '--remotes'], cwd);
  return r.ok ? r.stdout.toString('utf8').trim() !== '' : null;
}
