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
import path from 'node:path';
import type { Env } from '../config.js';
import { entryType, exists } from './fs.js';
import { findReal } from '../shell/realbin.js';

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
  /** Untracked or ignored paths (relative to the top level) that the reset would overwrite. */
  collisions: string[];
}

/** What `git reset --hard COMMIT` would overwrite that a stash cannot hold: paths the target tree
 *  has and the index lacks, where the work tree already holds something (or a non-directory sits
 *  where the tree needs a directory). */
export function resetPreflight(git: GitRunner, cwd: string, globals: readonly string[], commit: string): ResetPreflight {
  if (commit.startsWith('-')) return { ok: false, error: `not a commit: ${commit}`, collisions: [] };
  const rp = git.run([...globals, 'rev-parse', '--show-toplevel', `${commit}^{commit}`], cwd);
  if (!rp.ok) return { ok: false, error: rp.stderr || 'git rev-parse failed (no commits yet?)', collisions: [] };
  const [toplevel, sha] = rp.stdout.toString('utf8').trim().split('\n');
  if (!toplevel || !sha || !/^[0-9a-f]{40,64}$/.test(sha)) return { ok: false, error: 'git rev-parse gave no commit', collisions: [] };
  const diff = git.run([...globals, 'diff-index', '--cached', '--no-renames', '--name-only', '--diff-filter=D', '-z', sha], cwd);
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
  return { ok: true, toplevel, collisions };
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
