// ASK reaches a human (docs/grants.md), end to end with the built CLI inside the read-only sandbox,
// a temp HOME and a git workspace in the sandbox area:
// - a guarded interactive bash/zsh under a real pseudo-terminal (util-linux `script`, driven by
//   fixtures/dialog.sh, which types only once the terminal shows what it waits for): yes runs the
//   line with its targets quarantined first; no, and no answer, refuse it;
// - without a terminal: the refusal names a one-time grant; `allow` refuses without a terminal;
//   with one it authorizes exactly that command (text, cwd), once, for a limited time;
// - Codex (no "ask" of its own): an ASK is a deny naming the grant, the retry runs compensated.
// Each scenario runs in one sandbox start (a generated sh script); assertions are on exit statuses,
// trees, grant ids and audit records.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world as makeWorld } from '../helpers/world.js';
import { writeShims } from '../../src/shims/render.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const FIX = path.join(import.meta.dirname, 'fixtures');
const GUARD_BASH = path.join(REPO, 'shell/guard.bash');
const ZDOTDIR = path.join(REPO, 'shell/zsh');
const BASE_PATH = [...new Set([path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} >/dev/null`]).status === 0;
const ptyIt = has('script') ? itSandboxed : (name: string) => it.skip(`${name} (util-linux script not installed: no pseudo-terminal)`, () => {});
const ptyZshIt = has('script') && has('zsh') ? itSandboxed : (name: string) => it.skip(`${name} (needs zsh and util-linux script)`, () => {});

const area = useSandboxArea('ag-grants');

interface World {
  dir: string;
  home: string;
  ws: string;
  out: string;
  env: Record<string, string>;
}

let worlds = 0;
/** A temp HOME, a git workspace with src/build, src2/build, … and the guarded shells' environment. */
function world(dirs: string[]): World {
  const dir = path.join(area.rw(), `w${++worlds}`);
  const { home, ws } = makeWorld(path.join(dir, 'home'), { ws: path.join(dir, 'ws'), files: Object.fromEntries(dirs.map((d) => [`${d}/build/o.o`, d])) });
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  const env = {
    HOME: home,
    PATH: BASE_PATH,
    SHLVL: '1',
    TERM: 'dumb',
    AGENT_GUARD_NODE: process.execPath,
    AGENT_GUARD_BUNDLE: BIN,
    AGENT_GUARD_USER_BASH_ENV: '',
    AGENT_GUARD_USER_ZDOTDIR: '',
    AGENT_GUARD_ASK_TIMEOUT: '1',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  return { dir, home, ws, out, env };
}

/** Runs a generated sh scenario inside one sandbox with pseudo-terminals available, with exactly
 *  w.env (`env -i`). */
function scenario(w: World, lines: string[]): void {
  const file = path.join(w.dir, 'scenario.sh');
  const prelude = [
    'set -u',
    `OUT=${w.out} FIX=${FIX} AG="${process.execPath} ${BIN}"`,
    // step NAME CMD...: status, stdout and stderr in $OUT/NAME.{status,out,err}; stdin from $IN or /dev/null
    'step() { n=$1; shift; "$@" <"${IN:-/dev/null}" >"$OUT/$n.out" 2>"$OUT/$n.err"; echo $? >"$OUT/$n.status"; }',
    // agent NAME DIR TEXT: what an agent runs: bash -c TEXT in DIR, guarded by the bash hook, no terminal
    'agent() { n=$1; (cd "$2" && step "$n" env BASH_ENV=' + GUARD_BASH + ' setsid -w bash -c "$3"); }',
    // the grant id a refusal named
    'idof() { grep -o "agent-guard allow [a-z2-9]\\{8\\}" "$OUT/$1" | head -n 1 | cut -d" " -f3; }',
    // human NAME ID ANSWER: `agent-guard allow ID` at a terminal, answered ANSWER
    'human() { sh "$FIX/dialog.sh" "$OUT/$1.tty" "$AG allow $2" "[y/N]" "$3\\n"; echo $? >"$OUT/$1.status"; }',
    // snap NAME: the workspace's files at this point (quarantine included, .git left out)
    `snap() { (cd ${w.ws} && find . -path ./.git -prune -o -path ./.agent-trash/.git -prune -o -type f -print | sort) >"$OUT/$1.tree"; }`,
  ];
  fs.writeFileSync(file, [...prelude, ...lines, ''].join('\n'));
  const env = ['/usr/bin/env', '-i', ...Object.entries(w.env).map(([k, v]) => `${k}=${v}`)];
  const r = runSandboxed(area.rw(), [...env, 'sh', path.join(FIX, 'with-pty.sh'), 'sh', file], { cwd: w.ws, timeoutMs: 120_000 });
  expect(r.exitCode, r.stderr).toBe(0);
}

const read = (w: World, name: string): string => fs.readFileSync(path.join(w.out, name), 'utf8');
const status = (w: World, name: string): number => Number(read(w, `${name}.status`));
const audit = (w: World): Record<string, any>[] =>
  fs
    .readFileSync(path.join(w.ws, '.agent-trash/audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** The files of a snapshot (`snap NAME`), relative to the workspace; `now`: the tree as it is at the end. */
function files(w: World, snap: string): string[] {
  if (snap !== 'now') return read(w, `${snap}.tree`).split('\n').filter(Boolean).map((f) => f.slice(2));
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(w.ws, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === '.git' || r === '.agent-trash/.git') continue;
      if (e.isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk('');
  return out;
}
const exists = (w: World, rel: string, snap = 'now'): boolean => files(w, snap).includes(rel);
/** Quarantined copies of `rel` as it sits in a transaction (any): the only target of a transaction
 *  by its name (`rm -rf src/build` holds `build/o.o`), several by their workspace paths. */
const quarantined = (w: World, rel: string, snap = 'now'): number => files(w, snap).filter((f) => new RegExp(`^\\.agent-trash/\\d{8}T[^/]+/${rel.replace(/\./g, '\\.')}$`).test(f)).length;
const grantsLeft = (w: World): string[] => {
  const d = path.join(w.home, '.local/state/agent-guard/grants/granted');
  return fs.existsSync(d) ? fs.readdirSync(d) : [];
};

describeSandboxed('ASK at a guarded interactive terminal', () => {
  // The answers: yes / no / (nothing: AGENT_GUARD_ASK_TIMEOUT=1).
  const typed = (prompt: string, ws: string) => [
    prompt, 'cd src && rm -rf build\\n', '[y/N]', 'y\\n',
    prompt, `cd ${ws}/src2 && rm -rf build\\n`, '[y/N]', 'n\\n',
    prompt, `cd ${ws}/src3 && rm -rf build\\n`, '[y/N]', '',
    prompt, 'echo MARK-$((1+1)) $PWD\\n',
    prompt, 'exit\\n',
  ];
  const q = (a: string[]) => a.map((x) => `'${x.replace(/'/g, `'\\''`)}'`).join(' ');

  function expectAnswered(w: World, transcript: string): void {
    const t = transcript.replace(/\r/g, '');
    expect(t.match(/Run it once\? \[y\/N\]/g)).toHaveLength(3);
    expect(t).toContain('agent-guard: ASK COMPOUND_CWD_DELETE');
    expect(t).toContain(`MARK-2 ${w.ws}/src\n`); // the yes ran the cd; the refused lines did not run
    // yes: src/build quarantined (restorable), then removed by the command
    expect(exists(w, 'src/build/o.o')).toBe(false);
    expect(quarantined(w, 'build/o.o')).toBe(1); // one transaction: src2's and src3's builds stayed (below)
    // no, and no answer: nothing ran, nothing moved
    expect(fs.readFileSync(path.join(w.ws, 'src2/build/o.o'), 'utf8')).toBe('src2');
    expect(fs.readFileSync(path.join(w.ws, 'src3/build/o.o'), 'utf8')).toBe('src3');
    expect(t).toMatch(/Not run: the answer was no\./);
    expect(t).toMatch(/Not run: no answer within 1 s\./);
    const events = audit(w).filter((r) => r.kind === 'grant').map((r) => r.event);
    expect(events).toEqual(['terminal-yes', 'terminal-no', 'terminal-timeout']);
    expect(audit(w).find((r) => r.kind === 'decision' && r.authorizedBy)).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_TREE', authorizedBy: { by: 'terminal' }, command: 'cd src && rm -rf build' });
  }

  ptyIt('bash: yes runs the line once, its targets quarantined first; no and no answer refuse it', () => {
    const w = world(['src', 'src2', 'src3']);
    fs.writeFileSync(path.join(w.home, 'rc.bash'), `PS1='ag$ '\n__agent_guard_prev=$(trap -p DEBUG); . ${GUARD_BASH}\n`);
    scenario(w, [`HISTFILE=$HOME/.history sh "$FIX/dialog.sh" "$OUT/bash.tty" "bash --noprofile --rcfile $HOME/rc.bash -i" ${q(typed('ag$ ', w.ws))}; echo $? >"$OUT/bash.status"`]);
    expect(status(w, 'bash')).toBe(0);
    expectAnswered(w, read(w, 'bash.tty'));
  });

  ptyIt('the rm shim\'s -i asks on the same terminal helper: y quarantines, n keeps', () => {
    const w = world(['src']);
    const shims = path.join(w.dir, 'shims');
    writeShims(shims, { node: process.execPath, bundle: BIN, templatePath: path.join(REPO, 'shims/shim.sh') });
    for (const f of ['a.txt', 'b.txt']) fs.writeFileSync(path.join(w.ws, f), f);
    scenario(w, [`PATH=${shims}:$PATH sh "$FIX/dialog.sh" "$OUT/rm.tty" "rm -i a.txt; rm -i b.txt" '[y/N]' 'y\\n' '[y/N]' 'n\\n'; echo $? >"$OUT/rm.status"`]);
    expect(status(w, 'rm')).toBe(0);
    expect(exists(w, 'a.txt')).toBe(false);
    expect(quarantined(w, 'a.txt')).toBe(1);
    expect(exists(w, 'b.txt')).toBe(true);
  });

  ptyZshIt('zsh: the same', () => {
    const w = world(['src', 'src2', 'src3']);
    fs.writeFileSync(path.join(w.home, '.zshrc'), "PS1='zg%# '\n");
    scenario(w, [`ZDOTDIR=${ZDOTDIR} sh "$FIX/dialog.sh" "$OUT/zsh.tty" "zsh -i" ${q(typed('zg# ', w.ws))}; echo $? >"$OUT/zsh.status"`]);
    expect(status(w, 'zsh')).toBe(0);
    expectAnswered(w, read(w, 'zsh.tty'));
  });
});

describeSandboxed('ASK without a terminal: a one-time grant', () => {
  ptyIt('the refusal names a grant; `allow` needs a terminal; the grant runs exactly that command, in that directory, once, before it expires', () => {
    const w = world(['src', 'other/src']);
    const line = 'cd src && rm -rf build';
    const expire = `node -e 'const fs=require("fs"),d=process.argv[1];for(const f of fs.readdirSync(d)){const x=JSON.parse(fs.readFileSync(d+"/"+f));x.expires=new Date(Date.now()-1000).toISOString();fs.writeFileSync(d+"/"+f,JSON.stringify(x))}' "$HOME/.local/state/agent-guard/grants/granted"`;
    scenario(w, [
      `WS=${w.ws}; LINE='${line}'`,
      'agent a1 "$WS" "$LINE"; snap a1', // refused: names a grant
      'ID1=$(idof a1.err)',
      'step a2 $AG allow "$ID1"', // no terminal
      'agent a3 "$WS" "$LINE"', // still refused, the same request id
      'human h1 "$ID1" y', // the human allows it
      'agent a4 "$WS" "$LINE"; snap a4', // runs once, compensated
      'step a5 $AG allow --json', // the used request is gone
      'mkdir -p src/build && echo again > src/build/o.o',
      'agent a6 "$WS" "$LINE"; snap a6', // the grant was single-use
      'ID2=$(idof a6.err)',
      'human h2 "$ID2" y',
      'agent b1 "$WS/other" "$LINE"', // another cwd
      'agent b2 "$WS" "cd src && rm -r -f build"; snap b2', // another text
      'step b3 $AG check --enforce --json -- "$LINE"; snap b3', // the exact text in the exact cwd, through `check`: takes the grant
      'agent b4 "$WS" "$LINE"', // used by check above: refused again
      'ID3=$(idof b4.err)',
      'human h3 "$ID3" n', // declined
      'step b5 $AG allow --json',
      'mkdir -p src/build && echo third > src/build/o.o',
      'agent c1 "$WS" "$LINE"',
      'ID4=$(idof c1.err)',
      'human h4 "$ID4" y',
      expire,
      'agent c2 "$WS" "$LINE"; snap c2', // expired
      'step c3 $AG check --enforce -- "$LINE"', // check prints the grant too (exit 3)
      'step list $AG allow --json',
      // what the human is shown cannot be repainted by the command's own text
      `agent e1 "$WS" "$(printf 'cd src && rm -rf build # \\033[2K\\rhidden\\342\\200\\256x')"`,
      'human h5 "$(idof e1.err)" n',
    ]);
    // refused, with the grant's command on its own line
    expect(status(w, 'a1')).toBe(126);
    expect(exists(w, 'src/build/o.o', 'a1')).toBe(true);
    expect(read(w, 'a1.err')).toMatch(/^agent-guard: refused: ASK COMPOUND_CWD_DELETE: /m);
    expect(read(w, 'a1.err')).toMatch(/^agent-guard: To run it once, ask the user to type `agent-guard allow [a-z2-9]{8}` in their own terminal/m);
    const id1 = /agent-guard allow ([a-z2-9]{8})/.exec(read(w, 'a1.err'))![1]!;
    // `allow` without a terminal: refused, nothing granted
    expect(status(w, 'a2')).toBe(2);
    expect(read(w, 'a2.err')).toMatch(/only a human at an interactive terminal/);
    expect(status(w, 'a3')).toBe(126);
    expect(read(w, 'a3.err')).toContain(`agent-guard allow ${id1}`);
    // allowed at a terminal: the command and its directory were shown
    expect(status(w, 'h1')).toBe(0);
    expect(read(w, 'h1.tty')).toContain(`command: ${line}`);
    expect(read(w, 'h1.tty')).toContain(`in:      ${w.ws}`);
    // the retry ran once, compensated
    expect(status(w, 'a4')).toBe(0);
    expect(read(w, 'a4.err')).toBe('');
    expect(exists(w, 'src/build/o.o', 'a4')).toBe(false);
    expect(quarantined(w, 'build/o.o', 'a4')).toBe(1);
    expect(read(w, 'a5.out')).not.toContain(id1);
    // a second retry is refused, with a new id
    expect(status(w, 'a6')).toBe(126);
    const id2 = /agent-guard allow ([a-z2-9]{8})/.exec(read(w, 'a6.err'))![1]!;
    expect(id2).not.toBe(id1);
    expect(exists(w, 'src/build/o.o', 'a6')).toBe(true);
    expect(quarantined(w, 'build/o.o', 'a6')).toBe(1);
    // another cwd, another text: refused, and the grant stays for the exact command
    expect(status(w, 'b1')).toBe(126);
    expect(status(w, 'b2')).toBe(126);
    expect(exists(w, 'other/src/build/o.o', 'b2')).toBe(true);
    expect(exists(w, 'src/build/o.o', 'b2')).toBe(true);
    expect(quarantined(w, 'build/o.o', 'b2')).toBe(1);
    // the exact command (text, cwd) through `check --enforce`: taken, compensated, exit 0
    expect(status(w, 'b3')).toBe(0);
    expect(JSON.parse(read(w, 'b3.out'))).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_TREE', authorizedBy: { by: 'grant', id: id2 } });
    expect(exists(w, 'src/build/o.o', 'b3')).toBe(false);
    expect(quarantined(w, 'build/o.o', 'b3')).toBe(2);
    expect(status(w, 'b4')).toBe(126);
    // declined: the request is gone
    expect(status(w, 'h3')).toBe(2);
    const id3 = /agent-guard allow ([a-z2-9]{8})/.exec(read(w, 'b4.err'))![1]!;
    expect(read(w, 'b5.out')).not.toContain(id3);
    // expired: refused, nothing moved
    expect(status(w, 'h4')).toBe(0);
    expect(status(w, 'c2')).toBe(126);
    expect(exists(w, 'src/build/o.o', 'c2')).toBe(true);
    expect(quarantined(w, 'build/o.o', 'c2')).toBe(2);
    expect(grantsLeft(w)).toEqual([]);
    expect(status(w, 'c3')).toBe(3);
    expect(read(w, 'c3.err')).toMatch(/^grant [a-z2-9]{8}: To run it once, ask the user to type `agent-guard allow [a-z2-9]{8}`/m);
    expect(JSON.parse(read(w, 'list.out')).requests.map((r: { command: string; cwd: string }) => [r.command, r.cwd])).toEqual(
      expect.arrayContaining([
        [line, w.ws],
        [line, path.join(w.ws, 'other')],
      ]),
    );
    expect(status(w, 'e1')).toBe(126);
    expect(read(w, 'e1.err')).toContain('\x1b[2K\rhidden');
    expect(read(w, 'h5.tty')).toContain('command: cd src && rm -rf build # \\x1b[2K\\x0dhidden\\u{202e}x');
    expect(read(w, 'h5.tty')).not.toContain('\x1b[2K');
    // the audit log tells the story
    const events = audit(w)
      .filter((r) => r.kind === 'grant')
      .map((r) => `${r.event}${r.id === id1 ? ':1' : r.id === id2 ? ':2' : ''}`);
    expect(events.slice(0, 4)).toEqual(['requested:1', 'requested:1', 'granted:1', 'used:1']);
    expect(events).toEqual(expect.arrayContaining(['granted:2', 'used:2', 'declined', 'expired']));
    const used = audit(w).filter((r) => r.kind === 'decision' && r.authorizedBy?.by === 'grant');
    expect(used.map((r) => r.authorizedBy.id)).toEqual([id1, id2]);
  });

  ptyIt('Codex (real payload shape): an ASK is a refusal (exit 2, reason on stderr) naming the grant, never "ask"; the retry after `allow` is silent and compensated. Claude still asks', () => {
    const w = world(['src']);
    // Absolute paths: Codex's payload does not say where a command runs (docs/harness/codex.md).
    const codex = JSON.stringify({ session_id: '0199a2c3-codex', turn_id: 't1', transcript_path: null, cwd: w.ws, hook_event_name: 'PreToolUse', model: 'gpt-5-codex', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: `cd ${w.ws}/src && rm -rf ${w.ws}/src/build` }, tool_use_id: 'call_1' });
    const claude = JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: w.ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'cd src && rm -rf build', description: 'clean' }, tool_use_id: 'toolu_1' });
    fs.writeFileSync(path.join(w.dir, 'codex.json'), codex);
    fs.writeFileSync(path.join(w.dir, 'claude.json'), claude);
    scenario(w, [
      `IN=${w.dir}/claude.json step k1 $AG hook claude`,
      `IN=${w.dir}/codex.json step x1 $AG hook codex; snap x1`,
      'ID=$(idof x1.err)',
      'human h1 "$ID" y',
      `IN=${w.dir}/codex.json step x2 $AG hook codex; snap x2`,
      `IN=${w.dir}/codex.json step x3 $AG hook codex`,
    ]);
    const answer = (name: string) => JSON.parse(read(w, `${name}.out`)).hookSpecificOutput;
    expect(status(w, 'k1')).toBe(0);
    expect(answer('k1')).toMatchObject({ permissionDecision: 'ask' });
    expect(answer('k1').permissionDecisionReason).not.toMatch(/agent-guard allow/);
    expect([status(w, 'x1'), read(w, 'x1.out')]).toEqual([2, '']);
    expect(read(w, 'x1.err')).toMatch(/^agent-guard: ASK COMPOUND_CWD_DELETE: .* ask the user to type `agent-guard allow [a-z2-9]{8}` in their own terminal/);
    expect(exists(w, 'src/build/o.o', 'x1')).toBe(true);
    expect(status(w, 'h1')).toBe(0);
    expect([status(w, 'x2'), read(w, 'x2.out'), read(w, 'x2.err')]).toEqual([0, '', '']);
    expect(exists(w, 'src/build/o.o', 'x2')).toBe(false); // quarantined: Codex now runs the command, which finds nothing
    expect(quarantined(w, 'build/o.o', 'x2')).toBe(1);
    expect([status(w, 'x3'), read(w, 'x3.err')]).toEqual([2, expect.stringMatching(/^agent-guard: ASK COMPOUND_CWD_DELETE: /)]); // once
  });
});
