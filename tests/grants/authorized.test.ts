// A line a human authorized (an ASK answered yes, or a one-time grant) is decided again without the
// shape rules: what the same operations would be without the shape is what happens, and every
// other rule still holds — a BLOCK stays a BLOCK. Decisions only (the fixture workspace), nothing runs.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/engine.js';
import type { Mode } from '../../src/policy/rules.js';
import { useFixture } from '../helpers/fixture.js';

const fixture = useFixture();

function both(cmd: string, mode: Mode = 'NORMAL'): { asked: string; authorized: string; physical: (string | null)[] } {
  const fx = fixture();
  const asked = decide({ command: cmd, config: fx.config(), mode });
  const authorized = decide({ command: cmd, config: fx.config(), mode, authorized: true });
  return { asked: `${asked.decision} ${asked.code}`, authorized: `${authorized.decision} ${authorized.code}`, physical: authorized.ops.flatMap((o) => o.targets.map((t) => t.physical)) };
}

describe('an authorized line skips only the shape rules', () => {
  it.each([
    ['cd src && rm a.ts', 'RELOCATE RELOCATE_PATHS', ['src/a.ts']],
    ['cd src && rm -rf ../build', 'RELOCATE RELOCATE_TREE', ['build']],
    ['cd src; rm -rf ../dist', 'ALLOW ALLOW_REGENERABLE', ['dist']],
    ['touch f && rm -rf build', 'RELOCATE RELOCATE_TREE', ['build']],
    ['echo x > new.txt; rm untracked.txt', 'RELOCATE RELOCATE_PATHS', ['untracked.txt']],
  ])('%s: ASK, authorized %s, the targets resolved through the cd', (cmd, want, targets) => {
    const r = both(cmd);
    expect(r.asked).toMatch(/^ASK COMPOUND_(CWD|CREATE)_DELETE$/);
    expect(r.authorized).toBe(want);
    expect(r.physical).toEqual(targets.map((t) => path.join(fixture().ws, t)));
  });

  it('git clean after a cd: enumerated in the directory the cd leads to', () => {
    const r = both('cd src && git clean -fd');
    expect([r.asked, r.authorized]).toEqual(['ASK COMPOUND_CWD_DELETE', 'RELOCATE RELOCATE_VIA_CLEAN_ENUMERATE']);
  });

  it.each([
    ['cd / && rm -rf etc', 'BLOCK BLOCK_PROTECTED_ANCESTOR'],
    ['cd src && rm -rf ../../other', 'BLOCK BLOCK_OUT_OF_WORKSPACE'],
    ['cd src && rm -rf ..', 'BLOCK BLOCK_PROTECTED_PATH'],
    ['cd src && rm -rf ../.git', 'BLOCK BLOCK_PROTECTED_PATH'],
    ['cd src && rm -rf *', 'BLOCK BLOCK_WILDCARD'],
    ['cd src && rm -rf $X', 'BLOCK BLOCK_UNDETERMINABLE_EFFECT'],
    ['cd src && git push --force', 'BLOCK BLOCK_FORCE_PUSH'],
    ['touch f && rm -rf ~', 'BLOCK BLOCK_PROTECTED_ANCESTOR'],
    ['cd src && rm a.ts && rm -rf /', 'BLOCK BLOCK_PROTECTED_ANCESTOR'],
  ])('%s: a BLOCK with or without authorization (%s)', (cmd, want) => {
    const r = both(cmd);
    expect([r.asked, r.authorized]).toEqual([want, want]);
  });

  it('RESTRICTED mode still narrows an authorized line', () => {
    expect(both('cd src && rm -rf ../build', 'RESTRICTED').authorized).toBe('BLOCK BLOCK_RESTRICTED_MODE');
    expect(both('cd src && rm a.ts', 'RESTRICTED').authorized).toBe('RELOCATE RELOCATE_NARROW');
    expect(both('cd src && git clean -fd', 'RESTRICTED').authorized).toBe('BLOCK BLOCK_RESTRICTED_MODE');
  });

  it('a line without a shape decides the same either way', () => {
    for (const cmd of ['rm -rf build', 'rm src/a.ts', 'git reset --hard', 'ls', 'rm -rf /']) expect(both(cmd).authorized, cmd).toBe(both(cmd).asked);
  });
});
