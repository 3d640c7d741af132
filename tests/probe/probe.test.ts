// The probe (src/probe/): where the workspace and its quarantine are, and the physical facts of a
// target — in the fixture world (tests/helpers/fixture.ts), reading only. The decisions these facts
// lead to are tested through the engine (tests/policy/); here the facts themselves.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { classify, type TargetSpec } from '../../src/classifier/index.js';
import { gitRunner, probe, targetFacts } from '../../src/probe/index.js';
import { discoverWorkspace, type Workspace } from '../../src/workspace.js';
import { decodeGitPath, enumerateClean } from '../../src/probe/git.js';
import { scratchZones, zoneOf, type Zone } from '../../src/probe/zones.js';

const fixture = useFixture();

/** A target as the classifier gives one for a literal absolute operand. */
const spec = (p: string, followsLink = false): TargetSpec => ({ raw: p, path: path.posix.normalize(p), joined: p, glob: false, followsLink });

function workspace(cwd?: string, env: Record<string, string> = {}): Workspace {
  return discoverWorkspace(fixture().config(cwd, env));
}

describe('discoverWorkspace', () => {
  it('is the git root above the cwd (physical), with its quarantine inside it', () => {
    const f = fixture();
    const ws = workspace(path.join(f.ws, 'src'));
    expect(ws).toMatchObject({ root: f.ws, source: 'git', quarantine: path.join(f.ws, '.agent-trash'), home: f.home, warnings: [] });
    expect(ws.protectedRoots.has(f.home)).toBe(true);
    expect(ws.protectedRoots.has('/usr')).toBe(true);
  });

  it('is AGENT_GUARD_WORKSPACE when set, and the cwd itself outside any repository', () => {
    const f = fixture();
    expect(workspace(f.ws, { AGENT_GUARD_WORKSPACE: path.join(f.ws, 'src') })).toMatchObject({ root: path.join(f.ws, 'src'), source: 'env' });
    expect(workspace(path.join(f.home, 'other'))).toMatchObject({ root: path.join(f.home, 'other'), source: 'cwd' });
  });

  it('takes AGENT_GUARD_TRASH, but not one that holds the workspace, is HOME or a top-level directory, or is in .git (a warning)', () => {
    const f = fixture();
    for (const own of [path.join(f.root, 'trash-elsewhere'), path.join(f.ws, 'q')]) expect(workspace(f.ws, { AGENT_GUARD_TRASH: own })).toMatchObject({ quarantine: own, warnings: [] });
    for (const bad of [f.root, f.home, '/srv', path.join(f.ws, '.git', 'q')]) {
      const ws = workspace(f.ws, { AGENT_GUARD_TRASH: bad });
      expect(ws.quarantine, bad).toBe(path.join(f.ws, '.agent-trash'));
      expect(ws.warnings, bad).toHaveLength(1);
    }
  });

  it('finds the scratch zones: the temp directories and the cache directory, one per physical directory', () => {
    const f = fixture();
    const zones = workspace(f.ws, { TMPDIR: path.join(f.root, 'scratch') }).zones;
    expect(zones.map((z) => z.kind)).toEqual(['temp', 'temp', 'temp', 'cache']);
    expect(zones[0]).toMatchObject({ root: path.join(f.root, 'scratch'), quarantine: path.join(f.root, 'scratch', `.agent-trash-${process.getuid!()}`) });
    expect(zones.at(-1)).toMatchObject({ root: path.join(f.home, '.cache'), quarantine: path.join(f.home, '.cache', 'agent-guard', 'trash') });
    // TMPDIR=$HOME would make all of HOME scratch: not a zone.
    expect(workspace(f.ws, { TMPDIR: f.home }).zones.map((z) => z.root)).not.toContain(f.home);
  });
});

describe('targetFacts', () => {
  it('resolves a target physically: a link out of the workspace is outside it when followed, the link itself inside', () => {
    const f = fixture();
    const ws = workspace();
    const link = path.join(f.ws, 'link-out');
    expect(targetFacts(spec(link), ws, [])).toMatchObject({ physical: link, type: 'symlink', insideWorkspace: true });
    expect(targetFacts(spec(`${link}/`, true), ws, [])).toMatchObject({ physical: f.outside, type: 'dir', insideWorkspace: false });
  });

  it('names the workspace root, git metadata, git lock files (not a directory named *.lock), the quarantine and its records', () => {
    const f = fixture();
    const ws = workspace();
    const facts = (p: string) => targetFacts(spec(p), ws, []);
    expect(facts(f.ws)).toMatchObject({ isWorkspaceRoot: true, insideWorkspace: true });
    expect(facts(path.join(f.ws, '.git/config'))).toMatchObject({ isGitMetadata: true, gitLock: false });
    expect(facts(path.join(f.ws, '.git/index.lock'))).toMatchObject({ isGitMetadata: true, gitLock: true, type: 'missing' });
    expect(facts(path.join(f.ws, '.git/dir.lock'))).toMatchObject({ isGitMetadata: true, gitLock: false, type: 'dir' });
    expect(facts(path.join(f.ws, '.agent-trash'))).toMatchObject({ isQuarantineControl: true, inQuarantine: false });
    expect(facts(path.join(f.ws, '.agent-trash/manifest.jsonl'))).toMatchObject({ isQuarantineControl: true, inQuarantine: false });
    expect(facts(path.join(f.ws, '.agent-trash/tx-1/file'))).toMatchObject({ isQuarantineControl: false, inQuarantine: true });
  });

  it('names protected roots (HOME, system directories, any top-level directory) lexically or physically', () => {
    const f = fixture();
    const ws = workspace();
    expect(targetFacts(spec(f.home), ws, []).protectedRoot).toBe(f.home);
    expect(targetFacts(spec('/usr/local'), ws, []).protectedRoot).toBe('/usr/local');
    expect(targetFacts(spec('/nonexistent-top-level'), ws, []).protectedRoot).toBe('/nonexistent-top-level');
    expect(targetFacts(spec(path.join(f.ws, 'src')), ws, []).protectedRoot).toBeNull();
  });

  it('matches artifact patterns on any segment below the workspace root, never the root itself', () => {
    const f = fixture();
    const ws = workspace();
    const artifacts = ['node_modules', '*.cache', '.cache'];
    expect(targetFacts(spec(path.join(f.ws, 'node_modules')), ws, artifacts).artifact).toBe(true);
    expect(targetFacts(spec(path.join(f.ws, 'pkg/node_modules/.cache')), ws, artifacts).artifact).toBe(true);
    expect(targetFacts(spec(path.join(f.ws, 'src')), ws, artifacts).artifact).toBe(false);
    expect(targetFacts(spec(f.ws), { ...ws }, ['ws']).artifact).toBe(false);
  });

  it('places a target outside the workspace in a scratch zone, unless it is the zone, HOME or agent-guard’s own', () => {
    const f = fixture();
    const ws = workspace(f.ws, { TMPDIR: path.join(f.root, 'scratch') });
    const zoneOfTarget = (p: string) => targetFacts(spec(p), ws, []).zone?.kind ?? null;
    expect(zoneOfTarget(path.join(f.root, 'scratch/f.txt'))).toBe('temp');
    expect(zoneOfTarget(path.join(f.root, 'scratch'))).toBeNull();
    expect(zoneOfTarget(path.join(f.home, '.cache/demo-tool'))).toBe('cache');
    expect(zoneOfTarget(path.join(f.home, '.cache/agent-guard/trash'))).toBeNull();
    expect(zoneOfTarget(path.join(f.home, 'other'))).toBeNull();
    // Inside the workspace a target is never a zone's.
    expect(zoneOfTarget(path.join(f.ws, 'build'))).toBeNull();
  });

  it('a Windows drive root is a protected root by identity, other foreign paths are only outside', () => {
    const ws = workspace();
    expect(targetFacts({ raw: 'C:\\', path: 'C:/', joined: 'C:/', glob: false, followsLink: false, foreign: 'drive-root' }, ws, [])).toMatchObject({ protectedRoot: 'C:/', insideWorkspace: false, type: 'missing' });
    expect(targetFacts({ raw: '\\\\srv\\x', path: '//srv/x', joined: '//srv/x', glob: false, followsLink: false, foreign: 'unc' }, ws, [])).toMatchObject({ protectedRoot: null, insideWorkspace: false });
  });
});

describe('zones', () => {
  const z = (root: string): Zone => ({ kind: 'temp', root, quarantine: `${root}/.agent-trash-0` });
  it('zoneOf: the deepest zone holding the path, unless a barrier holds it or it holds a zone or a barrier', () => {
    const zones = [z('/tmp'), z('/tmp/inner')];
    expect(zoneOf('/tmp/a', zones, [])).toBe(zones[0]);
    expect(zoneOf('/tmp/inner/a', zones, [])).toBe(zones[1]);
    expect(zoneOf('/tmp', zones, [])).toBeNull();
    expect(zoneOf('/tmp/inner', zones, [])).toBeNull(); // holds a zone
    expect(zoneOf('/tmp/home/x', zones, ['/tmp/home'])).toBeNull(); // HOME inside /tmp stays HOME
    expect(zoneOf('/tmp/x', zones, ['/tmp/x/ws'])).toBeNull(); // holds a barrier
    expect(zoneOf('/var/x', zones, [])).toBeNull();
  });

  it('scratchZones: no uid, no zones; a directory that does not exist is none', () => {
    const f = fixture();
    const config = f.config(f.ws, { TMPDIR: path.join(f.root, 'missing') });
    expect(scratchZones(config, f.home, new Set(), null)).toEqual([]);
    expect(scratchZones(config, f.home, new Set(), 0).map((x) => x.root)).not.toContain(path.join(f.root, 'missing'));
  });
});

describe('git queries', () => {
  it('decodeGitPath: C escapes and octal bytes, exactly the name on disk', () => {
    expect(decodeGitPath('plain name')).toEqual(Buffer.from('plain name'));
    expect(decodeGitPath('"tab\\there"')).toEqual(Buffer.from('tab\there'));
    expect(decodeGitPath('"bad\\377"')).toEqual(Buffer.from([0x62, 0x61, 0x64, 0xff]));
    expect(decodeGitPath('"\\303\\274"')).toEqual(Buffer.from('ü'));
    expect(() => decodeGitPath('"\\q"')).toThrow(/unknown escape/);
  });

  it('enumerateClean: what `git clean -f` would remove, by `git clean -n` (nothing is removed)', () => {
    const f = fixture();
    const git = gitRunner('git', f.env);
    const before = fs.readdirSync(f.ws).sort();
    const plain = enumerateClean(git, f.ws, [], [], []);
    expect(plain.ok).toBe(true);
    expect(plain.remove.map((b) => b.toString())).toEqual(['link-out', 'old.txt', 'untracked.txt']);
    const dirs = enumerateClean(git, f.ws, [], ['-d'], ['build']);
    expect(dirs.remove.map((b) => b.toString())).toEqual(['build/']);
    expect(fs.readdirSync(f.ws).sort()).toEqual(before);
  });

  it('probe: a git clean op gets its enumeration, a reset --hard the untracked files it would overwrite', () => {
    const f = fixture();
    const config = f.config();
    const ws = discoverWorkspace(config);
    const probed = (text: string) => probe(classify(text, { cwd: f.ws, home: f.home }).ops, config, ws, { mode: 'NORMAL' })[0]!;
    expect(probed('git clean -f').clean).toMatchObject({ ok: true, count: 3 });
    expect(probed('git clean -f').targets.filter((t) => t.role !== 'scope').map((t) => path.relative(f.ws, t.physical!))).toEqual(['link-out', 'old.txt', 'untracked.txt']);
    expect(probed('git reset --hard HEAD~1').collisions).toEqual(['old.txt']);
    expect(probed('git reset --hard').collisions).toEqual([]);
  });

});
