// A throwaway world for deciding commands: a temp HOME holding a git workspace, a directory outside
// it, and a canary that must survive every test. Nothing here runs a destructive command; it only
// builds files and git history that the engine reads.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config, type Env } from '../../src/config.js';
import { decide, type CheckResult } from '../../src/engine.js';
import type { Mode } from '../../src/policy/rules.js';

export interface Fixture {
  /** The temp directory everything lives in. */
  root: string;
  home: string;
  /** The git workspace (HOME/ws). */
  ws: string;
  /** Outside the workspace and HOME: holds the canary. */
  outside: string;
  canary: string;
  env: Env;
  config(cwd?: string, extra?: Env): Config;
  decide(cmd: string, opts?: { mode?: Mode; cwd?: string; env?: Env; dialect?: string }): CheckResult;
  git(args: string[], cwd?: string): string;
  /** Asserts the canary is intact (throws otherwise). */
  checkCanary(): void;
  cleanup(): void;
}

const CANARY = 'agent-guard canary: this file must survive every test\n';

function write(p: string, content = ''): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

export function makeFixture(): Fixture {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-fixture-')));
  const home = path.join(root, 'home');
  const ws = path.join(home, 'ws');
  const outside = path.join(root, 'outside');
  const canary = path.join(outside, 'canary.txt');
  write(canary, CANARY);
  fs.mkdirSync(path.join(home, 'other'), { recursive: true });
  const env: Env = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Fixture',
    GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
    GIT_COMMITTER_NAME: 'Fixture',
    GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
  };
  const git = (args: string[], cwd = ws): string => {
    const r = spawnSync('git', args, { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  fs.mkdirSync(ws, { recursive: true });
  git(['init', '-q', '-b', 'main']);
  git(['config', 'commit.gpgsign', 'false']);
  write(path.join(ws, '.gitignore'), 'node_modules/\ndist/\n*.log\n.cache/\ncoverage/\n');
  write(path.join(ws, 'src/a.ts'), 'export const a = 1;\n');
  write(path.join(ws, 'README.md'), '# fixture\n');
  write(path.join(ws, 'old.txt'), 'tracked in the first commit only\n');
  // An ignored directory that holds a tracked file (force-added): not regenerable as a whole.
  write(path.join(ws, 'coverage/README'), 'tracked despite the ignore rule\n');
  git(['add', '-A']);
  git(['add', '-f', 'coverage/README']);
  git(['commit', '-q', '-m', 'one']);
  git(['rm', '-q', 'old.txt']);
  git(['commit', '-q', '-m', 'two']);
  // Untracked where HEAD~1 has a tracked file: `git reset --hard HEAD~1` would overwrite it.
  write(path.join(ws, 'old.txt'), 'untracked now\n');
  write(path.join(ws, 'build/out.js'), 'built\n');
  write(path.join(ws, 'node_modules/x/index.js'), 'dep\n');
  write(path.join(ws, 'dist/app.js'), 'bundle\n');
  write(path.join(ws, 'pkg/node_modules/.cache/c'), 'cache\n');
  write(path.join(ws, 'untracked.txt'), 'new\n');
  write(path.join(ws, 'debug.log'), 'ignored log\n');
  write(path.join(ws, 'coverage/lcov.info'), 'ignored report\n');
  fs.mkdirSync(path.join(ws, 'empty'));
  fs.symlinkSync(outside, path.join(ws, 'link-out'));
  write(path.join(ws, '.agent-trash/tx-1/file'), 'quarantined\n');
  write(path.join(ws, '.agent-trash/audit.jsonl'), '');
  write(path.join(ws, '.agent-trash/manifest.jsonl'), '');
  // A directory whose .git points nowhere: git cannot run there (rule 11b).
  write(path.join(ws, 'nogit/.git'), 'gitdir: /nonexistent/agent-guard-fixture\n');
  // Linked work trees (rule 12b): with an untracked file, with only an ignored one, clean, locked.
  for (const name of ['wt', 'ign', 'clean', 'locked']) git(['worktree', 'add', '-q', '--detach', `trees/${name}`]);
  write(path.join(ws, 'trees/wt/notes.txt'), 'untracked in a work tree\n');
  write(path.join(ws, 'trees/ign/debug.log'), 'ignored in a work tree\n');
  write(path.join(ws, 'trees/locked/notes.txt'), 'untracked in a locked work tree\n');
  git(['worktree', 'lock', 'trees/locked']);
  // A directory named like a lock in .git: not a lock (rule 5, not 8a).
  fs.mkdirSync(path.join(ws, '.git/dir.lock'));
  // Scratch zones (docs/zones.md): the fixture lives in /tmp, so `scratch/` beside HOME is scratch;
  // HOME's cache directory is the cache zone, agent-guard's own part of it is not.
  const scratch = path.join(root, 'scratch');
  write(path.join(scratch, 'f.txt'), 'scratch file\n');
  write(path.join(scratch, 'dir/x'), 'scratch tree\n');
  fs.mkdirSync(path.join(scratch, 'empty'));
  fs.mkdirSync(path.join(scratch, 'repo'));
  git(['init', '-q', '-b', 'main'], path.join(scratch, 'repo'));
  write(path.join(scratch, 'repo/untracked.txt'), 'u\n');
  write(path.join(home, '.cache/demo-tool/blob'), 'cached\n');
  fs.mkdirSync(path.join(home, '.cache/agent-guard/trash'), { recursive: true });
  const config = (cwd = ws, extra: Env = {}): Config => loadConfig({ ...env, ...extra }, cwd);
  return {
    root,
    home,
    ws,
    outside,
    canary,
    env,
    config,
    git,
    decide(cmd, opts = {}) {
      const cwd = opts.cwd ? path.resolve(ws, opts.cwd) : ws;
      return decide({ command: cmd, config: config(cwd, opts.env), ...(opts.mode ? { mode: opts.mode } : {}), ...(opts.dialect !== undefined ? { dialect: opts.dialect } : {}) });
    },
    checkCanary() {
      if (fs.readFileSync(canary, 'utf8') !== CANARY) throw new Error('the canary outside the workspace was changed');
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** One fixture for a test file: made before its tests, canary-checked and removed after them.
 *  Returns a getter (the fixture exists only once beforeAll has run). */
export function useFixture(): () => Fixture {
  let fx: Fixture | undefined;
  beforeAll(() => {
    fx = makeFixture();
  });
  afterAll(() => {
    fx?.checkCanary();
    fx?.cleanup();
  });
  return () => {
    if (!fx) throw new Error('useFixture: the fixture is made in beforeAll');
    return fx;
  };
}
