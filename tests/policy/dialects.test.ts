// Whole cmd and PowerShell command lines through their front end → probe → policy, in the fixture
// workspace (tests/helpers/fixture.ts): the effect decides, the spelling is only a front end. Each
// row asserts a decision and a reason code. (The readers' own facts are tabled in
// tests/classifier/cmd.test.ts and powershell.test.ts; the selector in tests/dialect.test.ts.)
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import type { Decision, ReasonCode } from '../../src/policy/reasons.js';

const fixture = useFixture();

type Row = [cmd: string, decision: Decision, code: ReasonCode, cwd?: string];

function table(dialect: string, rows: readonly Row[]): void {
  it.each(rows.map((r) => [JSON.stringify(r[0]) + (r[3] ? ` in ${r[3]}` : ''), r] as const))('%s', (_l, [cmd, decision, code, cwd]) => {
    const r = fixture().decide(cmd, { dialect, ...(cwd ? { cwd } : {}) });
    expect({ decision: r.decision, code: r.code, dialect: r.dialect }).toEqual({ decision, code, dialect });
  });
}

describe('cmd', () => {
  describe('del / erase', () => {
    table('cmd', [
      ['del untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['erase /f /q untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['DEL /F /Q untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      // del /s deletes what matches its operand in every subdirectory: not just the named path.
      ['del /s /q build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del /s/q build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del/s/q untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del /s /?', 'ALLOW', 'ALLOW_NOOP'],
      ['del build\\out.js', 'RELOCATE', 'RELOCATE_PATHS'],
      ['del "build\\out.js"', 'RELOCATE', 'RELOCATE_PATHS'],
      ['del /?', 'ALLOW', 'ALLOW_NOOP'],
      ['del', 'ALLOW', 'ALLOW_NOOP'],
      ['del /z untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del *.log', 'BLOCK', 'BLOCK_WILDCARD'],
      ['del "*.log"', 'BLOCK', 'BLOCK_WILDCARD'],
      ['del /s build\\*.js', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del build\\*.js', 'BLOCK', 'BLOCK_WILDCARD'],
      ['del %TEMP%\\x', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del !X!', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['del .git\\config', 'BLOCK', 'BLOCK_PROTECTED_PATH'],
      ['del /q .', 'BLOCK', 'BLOCK_PROTECTED_PATH'],
      ['del ..\\other\\x', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      // The fixture lives in /tmp: outside/ beside HOME is in a scratch zone (docs/zones.md).
      ['del ..\\..\\outside\\canary.txt', 'RELOCATE', 'RELOCATE_SCRATCH'],
      ['del .git\\index.lock', 'RELOCATE', 'RELOCATE_GIT_LOCK'],
      ['del .agent-trash\\tx-1\\file', 'ALLOW', 'ALLOW_TRASH_GC'],
    ]);
  });

  describe('rd / rmdir', () => {
    table('cmd', [
      ['rd /s /q build', 'RELOCATE', 'RELOCATE_TREE'],
      ['RMDIR /S /Q build', 'RELOCATE', 'RELOCATE_TREE'],
      ['rmdir empty', 'RELOCATE', 'RELOCATE_PATHS'],
      ['rd /q empty', 'RELOCATE', 'RELOCATE_PATHS'],
      ['rd /?', 'ALLOW', 'ALLOW_NOOP'],
      ['rd /x build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['rd /s /q .git', 'BLOCK', 'BLOCK_PROTECTED_PATH'],
      ['rd /s /q .agent-trash', 'BLOCK', 'BLOCK_PROTECTED_PATH'],
    ]);
  });

  describe('Windows targets: drive roots, drive paths, UNC', () => {
    table('cmd', [
      ['rd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['rd /s /q D:', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['rd /s /q c:\\.', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['del /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['rd /s /q C:\\Users\\me\\project', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['del \\\\server\\share\\file.txt', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['rd /s /q \\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['del untracked.txt C:\\x', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
    ]);
  });

  describe('lexing: quotes, ^, separators glued to words', () => {
    table('cmd', [
      ['echo del x', 'ALLOW', 'ALLOW_NOOP'],
      ['echo x^& del untracked.txt', 'ALLOW', 'ALLOW_NOOP'],
      ['echo "x & del untracked.txt"', 'ALLOW', 'ALLOW_NOOP'],
      ['dir&del untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['dir&&rd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['dir||rd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['dir|rd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['dir\r\nrd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['r^d /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['del "untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ]);
  });

  describe('compound shapes with cmd vocabulary', () => {
    table('cmd', [
      ['cd src & del a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['chdir src && rd /s /q build', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['pushd src & del a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['cd /d C:\\x & del a.ts', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['copy a b & del untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['md out & rd /s /q out', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['echo x > new.txt & del untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['echo x > nul & del untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['move a b && del untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['cd src & rd /s /q C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
    ]);
  });

  describe('nested shells, loops and git', () => {
    table('cmd', [
      ['cmd /c "del untracked.txt"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['cmd /c "dir"', 'ALLOW', 'ALLOW_NOOP'],
      ['powershell -Command "Remove-Item x"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['for %f in (*.log) do del %f', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['git push --force', 'BLOCK', 'BLOCK_FORCE_PUSH'],
      ['git clean -n', 'ALLOW', 'ALLOW_NOOP'],
      ['git status', 'ALLOW', 'ALLOW_NOOP'],
    ]);
  });

  describe('the vocabulary floor', () => {
    table('cmd', [
      ['rm -rf .', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['rm untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['C:\\tools\\rm.exe -rf build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ]);
  });
});

describe('cmd: RESTRICTED mode', () => {
  it.each([
    ['rd empty', 'RELOCATE', 'RELOCATE_NARROW'],
    ['rmdir empty', 'RELOCATE', 'RELOCATE_NARROW'],
    ['rd /s /q empty', 'BLOCK', 'BLOCK_RESTRICTED_MODE'],
    ['rd build', 'BLOCK', 'BLOCK_RESTRICTED_MODE'],
    ['del untracked.txt', 'RELOCATE', 'RELOCATE_NARROW'],
  ] as const)('%j', (cmd, decision, code) => {
    const r = fixture().decide(cmd, { dialect: 'cmd', mode: 'RESTRICTED' });
    expect({ decision: r.decision, code: r.code }).toEqual({ decision, code });
  });
});

describe('powershell', () => {
  describe('Remove-Item and its aliases', () => {
    table('powershell', [
      ['Remove-Item untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item -Path untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item -Recurse -Force build', 'RELOCATE', 'RELOCATE_TREE'],
      ['REMOVE-ITEM -RECURSE build', 'RELOCATE', 'RELOCATE_TREE'],
      ['Microsoft.PowerShell.Management\\Remove-Item -Recurse build', 'RELOCATE', 'RELOCATE_TREE'],
      ['rm -r build', 'RELOCATE', 'RELOCATE_TREE'],
      ['ri -rec build', 'RELOCATE', 'RELOCATE_TREE'],
      ['rd -Recurse build', 'RELOCATE', 'RELOCATE_TREE'],
      ['rmdir empty', 'RELOCATE', 'RELOCATE_PATHS'],
      ['del untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['erase -fo untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item untracked.txt, debug.log', 'RELOCATE', 'RELOCATE_PATHS'],
      ["Remove-Item 'build\\out.js'", 'RELOCATE', 'RELOCATE_PATHS'],
    ]);
  });

  describe('parameters: prefixes by effect, switch values, dry run', () => {
    table('powershell', [
      ['Remove-Item -wi build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -c build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -p build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -f build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['rm -rf .', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -WhatIf -Recurse build', 'ALLOW', 'ALLOW_NOOP'],
      ['Remove-Item -WhatIf:$false untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item -Recurse:$false build', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item -Recurse:$true build', 'RELOCATE', 'RELOCATE_TREE'],
      ['Remove-Item -Recurse:1 build', 'RELOCATE', 'RELOCATE_TREE'],
      ['Remove-Item -Recurse:$r build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -Confirm untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item -Confirm:$false untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item -LiteralPath untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item build -Include *.js', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item build -Exclude *.js', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item build -Filter *.js', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ]);
  });

  describe('quoting, variables, pipelines, wildcards', () => {
    table('powershell', [
      ["Remove-Item 'it''s'", 'RELOCATE', 'RELOCATE_PATHS'],
      ['Remove-Item "$HOME\\x"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item $env:TEMP\\x', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item "`$literal"', 'RELOCATE', 'RELOCATE_PATHS'],
      ["Remove-Item '$literal'", 'RELOCATE', 'RELOCATE_PATHS'],
      ['Get-ChildItem *.log | Remove-Item', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Get-ChildItem | ForEach-Object { Remove-Item $_ }', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Remove-Item *.log', 'BLOCK', 'BLOCK_WILDCARD'],
      ["Remove-Item 'build\\*'", 'BLOCK', 'BLOCK_WILDCARD'],
      ['Write-Output "Remove-Item x"', 'ALLOW', 'ALLOW_NOOP'],
      ['# Remove-Item -Recurse C:\\', 'ALLOW', 'ALLOW_NOOP'],
      ["Remove-Item 'untracked.txt", 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ]);
  });

  describe('Windows targets', () => {
    table('powershell', [
      ['Remove-Item -Recurse C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['ri D:', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['Remove-Item -Recurse C:\\Users\\me', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['Remove-Item \\\\srv\\share\\x', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['Remove-Item -Recurse ~', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
      ['Remove-Item ~\\other', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['Remove-Item ..\\..\\outside', 'RELOCATE', 'RELOCATE_SCRATCH'],
      ['Remove-Item -Recurse ..\\..', 'BLOCK', 'BLOCK_OUT_OF_WORKSPACE'],
      ['Remove-Item -Recurse .git', 'BLOCK', 'BLOCK_PROTECTED_PATH'],
    ]);
  });

  describe('compound shapes with PowerShell vocabulary', () => {
    table('powershell', [
      ['cd src; Remove-Item a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['Set-Location src; Remove-Item a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['sl src; Remove-Item a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['Push-Location src; Remove-Item a.ts', 'ASK', 'COMPOUND_CWD_DELETE'],
      ['New-Item x.txt; Remove-Item untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['Copy-Item a b; Remove-Item untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['echo x > new.txt; Remove-Item untracked.txt', 'ASK', 'COMPOUND_CREATE_DELETE'],
      ['echo x > $null; Remove-Item untracked.txt', 'RELOCATE', 'RELOCATE_PATHS'],
      ['cd src; Remove-Item -Recurse C:\\', 'BLOCK', 'BLOCK_PROTECTED_ANCESTOR'],
    ]);
  });

  describe('nested shells, git, the floor', () => {
    table('powershell', [
      ['pwsh -Command "Remove-Item untracked.txt"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['powershell -EncodedCommand SQBFAFgA', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['pwsh -Command "Get-ChildItem"', 'ALLOW', 'ALLOW_NOOP'],
      ['Invoke-Expression "Remove-Item x"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['cmd /c "del x"', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['git push --force origin main', 'BLOCK', 'BLOCK_FORCE_PUSH'],
      ['git status', 'ALLOW', 'ALLOW_NOOP'],
      ['shred untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['unlink untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
      ['Get-ChildItem', 'ALLOW', 'ALLOW_NOOP'],
    ]);
  });
});

describe('posix: the vocabulary floor', () => {
  table('posix', [
    ['DEL a.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['RM -rf build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['Rm untracked.txt', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['Remove-Item -Recurse build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['rd /s /q build', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['ls | xargs RM', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['sudo ERASE x', 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT'],
    ['echo del', 'ALLOW', 'ALLOW_NOOP'],
    ['ri Array', 'ALLOW', 'ALLOW_NOOP'],
    ['rm -rf build', 'RELOCATE', 'RELOCATE_TREE'],
  ]);
});
