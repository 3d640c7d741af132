// Where a git command will leave HEAD, predicted before it runs (src/recovery/head.ts), against a
// real repository that is only read (rev-parse): branches, commits, created branches, paths.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headOf, predictHead, returnArgs, type Git, type HeadState } from '../../src/recovery/head.js';

let repo = '';
let git: Git;
const sha: Record<string, string> = {};

beforeAll(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-head-')));
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: repo, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  const r = spawnSync('sh', ['-c', 'git init -q -b main && echo 1 > a && git add a && git commit -qm c1 && git branch topic && git tag v1 && echo 2 > a && git commit -qam c2 && git checkout -q topic && git checkout -q main'], { cwd: repo, env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  git = (args) => {
    const x = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' });
    return { ok: x.status === 0, out: x.status === 0 ? x.stdout : x.stderr };
  };
  sha.c1 = git(['rev-parse', 'HEAD~1']).out.trim();
  sha.c2 = git(['rev-parse', 'HEAD']).out.trim();
});
afterAll(() => fs.rmSync(repo, { recursive: true, force: true }));

describe('predictHead', () => {
  it('reads HEAD and predicts each form', () => {
    const before = headOf(git);
    expect(before).toEqual({ ref: 'refs/heads/main', sha: sha.c2 });
    const p = (...args: string[]): HeadState | null => predictHead(git, before, args);
    const main = (s: string) => ({ ref: 'refs/heads/main', sha: s });
    expect(p('reset', '--hard')).toEqual(main(sha.c2!));
    expect(p('reset', '--hard', 'HEAD~1')).toEqual(main(sha.c1!));
    expect(p('reset', '-q', '--keep', 'v1')).toEqual(main(sha.c1!));
    expect(p('reset', '--hard', 'nope')).toBeNull();
    expect(p('reset', 'HEAD~1', '--', 'a')).toEqual(before);
    expect(p('checkout', '-f', 'topic')).toEqual({ ref: 'refs/heads/topic', sha: sha.c1 });
    expect(p('checkout', '-f', '-')).toEqual({ ref: 'refs/heads/topic', sha: sha.c1 });
    expect(p('checkout', '-f', 'v1')).toEqual({ ref: null, sha: sha.c1 });
    expect(p('checkout', '-f', '--detach')).toEqual({ ref: null, sha: sha.c2 });
    expect(p('checkout', '-f', '-B', 'x', 'HEAD~1')).toEqual({ ref: 'refs/heads/x', sha: sha.c1 });
    expect(p('checkout', '-fBy')).toEqual({ ref: 'refs/heads/y', sha: sha.c2 });
    expect(p('checkout', '--', 'a')).toEqual(before);
    expect(p('checkout', 'HEAD~1', 'a')).toEqual(before);
    expect(p('checkout', '-f')).toEqual(before);
    expect(p('checkout', '--orphan', 'o')).toBeNull();
    expect(p('checkout', '-f', 'origin-only')).toBeNull();
    expect(p('switch', '--discard-changes', 'topic')).toEqual({ ref: 'refs/heads/topic', sha: sha.c1 });
    expect(p('switch', '-f', '-C', 'z', 'v1')).toEqual({ ref: 'refs/heads/z', sha: sha.c1 });
    expect(p('switch', '--discard-changes', '--detach', 'HEAD~1')).toEqual({ ref: null, sha: sha.c1 });
    expect(p('restore', 'a')).toEqual(before);
    expect(p('rm', '-f', 'a')).toEqual(before);
  });

  it('the way back never drops what a branch gained', () => {
    const before = { ref: 'refs/heads/main', sha: sha.c2! };
    // The command's own reset, undone from where it left HEAD.
    expect(returnArgs(git, before, { ref: 'refs/heads/main', sha: sha.c1! }, 'T', true)).toEqual(['reset', '-q', '--keep', sha.c2]);
    // main moved on since: a new branch at the old commit.
    expect(returnArgs(git, before, { ref: 'refs/heads/main', sha: sha.c1! }, 'T', false)).toEqual(['switch', '-q', '-c', 'agent-guard-restore-T', sha.c2]);
    // Switched away, main still where it was: switch back.
    expect(returnArgs(git, before, { ref: 'refs/heads/topic', sha: sha.c1! }, 'T', true)).toEqual(['switch', '-q', 'main']);
    expect(returnArgs(git, { ref: null, sha: sha.c1! }, { ref: 'refs/heads/main', sha: sha.c2! }, 'T', true)).toEqual(['switch', '-q', '--detach', sha.c1]);
    // main is no longer at the recorded commit: a new branch.
    expect(returnArgs(git, { ref: 'refs/heads/main', sha: sha.c1! }, { ref: 'refs/heads/topic', sha: sha.c1! }, 'T', true)).toEqual(['switch', '-q', '-c', 'agent-guard-restore-T', sha.c1]);
  });
});
