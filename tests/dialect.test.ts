// The dialect selector and the pieces every dialect front end shares: Windows path operands and the
// vocabulary floor. (The cmd and PowerShell readers have their own tables in tests/classifier/; the
// decisions they lead to are in tests/policy/dialects.test.ts.)
import { describe, expect, it } from 'vitest';
import { chooseDialect, parseDialect } from '../src/dialect.js';
import { windowsTarget } from '../src/classifier/winpath.js';
import { isFloorVerb, verbKey } from '../src/classifier/vocabulary.js';

describe('selector', () => {
  it.each([
    ['posix', 'posix'],
    ['sh', 'posix'],
    ['bash', 'posix'],
    ['zsh', 'posix'],
    [' Bash ', 'posix'],
    ['ZSH', 'posix'],
    ['cmd', 'cmd'],
    ['cmd.exe', 'cmd'],
    ['CMD.EXE', 'cmd'],
    ['batch', 'cmd'],
    ['bat', 'cmd'],
    ['powershell', 'powershell'],
    ['PowerShell', 'powershell'],
    ['pwsh', 'powershell'],
    ['ps', 'powershell'],
    ['\tps\n', 'powershell'],
  ])('%j names %s', (raw, dialect) => {
    expect(parseDialect(raw)).toEqual({ ok: true, dialect });
  });

  it.each([
    ['fish', 'BLOCK_DIALECT_UNKNOWN'],
    ['nushell', 'BLOCK_DIALECT_UNKNOWN'],
    ['constructor', 'BLOCK_DIALECT_UNKNOWN'],
    ['__proto__', 'BLOCK_DIALECT_INVALID'],
    ['posix:cmd', 'BLOCK_DIALECT_INVALID'],
    ['bash,cmd', 'BLOCK_DIALECT_INVALID'],
    ['bash zsh', 'BLOCK_DIALECT_INVALID'],
    ['', 'BLOCK_DIALECT_INVALID'],
    ['   ', 'BLOCK_DIALECT_INVALID'],
    ['pwsh;rm', 'BLOCK_DIALECT_INVALID'],
  ])('%j is refused with %s', (raw, code) => {
    expect(parseDialect(raw)).toMatchObject({ ok: false, code });
  });

  it.each([[['posix']], [['posix', 'cmd']], [42], [null], [true], [{ name: 'posix' }]])('a non-string selector from a payload (%j) is malformed', (raw) => {
    expect(parseDialect(raw)).toMatchObject({ ok: false, code: 'BLOCK_DIALECT_INVALID' });
  });

  it('the flag (or a payload field) wins over AGENT_GUARD_DIALECT; an empty variable counts as unset; neither: posix', () => {
    expect(chooseDialect('cmd', 'powershell')).toEqual({ ok: true, dialect: 'cmd' });
    expect(chooseDialect(undefined, 'pwsh')).toEqual({ ok: true, dialect: 'powershell' });
    expect(chooseDialect(undefined, '')).toEqual({ ok: true, dialect: 'posix' });
    expect(chooseDialect(undefined, undefined)).toEqual({ ok: true, dialect: 'posix' });
    expect(chooseDialect('fish', 'posix')).toMatchObject({ ok: false, code: 'BLOCK_DIALECT_UNKNOWN' });
    expect(chooseDialect(undefined, 'posix:cmd')).toMatchObject({ ok: false, code: 'BLOCK_DIALECT_INVALID' });
    expect(chooseDialect(null, 'posix')).toMatchObject({ ok: false, code: 'BLOCK_DIALECT_INVALID' });
  });
});

describe('Windows path operands', () => {
  const cwd = '/ws';
  const at = (raw: string, opts: { tilde?: boolean; glob?: boolean; cwd?: string | null } = {}) =>
    windowsTarget(raw, opts.cwd === undefined ? cwd : opts.cwd, { tilde: opts.tilde ?? false, home: '/home/u', glob: opts.glob ?? false });

  it.each([
    ['C:\\', 'drive-root', 'C:/'],
    ['c:', 'drive-root', 'C:/'],
    ['D:/', 'drive-root', 'D:/'],
    ['C:\\.', 'drive-root', 'C:/'],
    ['C:\\Windows\\..', 'drive-root', 'C:/'],
    ['C:\\Users\\me\\proj', 'drive-path', 'C:/Users/me/proj'],
    ['c:x', 'drive-path', 'C:/x'],
    ['\\\\server\\share\\dir', 'unc', '//server/share/dir'],
    ['//server/share', 'unc', '//server/share'],
    ['\\\\?\\C:\\x', 'unc', '//?/C:/x'],
  ])('%j is foreign (%s) at %s', (raw, foreign, p) => {
    expect(at(raw)).toMatchObject({ raw, foreign, path: p });
  });

  it.each([
    ['build\\out', '/ws/build/out'],
    ['.\\build', '/ws/build'],
    ['..\\other', '/other'],
    ['build/out/', '/ws/build/out'],
    ['\\etc', '/etc'],
    ['\\', '/'],
  ])('%j reads with \\ as a separator: %s', (raw, p) => {
    const t = at(raw);
    expect(t).toMatchObject({ raw, path: p });
    expect('foreign' in t && t.foreign !== undefined).toBe(false);
  });

  it('~ is the home directory only where the dialect expands it', () => {
    expect(at('~\\x', { tilde: true })).toMatchObject({ path: '/home/u/x' });
    expect(at('~\\x')).toMatchObject({ path: '/ws/~/x' });
    expect(windowsTarget('~', '/ws', { tilde: true, home: null, glob: false })).toMatchObject({ reason: 'variable' });
  });

  it('a relative operand after an unknown cd cannot be placed; a pattern stays a pattern', () => {
    expect(at('build', { cwd: null })).toMatchObject({ reason: 'unknown-cwd' });
    expect(at('C:\\x', { cwd: null })).toMatchObject({ foreign: 'drive-path' });
    expect(at('*.o', { glob: true })).toMatchObject({ glob: true, path: '/ws/*.o' });
  });
});

describe('the vocabulary floor', () => {
  it.each([
    ['RM', 'posix', true],
    ['Rm', 'posix', true],
    ['DEL', 'posix', true],
    ['erase', 'posix', true],
    ['rd', 'posix', true],
    ['Remove-Item', 'posix', true],
    ['/usr/bin/SHRED', 'posix', true],
    ['ri', 'posix', false], // Ruby's documentation browser
    ['ri', 'powershell', true],
    ['ri', 'cmd', true],
    ['rm', 'cmd', true],
    ['C:\\tools\\rm.exe', 'cmd', true],
    ['del', 'powershell', true],
    ['ls', 'posix', false],
    ['delete-me', 'posix', false],
    ['git', 'cmd', false],
  ])('%j under %s: %s', (word, dialect, floor) => {
    expect(isFloorVerb(word, dialect as 'posix' | 'cmd' | 'powershell')).toBe(floor);
  });

  it('reduces a program word to what a case-insensitive lookup finds', () => {
    expect(verbKey('C:\\Windows\\System32\\DEL.EXE')).toBe('del');
    expect(verbKey('/bin/Rm')).toBe('rm');
    expect(verbKey('Remove-Item')).toBe('remove-item');
  });
});
