// The PowerShell front end: a PowerShell command line in, the POSIX classifier's facts out.
// Table-driven; each row asserts facts (kinds, targets, reasons), never message text.
import { describe, expect, it } from 'vitest';
import { classifyPowerShell } from '../../src/classifier/powershell/walk.js';
import type { Op, UndeterminableReason } from '../../src/classifier/types.js';

const opts = { cwd: '/ws', home: '/home/u' };

interface Expect {
  /** Number of ops (default 1; 0 for "no op"). */
  ops?: number;
  /** Which op the facts below describe (default: the last one). */
  at?: number;
  kind?: Op['kind'];
  program?: string;
  recursive?: boolean;
  dryRun?: boolean;
  noTargets?: boolean;
  /** Target paths in order. */
  targets?: (string | null)[];
  glob?: boolean[];
  foreign?: (string | undefined)[];
  /** null: no undeterminable. */
  reason?: UndeterminableReason | null;
  cdBefore?: boolean;
  createBefore?: boolean;
  cwd?: string | null;
  argv?: string[];
  commandCount?: number;
  unbalanced?: boolean;
}

interface Row {
  cmd: string;
  expect: Expect;
}

function check({ cmd, expect: e }: Row): void {
  const c = classifyPowerShell(cmd, opts);
  expect(c.ops.length, `ops of ${JSON.stringify(cmd)}: ${JSON.stringify(c.ops.map((o) => [o.kind, o.undeterminable?.reason]))}`).toBe(e.ops ?? 1);
  c.ops.forEach((o, i) => expect(o.index).toBe(i));
  if (e.commandCount !== undefined) expect(c.commandCount).toBe(e.commandCount);
  if (e.unbalanced !== undefined) expect(c.unbalanced).toBe(e.unbalanced);
  if ((e.ops ?? 1) === 0) return;
  const o = c.ops[e.at ?? c.ops.length - 1]!;
  if (e.kind !== undefined) expect(o.kind).toBe(e.kind);
  if (e.program !== undefined) expect(o.program).toBe(e.program);
  if (e.recursive !== undefined) expect(o.recursive).toBe(e.recursive);
  if (e.dryRun !== undefined) expect(o.dryRun).toBe(e.dryRun);
  if (e.noTargets !== undefined) expect(o.noTargets).toBe(e.noTargets);
  if (e.targets !== undefined) expect(o.targets.map((t) => t.path)).toEqual(e.targets);
  if (e.glob !== undefined) expect(o.targets.map((t) => t.glob)).toEqual(e.glob);
  if (e.foreign !== undefined) expect(o.targets.map((t) => t.foreign)).toEqual(e.foreign);
  if (e.reason !== undefined) expect(o.undeterminable?.reason ?? null).toBe(e.reason);
  if (e.cdBefore !== undefined) expect(o.cdBefore).toBe(e.cdBefore);
  if (e.createBefore !== undefined) expect(o.createBefore).toBe(e.createBefore);
  if (e.cwd !== undefined) expect(o.cwd).toBe(e.cwd);
  if (e.argv !== undefined) expect(o.argv).toEqual(e.argv);
}

const table = (name: string, rows: Row[]): void => {
  describe(name, () => {
    it.each(rows)('$cmd', (row) => check(row));
  });
};

table('Remove-Item and its aliases', [
  { cmd: 'Remove-Item -Recurse -Force build\\out', expect: { kind: 'fs-delete', program: 'Remove-Item', recursive: true, targets: ['/ws/build/out'], reason: null } },
  { cmd: 'Remove-Item build', expect: { kind: 'fs-delete', recursive: false, targets: ['/ws/build'], reason: null, argv: ['Remove-Item', 'build'] } },
  { cmd: 'REMOVE-ITEM x', expect: { kind: 'fs-delete', program: 'Remove-Item', targets: ['/ws/x'], reason: null } },
  { cmd: 'remove-item x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'Rm x', expect: { kind: 'fs-delete', program: 'Remove-Item', targets: ['/ws/x'], argv: ['Rm', 'x'] } },
  { cmd: 'RM x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'ri x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'RD x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'rmdir x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'Del x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'ERASE x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'Microsoft.PowerShell.Management\\Remove-Item x', expect: { kind: 'fs-delete', program: 'Remove-Item', targets: ['/ws/x'] } },
  { cmd: '& rm x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: "& 'Remove-Item' x", expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'Remove-Item src\\..\\lib', expect: { kind: 'fs-delete', targets: ['/ws/lib'] } },
  { cmd: 'Remove-Item /ws/a/b', expect: { kind: 'fs-delete', targets: ['/ws/a/b'] } },
  { cmd: 'Remove-Item ~\\notes', expect: { kind: 'fs-delete', targets: ['/home/u/notes'] } },
  { cmd: 'Remove-Item ~', expect: { kind: 'fs-delete', targets: ['/home/u'] } },
  { cmd: 'Remove-Item .', expect: { kind: 'fs-delete', targets: ['/ws'] } },
  { cmd: 'Remove-Item', expect: { kind: 'fs-delete', noTargets: true, reason: null } },
  { cmd: "Remove-Item ''", expect: { kind: 'fs-delete', noTargets: true, targets: [] } },
  { cmd: 'Remove-Item -?', expect: { kind: 'fs-delete', dryRun: true } },
  { cmd: 'Remove-Item -- -x', expect: { kind: 'fs-delete', targets: ['/ws/-x'], reason: null } },
  { cmd: "Remove-Item '-Recurse'", expect: { kind: 'fs-delete', recursive: false, targets: ['/ws/-Recurse'] } },
  { cmd: 'Remove-Item a b', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item -Path a b', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item x -Stream Zone.Identifier', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item x -Credential $c', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item HKCU:\\Software\\x', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item Env:\\FOO', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'Remove-Item Microsoft.PowerShell.Core\\FileSystem::C:\\x', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'rm.exe -rf x', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: 'C:\\tools\\rm.exe x', expect: { kind: 'opaque', reason: 'foreign-verb' } },
]);

table('quoting and escapes', [
  { cmd: "Remove-Item 'my dir'", expect: { targets: ['/ws/my dir'], reason: null } },
  { cmd: "Remove-Item 'it''s'", expect: { targets: ["/ws/it's"], reason: null } },
  { cmd: "Remove-Item 'a`b'", expect: { targets: ['/ws/a`b'], reason: null } },
  { cmd: "Remove-Item '$x'", expect: { targets: ['/ws/$x'], reason: null } },
  { cmd: 'Remove-Item "my dir"', expect: { targets: ['/ws/my dir'], reason: null } },
  { cmd: 'Remove-Item "a`"b"', expect: { targets: ['/ws/a"b'], reason: null } },
  { cmd: 'Remove-Item "a""b"', expect: { targets: ['/ws/a"b'], reason: null } },
  { cmd: 'Remove-Item "a`$b"', expect: { targets: ['/ws/a$b'], reason: null } },
  { cmd: 'Remove-Item "a`tb"', expect: { targets: ['/ws/a\tb'], reason: null } },
  { cmd: 'Remove-Item "cost $"', expect: { targets: ['/ws/cost $'], reason: null } },
  { cmd: 'Remove-Item "$x"', expect: { targets: [], reason: 'variable' } },
  { cmd: 'Remove-Item "$env:TEMP\\x"', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item "${x}\\y"', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item "$(Get-Location)\\y"', expect: { reason: 'substitution' } },
  { cmd: 'Remove-Item $x', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item $env:TEMP\\x', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item $(Get-Item x)', expect: { reason: 'substitution' } },
  { cmd: 'Remove-Item @(Get-Item x)', expect: { reason: 'substitution' } },
  { cmd: 'Remove-Item (Get-ChildItem *.log)', expect: { reason: 'substitution' } },
  { cmd: 'Remove-Item @params', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item a` b', expect: { targets: ['/ws/a b'], reason: null } },
  { cmd: 'Remove-Item a`$b', expect: { targets: ['/ws/a$b'], reason: null } },
  { cmd: 'Remove-Item a"b c"d', expect: { targets: ['/ws/ab cd'], reason: null } },
  { cmd: 'Remove-Item \u2018smart\u2019', expect: { targets: ['/ws/smart'], reason: null } },
  { cmd: 'Remove-Item \u201Csmart $x\u201D', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item a#b', expect: { targets: ['/ws/a#b'] } },
  { cmd: "iex @'\nRemove-Item x\n'@", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'iex @"\nRemove-Item $(Get-X)\n"@', expect: { ops: 2, kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'Write-Output @"\n$(Remove-Item x)\n"@', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Write-Output @"\nhello $name\n"@', expect: { ops: 0 } },
  { cmd: 'Remove-Item @"\nunterminated', expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'Remove-Item --% a b', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: "Remove-Item 'unterminated", expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'Remove-Item "unterminated', expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'Remove-Item $(Get-Item x', expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'echo "unterminated', expect: { ops: 0, unbalanced: true } },
]);

table('separators, comments, continuation', [
  { cmd: 'echo a; Remove-Item b', expect: { targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'echo a\nRemove-Item b', expect: { targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'echo a\r\nRemove-Item b', expect: { targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'Test-Path a && Remove-Item b', expect: { targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'Test-Path a || Remove-Item b', expect: { targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'Remove-Item a; Remove-Item b', expect: { ops: 2, at: 1, targets: ['/ws/b'], commandCount: 2 } },
  { cmd: 'Remove-Item b &', expect: { targets: ['/ws/b'] } },
  { cmd: '# Remove-Item x', expect: { ops: 0, commandCount: 0 } },
  { cmd: 'echo hi # Remove-Item x', expect: { ops: 0, commandCount: 1 } },
  { cmd: '<# Remove-Item x #> echo hi', expect: { ops: 0, commandCount: 1 } },
  { cmd: '<# note #> Remove-Item x', expect: { targets: ['/ws/x'] } },
  { cmd: '<# unterminated Remove-Item x', expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'Remove-Item `\n  -Recurse x', expect: { recursive: true, targets: ['/ws/x'], commandCount: 1 } },
  { cmd: 'Remove-Item `\r\n  -Recurse x', expect: { recursive: true, targets: ['/ws/x'], commandCount: 1 } },
  { cmd: 'Get-ChildItem |\n  Remove-Item', expect: { reason: 'stdin-fed', commandCount: 2 } },
  { cmd: 'Get-ChildItem\n| Remove-Item', expect: { reason: 'stdin-fed', commandCount: 2 } },
  { cmd: '$x = Remove-Item a', expect: { kind: 'fs-delete', targets: ['/ws/a'] } },
  { cmd: "$x = 'Remove-Item a'", expect: { ops: 0 } },
  { cmd: "'Remove-Item x'", expect: { ops: 0 } },
  { cmd: 'Write-Output "Remove-Item x"', expect: { ops: 0 } },
  { cmd: 'Remove-Item a)', expect: { kind: 'opaque', reason: 'opaque-syntax', unbalanced: false } },
  { cmd: 'Remove-Item a < b', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
]);

table('parameters: prefixes, aliases, unknowns', [
  { cmd: 'Remove-Item -r x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -rec x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -Recu x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -RECURSE x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item \u2013Recurse x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -fo x', expect: { recursive: false, reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -Force -Verbose -Debug x', expect: { reason: null } },
  { cmd: 'Remove-Item -vb -db x', expect: { reason: null } },
  { cmd: 'Remove-Item -ErrorAction SilentlyContinue x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -ea 0 -ev err -ov out -ob 1 -pv p -wa 0 -infa 0 -iv i -wv w -proga 0 x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -Er SilentlyContinue x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -Path x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -pa x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -Path:x', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -f x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -c x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -p x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -e x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -i x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -wi x', expect: { dryRun: false, reason: 'unknown-option' } },
  { cmd: 'Remove-Item -whati x', expect: { dryRun: false, reason: 'unknown-option' } },
  { cmd: 'Remove-Item -w x', expect: { dryRun: false, reason: 'unknown-option' } },
  { cmd: 'rm -rf .', expect: { kind: 'fs-delete', reason: 'unknown-option' } },
  { cmd: 'rm -r -f x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -Bogus x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -Path', expect: { reason: 'unknown-option' } },
]);

table('switch values and dry runs', [
  { cmd: 'Remove-Item -Recurse:$true x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -Recurse:$false x', expect: { recursive: false, reason: null } },
  { cmd: 'Remove-Item -Recurse:$FALSE x', expect: { recursive: false, reason: null } },
  { cmd: 'Remove-Item -Recurse:1 x', expect: { recursive: true, reason: null } },
  { cmd: 'Remove-Item -Recurse:0 x', expect: { recursive: false, reason: null } },
  { cmd: 'Remove-Item -Recurse: $true x', expect: { recursive: true, reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -Recurse:$r x', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item -Recurse:yes x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -WhatIf x', expect: { dryRun: true, reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item -whatif -Recurse x', expect: { dryRun: true, recursive: true, reason: null } },
  { cmd: 'Remove-Item -WhatIf:$true x', expect: { dryRun: true, reason: null } },
  { cmd: 'Remove-Item -WhatIf:$false x', expect: { dryRun: false, reason: null } },
  { cmd: 'Remove-Item -WhatIf:$w x', expect: { reason: 'variable' } },
  { cmd: 'Remove-Item x -Confirm', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item x -Confirm:$true', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item x -Confirm:$false', expect: { reason: null, targets: ['/ws/x'] } },
  { cmd: 'Remove-Item x -cf:$false', expect: { reason: null } },
  { cmd: 'Remove-Item x -Verbose:$v', expect: { reason: null } },
]);

table('parameters agent-guard does not read', [
  { cmd: 'Remove-Item -LiteralPath x', expect: { reason: 'unknown-option', targets: [] } },
  { cmd: 'Remove-Item -LP x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -PSPath x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item -l x', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item * -Include *.log', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item * -Exclude keep', expect: { reason: 'unknown-option' } },
  { cmd: 'Remove-Item . -Filter *.tmp', expect: { reason: 'unknown-option' } },
  { cmd: 'Get-ChildItem *.log | Remove-Item', expect: { kind: 'fs-delete', reason: 'stdin-fed', commandCount: 2 } },
  { cmd: 'gci | Remove-Item -WhatIf', expect: { kind: 'fs-delete', dryRun: true, reason: 'stdin-fed' } },
  { cmd: 'gci | rm -Recurse', expect: { kind: 'fs-delete', reason: 'stdin-fed' } },
  { cmd: "'a','b' | Remove-Item x", expect: { reason: 'stdin-fed' } },
]);

table('comma lists and wildcards', [
  { cmd: 'Remove-Item a, b', expect: { targets: ['/ws/a', '/ws/b'], reason: null } },
  { cmd: 'Remove-Item a,b', expect: { targets: ['/ws/a', '/ws/b'], reason: null } },
  { cmd: "Remove-Item 'a' , \"b\",c", expect: { targets: ['/ws/a', '/ws/b', '/ws/c'], reason: null } },
  { cmd: 'Remove-Item -Path a,b -Recurse', expect: { targets: ['/ws/a', '/ws/b'], recursive: true } },
  { cmd: 'Remove-Item -Path:a,b', expect: { targets: ['/ws/a', '/ws/b'] } },
  { cmd: 'Remove-Item a,\n  b', expect: { targets: ['/ws/a', '/ws/b'], commandCount: 1 } },
  { cmd: 'Remove-Item a, $x', expect: { targets: ['/ws/a'], reason: 'variable' } },
  { cmd: 'Remove-Item *.log', expect: { targets: ['/ws/*.log'], glob: [true] } },
  { cmd: "Remove-Item '*.log'", expect: { glob: [true] } },
  { cmd: 'Remove-Item "build\\?x"', expect: { glob: [true] } },
  { cmd: 'Remove-Item file[1].txt', expect: { glob: [true] } },
  { cmd: 'Remove-Item a, *.o', expect: { glob: [false, true] } },
  { cmd: 'Remove-Item plain.txt', expect: { glob: [false] } },
]);

table('Windows paths', [
  { cmd: 'Remove-Item C:\\ -Recurse -Force', expect: { targets: ['C:/'], foreign: ['drive-root'], recursive: true } },
  { cmd: 'Remove-Item D:', expect: { foreign: ['drive-root'] } },
  { cmd: 'Remove-Item c:\\Users\\x', expect: { targets: ['C:/Users/x'], foreign: ['drive-path'] } },
  { cmd: 'Remove-Item \\\\server\\share\\x', expect: { foreign: ['unc'] } },
  { cmd: "Remove-Item 'C:\\Program Files\\x'", expect: { foreign: ['drive-path'] } },
  { cmd: 'Remove-Item \\top', expect: { targets: ['/top'], foreign: [undefined] } },
]);

table('location changes (shape F1)', [
  { cmd: 'cd src; Remove-Item x', expect: { cdBefore: true, cwd: '/ws/src', targets: ['/ws/src/x'] } },
  { cmd: 'CD src; Remove-Item x', expect: { cdBefore: true, cwd: '/ws/src' } },
  { cmd: 'Set-Location src && Remove-Item -Recurse build', expect: { cdBefore: true, targets: ['/ws/src/build'] } },
  { cmd: 'sl -Path src; rm x', expect: { cdBefore: true, targets: ['/ws/src/x'] } },
  { cmd: 'Set-Location -LiteralPath src; rm x', expect: { cdBefore: true, targets: ['/ws/src/x'] } },
  { cmd: 'chdir src; rm x', expect: { cdBefore: true, targets: ['/ws/src/x'] } },
  { cmd: 'pushd src; rm x', expect: { cdBefore: true, targets: ['/ws/src/x'] } },
  { cmd: 'Push-Location src; rm x', expect: { cdBefore: true, targets: ['/ws/src/x'] } },
  { cmd: 'pushd src; popd; rm x', expect: { cdBefore: true, cwd: null, reason: 'unknown-cwd' } },
  { cmd: 'Pop-Location; rm x', expect: { cdBefore: true, cwd: null } },
  { cmd: 'cd ..\\other; rm x', expect: { cdBefore: true, targets: ['/other/x'] } },
  { cmd: 'cd; rm x', expect: { cdBefore: true, cwd: '/home/u', targets: ['/home/u/x'] } },
  { cmd: 'cd ~; rm x', expect: { cdBefore: true, cwd: '/home/u' } },
  { cmd: 'cd -; rm x', expect: { cdBefore: true, cwd: null, reason: 'unknown-cwd' } },
  { cmd: 'cd +; rm x', expect: { cdBefore: true, cwd: null } },
  { cmd: 'cd $d; rm x', expect: { cdBefore: true, cwd: null, reason: 'unknown-cwd' } },
  { cmd: 'cd C:\\Users; rm x', expect: { cdBefore: true, cwd: null, reason: 'unknown-cwd' } },
  { cmd: 'cd \\\\srv\\share; rm x', expect: { cdBefore: true, cwd: null } },
  { cmd: 'cd HKCU:\\Software; rm x', expect: { cdBefore: true, cwd: null } },
  { cmd: 'cd s*; rm x', expect: { cdBefore: true, cwd: null } },
  { cmd: 'cd src; rm C:\\x', expect: { cdBefore: true, foreign: ['drive-path'], reason: null } },
  { cmd: 'rm x; cd src', expect: { cdBefore: false, cwd: '/ws' } },
  { cmd: '& { cd src }; rm x', expect: { cdBefore: true, cwd: null } },
]);

table('creation before deletion (shape F2)', [
  { cmd: 'New-Item x; Remove-Item x', expect: { createBefore: true } },
  { cmd: 'ni x -ItemType Directory; rm x', expect: { createBefore: true } },
  { cmd: 'mkdir out && rm -Recurse out', expect: { createBefore: true, recursive: true } },
  { cmd: 'md out; rm out', expect: { createBefore: true } },
  { cmd: 'Copy-Item a b; rm b', expect: { createBefore: true } },
  { cmd: 'cp a b; rm b', expect: { createBefore: true } },
  { cmd: 'cpi a b; rm b', expect: { createBefore: true } },
  { cmd: 'Move-Item a b; rm b', expect: { createBefore: true } },
  { cmd: 'mv a b; rm b', expect: { createBefore: true } },
  { cmd: 'Rename-Item a b; rm b', expect: { createBefore: true } },
  { cmd: 'ren a b; rm b', expect: { createBefore: true } },
  { cmd: 'Set-Content f x; rm f', expect: { createBefore: true } },
  { cmd: 'Add-Content f x; rm f', expect: { createBefore: true } },
  { cmd: "'x' | Out-File f; rm f", expect: { createBefore: true } },
  { cmd: "'x' | Tee-Object f; rm f", expect: { createBefore: true } },
  { cmd: 'xcopy a b; rm b', expect: { createBefore: true } },
  { cmd: 'robocopy a b; rm b', expect: { createBefore: true } },
  { cmd: 'echo x > new.txt; rm -Recurse build', expect: { createBefore: true } },
  { cmd: 'echo x >> log.txt; rm build', expect: { createBefore: true } },
  { cmd: 'type a > b; rm build', expect: { createBefore: true } },
  { cmd: 'Write-Output x *> all.txt; rm build', expect: { createBefore: true } },
  { cmd: 'Write-Output x 2> err.txt; rm build', expect: { createBefore: true } },
  { cmd: 'echo x>new.txt; rm build', expect: { createBefore: true } },
  { cmd: 'echo x; rm build', expect: { createBefore: false } },
  { cmd: 'echo x > $null; rm build', expect: { createBefore: false } },
  { cmd: 'echo x 2>$null; rm build', expect: { createBefore: false } },
  { cmd: 'echo x 2>&1; rm build', expect: { createBefore: false } },
  { cmd: 'rm build 2>$null', expect: { createBefore: false } },
  { cmd: 'rm a; New-Item a', expect: { createBefore: false } },
  { cmd: 'rm a > log.txt; rm b', expect: { ops: 2, at: 1, createBefore: true } },
]);

table('nested shells and indirect text', [
  { cmd: 'pwsh -Command "Remove-Item -Recurse build"', expect: { kind: 'indirect', program: 'pwsh', reason: 'indirect-shell' } },
  { cmd: 'powershell -c "rm x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'powershell.exe -NoProfile -Command Remove-Item x', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -NoProfile -ExecutionPolicy Bypass -Command "Remove-Item x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -Command { Remove-Item -Recurse build }', expect: { kind: 'indirect', reason: 'indirect-shell', commandCount: 1 } },
  { cmd: 'pwsh -Command "Get-ChildItem"', expect: { ops: 0 } },
  { cmd: 'pwsh -Command "Remove-Item x -WhatIf"', expect: { ops: 0 } },
  { cmd: 'pwsh -Command { Get-Date }', expect: { ops: 0 } },
  { cmd: 'pwsh -Command "Remove-Item $env:X"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: "pwsh -c 'pwsh -c \"rm x\"'", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -EncodedCommand ZQBjAGgAbwA=', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'powershell -e ZQBjAGgAbwA=', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'powershell -ec ZQBjAGgAbwA=', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -File build.ps1', expect: { ops: 0 } },
  { cmd: 'pwsh -WorkingDirectory src -Command "Remove-Item x"', expect: { kind: 'indirect', cwd: '/ws/src' } },
  { cmd: 'pwsh -Command:"Remove-Item x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -Help', expect: { ops: 0 } },
  { cmd: 'pwsh -NoLogo', expect: { ops: 0 } },
  { cmd: 'powershell "Remove-Item x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'sh -c "rm -rf x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'pwsh -File rm.ps1', expect: { kind: 'indirect', reason: 'source' } },
  { cmd: "'Remove-Item x' | pwsh -Command -", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'cmd /c "rd /s /q build"', expect: { kind: 'indirect', program: 'cmd', reason: 'indirect-shell' } },
  { cmd: 'cmd.exe /C del x', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'cmd /c dir', expect: { ops: 0 } },
  { cmd: 'bash -c "rm -rf build"', expect: { kind: 'indirect', program: 'bash', reason: 'indirect-shell' } },
  { cmd: 'bash -c "ls -la"', expect: { ops: 0 } },
  { cmd: 'bash script.sh', expect: { ops: 0 } },
  // The shell and wrapper lists shared with the other readers (names.ts): PowerShell's lacked these.
  { cmd: 'yash -c "rm -rf build"', expect: { kind: 'indirect', program: 'yash', reason: 'indirect-shell' } },
  { cmd: 'busybox rm -rf build', expect: { kind: 'indirect', program: 'busybox', reason: 'indirect-shell' } },
  // The shells' own option reading: `-o NAME` takes the next word, `-c` the first operand.
  { cmd: 'bash -oc posix "rm -rf build"', expect: { kind: 'indirect', program: 'bash' } },
  { cmd: 'bash -c -x "rm -rf build"', expect: { kind: 'indirect', program: 'bash' } },
  { cmd: 'wsl rm -rf build', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'Invoke-Expression "Remove-Item x"', expect: { kind: 'indirect', program: 'Invoke-Expression', reason: 'indirect-shell' } },
  { cmd: "iex 'rm -Recurse x'", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'iex -Command "Remove-Item x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: "iex 'Get-Date'", expect: { ops: 0 } },
  { cmd: 'iex $cmd', expect: { ops: 0 } },
  { cmd: 'iex "Remove-Item $x"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: "'Remove-Item x' | iex", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: "Start-Process pwsh -ArgumentList '-c','Remove-Item x'", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'saps cmd "/c rd /s /q build"', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'Start-Process notepad a.txt', expect: { ops: 0 } },
  { cmd: '. .\\build.ps1', expect: { ops: 0 } },
  { cmd: '. .\\rm.ps1', expect: { kind: 'indirect', reason: 'source' } },
  { cmd: '. ./cleanup.ps1 rm', expect: { kind: 'indirect', reason: 'source' } },
  { cmd: '& .\\build.ps1', expect: { ops: 0 } },
  { cmd: '& $x -Recurse build', expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: '& $tool rm build', expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: '& $tool --version', expect: { ops: 0 } },
  { cmd: '& (Get-Command rm) build', expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: '& (Get-Command Get-Date)', expect: { ops: 0 } },
  { cmd: '(Get-Item x).Delete()', expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: '$f.Delete()', expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: "[System.IO.File]::Delete('a.txt')", expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: "[System.IO.Directory]::Delete('d', $true)", expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: "$c = 'Remove-Item'; & $c build", expect: { kind: 'opaque', reason: 'dynamic-program' } },
  { cmd: "$c = 'Get-Date'; & $c", expect: { ops: 0 } },
  { cmd: "$cmd = 'Remove-Item -Recurse build'; iex $cmd", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: '$script:cmd = "rm x"; Invoke-Expression $cmd', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: "$a = 'rm x'; pwsh -Command $a", expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'return Remove-Item x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'throw (Remove-Item x)', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Remove-Item ,x', expect: { kind: 'fs-delete', targets: ['/ws/x'] } },
  { cmd: 'Set-Alias ls Remove-Item; ls x', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Set-Alias ll Get-ChildItem', expect: { ops: 0 } },
  { cmd: 'Get-ChildItem | ForEach-Object Delete', expect: { kind: 'stdin-fed', reason: 'stdin-fed' } },
  { cmd: 'Get-ChildItem | % Name', expect: { ops: 0 } },
]);

table('script blocks and subexpressions', [
  { cmd: 'Get-ChildItem | ForEach-Object { Remove-Item $_ }', expect: { kind: 'opaque', reason: 'opaque-syntax', commandCount: 3 } },
  { cmd: 'gci | % { rm $_.FullName -Recurse }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'gci|%{rm $_}', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'if (Test-Path x) { Remove-Item x -Recurse }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'foreach ($f in $files) { Remove-Item $f }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Invoke-Command -ScriptBlock { Remove-Item x }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: '& { Remove-Item x }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Write-Output (Remove-Item x)', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Write-Output "$(Remove-Item x)"', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Write-Output @(Remove-Item x)', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: '$h = @{ a = Remove-Item x }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'function Clean { Remove-Item -Recurse build }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Get-ChildItem | ForEach-Object { $_.Name }', expect: { ops: 0 } },
  { cmd: 'if (Test-Path x) { Write-Host yes }', expect: { ops: 0 } },
  { cmd: 'gci | % { Remove-Item x -WhatIf }', expect: { ops: 0 } },
  { cmd: 'gci | % { Remove-Item $_ -WhatIf }', expect: { kind: 'opaque', reason: 'opaque-syntax' } },
  { cmd: 'Write-Output $(Get-Date)', expect: { ops: 0, commandCount: 2 } },
  { cmd: '{ Remove-Item x', expect: { kind: 'opaque', reason: 'unbalanced', unbalanced: true } },
  { cmd: 'Write-Output ((((((((((((Remove-Item x))))))))))))', expect: { kind: 'opaque' } },
]);

table('git', [
  { cmd: 'git clean -fdx', expect: { kind: 'git-clean', program: 'git', recursive: true, reason: null } },
  { cmd: 'git clean -n', expect: { kind: 'git-clean', dryRun: true } },
  { cmd: 'git reset --hard', expect: { kind: 'git-reset-hard', reason: null } },
  { cmd: 'git add .; git reset --hard', expect: { kind: 'git-reset-hard', reason: 'reset-not-standalone' } },
  { cmd: 'git push --force', expect: { kind: 'git-push' } },
  { cmd: 'git checkout -- .', expect: { kind: 'git-checkout' } },
  { cmd: 'git.exe clean -fd', expect: { kind: 'git-clean' } },
  { cmd: 'GIT clean -fd', expect: { kind: 'git-clean' } },
  { cmd: 'git status', expect: { ops: 0 } },
  { cmd: 'git --version', expect: { ops: 0 } },
  { cmd: 'git $opt clean -fd', expect: { kind: 'git-clean', reason: 'variable' } },
  { cmd: 'git $sub', expect: { ops: 0 } },
  { cmd: 'cd src; git clean -fd', expect: { kind: 'git-clean', cdBefore: true, cwd: '/ws/src' } },
  { cmd: 'New-Item x; git clean -fd', expect: { kind: 'git-clean', createBefore: true } },
  { cmd: '$env:GIT_DIR = "elsewhere"; git clean -fd', expect: { kind: 'git-clean', reason: 'git-environment' } },
  { cmd: 'git -c core.pager="rm -rf x" log', expect: { kind: 'indirect', reason: 'indirect-shell' } },
]);

table('the vocabulary floor', [
  { cmd: 'shred f', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: 'unlink f', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: 'SRM f', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: 'wipe f', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: '.\\Remove-Item.ps1 x', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: '/bin/rm -rf x', expect: { kind: 'opaque', reason: 'foreign-verb' } },
  { cmd: 'sudo rm -rf /x', expect: { kind: 'indirect', reason: 'indirect-shell' } },
  { cmd: 'sudo apt update', expect: { ops: 0 } },
  { cmd: 'find . -name *.o -delete', expect: { kind: 'find-delete', reason: 'find-delete' } },
  { cmd: 'find . -exec rm {} ;', expect: { kind: 'find-exec' } },
  { cmd: "find . -exec rm '{}' `;", expect: { kind: 'find-exec', reason: 'find-exec' } },
  { cmd: 'find . -name x', expect: { ops: 0 } },
  { cmd: 'Get-Content list.txt | xargs rm', expect: { kind: 'stdin-fed', reason: 'stdin-fed' } },
  { cmd: 'Get-ChildItem -Recurse', expect: { ops: 0 } },
  { cmd: 'Get-Content rm.txt', expect: { ops: 0 } },
]);

describe('git aliases', () => {
  it('an alias is read again as the git command it expands to; a harmless one passes', () => {
    const resolveGitAlias = (name: string): string | null => (name === 'nuke' ? 'clean -fdx' : name === 'st' ? 'status' : null);
    const nuke = classifyPowerShell('git nuke', { ...opts, resolveGitAlias });
    expect(nuke.ops.map((o) => [o.kind, o.recursive, o.undeterminable])).toEqual([['git-clean', true, null]]);
    expect(classifyPowerShell('git st', { ...opts, resolveGitAlias }).ops).toHaveLength(0);
    expect(classifyPowerShell('git nope', opts).ops).toHaveLength(0);
  });
});

describe('op bookkeeping', () => {
  it('numbers ops and counts commands', () => {
    const c = classifyPowerShell('rm a; echo x | Out-Null; rm b; git clean -fd', opts);
    expect(c.commandCount).toBe(5);
    expect(c.ops.map((o) => [o.index, o.kind])).toEqual([
      [0, 'fs-delete'],
      [1, 'fs-delete'],
      [2, 'git-clean'],
    ]);
    expect(c.unbalanced).toBe(false);
  });
  it('keeps argv as written, colon values attached', () => {
    const c = classifyPowerShell("Remove-Item -Recurse:$false 'a b' -Force", opts);
    expect(c.ops[0]!.argv).toEqual(['Remove-Item', '-Recurse:$false', 'a b', '-Force']);
    expect(c.ops[0]!.targets[0]!.raw).toBe('a b');
    expect(classifyPowerShell('Remove-Item "$env:TEMP\\x" `"q`"', opts).ops[0]!.argv).toEqual(['Remove-Item', '$env:TEMP\\x', '"q"']);
  });
  it('a relative target with an unknown home', () => {
    const c = classifyPowerShell('Remove-Item ~\\x', { cwd: '/ws', home: null });
    expect(c.ops[0]!.undeterminable?.reason).toBe('variable');
  });
});

describe('robustness', () => {
  // A small deterministic generator: the run is the same every time.
  let seed = 0x2545f491;
  const rand = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const alphabet = [
    'a', 'x', ' ', ' ', '\t', '\n', '\r\n', ';', '|', '||', '&', '&&', ',', '(', ')', '{', '}', '$', '$(', '@(', '@{', '${', '"', "'",
    '`', '#', '<#', '#>', '>', '>>', '2>', '<', '-', '--', '--%', ':', '.', '\\', '/', '*', '?', '[', ']', '~', '=', '@"\n', '\n"@',
    'Remove-Item ', 'rm ', '-Recurse', '-r', '-WhatIf', '-Path', 'pwsh -c ', 'cmd /c ', 'iex ', 'cd ', 'git clean -fd', 'C:\\', '\u2018', '\u201C', '\u2013',
  ];
  it('never throws on a few thousand random lines', () => {
    for (let i = 0; i < 4000; i++) {
      const len = rand(60);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[rand(alphabet.length)]!;
      const c = classifyPowerShell(s, opts);
      expect(Array.isArray(c.ops)).toBe(true);
      c.ops.forEach((o, k) => expect(o.index).toBe(k));
    }
  });
  it('never throws on random characters', () => {
    for (let i = 0; i < 2000; i++) {
      const len = rand(120);
      let s = '';
      for (let j = 0; j < len; j++) s += String.fromCharCode(rand(0x3000));
      expect(() => classifyPowerShell(s, opts)).not.toThrow();
    }
  });
  it.each([
    ['open parens', '('.repeat(256 * 1024)],
    ['open braces', '{'.repeat(256 * 1024)],
    ['subexpressions', '$('.repeat(128 * 1024)],
    ['quotes', '"'.repeat(256 * 1024 - 1)],
    ['backticks', '`'.repeat(256 * 1024)],
    ['balanced nesting', '('.repeat(128 * 1024) + ')'.repeat(128 * 1024)],
    ['commands', 'rm x;'.repeat(50 * 1024)],
    ['a long list', 'rm ' + 'a,'.repeat(128 * 1024) + 'b'],
    ['block comments', '<#'.repeat(128 * 1024)],
    ['words', 'a '.repeat(128 * 1024)],
  ])('stays fast on 256 KiB of %s', (_name, text) => {
    const t = Date.now();
    const c = classifyPowerShell(text, opts);
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(Array.isArray(c.ops)).toBe(true);
  });
});
