// What holds the quarantine and what is its state (rule 5), decided in-process in the fixture
// workspace (nothing runs): links to it and the configured path through links, beside the rule
// table's own examples (src/policy/rules.ts).
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';

const fixture = useFixture();

describe('the quarantine and what holds it', () => {
  beforeAll(() => {
    const ws = fixture().ws;
    fs.mkdirSync(path.join(ws, 'node_modules/.cache/q'), { recursive: true });
    // links: to the default quarantine, to a directory holding the configured one, to a transaction
    fs.symlinkSync('.agent-trash', path.join(ws, 'trash-link'));
    fs.symlinkSync('node_modules/.cache', path.join(ws, 'cache-link'));
    fs.symlinkSync('.agent-trash/tx-1', path.join(ws, 'tx-link'));
  });
  const code = (cmd: string, env: Record<string, string> = {}): string => fixture().decide(cmd, { env }).code;

  it('refuses a link to the quarantine; a link to what holds it or into a transaction is an ordinary link (removing it removes nothing behind it)', () => {
    expect(code('rm trash-link')).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf trash-link/')).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm tx-link')).toBe('RELOCATE_PATHS');
    const trash = { AGENT_GUARD_TRASH: path.join(fixture().ws, 'node_modules/.cache/q') };
    expect(code('rm cache-link', trash)).toBe('RELOCATE_PATHS');
    expect(code('rm -rf cache-link/', trash)).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf node_modules', trash)).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf node_modules/.cache', trash)).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf node_modules/x', trash)).toBe('ALLOW_REGENERABLE');
    // with the quarantine elsewhere, the default place is an ordinary directory again
    expect(code('rm trash-link', trash)).toBe('RELOCATE_PATHS');
  });

  it('protects the configured path when it goes through a link: the link and the directories on the way', () => {
    const ws = fixture().ws;
    fs.mkdirSync(path.join(ws, 'conf'), { recursive: true });
    fs.symlinkSync('../node_modules/.cache', path.join(ws, 'conf/via'));
    const trash = { AGENT_GUARD_TRASH: path.join(ws, 'conf/via/q') };
    expect(fixture().decide('rm -rf node_modules/.cache/q/tx-9', { env: trash }).workspace?.quarantine).toBe(path.join(ws, 'node_modules/.cache/q'));
    expect(code('rm conf/via', trash)).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf conf', trash)).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm -rf node_modules/.cache/q/tx-9', trash)).toBe('ALLOW_TRASH_GC');
  });

  it('a command run inside the quarantine belongs to the workspace around it (its nested-repository marker is no work tree)', () => {
    const ws = fixture().ws;
    const marker = path.join(ws, '.agent-trash/.git');
    fs.mkdirSync(path.join(marker, 'objects'), { recursive: true });
    fs.mkdirSync(path.join(marker, 'refs'), { recursive: true });
    fs.writeFileSync(path.join(marker, 'HEAD'), 'ref: refs/heads/main\n');
    const r = fixture().decide('rm -rf file', { cwd: '.agent-trash/tx-1' });
    expect({ root: r.workspace?.root, quarantine: r.workspace?.quarantine, code: r.code }).toEqual({ root: ws, quarantine: path.join(ws, '.agent-trash'), code: 'ALLOW_TRASH_GC' });
    // a real repository inside a transaction (it has a config) is still a work tree of its own
    fs.mkdirSync(path.join(ws, '.agent-trash/tx-1/repo/.git'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.agent-trash/tx-1/repo/.git/config'), '[core]\n');
    expect(fixture().decide('rm -rf x', { cwd: '.agent-trash/tx-1/repo' }).workspace?.root).toBe(path.join(ws, '.agent-trash/tx-1/repo'));
  });

  it('refuses the quarantine\'s state: records, their temporary files, the index, the lock, sessions, grants, any .git inside', () => {
    for (const p of ['state.json', 'state.json.tmp', 'manifest.jsonl', 'audit.jsonl', 'index.json', 'index.json.tmp-42', '.lock', 'lock', 'sessions', 'sessions/a.json', 'grants', 'grants/g1', '.git', '.git/HEAD', 'tx-1/sub/.git', 'tx-1/.git/config', 'notes.txt']) {
      expect({ p, code: code(`rm -rf .agent-trash/${p}`) }).toEqual({ p, code: p === 'notes.txt' ? 'ALLOW_TRASH_GC' : 'BLOCK_PROTECTED_PATH' });
    }
    // a file at the top of the quarantine is state, never a transaction (transactions are directories)
    fs.writeFileSync(path.join(fixture().ws, '.agent-trash/stray'), 'x');
    expect(code('rm .agent-trash/stray')).toBe('BLOCK_PROTECTED_PATH');
    expect(code('rm .agent-trash/tx-1/file')).toBe('ALLOW_TRASH_GC');
  });
});
