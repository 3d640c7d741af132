// The cmd.exe dialect front end: facts, never decisions. Every row is a command line and the facts
// its ops must carry; nothing here runs a command.
import { describe, expect, it } from 'vitest';
import { classifyCmd } from '../../src/classifier/cmd/walk.js';
import type { ClassifyOptions } from '../../src/classifier/index.js';
import type { Op, OpKind, UndeterminableReason } from '../../src/classifier/types.js';
import { Rng } from '../helpers/fuzz-gen.js';

const opts: ClassifyOptions = { cwd: '/ws', home: '/home/u' };

interface Facts {
  kind?: OpKind;
  program?: string;
  recursive?: boolean;
  /** Target paths, in order. */
  targets?: (string | null)[];
  foreign?: ('drive-root' | 'drive-path' | 'unc' | undefined)[];
  glob?: boolean[];
  /** null: determinable. */
  reason?: UndeterminableReason | null;
  dryRun?: boolean;
  noTargets?: boolean;
  cwd?: string | null;
  cdBefore?: boolean;
  createBefore?: boolean;
  wrappers?: string[];
  argv?: string[];
  inner?: string;
}

interface Row {
  cmd: string;
  /** null: no op at all; an array: one entry per op, in order. */
  expect: Facts | Facts[] | null;
  commands?: number;
  unbalanced?: boolean;
  options?: ClassifyOptions;
}

function check(op: Op, f: Facts): void {
  if (f.kind !== undefined) expect(op.kind).toBe(f.kind);
  if (f.program !== undefined) expect(op.program).toBe(f.program);
  if (f.recursive !== undefined) expect(op.recursive).toBe(f.recursive);
  if (f.targets !== undefined) expect(op.targets.map((t) => t.path)).toEqual(f.targets);
  if (f.foreign !== undefined) expect(op.targets.map((t) => t.foreign)).toEqual(f.foreign);
  if (f.glob !== undefined) expect(op.targets.map((t) => t.glob)).toEqual(f.glob);
  if (f.reason !== undefined) expect(op.undeterminable?.reason ?? null).toBe(f.reason);
  if (f.dryRun !== undefined) expect(op.dryRun).toBe(f.dryRun);
  if (f.noTargets !== undefined) expect(op.noTargets).toBe(f.noTargets);
  if (f.cwd !== undefined) expect(op.cwd).toBe(f.cwd);
  if (f.cdBefore !== undefined) expect(op.cdBefore).toBe(f.cdBefore);
  if (f.createBefore !== undefined) expect(op.createBefore).toBe(f.createBefore);
  if (f.wrappers !== undefined) expect(op.wrappers).toEqual(f.wrappers);
  if (f.argv !== undefined) expect(op.argv).toEqual(f.argv);
  if (f.inner !== undefined) expect(op.inner).toBe(f.inner);
}

function table(rows: Row[]): void {
  it.each(rows.map((r) => [r.cmd, r] as const))('%j', (_, row) => {
    const c = classifyCmd(row.cmd, row.options ?? opts);
    const want = row.expect === null ? [] : Array.isArray(row.expect) ? row.expect : [row.expect];
    expect(c.ops.length, JSON.stringify(c.ops.map((o) => [o.program, o.kind, o.undeterminable?.reason]))).toBe(want.length);
    want.forEach((f, i) => check(c.ops[i]!, f));
    c.ops.forEach((o, i) => expect(o.index).toBe(i));
    if (row.commands !== undefined) expect(c.commandCount).toBe(row.commands);
    if (row.unbalanced !== undefined) expect(c.unbalanced).toBe(row.unbalanced);
  });
}

const del = (targets: string[], more: Facts = {}): Facts => ({ kind: 'fs-delete', program: 'del', targets, reason: null, ...more });

describe('lexing', () => {
  table([
    // separators, glued or not, and newlines (LF, CRLF)
    { cmd: 'del a&del b', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2 },
    { cmd: 'del a && del b', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2 },
    { cmd: 'del a||del b', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2 },
    { cmd: 'dir /b|del b', expect: [del(['/ws/b'])], commands: 2 },
    { cmd: 'del a\ndel b', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2 },
    { cmd: 'del a\r\ndel b\r\n', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2 },
    { cmd: 'echo x\r\n\r\nrd /s /q y', expect: { kind: 'fs-delete', program: 'rd', recursive: true, targets: ['/ws/y'] }, commands: 2 },
    // double quotes group, with no backslash escapes
    { cmd: 'del "a b"', expect: del(['/ws/a b']), commands: 1 },
    { cmd: 'del "a&b"', expect: del(['/ws/a&b']), commands: 1 },
    { cmd: 'del "a|b" c', expect: del(['/ws/a|b', '/ws/c']) },
    { cmd: 'del "a\\b"', expect: del(['/ws/a/b']), unbalanced: false },
    { cmd: 'del "dir\\" & del y', expect: [del(['/ws/dir']), del(['/ws/y'])], unbalanced: false, commands: 2 },
    { cmd: 'del "a"b"c"', expect: del(['/ws/abc']) },
    { cmd: 'del "a^b"', expect: del(['/ws/a^b']) },
    // ^ escapes the next character outside quotes, and continues the line at its end
    { cmd: 'del a^b', expect: del(['/ws/ab']) },
    { cmd: 'del a^&b', expect: del(['/ws/a&b']), commands: 1 },
    { cmd: 'del a ^& del b', expect: del(['/ws/a', '/ws/&', '/ws/del', '/ws/b']), commands: 1 },
    { cmd: 'del ^"a b^"', expect: del(['/ws/"a', '/ws/b"']), unbalanced: false },
    { cmd: 'del a^\nb', expect: del(['/ws/ab']), commands: 1 },
    { cmd: 'del a^\r\nb', expect: del(['/ws/ab']), commands: 1 },
    { cmd: 'del a ^\r\n b', expect: del(['/ws/a', '/ws/b']), commands: 1 },
    { cmd: 'echo hi^', expect: null, commands: 1 },
    // leading @ (and cmd's leading delimiters) are not part of the program
    { cmd: '@del x', expect: del(['/ws/x'], { argv: ['del', 'x'] }) },
    { cmd: '@ del x', expect: del(['/ws/x']) },
    { cmd: 'echo off & @rd /s x', expect: { kind: 'fs-delete', program: 'rd', recursive: true, targets: ['/ws/x'] } },
    { cmd: ';del x', expect: del(['/ws/x']) },
    // parentheses group blocks
    { cmd: '(del a) & (rd /s b)', expect: [del(['/ws/a']), { kind: 'fs-delete', program: 'rd', recursive: true, targets: ['/ws/b'] }], commands: 2 },
    { cmd: '(\r\ndel a\r\ndel b\r\n)', expect: [del(['/ws/a']), del(['/ws/b'])], commands: 2, unbalanced: false },
    { cmd: '(del "a)b")', expect: del(['/ws/a)b']) },
    { cmd: 'echo a) & del b', expect: del(['/ws/b']) },
    // redirections are not arguments
    { cmd: 'del a > out.txt', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del a>out.txt', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del a >> log 2>&1', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del a 2>nul', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del 1>log a', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del a <in.txt', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: '>log del a', expect: del(['/ws/a'], { argv: ['del', 'a'] }) },
    { cmd: 'del x1>log', expect: del(['/ws/x1'], { argv: ['del', 'x1'] }) },
    { cmd: 'del "a>b"', expect: del(['/ws/a>b']) },
    // an unterminated quote or block: cmd runs it, agent-guard fails closed when a destructive verb is there
    { cmd: 'del "x', expect: { kind: 'opaque', reason: 'unbalanced' }, unbalanced: true },
    { cmd: 'echo ok & del "a b', expect: { kind: 'opaque', reason: 'unbalanced' }, unbalanced: true },
    { cmd: 'echo "x\r\ndel y', expect: { kind: 'opaque', reason: 'unbalanced' }, unbalanced: true },
    { cmd: '(del a', expect: { kind: 'opaque', reason: 'unbalanced' }, unbalanced: true },
    { cmd: 'echo "hello', expect: null, unbalanced: true },
    { cmd: 'echo "a" "b"', expect: null, unbalanced: false },
  ]);
});

describe('variables', () => {
  table([
    { cmd: 'del %TEMP%\\x', expect: { kind: 'fs-delete', reason: 'variable', targets: [] } },
    { cmd: 'del "%TEMP%\\x"', expect: { kind: 'fs-delete', reason: 'variable', targets: [] } },
    { cmd: 'del %~dp0build', expect: { kind: 'fs-delete', reason: 'variable' } },
    { cmd: 'del %1', expect: { kind: 'fs-delete', reason: 'variable' } },
    { cmd: 'del %%f', expect: { kind: 'fs-delete', reason: 'variable' } },
    { cmd: 'del !X!', expect: { kind: 'fs-delete', reason: 'variable' } },
    { cmd: 'del %FLAGS% x', expect: { kind: 'fs-delete', reason: 'variable', recursive: false } },
    { cmd: 'rd %D% /s', expect: { kind: 'fs-delete', program: 'rd', reason: 'variable' } },
    { cmd: 'del 100%.txt', expect: del(['/ws/100%.txt']) },
    { cmd: 'del hi!', expect: del(['/ws/hi!']) },
    { cmd: 'echo %PATH%', expect: null },
    // a dynamic program word
    { cmd: '%RM% -rf x', expect: { kind: 'opaque', reason: 'dynamic-program' } },
    { cmd: '%~dp0\\rm.exe x', expect: { kind: 'opaque', reason: 'dynamic-program' } },
    { cmd: '!CMD! del x', expect: { kind: 'opaque', reason: 'dynamic-program' } },
    { cmd: '%DEL% x', expect: { kind: 'opaque', reason: 'dynamic-program' } },
    { cmd: '%~dp0\\build.bat release', expect: null },
    { cmd: '%X% /s /q y', expect: null }, // nothing in it names a destructive verb
    // cmd expands a variable before it splits commands: one set on the line to a destructive command
    { cmd: 'set X=del /s /q C:\\ & %X% y', expect: { kind: 'opaque', reason: 'variable' } },
    { cmd: 'set X=a^&rd /s /q x\r\necho %X%', expect: { kind: 'opaque', reason: 'variable', program: 'echo' } },
    { cmd: 'set "Y=rd /s" & call %y:~0,5% z', expect: { kind: 'opaque', reason: 'variable' } },
    { cmd: 'set X=del & cmd /c "%X% y"', expect: { kind: 'opaque', reason: 'variable' } },
    { cmd: 'set X=hello & echo %X%', expect: null },
    { cmd: 'set X=del & set X=ok & %X%', expect: null },
  ]);
});

describe('program lookup', () => {
  table([
    { cmd: 'DEL x', expect: { kind: 'fs-delete', program: 'del', targets: ['/ws/x'], argv: ['DEL', 'x'] } },
    { cmd: 'Del.exe x', expect: { kind: 'fs-delete', program: 'del' } },
    { cmd: 'ERASE x', expect: { kind: 'fs-delete', program: 'erase', targets: ['/ws/x'] } },
    { cmd: 'C:\\Windows\\System32\\cmd.exe /c del x', expect: { kind: 'indirect', program: 'cmd' } },
    { cmd: 'del/q x', expect: del(['/ws/x'], { argv: ['del', '/q', 'x'] }) },
    { cmd: 'rd/s/q x', expect: { kind: 'fs-delete', program: 'rd', recursive: true, targets: ['/ws/x'] } },
    { cmd: 'RMDIR /S x', expect: { kind: 'fs-delete', program: 'rmdir', recursive: true } },
    { cmd: 'delete x', expect: null },
    { cmd: 'deltree x', expect: null },
  ]);
});

describe('del / erase', () => {
  table([
    // del /s matches its operand in every subdirectory: more than the named path, known only when it runs.
    { cmd: 'del /s /q build\\out', expect: { kind: 'fs-delete', recursive: true, targets: ['/ws/build/out'], reason: 'recursive-match' } },
    { cmd: 'del /s /?', expect: { kind: 'fs-delete', dryRun: true, reason: null } },
    { cmd: 'del /f /q x', expect: del(['/ws/x'], { recursive: false }) },
    { cmd: 'del /s/q x', expect: del(['/ws/x'], { recursive: true, reason: 'recursive-match' }) },
    { cmd: 'del /F/Q x', expect: del(['/ws/x'], { recursive: false }) },
    { cmd: 'DEL /S /Q x', expect: del(['/ws/x'], { recursive: true, reason: 'recursive-match' }) },
    { cmd: 'del /p x', expect: del(['/ws/x']) },
    { cmd: 'del /a x', expect: del(['/ws/x']) },
    { cmd: 'del /a:h x', expect: del(['/ws/x']) },
    { cmd: 'del /ahs x', expect: del(['/ws/x']) },
    { cmd: 'del /A:-R /s x', expect: del(['/ws/x'], { recursive: true, reason: 'recursive-match' }) },
    { cmd: 'del x /s', expect: del(['/ws/x'], { recursive: true, reason: 'recursive-match' }) },
    { cmd: 'del x/s', expect: del(['/ws/x'], { recursive: true, reason: 'recursive-match' }) },
    { cmd: 'del /?', expect: { kind: 'fs-delete', dryRun: true, reason: null } },
    { cmd: 'erase /? x', expect: { kind: 'fs-delete', program: 'erase', dryRun: true } },
    { cmd: 'del /z x', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
    { cmd: 'del /sq x', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
    { cmd: 'del /az x', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
    { cmd: 'del x /', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
    { cmd: 'del build/out', expect: { kind: 'fs-delete', reason: 'unknown-option', targets: ['/ws/build'] } },
    { cmd: 'del "a/b"', expect: del(['/ws/a/b']) },
    { cmd: 'del *.o', expect: del(['/ws/*.o'], { glob: [true] }) },
    { cmd: 'del "*.o"', expect: del(['/ws/*.o'], { glob: [true] }) },
    { cmd: 'del a?.txt b.txt', expect: del(['/ws/a?.txt', '/ws/b.txt'], { glob: [true, false] }) },
    { cmd: 'del /s /q *.tmp', expect: del(['/ws/*.tmp'], { recursive: true, glob: [true], reason: 'recursive-match' }) },
    { cmd: 'del', expect: { kind: 'fs-delete', noTargets: true, reason: null } },
    { cmd: 'del /q', expect: { kind: 'fs-delete', noTargets: true } },
    { cmd: 'del ""', expect: { kind: 'fs-delete', noTargets: true } },
    { cmd: 'del a,b;c=d', expect: del(['/ws/a', '/ws/b', '/ws/c', '/ws/d']) },
    { cmd: 'del "a,b"', expect: del(['/ws/a,b']) },
    { cmd: 'del a b c', expect: del(['/ws/a', '/ws/b', '/ws/c'], { argv: ['del', 'a', 'b', 'c'] }) },
  ]);
});

describe('rd / rmdir', () => {
  const rd = (targets: string[], more: Facts = {}): Facts => ({ kind: 'fs-delete', program: 'rd', targets, reason: null, ...more });
  table([
    { cmd: 'rd /s /q x', expect: rd(['/ws/x'], { recursive: true }) },
    { cmd: 'rd /S /Q x', expect: rd(['/ws/x'], { recursive: true }) },
    { cmd: 'rmdir x', expect: { kind: 'fs-delete', program: 'rmdir', recursive: false, targets: ['/ws/x'], reason: null } },
    { cmd: 'rmdir /s x', expect: { kind: 'fs-delete', program: 'rmdir', recursive: true } },
    { cmd: 'rd /q x', expect: rd(['/ws/x'], { recursive: false }) },
    { cmd: 'rd /?', expect: rd([], { dryRun: true }) },
    { cmd: 'rd /f x', expect: { kind: 'fs-delete', program: 'rd', reason: 'unknown-option' } },
    { cmd: 'rd /a x', expect: { kind: 'fs-delete', program: 'rd', reason: 'unknown-option' } },
    { cmd: 'rd *', expect: rd(['/ws/*'], { glob: [true] }) },
    { cmd: 'rd "a?"', expect: rd(['/ws/a?'], { glob: [true] }) },
    { cmd: 'rd', expect: rd([], { noTargets: true }) },
    { cmd: 'rd a b', expect: rd(['/ws/a', '/ws/b']) },
  ]);
});

describe('targets', () => {
  table([
    { cmd: 'rd /s /q C:\\', expect: { kind: 'fs-delete', targets: ['C:/'], foreign: ['drive-root'], recursive: true } },
    { cmd: 'del D:', expect: { kind: 'fs-delete', targets: ['D:/'], foreign: ['drive-root'] } },
    { cmd: 'del /s c:\\*', expect: { kind: 'fs-delete', foreign: ['drive-path'], glob: [true] } },
    { cmd: 'del C:\\Users\\x', expect: { kind: 'fs-delete', targets: ['C:/Users/x'], foreign: ['drive-path'] } },
    { cmd: 'rd /s \\\\srv\\share', expect: { kind: 'fs-delete', targets: ['//srv/share'], foreign: ['unc'] } },
    { cmd: 'del \\\\?\\C:\\x', expect: { kind: 'fs-delete', foreign: ['unc'] } },
    { cmd: 'del ..\\x', expect: del(['/x'], { foreign: [undefined] }) },
    { cmd: 'del \\x', expect: del(['/x']) },
    { cmd: 'del sub\\..\\..\\..', expect: del(['/']) },
    { cmd: 'del ~\\x', expect: del(['/ws/~/x']) }, // cmd does not expand ~
    // Win32 drops trailing dots and spaces from path components
    { cmd: 'rd /s /q "C:\\ "', expect: { kind: 'fs-delete', targets: ['C:/'], foreign: ['drive-root'] } },
    { cmd: 'rd /s /q "C:\\."', expect: { kind: 'fs-delete', targets: ['C:/'], foreign: ['drive-root'] } },
    { cmd: 'del "x. "', expect: del(['/ws/x']) },
    { cmd: 'rd /s /q "sub\\.. "', expect: { kind: 'fs-delete', targets: ['/ws'] } },
    { cmd: 'del "..."', expect: del(['/']) }, // read as the parent: the wider reading
    { cmd: 'del "a. b"', expect: del(['/ws/a. b']) },
    { cmd: 'del *.', expect: del(['/ws/*'], { glob: [true] }) },
    { cmd: 'cd "sub. " & del x', expect: del(['/ws/sub/x']) },
  ]);
});

describe('cd shapes (F1)', () => {
  table([
    { cmd: 'cd sub & del x', expect: del(['/ws/sub/x'], { cwd: '/ws/sub', cdBefore: true }), commands: 2 },
    { cmd: 'cd sub && del x', expect: del(['/ws/sub/x'], { cdBefore: true }) },
    { cmd: 'cd .. & del x', expect: del(['/x'], { cwd: '/', cdBefore: true }) },
    { cmd: 'cd.. & del x', expect: del(['/x'], { cwd: '/', cdBefore: true }) },
    { cmd: 'cd\\ & del x', expect: del(['/x'], { cwd: '/' }) },
    { cmd: 'CD /D sub & del x', expect: del(['/ws/sub/x'], { cdBefore: true }) },
    { cmd: 'chdir sub\\deeper & del x', expect: del(['/ws/sub/deeper/x'], { cdBefore: true }) },
    { cmd: 'cd Program Files & del x', expect: del(['/ws/Program Files/x']) },
    { cmd: 'cd "my dir" & del x', expect: del(['/ws/my dir/x']) },
    { cmd: 'cd /d D:\\x & del y', expect: { kind: 'fs-delete', cwd: null, cdBefore: true, reason: 'unknown-cwd' } },
    { cmd: 'cd D:\\x & del y', expect: { kind: 'fs-delete', cwd: null, reason: 'unknown-cwd' } },
    { cmd: 'cd \\\\srv\\share & del y', expect: { kind: 'fs-delete', cwd: null, reason: 'unknown-cwd' } },
    { cmd: 'cd %X% & del y', expect: { kind: 'fs-delete', cwd: null, reason: 'unknown-cwd' } },
    { cmd: 'cd /d D:\\x & del C:\\y', expect: { kind: 'fs-delete', cwd: null, cdBefore: true, reason: null, foreign: ['drive-path'] } },
    { cmd: 'cd & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'cd /d & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'cd /? & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'del x & cd sub', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'pushd sub && del x && popd && del y', expect: [del(['/ws/sub/x'], { cdBefore: true }), del(['/ws/y'], { cwd: '/ws', cdBefore: true })] },
    { cmd: 'PUSHD a & pushd b & del x & popd & del y', expect: [del(['/ws/a/b/x']), del(['/ws/a/y'])] },
    { cmd: 'popd & del x', expect: { kind: 'fs-delete', cwd: null, cdBefore: true, reason: 'unknown-cwd' } },
    { cmd: 'pushd & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'pushd \\\\srv\\share & del x', expect: { kind: 'fs-delete', cwd: null, reason: 'unknown-cwd' } },
    { cmd: 'echo a | cd x & del y', expect: { kind: 'fs-delete', cwd: null, cdBefore: true } },
    { cmd: 'call cd sub & del x', expect: del(['/ws/sub/x'], { cdBefore: true }) },
    { cmd: 'start cd sub & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'cmd /c cd sub & del x', expect: del(['/ws/x'], { cdBefore: false }) },
    { cmd: 'if exist a (cd sub)\ndel y', expect: { kind: 'fs-delete', cwd: null, cdBefore: true } },
    { cmd: 'cd sub & git clean -fd', expect: { kind: 'git-clean', cdBefore: true, targets: ['/ws/sub'] } },
  ]);
});

describe('creation shapes (F2)', () => {
  const created = (cmd: string, yes: boolean): Row => ({ cmd, expect: del(['/ws/c'], { createBefore: yes }) });
  table([
    created('copy a b & del c', true),
    created('xcopy /e a b & del c', true),
    created('robocopy a b & del c', true),
    created('md d & del c', true),
    created('mkdir d & del c', true),
    created('MKLINK l t & del c', true),
    created('ren a b & del c', true),
    created('rename a b & del c', true),
    created('move a b & del c', true),
    created('echo hi > out.txt & del c', true),
    created('echo hi>out.txt&del c', true),
    created('echo hi >> log & del c', true),
    created('type a > b & del c', true),
    created('dir 2> err.txt & del c', true),
    created('> new.txt & del c', true),
    created('echo hi > %F% & del c', true),
    created('echo hi > nul & del c', false),
    created('echo hi >NUL & del c', false),
    created('dir 2>nul & del c', false),
    created('echo hi 2>&1 & del c', false),
    created('type a < b & del c', false),
    created('type a & del c', false),
    created('echo hi & del c', false),
    created('dir & del c', false),
    created('cmd /c "md x" & del c', true),
    created('call copy a b & del c', true),
    created('if exist a copy a b\ndel c', true),
    created('if a==a echo x > out\ndel c', true),
    created('if a==a echo x >nul\ndel c', false),
    { cmd: 'del c & copy a b', expect: del(['/ws/c'], { createBefore: false }) },
    { cmd: 'del x > log.txt & del c', expect: [del(['/ws/x'], { createBefore: false }), del(['/ws/c'], { createBefore: true })] },
  ]);
});

describe('nested shells', () => {
  table([
    { cmd: 'cmd /c "del a & del b"', expect: { kind: 'indirect', program: 'cmd', reason: 'indirect-shell', inner: 'del a & del b' }, commands: 1 },
    { cmd: 'cmd /c del a ^& del b', expect: { kind: 'indirect', inner: 'del a & del b' }, commands: 1 },
    { cmd: 'cmd /k del x', expect: { kind: 'indirect', reason: 'indirect-shell' } },
    { cmd: 'cmd /s /c "rd /s /q x"', expect: { kind: 'indirect', inner: 'rd /s /q x' } },
    { cmd: 'CMD.EXE /S/C "del x"', expect: { kind: 'indirect', program: 'cmd' } },
    { cmd: 'cmd /q /d /c del x', expect: { kind: 'indirect' } },
    { cmd: 'cmd /c del x & del y', expect: [{ kind: 'indirect' }, del(['/ws/y'])], commands: 2 },
    { cmd: 'cmd /c "cmd /c "del x""', expect: { kind: 'indirect', inner: 'cmd /c "del x"' } },
    { cmd: 'cmd /c echo hi', expect: null },
    { cmd: 'cmd /c "del /?"', expect: null },
    { cmd: 'cmd /c', expect: null },
    { cmd: 'cmd', expect: null },
    { cmd: 'cmd /c "echo "x"', expect: null },
    { cmd: 'cmd /c "del "x"', expect: { kind: 'opaque', reason: 'unbalanced' }, unbalanced: true },
    { cmd: 'cmd /c del ^"x', expect: { kind: 'indirect', reason: 'indirect-shell', inner: 'del "x' }, unbalanced: false },
    { cmd: 'cmd /c %SCRIPT%', expect: null },
    { cmd: 'cmd /c %X% -rf x', expect: { kind: 'indirect' } },
    { cmd: 'echo del x | cmd', expect: { kind: 'indirect', program: 'cmd', reason: 'indirect-shell' } },
    { cmd: 'cmd < script.txt & del x', expect: [{ kind: 'indirect', reason: 'source' }, del(['/ws/x'])] },
    { cmd: 'cmd /c '.repeat(12) + 'del x', expect: { kind: 'indirect', reason: 'indirect-shell' } },
    { cmd: 'cmd /c '.repeat(12) + 'echo x', expect: null },
    // PowerShell
    { cmd: 'powershell -Command "Remove-Item -Recurse x"', expect: { kind: 'indirect', program: 'powershell', reason: 'indirect-shell', inner: 'Remove-Item -Recurse x' } },
    { cmd: 'pwsh -c "rm x"', expect: { kind: 'indirect', program: 'pwsh' } },
    { cmd: 'pwsh.exe -NoProfile -NonInteractive -Command ri x', expect: { kind: 'indirect', inner: 'ri x' } },
    { cmd: 'powershell -NoProfile -ExecutionPolicy Bypass -Command "Get-ChildItem"', expect: null },
    { cmd: 'powershell -ExecutionPolicy Remove-Item -Command "Get-ChildItem"', expect: null },
    { cmd: 'powershell -EncodedCommand ZQBjAGgAbwA=', expect: { kind: 'indirect', reason: 'indirect-shell' } },
    { cmd: 'pwsh -e ZQBjAGgAbwA=', expect: { kind: 'indirect' } },
    { cmd: 'pwsh -ec ZQBjAGgAbwA=', expect: { kind: 'indirect' } },
    { cmd: 'powershell -enc ZQBjAGgAbwA=', expect: { kind: 'indirect' } },
    { cmd: 'powershell Remove-Item x', expect: { kind: 'indirect' } },
    { cmd: 'powershell -File x.ps1', expect: null },
    { cmd: 'powershell', expect: null },
    // POSIX shells and WSL
    { cmd: 'bash -c "rm -rf x"', expect: { kind: 'indirect', program: 'bash', reason: 'indirect-shell', inner: 'rm -rf x' } },
    { cmd: 'sh -c "git clean -fdx"', expect: { kind: 'indirect', program: 'sh' } },
    { cmd: 'bash -lc "rm x"', expect: { kind: 'indirect' } },
    { cmd: 'C:\\Git\\bin\\bash.exe -c "rm x"', expect: { kind: 'indirect', program: 'bash' } },
    { cmd: 'sh -c "ls -la"', expect: null },
    { cmd: 'bash script.sh', expect: null },
    { cmd: 'wsl rm -rf x', expect: { kind: 'indirect', program: 'wsl' } },
    { cmd: 'wsl -e bash -c "rm -rf ~"', expect: { kind: 'indirect', program: 'wsl' } },
    { cmd: 'wsl ls', expect: null },
    { cmd: 'echo rm -rf / | bash', expect: { kind: 'indirect', program: 'bash' } },
    // The shell list shared with the other readers (names.ts): cmd's own lacked these.
    ...['fish', 'mksh', 'yash', 'ash'].map((sh) => ({ cmd: `${sh} -c "rm -rf x"`, expect: { kind: 'indirect' as const, program: sh, reason: 'indirect-shell' as const, inner: 'rm -rf x' } })),
    // bash reads `-o NAME` from the next word wherever it sits in a cluster: the text is the word after.
    { cmd: 'bash -oc posix "rm -rf x"', expect: { kind: 'indirect', program: 'bash', inner: 'rm -rf x' } },
    // Wrappers (Windows' sudo, gsudo, a POSIX toolkit's on PATH) run what follows: judged by its smell.
    { cmd: 'sudo rm -rf x', expect: { kind: 'indirect', program: 'sudo', reason: 'indirect-shell', inner: 'rm -rf x' } },
    { cmd: 'gsudo rd /s /q build', expect: { kind: 'indirect', program: 'gsudo' } },
    { cmd: 'busybox rm -rf x', expect: { kind: 'indirect', program: 'busybox' } },
    { cmd: 'sudo dir', expect: null },
  ]);
});

describe('call, start, for, if, forfiles', () => {
  table([
    { cmd: 'call del x', expect: del(['/ws/x'], { wrappers: ['call'], argv: ['del', 'x'] }) },
    { cmd: 'call call rd /s x', expect: { kind: 'fs-delete', program: 'rd', recursive: true, wrappers: ['call', 'call'] } },
    { cmd: 'call :cleanup', expect: null },
    { cmd: 'call build.bat', expect: null },
    { cmd: 'start "" del x', expect: del(['/ws/x'], { wrappers: ['start'] }) },
    { cmd: 'start /b /wait rd /s /q x', expect: { kind: 'fs-delete', program: 'rd', recursive: true, wrappers: ['start'] } },
    { cmd: 'start "title" /d sub del x', expect: del(['/ws/sub/x'], { cwd: '/ws/sub', cdBefore: false }) },
    { cmd: 'start /dsub del x', expect: del(['/ws/sub/x']) },
    { cmd: 'start /d D:\\x del y', expect: { kind: 'fs-delete', cwd: null, reason: 'unknown-cwd' } },
    { cmd: 'start "" cmd /c "rd /s /q x"', expect: { kind: 'indirect', wrappers: ['start'] } },
    { cmd: 'start notepad', expect: null },
    { cmd: 'start', expect: null },
    { cmd: 'call '.repeat(20) + 'del x', expect: { kind: 'opaque', reason: 'depth-limit' } },
    { cmd: 'for %i in (*.tmp) do del %i', expect: { kind: 'opaque', program: 'for', reason: 'opaque-syntax' }, commands: 1 },
    { cmd: 'for /r %f in (*.o) do @del "%f"', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
    { cmd: 'FOR /D %d IN (*) DO rd /s /q "%d"', expect: { kind: 'opaque', program: 'for' } },
    { cmd: "for /f %i in ('dir /b') do echo %i", expect: null },
    { cmd: 'for %i in (a b) do echo %i & del y', expect: { kind: 'opaque', program: 'for' }, commands: 1 },
    { cmd: 'for %i in (a) do echo %i\ndel y', expect: del(['/ws/y']), commands: 2 },
    { cmd: 'if exist x del x', expect: { kind: 'opaque', program: 'if', reason: 'opaque-syntax' } },
    { cmd: 'if exist x (rd /s /q x) else (echo no)', expect: { kind: 'opaque', program: 'if' } },
    { cmd: 'IF /I "%A%"=="b" del x', expect: { kind: 'opaque', program: 'if' } },
    { cmd: 'if 1==1 echo hi', expect: null },
    { cmd: 'if errorlevel 1 (\r\n  echo fail\r\n) else (\r\n  echo ok\r\n)\r\ndel z', expect: del(['/ws/z']), unbalanced: false },
    { cmd: 'if exist a echo ^\r\ndel b', expect: { kind: 'opaque', program: 'if' }, commands: 1 },
    { cmd: '(if exist a del a) & del b', expect: [{ kind: 'opaque', program: 'if' }, del(['/ws/b'])] },
    { cmd: 'forfiles /p . /m *.log /c "cmd /c del @file"', expect: { kind: 'opaque', program: 'forfiles', reason: 'opaque-syntax' } },
    { cmd: 'forfiles /S /C "cmd /c rd /s /q @path"', expect: { kind: 'opaque', program: 'forfiles' } },
    { cmd: 'forfiles /m *.log /c "cmd /c echo @file"', expect: null },
    { cmd: 'forfiles /m *.log', expect: null },
  ]);
});

describe('git', () => {
  const withAlias: ClassifyOptions = { ...opts, resolveGitAlias: (name) => (name === 'nuke' ? 'clean -fdx' : name === 'lg' ? 'log --oneline' : null) };
  table([
    { cmd: 'git clean -fdx', expect: { kind: 'git-clean', program: 'git', recursive: true, reason: null, targets: ['/ws'] } },
    { cmd: 'GIT clean -n', expect: { kind: 'git-clean', dryRun: true } },
    { cmd: 'git.exe clean -fd', expect: { kind: 'git-clean' } },
    { cmd: 'git reset --hard', expect: { kind: 'git-reset-hard', reason: null } },
    { cmd: 'git reset --hard & del x', expect: [{ kind: 'git-reset-hard', reason: 'reset-not-standalone' }, del(['/ws/x'])] },
    { cmd: 'call git reset --hard', expect: { kind: 'git-reset-hard', reason: 'reset-not-standalone' } },
    { cmd: 'git push --force origin main', expect: { kind: 'git-push' } },
    { cmd: 'git status', expect: null },
    { cmd: 'git --version', expect: null },
    { cmd: 'git clean -fd %DIR%', expect: { kind: 'git-clean', reason: 'variable' } },
    { cmd: 'git %OPTS% clean -fd', expect: { kind: 'git-clean', reason: 'variable' } },
    { cmd: 'git -C sub\\x clean -fd', expect: { kind: 'git-clean', targets: ['/ws/sub/x'], reason: null } },
    { cmd: 'git -C D:\\repo clean -fd', expect: { kind: 'git-clean', reason: 'unknown-cwd' } },
    { cmd: 'set GIT_DIR=x & git clean -fd', expect: { kind: 'git-clean', reason: 'git-environment' } },
    { cmd: 'git -c core.pager="rm -rf x" log', expect: { kind: 'indirect', program: 'git' } },
    // An alias is read again as the git command it expands to (the same reader in every dialect).
    { cmd: 'git nuke', expect: { kind: 'git-clean', program: 'git', recursive: true, reason: null, targets: ['/ws'] }, options: withAlias },
    { cmd: 'git lg', expect: null, options: withAlias },
    { cmd: 'git unknownthing', expect: null, options: withAlias },
  ]);
});

describe('vocabulary floor', () => {
  const floor = (program: string): Facts => ({ kind: 'opaque', program, reason: 'foreign-verb' });
  table([
    { cmd: 'rm -rf .', expect: { ...floor('rm'), argv: ['rm', '-rf', '.'] } },
    { cmd: 'RM -rf x', expect: floor('rm') },
    { cmd: 'C:\\Git\\usr\\bin\\rm.exe -rf x', expect: floor('rm') },
    { cmd: 'Remove-Item x', expect: floor('remove-item') },
    { cmd: 'ri x', expect: floor('ri') },
    { cmd: 'shred f', expect: floor('shred') },
    { cmd: 'unlink f', expect: floor('unlink') },
    { cmd: 'call rm -rf x', expect: { ...floor('rm'), wrappers: ['call'] } },
    { cmd: 'RD /S /Q x', expect: { kind: 'fs-delete', program: 'rd', recursive: true, reason: null } },
    { cmd: 'Erase x', expect: { kind: 'fs-delete', program: 'erase', reason: null } },
    { cmd: 'rmdir /s /q x', expect: { kind: 'fs-delete', program: 'rmdir', reason: null } },
    { cmd: 'echo rm -rf x', expect: null },
  ]);
});

describe('counts and order', () => {
  table([
    { cmd: 'echo a & del x & rd y', expect: [del(['/ws/x']), { kind: 'fs-delete', program: 'rd' }], commands: 3 },
    { cmd: '', expect: null, commands: 0 },
    { cmd: '   \r\n  ', expect: null, commands: 0 },
    { cmd: 'echo a | find "b" | more', expect: null, commands: 3 },
    { cmd: 'if exist x del x & del y', expect: { kind: 'opaque', program: 'if' }, commands: 1 },
    { cmd: 'del a\ndel b\ndel c', expect: [del(['/ws/a']), del(['/ws/b']), del(['/ws/c'])], commands: 3 },
  ]);
  it('argv holds the words as the program receives them', () => {
    const op = classifyCmd('del /s "my file.txt" b^&c %X%', opts).ops[0]!;
    expect(op.argv).toEqual(['del', '/s', 'my file.txt', 'b&c', '%X%']);
  });
  it('an unknown working directory makes relative targets undeterminable, not absolute ones', () => {
    const c = classifyCmd('popd & del a & del \\\\srv\\s\\x', opts);
    expect(c.ops.map((o) => o.undeterminable?.reason ?? null)).toEqual(['unknown-cwd', null]);
    expect(c.ops[1]!.targets[0]!.foreign).toBe('unc');
  });
});

describe('robustness', () => {
  const ALPHABET = ['del', 'rd', 'cmd', '/c', '/s', '/q', 'cd', 'pushd', 'popd', 'if', 'for', 'do', 'call', 'start', 'git', 'clean', '-fdx', 'powershell', '-c', 'rm', ' ', ' ', ' ', '"', '^', '&', '|', '(', ')', '<', '>', '2>&1', '%', '!', '%X%', '\n', '\r\n', '\\', '/', ':', '@', ',', ';', '=', '*', '?', 'a', 'C:\\', '\\\\srv\\s', '..', '\u0000', '\uD800', 'é'];
  it('never throws on random text', () => {
    const rng = new Rng(20261202);
    for (let n = 0; n < 4000; n++) {
      const parts: string[] = [];
      const len = rng.int(40);
      for (let k = 0; k < len; k++) parts.push(rng.chance(0.1) ? String.fromCharCode(rng.int(0x3000)) : rng.pick(ALPHABET));
      const text = parts.join('');
      let c: ReturnType<typeof classifyCmd> | undefined;
      expect(() => (c = classifyCmd(text, opts)), JSON.stringify(text)).not.toThrow();
      expect(c!.commandCount).toBeGreaterThanOrEqual(0);
      c!.ops.forEach((o, i) => expect(o.index).toBe(i));
    }
  });
  it('fails closed when the git alias resolver throws', () => {
    const c = classifyCmd('git nuke & del x', {
      ...opts,
      resolveGitAlias: () => {
        throw new Error('boom');
      },
    });
    expect(c.ops.map((o) => [o.kind, o.undeterminable?.reason])).toEqual([['opaque', 'opaque-syntax']]);
  });
  it('reads a line without a home directory', () => {
    const c = classifyCmd('cd sub & del ~\\x', { cwd: '/ws', home: null });
    expect(c.ops[0]!.targets.map((t) => t.path)).toEqual(['/ws/sub/~/x']);
  });
  it('fails closed on random text that names a destructive verb with an unterminated quote', () => {
    const c = classifyCmd('echo "' + 'x '.repeat(5000) + 'del y', opts);
    expect(c.unbalanced).toBe(true);
    expect(c.ops.map((o) => o.undeterminable?.reason)).toEqual(['unbalanced']);
  });
  const N = 256 * 1024;
  const fill = (s: string): string => s.repeat(Math.ceil(N / s.length)).slice(0, N);
  it.each([
    ['parens', fill('(')],
    ['close parens', '(' + fill(')')],
    ['quotes', fill('"')],
    ['carets', fill('^')],
    ['nested cmd', fill('cmd /c ')],
    ['call', fill('call ') + 'del x'],
    ['if', fill('if ')],
    ['switches', 'del ' + fill('/s')],
    ['percent', fill('%')],
    ['separators', fill('del a&')],
    ['pushd', fill('pushd a & ')],
    ['long word', 'powershell -c -' + fill('r')],
    ['git words', 'bash -c "' + fill('git ')],
    ['random', Array.from({ length: N }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 95))).join('')],
  ])('256 KiB of %s in bounded time', (_, text) => {
    const t = Date.now();
    expect(() => classifyCmd(text, opts)).not.toThrow();
    expect(Date.now() - t).toBeLessThan(15_000);
  });
});
