// Benign Node use under the guard ends as it ends without it (docs/interpreters.md, "The rule"): the
// same exit statuses, output and tree, no refusal, and no relocation of a tool's own churn. Two
// identical worlds, one unguarded and one under `agent-guard run`, in one sandbox, offline: npm
// install/ci (tarball dependencies made here), npm test of a project whose clean script is rimraf,
// npx of a tarball, a program's temp files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const BATCH = path.join(REPO, 'tests/helpers/batch.mjs');
const RIMRAF_BIN = path.join(REPO, 'node_modules/rimraf/dist/esm/bin.mjs');
const NODE = process.execPath;
const BASE_PATH = [...new Set([path.dirname(NODE), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');

const area = useSandboxArea('ag-node-benign');

/** A package tarball as npm packs it (package/ inside), made with tar: no npm, no network. */
function tarball(dir: string, name: string, files: Record<string, string>): string {
  const src = path.join(dir, `src-${name}`, 'package');
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    fs.writeFileSync(path.join(src, rel), content);
  }
  const out = path.join(dir, `${name}-1.0.0.tgz`);
  expect(spawnSync('tar', ['czf', out, '-C', path.dirname(src), 'package']).status).toBe(0);
  return out;
}

interface Side {
  dir: string;
  home: string;
  ws: string;
}

function side(name: string, tarballs: { a: string; b: string }): Side {
  const dir = path.join(area.rw(), name);
  const home = path.join(dir, 'home');
  const ws = path.join(home, 'proj');
  fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  expect(spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: ws }).status).toBe(0);
  fs.writeFileSync(path.join(ws, '.gitignore'), 'node_modules/\n');
  const pkg = {
    name: 'proj',
    version: '1.0.0',
    private: true,
    dependencies: { a: `file:${tarballs.a}`, b: `file:${tarballs.b}` },
    scripts: {
      clean: `node ${RIMRAF_BIN} dist`,
      build: 'node build.js',
      test: `npm run clean && npm run build && node -e "console.log(require('./dist/out.js'))"`,
    },
  };
  fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  fs.writeFileSync(
    path.join(ws, 'build.js'),
    "const fs = require('fs'); fs.mkdirSync('dist/assets', {recursive: true});\n" +
      "fs.writeFileSync('dist/out.js', 'module.exports = ' + require('a')() + ';\\n'); fs.writeFileSync('dist/assets/x.txt', 'x');\n",
  );
  return { dir, home, ws };
}

/** Every entry below `root` (files with their content), leaving out what differs by nature: the
 *  quarantine, .git, npm's log files, and agent-guard's own shim cache. */
function tree(root: string): Record<string, string> {
  const skip = new Set(['.git', '.agent-trash', '_logs', '.cache']);
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d).sort()) {
      if (skip.has(n)) continue;
      const p = path.join(d, n);
      const rel = path.relative(root, p);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(p);
      } else out[rel] = rel.includes('_cacache') ? '(cache entry)' : fs.readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

describeSandboxed('benign Node use under run ends as unguarded', () => {
  itSandboxed('npm install, npm ci (twice), npm test with a rimraf clean script (twice), npx, temp files', () => {
    const tgz = path.join(area.rw(), 'tarballs');
    fs.mkdirSync(tgz);
    const tarballs = {
      a: tarball(tgz, 'a', { 'package.json': '{"name":"a","version":"1.0.0","main":"index.js"}\n', 'index.js': 'module.exports = () => 42;\n' }),
      b: tarball(tgz, 'b', { 'package.json': '{"name":"b","version":"1.0.0","main":"index.js","bin":{"bee":"bin.js"}}\n', 'index.js': 'module.exports = 1;\n', 'bin.js': '#!/usr/bin/env node\nconsole.log("bee");\n' }),
    };
    const sides = { plain: side('plain', tarballs), guarded: side('guarded', tarballs) };
    const tempChurn =
      "const fs = require('fs'), os = require('os'), p = require('path'); const d = fs.mkdtempSync(p.join(os.tmpdir(), 'job-'));" +
      " fs.mkdirSync(p.join(d, 'sub')); fs.writeFileSync(p.join(d, 'sub', 'f'), 'x'); fs.writeFileSync('scratch.tmp', 'y');" +
      " fs.rmSync(d, {recursive: true}); fs.unlinkSync('scratch.tmp'); console.log(fs.existsSync(d))";
    const steps: string[][] = [
      ['npm', 'install'],
      ['npm', 'ci'],
      ['npm', 'ci'],
      ['npm', 'test'],
      ['npm', 'test'],
      ['npx', '--yes', `--package=file:${tarballs.b}`, 'bee'],
      [NODE, '-e', tempChurn],
    ];
    const npmEnv = { npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_loglevel: 'warn' };
    const cases = (['plain', 'guarded'] as const).flatMap((k) =>
      steps.map((argv) => ({
        argv: k === 'guarded' ? [NODE, BIN, 'run', '--', ...argv] : argv,
        cwd: sides[k].ws,
        env: { ...npmEnv, HOME: sides[k].home, XDG_CACHE_HOME: path.join(sides[k].home, '.cache'), TMPDIR: path.join(sides[k].dir, 'tmp') },
      })),
    );
    const file = path.join(area.rw(), 'cases.json');
    fs.writeFileSync(file, JSON.stringify(cases));
    const r = runSandboxed(area.rw(), ['env', '-i', `PATH=${BASE_PATH}`, 'LC_ALL=C', 'AGENT_GUARD_SESSION=benign', NODE, BATCH, file, `${file}.out`], { timeoutMs: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // (the driver also reports each step's time, signal and spawn error: not part of the outcome)
    const results = (JSON.parse(fs.readFileSync(`${file}.out`, 'utf8')) as { exitCode: number; stdout: string; stderr: string }[]).map((x) => ({ exitCode: x.exitCode, stdout: x.stdout, stderr: x.stderr }));
    const norm = (s: string, k: keyof typeof sides): string =>
      s.split(sides[k].dir).join('<W>').replace(/in \d+(\.\d+)?m?s\b/g, 'in <T>').replace(/\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d_\d+Z-debug-\d+\.log/g, '<LOG>');
    const plain = results.slice(0, steps.length).map((x) => ({ ...x, stdout: norm(x.stdout, 'plain'), stderr: norm(x.stderr, 'plain') }));
    const guarded = results.slice(steps.length).map((x) => ({ ...x, stdout: norm(x.stdout, 'guarded'), stderr: norm(x.stderr, 'guarded') }));
    for (const [i, x] of plain.entries()) expect(x.exitCode, `${steps[i]!.join(' ')}: ${x.stderr}`).toBe(0);
    for (const [i, x] of guarded.entries()) expect(x, steps[i]!.join(' ')).toEqual(plain[i]);
    expect(plain[4]!.stdout).toMatch(/^42$/m);
    // (agent-guard's own per-user shims, rendered by `run` into HOME's data directory, aside)
    const own = (t: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(t).filter(([k]) => !/^home\/\.local\/(share\/(agent-guard\/.*)?)?$/.test(k)));
    expect(own(tree(sides.guarded.dir))).toEqual(own(tree(sides.plain.dir)));
    expect(Object.keys(tree(sides.guarded.ws)).filter((k) => k.startsWith('node_modules/'))).toContain('node_modules/a/index.js');

    // What the guard did: only the second `npm test`'s `rimraf dist` reached the policy — the dist
    // the first one built, workspace data not ignored by git — and it was quarantined. npm's own
    // deletions (node_modules, its cache), npx's and the program's new temp files passed untouched.
    const q = path.join(sides.guarded.ws, '.agent-trash');
    const read = (f: string): any[] => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : []);
    const starts = read(path.join(q, 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    expect(starts.map((s) => s.command)).toEqual([`node ${RIMRAF_BIN}: fs.promises.rm(${JSON.stringify(path.join(sides.guarded.ws, 'dist'))})`]);
    expect(read(path.join(q, 'audit.jsonl')).map((a) => [a.decision, a.code])).toEqual([['ALLOW', 'RELOCATE_TREE']]);
    expect(fs.existsSync(path.join(sides.guarded.dir, 'tmp', '.agent-trash-0'))).toBe(false);
  }, 360_000);
});
