// The engine's fail-closed contract, with a git runner that breaks.
import { describe, expect, it } from 'vitest';
import { decide } from '../src/engine.js';
import type { GitRunner } from '../src/probe/index.js';
import { useFixture } from './helpers/fixture.js';

const fixture = useFixture();

const broken: GitRunner = {
  run() {
    throw new Error('git exploded');
  },
};

describe('an internal error', () => {
  it('is a BLOCK when the line may be destructive', () => {
    for (const cmd of ['git clean -fd', 'git reset --hard', 'rm -rf node_modules']) {
      const r = decide({ command: cmd, config: fixture().config(), git: broken });
      expect(r).toMatchObject({ decision: 'BLOCK', code: 'BLOCK_INTERNAL_ERROR', error: 'git exploded' });
    }
  });
  it('is thrown (exit 1 at the CLI) when the line is not destructive', () => {
    expect(() => decide({ command: 'git frobnicate', config: fixture().config(), git: broken })).toThrow('git exploded');
  });
  it('does not touch lines that need no git', () => {
    expect(decide({ command: 'rm -rf src', config: fixture().config(), git: broken }).code).toBe('RELOCATE_TREE');
  });
});

describe('git aliases', () => {
  it('are expanded before deciding', () => {
    fixture().git(['config', 'alias.nuke', 'reset --hard']);
    fixture().git(['config', 'alias.wipe', '!rm -rf build']);
    fixture().git(['config', 'alias.st', 'status']);
    expect(fixture().decide('git nuke').code).toBe('SNAPSHOT_GIT_STASH');
    expect(fixture().decide('git wipe').code).toBe('BLOCK_UNDETERMINABLE_EFFECT');
    expect(fixture().decide('git st').code).toBe('ALLOW_NOOP');
    expect(fixture().decide('git -C src nuke').code).toBe('SNAPSHOT_GIT_STASH');
  });
});

describe('multi-op lines', () => {
  it('take the most restrictive op, the first on a tie', () => {
    const r = fixture().decide('rm -rf build; git reset --hard');
    expect(r.ops.map((o) => o.code)).toEqual(['RELOCATE_TREE', 'BLOCK_UNDETERMINABLE_EFFECT']);
    expect(r).toMatchObject({ decision: 'BLOCK', decidingOp: 1 });
    const s = fixture().decide('rm -rf build; rm src/a.ts');
    expect(s).toMatchObject({ code: 'RELOCATE_TREE', decidingOp: 0 });
  });
});
