// `agent-guard completion bash|zsh` (docs/completion.md): the scripts are generated from the commander
// program, so every command and option of the program must be in them. The program is walked here
// with commander's own API (commands, options, hidden flags), independently of the generator, and the
// bash script is run: for every command, bash's completion function must offer its subcommands and
// options. Completion runs nothing destructive: no sandbox is needed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram, main, VERSION, type CommandContext } from '../../src/cli.js';
import { VALUE_HINTS } from '../../src/commands/completion.js';
import { BIN } from '../helpers/cli.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} >/dev/null`]).status === 0;

function run(argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = main(argv, { PATH: process.env.PATH }, { stdout: (s) => (out += s), stderr: (s) => (err += s) }, REPO);
  return { code, out, err };
}

interface Node {
  path: string[];
  cmd: Command;
}
/** Every command of the program (the root first), with commander's API alone. */
function commands(): Node[] {
  const ctx: CommandContext = { env: {}, cwd: REPO, io: { stdout: () => {}, stderr: () => {} }, exitCode: 0, interactive: false };
  const out: Node[] = [];
  const walk = (cmd: Command, p: string[]): void => {
    out.push({ path: p, cmd });
    for (const c of cmd.commands) if (!(c as unknown as { _hidden?: boolean })._hidden) walk(c, [...p, c.name()]);
  };
  walk(createProgram(ctx), []);
  return out;
}
/** A command's visible subcommands, and commander's implicit `help [command]` beside them. */
function subcommands(n: Node): string[] {
  const names = n.cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => c.name());
  return names.length > 0 ? [...names, 'help'] : [];
}
/** A command's visible flags: its options (not hidden), the help flags, and -V/--version on the root. */
function flags(n: Node): string[] {
  const own = n.cmd.options.filter((o) => !o.hidden).flatMap((o) => [o.short, o.long].filter((f): f is string => !!f));
  return [...new Set([...own, '-h', '--help'])];
}

const bash = run(['completion', 'bash']).out;
const zsh = run(['completion', 'zsh']).out;

describe('agent-guard completion', () => {
  it('prints a script for bash and for zsh (exit 0); any other shell is a usage error (exit 1, nothing on stdout)', () => {
    expect(bash).toMatch(/^# bash completion for agent-guard/);
    expect(bash).toContain('complete -o default -F _agent_guard agent-guard');
    expect(zsh).toMatch(/^#compdef agent-guard\n/);
    for (const shell of ['fish', '']) {
      const r = run(['completion', ...(shell ? [shell] : [])]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
    }
  });

  it('every command and option of the program is in both scripts, where it belongs', () => {
    const nodes = commands();
    expect(nodes.length).toBeGreaterThan(12);
    for (const n of nodes) {
      const key = n.path.join(' ');
      // bash: the command's case line lists its subcommands and flags.
      const line = bash.split('\n').find((l) => l.startsWith(`    '${key}')`));
      expect(line, key).toBeDefined();
      const subs = /subs='([^']*)'/.exec(line!)![1]!.split(' ').filter(Boolean);
      const opts = /opts='([^']*)'/.exec(line!)![1]!.split(' ').filter(Boolean);
      expect(subs.sort(), key).toEqual(subcommands(n).sort());
      expect(opts.sort(), key).toEqual(flags(n).sort());
      // zsh: a function per command, naming each flag, and each subcommand in its parent's list.
      const fn = `_agent_guard${n.path.map((p) => `__${p.replace(/-/g, '_')}`).join('')}`;
      const body = zsh.slice(zsh.indexOf(`\n${fn}() {`), zsh.indexOf('\n}', zsh.indexOf(`\n${fn}() {`)));
      expect(body.length, fn).toBeGreaterThan(10);
      for (const f of flags(n).filter((x) => x.startsWith('--'))) expect(body, `${fn} ${f}`).toMatch(new RegExp(`[{,'(]${f}[\\[,}' ]`));
      for (const c of subcommands(n)) expect(body, `${fn} ${c}`).toContain(`'${c}:`);
    }
    // The internal options stay out (shell-init --write-shims, --node, --template).
    expect(bash).not.toContain('--write-shims');
    expect(zsh).not.toContain('--write-shims');
  });

  it('each value hint names a command and an option or argument of the program', () => {
    const nodes = commands();
    for (const key of Object.keys(VALUE_HINTS)) {
      const [cmdPath, what] = key.split('|') as [string, string];
      const n = nodes.find((x) => x.path.join(' ') === cmdPath);
      expect(n, key).toBeDefined();
      if (what.startsWith('#')) expect(n!.cmd.registeredArguments.length, key).toBeGreaterThanOrEqual(Number(what.slice(1)));
      else expect(n!.cmd.options.map((o) => o.long), key).toContain(what);
    }
  });

  it.skipIf(!has('bash'))('bash: the completion function offers every command\'s subcommands and options, and the values it knows', () => {
    const nodes = commands();
    const cases: [string[], string[]][] = [];
    for (const n of nodes) {
      const subs = subcommands(n);
      if (subs.length > 0) cases.push([[...n.path, ''], subs]);
      cases.push([[...n.path, '--'], flags(n).filter((f) => f.startsWith('--'))]);
    }
    cases.push(
      [['shell-init', ''], ['bash', 'zsh']],
      [['completion', ''], ['bash', 'zsh']],
      [['hook', 'install', ''], ['claude', 'codex', 'gemini', 'copilot']],
      [['check', '--dialect', ''], ['posix', 'cmd', 'powershell']],
      [['check', '--json', '--dialect', 'p'], ['posix', 'powershell']],
      [['restore', ''], ['list', 'show']],
      [['help', 'sh'], ['shell-init']],
      [['run', '--', 'bash', '-c', ''], []],
    );
    const script = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'ag-compl-')), 'cases.bash');
    const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    fs.writeFileSync(
      script,
      `${bash}\nt() { COMP_WORDS=(agent-guard "$@"); COMP_CWORD=$#; COMPREPLY=(); _agent_guard; printf '%s\\n' "\${COMPREPLY[*]}"; }\n` +
        cases.map(([words]) => `t ${words.map(q).join(' ')}`).join('\n') +
        '\n',
    );
    const r = spawnSync('bash', ['--norc', '--noprofile', script], { encoding: 'utf8' });
    fs.rmSync(path.dirname(script), { recursive: true });
    expect(r.stderr).toBe('');
    const got = r.stdout.split('\n').slice(0, cases.length);
    cases.forEach(([words, want], i) => expect(got[i]!.split(' ').filter(Boolean).sort(), words.join(' ')).toEqual([...want].sort()));
  });

  it.skipIf(!has('zsh'))('zsh: the script parses, and after compinit it registers _agent_guard for agent-guard with a function per command', () => {
    expect(spawnSync('zsh', ['-n'], { input: zsh, encoding: 'utf8' }).status).toBe(0);
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'ag-compl-'));
    fs.writeFileSync(path.join(dir, 'c.zsh'), zsh);
    const r = spawnSync('zsh', ['-f', '-c', `autoload -Uz compinit && compinit -u -D -d ${dir}/dump && source ${dir}/c.zsh && print -r -- $_comps[agent-guard] && whence -w _agent_guard__hook__install _agent_guard__shell_init`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir },
    });
    fs.rmSync(dir, { recursive: true });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual(['_agent_guard', '_agent_guard__hook__install: function', '_agent_guard__shell_init: function', '']);
  });
});

describe('agent-guard --version', () => {
  it("is package.json's version, in the sources and in the bundle", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(run(['--version']).out).toBe(`${pkg.version}\n`);
    expect(spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' }).stdout).toBe(`${pkg.version}\n`);
    // CHANGELOG.md has a section for it, or the version is still unreleased.
    const changelog = fs.readFileSync(path.join(REPO, 'CHANGELOG.md'), 'utf8');
    expect(changelog.includes(`## [${pkg.version}]`)).toBe(true);
  });
});
