// One git reader for the three dialects (src/classifier/gitops.ts): git reads its own argv the same
// whatever shell started it, so a git line spelled the same way gives the same facts under POSIX,
// cmd and PowerShell. Before, each dialect read aliases and configuration its own way.
import { describe, expect, it } from 'vitest';
import { classifyDialect } from '../../src/classifier/index.js';
import type { ClassifyOptions, Op } from '../../src/classifier/types.js';
import type { Dialect } from '../../src/dialect.js';

const ALIASES: Record<string, string> = { nuke: 'clean -fdx', wipe: 'reset --hard', co: 'checkout', st: 'status', bang: '!rm -rf build', say: '!echo rm' };
const opts: ClassifyOptions = { cwd: '/ws', home: '/home/u', resolveGitAlias: (n) => ALIASES[n] ?? null };
const DIALECTS: readonly Dialect[] = ['posix', 'cmd', 'powershell'];

function facts(o: Op): unknown {
  return { kind: o.kind, program: o.program, reason: o.undeterminable?.reason ?? null, recursive: o.recursive, dryRun: o.dryRun, noTargets: o.noTargets, targets: o.targets.map((t) => t.path), resetMode: o.git?.resetMode, treeTarget: o.git?.treeTarget, cleanForce: o.git?.cleanForce, worktreeForce: o.git?.worktreeForce };
}

function inEach(line: string): Record<Dialect, unknown[]> {
  return Object.fromEntries(DIALECTS.map((d) => [d, classifyDialect(d, line, opts).ops.map(facts)])) as Record<Dialect, unknown[]>;
}

describe('the same git line gives the same facts in every dialect', () => {
  it.each([
    // aliases: expanded and read again as git (cmd and PowerShell used to refuse a destructive-looking one)
    ['git nuke', [{ kind: 'git-clean', recursive: true, cleanForce: 1 }]],
    ['git wipe', [{ kind: 'git-reset-hard', resetMode: 'hard' }]],
    ['git co -f main', [{ kind: 'git-checkout', treeTarget: 'main' }]],
    ['git -c alias.y=clean y -fd', [{ kind: 'git-clean', cleanForce: 1 }]],
    ['git st', []],
    // a ! alias is shell text git runs with sh -c, read as POSIX text in every dialect
    ['git bang', [{ kind: 'indirect', reason: 'indirect-shell' }]],
    ['git say', []],
    // configuration that runs commands
    ['git -c core.pager="rm -rf x" log', [{ kind: 'indirect', reason: 'indirect-shell' }]],
    ['git --config-env=alias.x=V x', [{ kind: 'opaque', reason: 'git-environment' }]],
    // option prefixes git accepts
    ['git reset --har', [{ kind: 'git-reset-hard', resetMode: 'hard' }]],
    ['git worktree remove --forc --forc trees/wt', [{ kind: 'git-worktree-remove', worktreeForce: 2, targets: ['/ws/trees/wt', '/ws'] }]],
    ['git checkout --forc main', [{ kind: 'git-checkout', treeTarget: 'main' }]],
    ['git push --mirr', [{ kind: 'git-push' }]],
  ])('%s', (line, expected) => {
    const got = inEach(line);
    expect(got.posix).toEqual(expected.map((e) => expect.objectContaining(e)));
    expect(got.cmd).toEqual(got.posix);
    expect(got.powershell).toEqual(got.posix);
  });
});

describe('git environment names', () => {
  it('are case-insensitive in the Windows dialects (`$env:git_dir`, `set git_dir`) and exact under POSIX', () => {
    const reason = (d: Dialect, line: string): unknown => classifyDialect(d, line, opts).ops[0]?.undeterminable?.reason ?? null;
    expect(reason('powershell', '$env:git_dir="x"; git clean -fd')).toBe('git-environment');
    expect(reason('cmd', 'set git_dir=x & git clean -fd')).toBe('git-environment');
    expect(reason('posix', 'GIT_DIR=x git clean -fd')).toBe('git-environment');
    expect(reason('posix', 'git_dir=x git clean -fd')).toBe(null);
  });
  it('a GIT_CONFIG_* name set on the line makes an alias unknown in every dialect', () => {
    expect(classifyDialect('posix', 'GIT_CONFIG_COUNT=1 git nuke', opts).ops.map((o) => o.undeterminable?.reason)).toEqual(['git-environment']);
    expect(classifyDialect('cmd', 'set GIT_CONFIG_COUNT=1 & git nuke', opts).ops.map((o) => o.undeterminable?.reason)).toEqual(['git-environment']);
    expect(classifyDialect('powershell', '$env:git_config_count=1; git nuke', opts).ops.map((o) => o.undeterminable?.reason)).toEqual(['git-environment']);
  });
});
