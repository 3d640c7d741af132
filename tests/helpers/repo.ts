// A git repository for tests that need one with history: `git` with a fixed identity (no config of
// the machine's user needed), and `committedRepo`, a repository whose README is committed on main.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Runs git in `cwd` with a fixed identity; its stdout, or an Error with its stderr. */
export function gitT(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** `dir` (created) as a git repository on main with a committed README ("readme\n"). */
export function committedRepo(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'README'), 'readme\n');
  gitT(dir, 'init', '-q', '-b', 'main');
  gitT(dir, 'add', 'README');
  gitT(dir, 'commit', '-qm', 'init');
}
