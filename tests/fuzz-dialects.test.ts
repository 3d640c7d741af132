// Fuzzing the cmd and PowerShell front ends through the decision engine: generated, mutated and
// pathological lines in each dialect, each checked for a valid, self-consistent result, plus
// metamorphic invariants (casing, wrapping in a nested shell, a destructive suffix, the vocabulary
// floor). Nothing executes: lines are only classified and decided, with a stub git.
//
// Deterministic: FUZZ_SEED picks the seed (as in fuzz.test.ts), FUZZ_DIALECT_COUNT how many
// generated lines per dialect and property group (default 2,000).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDialect } from '../src/classifier/index.js';
import { decide, type CheckResult } from '../src/engine.js';
import { RANK, validate } from './helpers/fuzz-check.js';
import type { GitRunner } from '../src/probe/git.js';
import type { Config } from '../src/config.js';
import type { Dialect } from '../src/dialect.js';
import { makeFixture, type Fixture } from './helpers/fixture.js';
import { envInt, mutate, Rng } from './helpers/fuzz-gen.js';

const SEED = envInt('FUZZ_SEED', 0x5eed_ca11) >>> 0;
const COUNT = envInt('FUZZ_DIALECT_COUNT', 2_000);
const LABEL = `seed=0x${SEED.toString(16)}`;
const TIMEOUT = 120_000;
const stubGit: GitRunner = { run: () => ({ ok: false, status: 128, stdout: Buffer.alloc(0), stderr: 'stub' }) };

let fx: Fixture;
let config: Config;
let srcConfig: Config;

beforeAll(() => {
  fx = makeFixture();
  config = fx.config();
  srcConfig = fx.config(path.join(fx.ws, 'src'));
});

afterAll(() => {
  fx.checkCanary();
  fx.cleanup();
});

// ---------------------------------------------------------------------------------------------
// Generators

const CMD = {
  verbs: ['del', 'erase', 'rd', 'rmdir', 'DEL', 'Rd', 'RMDIR', '@del', 'del.exe', 'C:\\Windows\\System32\\cmd.exe /c del'],
  switches: ['/s', '/q', '/f', '/S/Q', '/a:h', '/a', '/p', '/x', '/?', '/Q', '/s/q/f'],
  targets: ['build', 'build\\a.o', '"my dir"', 'C:\\', 'D:', 'C:\\Users\\x', '\\\\srv\\share', '%TEMP%\\x', '!X!', '*.o', '..\\outside', '.git', '.', 'nul', 'src\\..\\build', '"build"', 'bu^ild', '~'],
  seps: [' & ', ' && ', ' | ', ' || ', '\r\n', '\n', '&'],
  others: ['echo x > f', 'cd src', 'cd /d D:\\x', 'copy a b', 'dir', 'type f', 'git clean -fdx', 'git status', 'git reset --hard', 'cmd /c "del x"', 'pwsh -c "Remove-Item x"', 'for %f in (*) do del %f', 'if exist x del x', 'md out', 'set X=build', 'pushd src', 'popd', 'rm -rf build', 'echo ^& del x', 'call del x', 'start "" del x', '(del x)', 'REM del x'],
};

const PS = {
  verbs: ['Remove-Item', 'rm', 'ri', 'rd', 'rmdir', 'del', 'erase', 'REMOVE-ITEM', 'remove-item', 'Microsoft.PowerShell.Management\\Remove-Item', '& rm', '& Remove-Item'],
  params: ['-Recurse', '-r', '-rec', '-Force', '-fo', '-f', '-wi', '-WhatIf', '-WhatIf:$false', '-Confirm', '-Confirm:$false', '-c', '-p', '-Path', '-LiteralPath', '-Include *.o', '-Filter x', '-Recurse:$true', '-Recurse:$r', '-rf', '-ErrorAction SilentlyContinue', '-ea 0', '-Verbose'],
  targets: ['build', 'build\\a.o', "'my dir'", '"my $x"', 'C:\\', 'D:', '~\\x', '$env:TEMP', '\\\\srv\\share', '*.log', 'a,b', 'build, src', '.git', '.', "'it''s'", '"a`"b"', '..\\outside', '~'],
  seps: ['; ', ' | ', ' && ', ' || ', '\n', '\r\n'],
  others: ['Get-ChildItem', 'Get-ChildItem *.log | Remove-Item', 'cd src', 'Set-Location ..', 'New-Item f', 'echo x > f', 'git reset --hard', 'git push --force', 'pwsh -Command "rm x"', '{ Remove-Item x }', '# rm -rf /', '<# c #>', 'Write-Output hi', '$x = "build"', 'Get-ChildItem | ForEach-Object { Remove-Item $_ }', 'iex "Remove-Item x"', 'cmd /c del x', 'shred f', 'Copy-Item a b', 'sl ..'],
};

function cmdLine(r: Rng): string {
  const parts: string[] = [];
  for (let i = 0, n = r.range(1, 3); i < n; i++) {
    if (r.chance(0.6)) parts.push([r.pick(CMD.verbs), ...r.some(CMD.switches, r.range(0, 2)), ...r.some(CMD.targets, r.range(0, 2))].join(' '));
    else parts.push(r.pick(CMD.others));
  }
  return parts.reduce((acc, p) => (acc === '' ? p : acc + r.pick(CMD.seps) + p), '');
}

function psLine(r: Rng): string {
  const parts: string[] = [];
  for (let i = 0, n = r.range(1, 3); i < n; i++) {
    if (r.chance(0.6)) parts.push([r.pick(PS.verbs), ...r.some(PS.params, r.range(0, 2)), ...r.some(PS.targets, r.range(0, 2))].join(' '));
    else parts.push(r.pick(PS.others));
  }
  return parts.reduce((acc, p) => (acc === '' ? p : acc + r.pick(PS.seps) + p), '');
}

const LINE: Record<'cmd' | 'powershell', (r: Rng) => string> = { cmd: cmdLine, powershell: psLine };

/** Long and degenerate inputs: runs of each dialect's special characters, deep nesting, 256 KiB. */
function pathological(d: 'cmd' | 'powershell'): string[] {
  const big = 256 * 1024;
  const specials = d === 'cmd' ? ['^', '"', '%', '!', '&', '|', '(', ')', '<', '>'] : ['`', '"', "'", '$', '(', ')', '{', '}', '@', '#', '<#', '#>', '|', ';', '-'];
  const out: string[] = [];
  for (const c of specials) {
    out.push(c.repeat(big / c.length));
    out.push(`${d === 'cmd' ? 'del' : 'Remove-Item'} ${c.repeat(10_000)} build`);
    out.push(`${c} del x `.repeat(2_000));
  }
  out.push('del x & '.repeat(20_000));
  out.push(`${'('.repeat(5_000)}del x${')'.repeat(5_000)}`);
  out.push(`${'cmd /c "'.repeat(200)}del x`);
  out.push(`${'pwsh -Command "'.repeat(200)}Remove-Item x`);
  out.push(`Remove-Item ${Array.from({ length: 20_000 }, (_, i) => `f${i}`).join(',')}`);
  out.push(`del ${'-'.repeat(big)}`);
  out.push('\u0000del\u0000x\u2028Remove-Item\uFEFFx');
  return out;
}

// ---------------------------------------------------------------------------------------------
// The validity property

/** The first problem with a result (the shared validity property), or null. */
function problemOf(r: CheckResult, dialect: Dialect): string | null {
  const problems: string[] = [];
  validate(r, problems, dialect);
  return problems[0] ?? null;
}

function decideIn(dialect: Dialect, command: string, c: Config = config): CheckResult {
  return decide({ command, config: c, dialect, git: stubGit });
}

function valid(dialect: Dialect, input: string, direct: boolean): string | null {
  if (direct) {
    try {
      const c = classifyDialect(dialect, input, { cwd: config.cwd, home: config.home });
      if (c.ops.some((o, i) => o.index !== i)) return 'invalid: op indexes out of order';
      if (typeof c.commandCount !== 'number' || typeof c.unbalanced !== 'boolean') return 'invalid: classification shape';
    } catch (e) {
      return `classify-threw: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200);
    }
  }
  try {
    return problemOf(decideIn(dialect, input, input.length % 3 === 0 ? srcConfig : config), dialect);
  } catch (e) {
    return `decide-threw: ${e instanceof Error ? e.message : String(e)}`.slice(0, 200);
  }
}

/** Runs a property over inputs; the assertion lists one smallest failing input per kind of problem. */
function check(name: string, inputs: Iterable<string>, prop: (s: string) => string | null): void {
  const byKind = new Map<string, { input: string; problem: string; n: number }>();
  let ran = 0;
  for (const input of inputs) {
    ran++;
    const p = prop(input);
    if (p === null) continue;
    const kind = p.split(':')[0]!;
    const seen = byKind.get(kind);
    if (!seen) byKind.set(kind, { input, problem: p, n: 1 });
    else {
      seen.n++;
      if (input.length < seen.input.length) Object.assign(seen, { input, problem: p });
    }
  }
  const report = [...byKind.values()].map((f) => `[${name} ${LABEL}] ${f.n}× ${JSON.stringify(f.input.length > 300 ? `${f.input.slice(0, 300)}… (${f.input.length} chars)` : f.input)} → ${f.problem}`);
  expect(report, `${ran} inputs`).toEqual([]);
}

function* generated(d: 'cmd' | 'powershell', salt: number, count: number, mutated: boolean): Generator<string> {
  const r = new Rng(SEED).fork(salt);
  for (let i = 0; i < count; i++) yield mutated ? mutate(r, LINE[d](r)) : LINE[d](r);
}

// ---------------------------------------------------------------------------------------------

describe.each(['cmd', 'powershell'] as const)(`fuzz: the %s dialect (${LABEL})`, (d) => {
  const salt = d === 'cmd' ? 11 : 23;

  it(`${COUNT} generated and ${COUNT} mutated lines give valid results; classify never throws`, { timeout: TIMEOUT }, () => {
    check(`${d} grammar`, generated(d, salt, COUNT, false), (s) => valid(d, s, true));
    check(`${d} mutation`, generated(d, salt + 1, COUNT, true), (s) => valid(d, s, s.length % 2 === 0));
  });

  it('pathological inputs (runs of special characters, deep nesting, 256 KiB) give valid results', { timeout: TIMEOUT }, () => {
    check(`${d} pathological`, pathological(d), (s) => valid(d, s, true));
  });

  it('changing the case of letters never changes the decision (both dialects are case-insensitive)', { timeout: TIMEOUT }, () => {
    const r = new Rng(SEED).fork(salt + 2);
    check(`${d} casing`, generated(d, salt + 3, Math.ceil(COUNT / 4), false), (s) => {
      // git reads its own argv case-sensitively (`git rESet` is no subcommand): those lines are left out.
      if (/git/i.test(s)) return null;
      // Only the words' case: letters inside quotes may name files, so quoted text is kept.
      const flipped = s.replace(/("[^"]*"|'[^']*')|[A-Za-z]/g, (m, q) => (q ? m : r.chance(0.5) ? m.toUpperCase() : m.toLowerCase()));
      const a = decideIn(d, s);
      const b = decideIn(d, flipped);
      // Paths are compared as written (a POSIX host's filesystem is case-sensitive), so only the
      // decisions of lines without a literal target may differ: compare the ranks of lines that
      // name no existing path, and require that no respelling relaxes a refusal.
      if (RANK[b.decision] < RANK[a.decision] && a.decision !== 'RELOCATE' && a.decision !== 'SNAPSHOT') {
        return `relaxed: ${a.decision} ${a.code} became ${b.decision} ${b.code} for ${JSON.stringify(flipped)}`;
      }
      return null;
    });
  });

  it('wrapping a refused command in a nested shell never makes it ALLOW', { timeout: TIMEOUT }, () => {
    check(`${d} nested`, generated(d, salt + 4, Math.ceil(COUNT / 4), false), (s) => {
      const a = decideIn(d, s);
      // (A comment would swallow what the one-line form puts after it: such lines are left out.)
      if (a.decision === 'ALLOW' || s.includes('"') || /#|\bREM\b/i.test(s)) return null;
      const wrapped = d === 'cmd' ? `cmd /c "${s.replace(/\r?\n/g, ' & ')}"` : `pwsh -Command "${s.replace(/[`$]/g, '`$&').replace(/\r?\n/g, '; ')}"`;
      const b = decideIn(d, wrapped);
      return b.decision === 'ALLOW' ? `allowed: ${a.decision} ${a.code} became ALLOW when wrapped as ${JSON.stringify(wrapped)}` : null;
    });
  });

  it('a destructive command appended after a separator is never lost (BLOCK for a drive root)', { timeout: TIMEOUT }, () => {
    // On a line of its own: a comment (`#`, `REM`) ends at the newline, a separator would not reach it.
    const suffix = d === 'cmd' ? '\r\nrd /s /q C:\\' : '\nRemove-Item -Recurse -Force C:\\';
    check(`${d} suffix`, generated(d, salt + 5, Math.ceil(COUNT / 4), false), (s) => {
      const line = `${s}${suffix}`;
      const r = decideIn(d, line);
      // An unbalanced quote or a trailing escape/comment may swallow the suffix: then it must still
      // not be ALLOW-by-omission unless the line has no destructive verb at all.
      return r.decision === 'BLOCK' ? null : `lost: ${r.decision} ${r.code} for ${JSON.stringify(line)}`;
    });
  });

  it('the vocabulary floor: another dialect\'s or an oddly cased destructive verb is never ALLOW', () => {
    const lines = d === 'cmd' ? ['rm -rf .', 'Remove-Item -Recurse build', 'shred f', 'unlink f', 'ri x', 'RM x'] : ['shred f', 'unlink f', 'srm f', 'C:\\tools\\shred.exe f', 'wipe f'];
    for (const l of lines) {
      const r = decideIn(d, l);
      expect({ l, decision: r.decision }).toEqual({ l, decision: 'BLOCK' });
    }
  });
});

describe('the POSIX floor (fuzzed spellings)', () => {
  it('RM/Rm/rM, DEL, erase, rd and Remove-Item in program position are never ALLOW under posix', () => {
    const r = new Rng(SEED).fork(99);
    for (let i = 0; i < 200; i++) {
      const verb = r.pick(['rm', 'rmdir', 'unlink', 'shred', 'del', 'erase', 'rd', 'remove-item']).replace(/[a-z]/g, (c) => (r.chance(0.5) ? c.toUpperCase() : c));
      if (['rm', 'rmdir', 'unlink', 'shred'].includes(verb)) continue;
      const line = `${r.pick(['', 'sudo ', 'env ', 'command '])}${verb} ${r.pick(['x', '-rf build', '/s /q build', '-Recurse build'])}`;
      const res = decideIn('posix', line);
      expect({ line, decision: res.decision }).toEqual({ line, decision: 'BLOCK' });
    }
  });
});
