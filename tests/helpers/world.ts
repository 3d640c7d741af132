// Test worlds: a temp HOME holding a git workspace (HOME/ws unless placed elsewhere), made in a
// test's sandbox area. git runs with an exact environment (this HOME, no system config, a fixed
// identity), so neither the developer's git configuration nor a GIT_DIR the runner inherited can
// reach it. Files are written and git is set up on the host: only constructive steps. A `setup`
// script may remove things (`rm b.txt` to leave a tracked file deleted), so it runs inside the
// read-only sandbox.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runSandboxed } from './sandbox.js';

/** git's identity and no system configuration: commits and stashes work with any HOME. */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** The system's PATH (no shims, no developer tools). */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface World {
  home: string;
  ws: string;
  /** HOME, GIT_ENV and the options' env: what the tests give the commands they run in the world. */
  env: Record<string, string>;
}

export interface WorldOptions {
  /** The workspace (default `<home>/ws`). */
  ws?: string;
  /** Written into the workspace first: relative path → content; a path ending in `/` is a
   *  directory. */
  files?: Record<string, string>;
  /** Symbolic links made in the workspace then: relative path → target. */
  links?: Record<string, string>;
  /** `git init -q -b main` in the workspace (default true). */
  git?: boolean;
  /** Then commit everything written (`git add -A`), with this message (true: "init"). */
  commit?: boolean | string;
  /** A sh script run in the workspace after that, inside the sandbox of `sandbox` (the area). */
  setup?: string;
  /** The writable area the setup script runs in (required with `setup`). */
  sandbox?: string;
  /** Added to the world's env. */
  env?: Record<string, string>;
}

/** Runs git in `cwd` with exactly `env` (plus a PATH) and throws on failure; returns stdout. */
export function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, env: { PATH: process.env.PATH ?? SYSTEM_PATH, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} in ${cwd}: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

/** A fresh world with its HOME at `home` (made, with its parents). */
export function world(home: string, opts: WorldOptions = {}): World {
  const ws = opts.ws ?? path.join(home, 'ws');
  const env = { HOME: home, ...GIT_ENV, ...opts.env };
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  for (const [rel, content] of Object.entries(opts.files ?? {})) {
    const p = path.join(ws, rel);
    if (rel.endsWith('/')) fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    }
  }
  for (const [rel, target] of Object.entries(opts.links ?? {})) fs.symlinkSync(target, path.join(ws, rel));
  const gitEnv = { HOME: home, ...GIT_ENV };
  if (opts.git !== false) git(ws, gitEnv, 'init', '-q', '-b', 'main');
  if (opts.commit) {
    git(ws, gitEnv, 'add', '-A');
    git(ws, gitEnv, 'commit', '-qm', opts.commit === true ? 'init' : opts.commit);
  }
  if (opts.setup !== undefined) {
    if (opts.sandbox === undefined) throw new Error('world: a setup script runs in the sandbox: give the area as `sandbox`');
    const r = runSandboxed(opts.sandbox, ['sh', '-c', opts.setup], { cwd: ws, env: { ...gitEnv, PATH: SYSTEM_PATH }, timeoutMs: 60_000 });
    if (r.exitCode !== 0) throw new Error(`world setup failed (${r.exitCode}): ${r.stderr}`);
  }
  return { home, ws, env };
}

/** A copy of a world with its HOME at `home` (the same layout below HOME, links kept as links). */
export function twin(w: World, home: string): World {
  fs.cpSync(w.home, home, { recursive: true, verbatimSymlinks: true });
  return { home, ws: path.join(home, path.relative(w.home, w.ws)), env: { ...w.env, HOME: home } };
}
