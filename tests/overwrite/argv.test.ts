// How mv, cp, truncate and rsync calls are read (src/overwrite/argv.ts): which existing entries a
// call replaces, truncates or deletes. Only constructive file operations (a temp tree is written,
// then stat'ed): no sandbox needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mvCpTargets, parseRsync, parseSize, rsyncRemote, rsyncTargets, truncateTargets, Unreadable } from '../../src/overwrite/argv.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ag-ow-argv-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const put = (rel: string, text = 'x\n'): void => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
};
put('a.txt', 'a\n');
put('b.txt', 'b\n');
put('empty.txt', '');
put('dir/a.txt', 'old a\n');
put('src/one.txt', '1\n');
put('src/sub/two.txt', '2\n');
put('src/new.txt', 'n\n');
put('dst/src/one.txt', 'old 1\n');
put('dst/src/sub/two.txt', 'old 2\n');
put('big.txt', 'x'.repeat(5000));
fs.mkdirSync(path.join(root, 'emptydir'));
fs.symlinkSync('a.txt', path.join(root, 'link'));

const rel = (ts: { path: string; follow: boolean }[]): string[] => ts.map((t) => `${path.relative(root, path.resolve(root, t.path))}${t.follow ? '' : ' (entry)'}`).sort();
const mvcp = (p: 'mv' | 'cp', ...args: string[]): string[] => rel(mvCpTargets(p, args, root, {}));

describe('mv and cp: the existing entries a call replaces', () => {
  it('a single target that exists; a new name replaces nothing', () => {
    expect(mvcp('mv', 'b.txt', 'a.txt')).toEqual(['a.txt (entry)']);
    expect(mvcp('cp', 'b.txt', 'a.txt')).toEqual(['a.txt']);
    expect(mvcp('mv', 'a.txt', 'new.txt')).toEqual([]);
    expect(mvcp('cp', '-f', 'a.txt', 'new.txt')).toEqual([]);
  });
  it('a directory destination means DIR/basename, for each source; -t DIR the same; -T the directory itself', () => {
    expect(mvcp('mv', 'a.txt', 'dir')).toEqual(['dir/a.txt (entry)']);
    expect(mvcp('cp', 'a.txt', 'b.txt', 'dir/')).toEqual(['dir/a.txt']);
    expect(mvcp('cp', '-t', 'dir', 'a.txt', 'b.txt')).toEqual(['dir/a.txt']);
    expect(mvcp('cp', '--target-directory=dir', 'a.txt')).toEqual(['dir/a.txt']);
    expect(mvcp('mv', '-tdir', 'src/../a.txt')).toEqual(['dir/a.txt (entry)']);
    // a file over a directory is refused by the tool itself: nothing replaced
    expect(mvcp('cp', '-T', 'a.txt', 'dir')).toEqual([]);
  });
  it('-n never replaces; -b keeps a backup (unless --backup=none); -u only an older destination', () => {
    expect(mvcp('mv', '-n', 'b.txt', 'a.txt')).toEqual([]);
    expect(mvcp('cp', '--no-clobber', 'b.txt', 'a.txt')).toEqual([]);
    expect(mvcp('mv', '-b', 'b.txt', 'a.txt')).toEqual([]);
    expect(mvcp('mv', '--backup=none', 'b.txt', 'a.txt')).toEqual(['a.txt (entry)']);
    const t = Date.now() / 1000;
    fs.utimesSync(path.join(root, 'a.txt'), t, t);
    fs.utimesSync(path.join(root, 'b.txt'), t - 100, t - 100);
    expect(mvcp('cp', '-u', 'b.txt', 'a.txt')).toEqual([]);
    expect(mvcp('cp', '-u', 'a.txt', 'b.txt')).toEqual(['b.txt']);
  });
  it('cp -r into an existing directory merges: every file the source also holds is overwritten', () => {
    expect(mvcp('cp', '-r', 'src', 'dst')).toEqual(['dst/src/one.txt', 'dst/src/sub/two.txt']);
    expect(mvcp('cp', '-rT', 'src', 'dst/src')).toEqual(['dst/src/one.txt', 'dst/src/sub/two.txt']);
    expect(mvcp('cp', '-r', 'src', 'fresh')).toEqual([]); // into nothing
    expect(mvcp('mv', 'src', 'dst')).toEqual([]); // mv never merges (a non-empty directory is refused)
    expect(mvcp('cp', 'src', 'dst')).toEqual([]); // cp without -r omits directories
  });
  it('options anywhere (GNU permutes), long ones by a unique prefix; an unknown option cannot be read', () => {
    expect(mvcp('cp', 'b.txt', 'a.txt', '-f')).toEqual(['a.txt']);
    expect(mvcp('cp', '--recur', 'src', 'dst')).toEqual(['dst/src/one.txt', 'dst/src/sub/two.txt']);
    expect(() => mvCpTargets('cp', ['--frobnicate', 'a.txt', 'b.txt'], root, {})).toThrow(Unreadable);
    expect(() => mvCpTargets('mv', ['-Q', 'a.txt', 'b.txt'], root, {})).toThrow(Unreadable);
    expect(mvcp('mv', '--', '-n', 'a.txt')).toEqual(['a.txt (entry)']);
    // POSIXLY_CORRECT: the first operand ends the options
    put('-n', 'a file named -n\n');
    expect(rel(mvCpTargets('cp', ['b.txt', '-n'], root, { POSIXLY_CORRECT: '1' }))).toEqual(['-n']);
    expect(rel(mvCpTargets('cp', ['b.txt', '-n'], root, {}))).toEqual([]);
  });
});

describe('truncate: the existing files a call shrinks', () => {
  const tr = (...args: string[]): string[] => rel(truncateTargets(args, root, {}));
  it('a smaller size shrinks; a missing or empty file loses nothing; growing sizes keep everything', () => {
    expect(tr('-s', '0', 'a.txt', 'missing', 'empty.txt')).toEqual(['a.txt']);
    expect(tr('-s', '+10', 'a.txt')).toEqual([]);
    expect(tr('--size=>10', 'a.txt')).toEqual([]);
    expect(tr('-s', '%4K', 'big.txt')).toEqual([]);
    expect(tr('-s', '/4K', 'big.txt')).toEqual(['big.txt']);
    expect(tr('-s', '<1K', 'big.txt')).toEqual(['big.txt']);
    expect(tr('-s', '-1', 'a.txt')).toEqual(['a.txt']);
    expect(tr('-s', '1M', 'big.txt')).toEqual([]);
    expect(tr('-s1KB', 'big.txt')).toEqual(['big.txt']);
    expect(tr('-r', 'a.txt', 'big.txt')).toEqual(['big.txt']);
    // A size it cannot read: kept as a shrink would need.
    expect(tr('-s', '1X', 'a.txt')).toEqual(['a.txt']);
  });
  it('reads SIZE as truncate does', () => {
    expect(parseSize('10K')).toEqual({ op: '', n: 10240 });
    expect(parseSize('2MB')).toEqual({ op: '', n: 2_000_000 });
    expect(parseSize('1KiB')).toEqual({ op: '', n: 1024 });
    expect(parseSize('<5')).toEqual({ op: '<', n: 5 });
    expect(parseSize('1X')).toBeNull();
  });
});

describe('rsync: the destination, and what a dry run lists', () => {
  it('finds the operands past options with values; quiet and output options are set aside for the listing', () => {
    const p = parseRsync(['-aq', '--exclude', 'x', '-e', 'ssh -q', '--info=progress2', 'src/', 'dst/', '--log-file', 'l']);
    expect(p.operands).toEqual(['src/', 'dst/']);
    expect([...p.output].sort()).toEqual([5, 8, 9]);
    expect(p.unquiet.get(0)).toBe('-a');
    expect(parseRsync(['-avn', 'a', 'b']).dryRun).toBe(true);
    expect(parseRsync(['--server', '-vlogDtpre.iLsfxC', '.', 'x']).passive).toBe(true);
  });
  it('remote operands', () => {
    expect(['host:dir', 'u@h:/x', 'h::mod', 'rsync://h/m'].map(rsyncRemote)).toEqual([true, true, true, true]);
    expect(['./a:b', '/abs:x', 'dir/'].map(rsyncRemote)).toEqual([false, false, false]);
  });
  it('maps the listing onto the destination: deletions and replaced files, not new ones or directories', () => {
    const listing = ['*deleting   dir/a.txt', '*deleting   dir/', '>f.st...... a.txt', '>f+++++++++ new.txt', '.f...p..... b.txt', 'cd+++++++++ sub/', 'sent 10 bytes', '*deleting   we\\#012ird'].join('\n');
    expect(rel(rsyncTargets(listing, '.', root))).toEqual(['a.txt (entry)', 'dir/a.txt (entry)', 'we\nird (entry)']);
    // a file destination: the one transfer lands on it
    expect(rel(rsyncTargets('>f..t...... one.txt', 'a.txt', root))).toEqual(['a.txt (entry)']);
  });
});
