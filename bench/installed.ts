// The installed CLI against the checkout's (docs/distribution.md, docs/performance.md): the project
// is packed (`npm pack --ignore-scripts`) and laid out as `npm i -g` lays out a package without
// dependencies, in a temporary prefix: the tarball's package/ as <prefix>/lib/node_modules/agent-guard
// and <prefix>/bin/agent-guard a symlink to its bundle, started through its `#!/usr/bin/env node` line
// as a user's shell starts it. Each row times that command against `node <checkout>/dist/agent-guard.cjs`
// with the same arguments, interleaved. Nothing is installed outside the temporary directory.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compare, type ProcessRow } from './process.js';

export interface InstalledResult {
  prefix: string;
  rows: ProcessRow[];
}

/** Packs `repo` and lays the package out in a new temporary prefix; returns the bin link. */
export function layOutInstalled(repo: string, tmp: string): string {
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', tmp], { cwd: repo, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = path.join(tmp, pack.stdout.trim().split('\n').at(-1)!);
  const modules = path.join(tmp, 'prefix', 'lib', 'node_modules');
  fs.mkdirSync(modules, { recursive: true });
  const tar = spawnSync('tar', ['-xzf', tarball, '-C', modules]);
  if (tar.status !== 0) throw new Error(`tar -xzf ${tarball} failed`);
  fs.renameSync(path.join(modules, 'package'), path.join(modules, 'agent-guard'));
  const bin = path.join(tmp, 'prefix', 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync('../lib/node_modules/agent-guard/dist/agent-guard.cjs', path.join(bin, 'agent-guard'));
  return path.join(bin, 'agent-guard');
}

/** The rows: `--version` and a check, installed vs checkout, in `cwd` with `env`. */
export function benchInstalled(repo: string, bundle: string, opts: { runs: number; cwd: string; env: NodeJS.ProcessEnv; check: { line: string; expect: RegExp } }): InstalledResult {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ag-bench-installed-'));
  try {
    const bin = layOutInstalled(repo, tmp);
    // The bin link's `#!/usr/bin/env node` needs this node on PATH.
    const env = { ...opts.env, PATH: [path.dirname(process.execPath), opts.env.PATH ?? '/usr/bin:/bin'].join(':') };
    const spawn = { cwd: opts.cwd, env };
    const row = (name: string, args: string[], expect: RegExp): ProcessRow =>
      compare({ name, args, expect, gated: false, command: bin, baseline: { args: [bundle, ...args], expect } }, { runs: opts.runs, warmup: 3, spawn });
    return {
      prefix: path.join(tmp, 'prefix'),
      rows: [row('--version', ['--version'], /^\d+\.\d+\.\d+/), row(`check -- "${opts.check.line}"`, ['check', '--', opts.check.line], opts.check.expect)],
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function renderInstalled(r: InstalledResult): string {
  const lines = [
    'Installed (npm i -g layout: <prefix>/bin/agent-guard, a link started through #!/usr/bin/env node) vs the checkout (node dist/agent-guard.cjs):',
    'command                         checkout med ms  installed med ms   added  ratio  pairs IQR',
  ];
  for (const row of r.rows) {
    lines.push(
      `${row.name.padEnd(30)}  ${row.baselineMs.median.toFixed(1).padStart(15)}  ${row.subjectMs.median.toFixed(1).padStart(16)}  ${`${row.addedMs >= 0 ? '+' : ''}${row.addedMs.toFixed(1)}`.padStart(6)}  ${row.ratio.toFixed(2)}x  ${row.pairRatioIqr[0].toFixed(2)}-${row.pairRatioIqr[1].toFixed(2)}`,
    );
  }
  return lines.join('\n') + '\n';
}
