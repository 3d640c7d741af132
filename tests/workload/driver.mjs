// Runs the everyday-agent workload on twin workspaces, inside the read-only sandbox (started by
// everyday.test.ts): for each case, two fresh copies of one template workspace; the command runs
// as a harness would send it — unguarded, and under `agent-guard run` — and the outcome of each
// side is recorded: exit status, stdout, stderr, the tree outside the quarantine, the git state.
// Usage: node driver.mjs <plan.json> <out.json>
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { workTree } from '../helpers/tree.mjs';

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
// plan: { root, template, node, bin, path, cases: [{ id, cmd, argv?, setup? }] }

function sh(cmd, opts) {
  return spawnSync('bash', ['-c', cmd], { encoding: 'utf8', ...opts });
}

function gitState(dir) {
  const q = (args) => spawnSync('git', args, { cwd: dir, encoding: 'utf8' }).stdout.trim();
  return {
    head: q(['rev-parse', 'HEAD']),
    branch: q(['symbolic-ref', '-q', 'HEAD']),
    branches: q(['branch', '--list', '--format=%(refname:short) %(objectname:short)']),
    status: q(['status', '--porcelain=v1', '-uall', '--ignored']).split('\n').filter((l) => !/^!! \.agent-trash\//.test(l)).join('\n'),
    stash: q(['stash', 'list', '--format=%gs']),
    index: q(['ls-files', '-s']),
  };
}

// The PATH a harness started under `agent-guard run` sees (the shims first): its shell snapshot
// re-exports it on every command, as Claude Code's does.
const guardedPath = spawnSync(plan.node, [plan.bin, 'run', '--', 'printenv', 'PATH'], { encoding: 'utf8', env: { PATH: plan.path, HOME: plan.root } }).stdout.trim();
const squote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
function snapshot(home, side) {
  const file = path.join(home, '.claude', 'shell-snapshots', 'snapshot-bash-1764752400000-q1w2e3.sh');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    [
      '# Snapshot file',
      '# Unset all aliases to avoid conflicts with functions',
      'unalias -a 2>/dev/null || true',
      '# Functions',
      'mkcd () ',
      '{ ',
      '    mkdir -p "$1" && cd "$1"',
      '}',
      '# Shell Options',
      'shopt -u autocd',
      'shopt -s checkwinsize',
      'shopt -s expand_aliases',
      '# Aliases',
      "alias ll='ls -l'",
      '# Check for rg availability',
      'if ! command -v rg >/dev/null 2>&1; then',
      "  alias rg='grep -r'",
      'fi',
      `export PATH=${squote(side === 'plain' ? plan.path : guardedPath)}`,
      '',
    ].join('\n'),
  );
  return file;
}

const results = [];
for (const c of plan.cases) {
  const sides = {};
  for (const side of ['plain', 'guarded']) {
    const base = path.join(plan.root, `${c.id}-${side}`);
    const home = path.join(base, 'home');
    const ws = path.join(home, 'ws');
    const tmp = path.join(base, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    fs.cpSync(plan.template, ws, { recursive: true, verbatimSymlinks: true });
    for (const f of ['.gitconfig']) if (fs.existsSync(path.join(plan.template, '..', f))) fs.copyFileSync(path.join(plan.template, '..', f), path.join(home, f));
    // (fixed commit dates: a commit or stash made in another second would have another hash)
    const date = '2026-12-01T12:00:00Z';
    const env = { HOME: home, PATH: plan.path, TMPDIR: tmp, LANG: 'C.UTF-8', SHLVL: '1', AGENT_GUARD_SESSION: 'workload', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    if (c.setup) {
      const s = sh(c.setup, { cwd: ws, env });
      if (s.status !== 0) throw new Error(`setup of ${c.id} failed: ${s.stderr}`);
    }
    const argv = (c.argv ?? ['bash', '-c', c.cmd]).map((a) => (a.includes('@SNAPSHOT@') ? a.replace('@SNAPSHOT@', snapshot(home, side)) : a));
    const full = side === 'plain' ? argv : [plan.node, plan.bin, 'run', '--', ...argv];
    const r = spawnSync(full[0], full.slice(1), { cwd: ws, env, encoding: 'utf8', input: '', timeout: 60_000 });
    sides[side] = {
      status: r.status ?? `signal ${r.signal}`,
      stdout: r.stdout,
      stderr: r.stderr,
      tree: workTree(ws),
      git: gitState(ws),
      quarantine: fs.existsSync(path.join(ws, '.agent-trash')),
    };
  }
  results.push({ id: c.id, cmd: c.cmd, ...sides });
}
fs.writeFileSync(outFile, JSON.stringify(results));
