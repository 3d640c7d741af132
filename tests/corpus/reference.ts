// The policy reference's own examples: its README table "What gets protected" and one row per rule
// of its rule table (seeds/000 and seeds/002 in the shared reference material).
import type { Case } from './types.js';

export const README_TABLE: readonly Case[] = [
  { cmd: 'rm -rf build/', expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  { cmd: 'rm -rf .', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  { cmd: 'rm -rf $DIR/', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'rm *.log', expect: 'BLOCK', code: 'BLOCK_WILDCARD' },
  { cmd: 'cd src && rm -rf build', expect: 'ASK', code: 'COMPOUND_CWD_DELETE' },
  { cmd: 'touch f && rm f', expect: 'ASK', code: 'COMPOUND_CREATE_DELETE' },
  { cmd: 'git clean -fd', expect: 'RELOCATE', code: 'RELOCATE_VIA_CLEAN_ENUMERATE' },
  { cmd: 'git reset --hard', expect: 'SNAPSHOT', code: 'SNAPSHOT_GIT_STASH' },
  { cmd: 'git push --force', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  { cmd: 'rm -rf node_modules/', expect: 'ALLOW', code: 'ALLOW_REGENERABLE', note: 'node_modules/ is git-ignored in the fixture' },
];

export const RULE_TABLE: readonly Case[] = [
  // 1 dry run / no targets
  { cmd: 'rm -f', expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: 'git push -f --dry-run origin main', expect: 'ALLOW', code: 'ALLOW_NOOP' },
  // 2 unresolvable targets
  { cmd: 'rm -rf "$TARGET"', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'rm -rf $(cat dirs.txt)', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'rm -rf "build', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: "bash -c 'rm -rf build'", expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'find build -delete', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'find . -type f -exec rm -f {} +', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'cat list | xargs rm -rf', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  // 2a / 2b shapes
  { cmd: 'cd src; rm -rf build', expect: 'ASK', code: 'COMPOUND_CWD_DELETE' },
  { cmd: 'mkdir out && rm -rf out', expect: 'ASK', code: 'COMPOUND_CREATE_DELETE' },
  { cmd: 'echo x >> log.txt && rm -f log.txt', expect: 'ASK', code: 'COMPOUND_CREATE_DELETE' },
  // a shape never outranks a BLOCK from rules 2, 4, 5, 6
  { cmd: 'cd src && rm -rf $X', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'cd src && rm -rf ../../other', expect: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' },
  { cmd: 'cd src && rm -rf ..', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  { cmd: 'cd src && rm -rf *.js', expect: 'BLOCK', code: 'BLOCK_WILDCARD' },
  { cmd: 'touch f && rm -rf .git', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  // reset --hard and force push are exempt from F2; a force push wins over both shapes
  { cmd: 'touch f && git push --force', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  { cmd: 'cd src && git push --force', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  // 2c protected roots, matched exactly
  { cmd: 'rm -rf /', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /home', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /usr/', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /etc', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /var', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /tmp', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /opt', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /boot', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf ~', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' },
  { cmd: 'rm -rf /etc/hosts.d', expect: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE', note: 'under a root: the ordinary code' },
  { cmd: 'rm -rf /', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR', env: { AGENT_GUARD_WORKSPACE: '/' }, note: 'holds even when the workspace is /' },
  { cmd: 'rm -rf /usr', expect: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR', env: { AGENT_GUARD_WORKSPACE: '/' } },
  // 3 quarantine housekeeping
  { cmd: 'rm -rf .agent-trash/tx-1', expect: 'ALLOW', code: 'ALLOW_TRASH_GC' },
  // 4 outside the workspace
  { cmd: 'rm -rf ../other', expect: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' },
  { cmd: 'rm /etc/passwd', expect: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' },
  // 5 workspace root or .git at any depth
  { cmd: 'rm -rf .git', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  { cmd: 'rm -rf vendor/lib/.git', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  { cmd: 'rm .git/index', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  { cmd: 'rm -rf "$PWD"', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH' },
  // 6 globs
  { cmd: 'rm -rf build/*', expect: 'BLOCK', code: 'BLOCK_WILDCARD' },
  // 7 / 8 RESTRICTED
  { cmd: 'git restore src/a.ts', expect: 'BLOCK', code: 'BLOCK_RESTRICTED_MODE', mode: 'RESTRICTED' },
  { cmd: 'rm untracked.txt', expect: 'RELOCATE', code: 'RELOCATE_NARROW', mode: 'RESTRICTED' },
  { cmd: 'rm -r src', expect: 'BLOCK', code: 'BLOCK_RESTRICTED_MODE', mode: 'RESTRICTED' },
  { cmd: 'rm -rf .', expect: 'BLOCK', code: 'BLOCK_PROTECTED_PATH', mode: 'RESTRICTED', note: 'rules 4-6 come before RESTRICTED' },
  // 9 force push
  { cmd: 'git push origin +main', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  { cmd: 'git push --mirror backup', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  { cmd: 'git push origin --delete feature', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  { cmd: 'git push origin :feature', expect: 'BLOCK', code: 'BLOCK_FORCE_PUSH' },
  // 10 / 11 / 11a / 11b git clean
  { cmd: 'git clean -n', expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: 'git clean -nfd', expect: 'ALLOW', code: 'ALLOW_NOOP' },
  { cmd: 'git clean -fdx', expect: 'RELOCATE', code: 'RELOCATE_VIA_CLEAN_ENUMERATE' },
  { cmd: 'git clean -ffdx', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'git clean -fi', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'git clean -fd -e build', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'git clean -n -e x', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT', note: 'undeterminable beats dry run' },
  { cmd: 'git clean -fd', cwd: 'nogit', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT', note: '11b: not enumerable' },
  // 12 snapshot
  { cmd: 'git restore src/a.ts', expect: 'SNAPSHOT', code: 'SNAPSHOT_GIT_STASH' },
  { cmd: 'git checkout -- src/a.ts', expect: 'SNAPSHOT', code: 'SNAPSHOT_GIT_STASH' },
  { cmd: 'git reset --hard -q HEAD', expect: 'SNAPSHOT', code: 'SNAPSHOT_GIT_STASH' },
  { cmd: 'git reset --hard HEAD~1', expect: 'BLOCK', code: 'BLOCK_GIT_RESET_COLLISION', note: 'untracked old.txt collides with HEAD~1' },
  { cmd: 'git reset --hard HEAD --recurse-submodules', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT' },
  { cmd: 'git reset --hard nosuchcommit', expect: 'BLOCK', code: 'BLOCK_UNDETERMINABLE_EFFECT', note: 'preflight error' },
  // 13 regenerable
  { cmd: 'rm -rf dist', expect: 'ALLOW', code: 'ALLOW_REGENERABLE' },
  { cmd: 'rm -rf dist', expect: 'RELOCATE', code: 'RELOCATE_TREE', env: { AGENT_GUARD_ALLOW_REGENERABLE: '0' } },
  { cmd: 'rm -rf build', expect: 'RELOCATE', code: 'RELOCATE_TREE', note: 'build matches a pattern but is not ignored' },
  // 14 / 15
  { cmd: 'rm -r src', expect: 'RELOCATE', code: 'RELOCATE_TREE' },
  { cmd: 'rm src/a.ts README.md', expect: 'RELOCATE', code: 'RELOCATE_PATHS' },
];
