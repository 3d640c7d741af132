// The Node deletion guard end to end (docs/interpreters.md): `agent-guard run -- node …` with the real
// preload and bundle, in the read-only sandbox. Each test runs its commands in one sandbox
// (tests/helpers/batch.mjs) with an exact environment, then looks at the tree, the
// quarantine and the audit from outside.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { batch, guarded, NODE, nodeE, put, records, REPO, tree, world as makeWorld, type Case, type Result } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const PRELOAD = path.join(REPO, 'dist/agent-guard-preload.cjs');
const RIMRAF = path.join(REPO, 'node_modules/rimraf');
const FSE = path.join(REPO, 'node_modules/fs-extra');

const area = useSandboxArea('ag-node-guard');
const world = () => makeWorld(area.rw());

describeSandboxed('Node deletion guard: every deletion API under run is quarantined and restorable', () => {
  itSandboxed('fs sync/callback/promise forms, ESM imports, a worker, rimraf (native, manual, CLI), fs-extra', () => {
    const w = world();
    const names = ['rmsync', 'prm', 'cbrm', 'rimraf', 'rimraf-sync', 'manual', 'rimraf-cli', 'fse', 'fse-sync', 'esm', 'esm-p', 'worker', 'rmdir-r', 'dyn', 'gbm', 'pkg-esm'];
    const files: Record<string, string> = {};
    for (const n of names) Object.assign(files, { [`t/${n}/a.txt`]: `${n} a\n`, [`t/${n}/sub/b.txt`]: `${n} b\n` });
    Object.assign(files, { 't/unlink.txt': 'u\n', 't/cb-unlink.txt': 'cu\n', 't/p-unlink.txt': 'pu\n', 't/empty/x.txt': 'x\n', 't/empty/y/z.txt': 'z\n' });
    put(w.ws, files);
    // ES modules reached without a CommonJS route to fs/promises: imported by a CommonJS program, and
    // a .js main in a "type": "module" package.
    put(w.dir, {
      'dyn.mjs': `import { rm } from 'node:fs/promises';\nawait rm('t/dyn', { recursive: true });\nconsole.log('dyn');\n`,
      'esm-pkg/package.json': '{"type": "module"}\n',
      'esm-pkg/clean.js': `import { rm } from 'fs/promises';\nawait rm('t/pkg-esm', { recursive: true });\nconsole.log('pkg-esm');\n`,
    });
    const before = tree(w.ws);
    const gone = (p: string): string => `console.log(${JSON.stringify(p)}, require('fs').existsSync(${JSON.stringify(p)}))`;
    const cases: Case[] = [
      { argv: guarded(...nodeE(`require('fs').rmSync('t/rmsync', {recursive: true}); ${gone('t/rmsync')}`)) },
      { argv: guarded(...nodeE(`require('fs').unlinkSync('t/unlink.txt'); ${gone('t/unlink.txt')}`)) },
      { argv: guarded(...nodeE(`require('fs').promises.rm('t/prm', {recursive: true, force: true}).then((r) => { console.log(r); ${gone('t/prm')} })`)) },
      { argv: guarded(...nodeE(`require('fs').rm('t/cbrm', {recursive: true}, (e) => { console.log(e); ${gone('t/cbrm')} })`)) },
      { argv: guarded(...nodeE(`require('fs').unlink('t/cb-unlink.txt', (e) => { console.log(e); ${gone('t/cb-unlink.txt')} })`)) },
      { argv: guarded(...nodeE(`require('fs/promises').unlink('t/p-unlink.txt').then(() => { ${gone('t/p-unlink.txt')} })`)) },
      { argv: guarded(...nodeE(`require('fs').rmdirSync('t/rmdir-r', {recursive: true}); ${gone('t/rmdir-r')}`)) },
      { argv: guarded(...nodeE(`require(${JSON.stringify(RIMRAF)}).rimraf('t/rimraf').then((r) => { console.log(r); ${gone('t/rimraf')} })`)) },
      { argv: guarded(...nodeE(`console.log(require(${JSON.stringify(RIMRAF)}).rimrafSync('t/rimraf-sync')); ${gone('t/rimraf-sync')}`)) },
      // A filter makes rimraf walk the tree itself: unlink per file, rmdir per directory.
      { argv: guarded(...nodeE(`require(${JSON.stringify(RIMRAF)}).rimraf('t/manual', {filter: () => true}).then((r) => { console.log(r); ${gone('t/manual')} })`)) },
      { argv: guarded(NODE, path.join(RIMRAF, 'dist/esm/bin.mjs'), 't/rimraf-cli') },
      { argv: guarded(...nodeE(`require(${JSON.stringify(FSE)}).remove('t/fse').then((r) => { console.log(r); ${gone('t/fse')} })`)) },
      { argv: guarded(...nodeE(`require(${JSON.stringify(FSE)}).removeSync('t/fse-sync'); ${gone('t/fse-sync')}`)) },
      { argv: guarded(...nodeE(`require(${JSON.stringify(FSE)}).emptyDir('t/empty').then(() => console.log(require('fs').readdirSync('t/empty')))`)) },
      { argv: guarded(NODE, '--input-type=module', '-e', `import { rmSync } from 'node:fs'; rmSync('t/esm', { recursive: true }); console.log('esm')`) },
      { argv: guarded(NODE, '--input-type=module', '-e', `import { rm } from 'fs/promises'; await rm('t/esm-p', { recursive: true }); console.log('esm-p')`) },
      { argv: guarded(...nodeE(`const { Worker } = require('worker_threads'); new Worker("require('fs').rmSync('t/worker', {recursive: true})", {eval: true}).on('exit', (c) => { console.log('worker', c); ${gone('t/worker')} })`)) },
      { argv: guarded(...nodeE(`import(${JSON.stringify(path.join(w.dir, 'dyn.mjs'))})`)) },
      { argv: guarded(...nodeE(`process.getBuiltinModule('fs/promises').rm('t/gbm', {recursive: true}).then(() => { ${gone('t/gbm')} })`)) },
      { argv: guarded(NODE, path.join(w.dir, 'esm-pkg/clean.js')) },
    ];
    const res = batch(w, cases);
    for (const [i, r] of res.entries()) {
      expect(r.exitCode, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).toBe(0);
      if (!cases[i]!.argv.join(' ').includes('rmdirSync')) expect(r.stderr, cases[i]!.argv.join(' ')).toBe('');
    }
    // rmdir with recursive: Node's own deprecation warning, as without the guard.
    expect(res[6]!.stderr).toMatch(/DEP0147/);
    expect(res.map((r) => r.stdout.trim())).toEqual([
      't/rmsync false',
      't/unlink.txt false',
      'undefined\nt/prm false',
      'null\nt/cbrm false',
      'null\nt/cb-unlink.txt false',
      't/p-unlink.txt false',
      't/rmdir-r false',
      'true\nt/rimraf false',
      'true\nt/rimraf-sync false',
      'true\nt/manual false',
      '',
      'undefined\nt/fse false',
      't/fse-sync false',
      '[]',
      'esm',
      'esm-p',
      'worker 0\nt/worker false',
      'dyn',
      't/gbm false',
      'pkg-esm',
    ]);
    // Nothing of it is left outside the quarantine but the emptied directory.
    expect(Object.keys(tree(path.join(w.ws, 't')))).toEqual(['empty/']);
    // Every deletion went through the policy and the recovery code: one audited transaction each
    // (rimraf's manual walk: one per file; its rmdir of the emptied directories holds nothing).
    const q = path.join(w.ws, '.agent-trash');
    const starts = records(path.join(q, 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    const audit = records(path.join(q, 'audit.jsonl'));
    expect(starts.length).toBe(names.length - 1 + 3 + 2 + 2); // manual: 2 files; emptyDir: x.txt and y
    expect(audit.length).toBe(starts.length);
    for (const a of audit) expect([a.decision, a.via, a.program.startsWith('node')]).toEqual(['ALLOW', 'node', true]);
    expect(audit.map((a) => a.code).sort()).toContain('RELOCATE_TREE');
    expect(starts.find((s) => s.command.includes('rimraf/dist/esm/bin.mjs'))?.command).toMatch(/^node \S+bin\.mjs: fs\.promises\.rm\(/);

    // Everything comes back with agent-guard restore.
    const back = batch(w, starts.map((s) => ({ argv: [NODE, BIN, 'restore', s.txid] })));
    for (const r of back) expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(w.ws)).toEqual(before);
  }, 240_000);

  itSandboxed('missing paths and types the call refuses: the same errors as without the guard, nothing moved', () => {
    const w = world();
    put(w.ws, { 'd/f.txt': 'f\n' });
    const before = tree(w.ws);
    const code = [
      `const fs = require('fs'); const out = (e) => console.log(e ? JSON.stringify([e.code, e.errno, e.syscall, e.path, e.message]) : 'ok');`,
      `const t = (f) => { try { f(); out(null) } catch (e) { out(e) } };`,
      `t(() => fs.unlinkSync('nope')); t(() => fs.rmSync('nope')); t(() => fs.rmSync('nope', {force: true}));`,
      `t(() => fs.rmSync('d')); t(() => fs.unlinkSync('d')); t(() => fs.rmdirSync('d')); t(() => fs.rmdirSync('nope', {recursive: true}));`,
      `t(() => fs.rmSync('nope', {recursive: 'yes'}));`,
      `fs.unlink('nope', (e) => { out(e); fs.rm('nope', {recursive: true}, (e2) => { out(e2);`,
      `  fs.promises.rm('nope').then(() => out(null), out).then(() => fs.promises.unlink('d').then(() => out(null), out)); }); });`,
    ].join('\n');
    const [plain, under] = batch(w, [{ argv: nodeE(code) }, { argv: guarded(...nodeE(code)) }]);
    expect(plain!.exitCode).toBe(0);
    expect(plain!.stdout.split('\n').length).toBe(13);
    const pid = (r: Result): Result => ({ ...r, stderr: r.stderr.replace(/^\(node:\d+\)/gm, '(node:PID)') });
    expect(plain!.stderr).toMatch(/DEP0147/); // rmdir with recursive, once
    expect(pid(under!)).toEqual(pid(plain!));
    expect(tree(w.ws)).toEqual(before);
    expect(fs.existsSync(path.join(w.ws, '.agent-trash'))).toBe(false);
  }, 120_000);
});

describeSandboxed('Node deletion guard: refusals, fail closed, agent-guard itself', () => {
  itSandboxed('outside the workspace: EPERM with errno, the reason and the program, through each channel; nothing deleted', () => {
    const w = world();
    put(w.home, { 'notes.txt': 'mine\n', 'docs/a.txt': 'a\n', 'c.txt': 'c\n' });
    const script = path.join(w.ws, 'clean.js');
    fs.writeFileSync(script, `require('fs').rmSync(${JSON.stringify(path.join(w.home, 'docs'))}, {recursive: true});\n`);
    const show = `const out = (e) => console.log(JSON.stringify([e.code, e.errno, e.syscall, e.path, /BLOCK_OUT_OF_WORKSPACE|BLOCK_PROTECTED_ANCESTOR/.exec(e.message)?.[0], e.message.includes('node -e'), e.agentGuard]));`;
    const home = JSON.stringify(w.home);
    const res = batch(w, [
      { argv: guarded(...nodeE(`${show} try { require('fs').unlinkSync(${home} + '/notes.txt') } catch (e) { out(e) }`)) },
      { argv: guarded(...nodeE(`${show} require('fs').rm(${home} + '/docs', {recursive: true}, out)`)) },
      { argv: guarded(...nodeE(`${show} require('fs').promises.rm(${home} + '/c.txt').catch(out)`)) },
      { argv: guarded(...nodeE(`${show} try { require('fs').rmSync('/etc', {recursive: true, force: true}) } catch (e) { out(e) }`)) },
      { argv: guarded(NODE, script) },
    ]);
    const parsed = res.slice(0, 4).map((r) => JSON.parse(r.stdout));
    expect(parsed).toEqual([
      ['EPERM', -1, 'unlink', path.join(w.home, 'notes.txt'), 'BLOCK_OUT_OF_WORKSPACE', true, { decision: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' }],
      ['EPERM', -1, 'rm', path.join(w.home, 'docs'), 'BLOCK_OUT_OF_WORKSPACE', true, { decision: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' }],
      ['EPERM', -1, 'rm', path.join(w.home, 'c.txt'), 'BLOCK_OUT_OF_WORKSPACE', true, { decision: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' }],
      ['EPERM', -1, 'rm', '/etc', 'BLOCK_PROTECTED_ANCESTOR', true, { decision: 'BLOCK', code: 'BLOCK_PROTECTED_ANCESTOR' }],
    ]);
    for (const r of res.slice(0, 4)) expect(r.stderr).toMatch(/^agent-guard refused fs\.\S+\(".*"\) in node -e: BLOCK BLOCK_[A-Z_]+: .+\n$/);
    // Uncaught in a script: the program fails with the error, which names the script.
    expect(res[4]!.exitCode).toBe(1);
    expect(res[4]!.stderr).toContain(`agent-guard refused fs.rmSync(${JSON.stringify(path.join(w.home, 'docs'))}) in node ${script}: BLOCK BLOCK_OUT_OF_WORKSPACE`);
    expect(res[4]!.stderr).toMatch(/code: 'EPERM'/);
    expect(tree(w.home)['notes.txt']).toBe('mine\n');
    expect(tree(w.home)['docs/a.txt']).toBe('a\n');
    expect(tree(w.home)['c.txt']).toBe('c\n');
    const audit = records(path.join(w.ws, '.agent-trash', 'audit.jsonl'));
    expect(audit.map((a) => [a.decision, a.code, a.via])).toEqual([
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'node'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'node'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'node'],
      ['BLOCK', 'BLOCK_PROTECTED_ANCESTOR', 'node'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'node'],
    ]);
  }, 120_000);

  itSandboxed('the guard cannot decide (no bundle beside the preload): EPERM BLOCK_INTERNAL_ERROR, nothing deleted; what needs no decision still runs', () => {
    const w = world();
    put(w.ws, { 'keep/a.txt': 'a\n', 'node_modules/x/i.js': 'i\n' });
    const lone = path.join(w.dir, 'lone');
    fs.mkdirSync(lone);
    fs.copyFileSync(PRELOAD, path.join(lone, 'agent-guard-preload.cjs'));
    const env = { NODE_OPTIONS: `--require ${path.join(lone, 'agent-guard-preload.cjs')}` };
    const [r] = batch(w, [
      {
        argv: nodeE(
          `const fs = require('fs'); try { fs.rmSync('keep', {recursive: true}) } catch (e) { console.log(e.code, e.agentGuard.code) }` +
            ` fs.rmSync('node_modules/x', {recursive: true}); fs.writeFileSync('mine.txt', 'x'); fs.unlinkSync('mine.txt'); fs.rmSync('nope', {force: true}); console.log('rest ok')`,
        ),
        env,
      },
    ]);
    expect(r!.stdout).toBe('EPERM BLOCK_INTERNAL_ERROR\nrest ok\n');
    expect(r!.stderr).toMatch(/BLOCK_INTERNAL_ERROR: the guard failed \(.*agent-guard\.cjs/);
    expect(tree(w.ws)).toEqual({ 'keep/': 'dir', 'keep/a.txt': 'a\n', 'node_modules/': 'dir' });
  }, 120_000);

  itSandboxed('a Node too old to load the bundle (no process.getBuiltinModule) asks agent-guard runtime-delete with AGENT_GUARD_NODE; without it, refuses', () => {
    const w = world();
    put(w.ws, { 'd/f.txt': 'f\n', 'e/g.txt': 'g\n' });
    put(w.home, { 'h.txt': 'h\n' });
    const old = path.join(w.dir, 'old-node.cjs');
    fs.writeFileSync(old, 'delete process.getBuiltinModule;\n'); // what a Node before 20.16 lacks
    const code =
      `const fs = require('fs'); fs.rmSync('d', {recursive: true}); console.log(fs.existsSync('d'));` +
      ` try { fs.unlinkSync(process.env.HOME + '/h.txt') } catch (e) { console.log(e.code, e.agentGuard.code) }`;
    const res = batch(w, [
      // Under run (AGENT_GUARD_NODE set): the old Node's deletions are decided by the checker process.
      { argv: guarded('sh', '-c', `NODE_OPTIONS="--require ${old} $NODE_OPTIONS" exec "$@"`, 'sh', ...nodeE(code)) },
      // The preload alone, without AGENT_GUARD_NODE: nothing can decide, so it refuses.
      { argv: nodeE(`const fs = require('fs'); try { fs.rmSync('e', {recursive: true}) } catch (e) { console.log(e.code, e.agentGuard.code) }`), env: { NODE_OPTIONS: `--require ${old} --require ${PRELOAD}` } },
    ]);
    expect(res[0]!.stdout).toBe('false\nEPERM BLOCK_OUT_OF_WORKSPACE\n');
    expect(res[1]!.stdout).toBe('EPERM BLOCK_INTERNAL_ERROR\n');
    expect(tree(w.ws)).toEqual({ 'e/': 'dir', 'e/g.txt': 'g\n' });
    expect(tree(w.home)['h.txt']).toBe('h\n');
    const q = path.join(w.ws, '.agent-trash');
    expect(records(path.join(q, 'audit.jsonl')).map((a) => [a.decision, a.code, a.via])).toEqual([
      ['ALLOW', 'RELOCATE_TREE', 'node'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'node'],
    ]);
  }, 120_000);

  itSandboxed('a quarantine on another filesystem (EXDEV copy, then the real removal): from a program, and from agent-guard itself under run', () => {
    const w = world();
    put(w.ws, { 'big/a.txt': 'a\n', 'big/sub/b.txt': 'b\n', 'other/c.txt': 'c\n' });
    const before = tree(w.ws);
    const trash = path.join(w.dir, 'trashfs');
    fs.mkdirSync(trash);
    w.env.AGENT_GUARD_TRASH = trash;
    // The tmpfs lives as long as the sandbox: the restores run in the same batch.
    const restoreAll = `for t in $(ls ${trash} | grep '^[0-9]'); do ${NODE} ${BIN} restore $t >/dev/null || exit 1; done; ls ${trash} | grep -c '^[0-9]'`;
    const res = batch(
      w,
      [
        { argv: guarded(...nodeE(`require('fs').rmSync('big', {recursive: true}); console.log(require('fs').existsSync('big'))`)) },
        { argv: guarded(NODE, BIN, 'check', '--enforce', '--', 'rm -rf other') },
        { argv: ['sh', '-c', `find . -path ./.git -prune -o -print | sort`] },
        { argv: ['sh', '-c', restoreAll] },
      ],
      { before: `mount -t tmpfs -o size=8m,mode=0700 ag-node-exdev ${trash}` },
    );
    expect(res[0]!).toEqual({ exitCode: 0, stdout: 'false\n', stderr: '' });
    expect(res[1]!.exitCode, res[1]!.stderr).toBe(0); // check --enforce: relocated (one transaction, counted below)
    expect(res[2]!.stdout).toBe('.\n');
    expect(res[3]!).toEqual({ exitCode: 0, stdout: '2\n', stderr: '' });
    expect(tree(w.ws)).toEqual(before);
  }, 120_000);

  itSandboxed('other runtimes reach the same decision through `agent-guard runtime-delete` (a JSON request, a JSON verdict)', () => {
    const w = world();
    put(w.ws, { 'src/a.py': 'a\n' });
    put(w.home, { 'notes.txt': 'mine\n' });
    const ask = (fields: object): Case => ({
      argv: ['sh', '-c', `printf '%s' "$1" | ${NODE} ${BIN} runtime-delete`, 'sh', JSON.stringify({ runtime: 'python', program: 'python3 -c', cwd: w.ws, startedAt: Date.now(), ...fields })],
    });
    const res = batch(w, [
      ask({ api: 'shutil.rmtree', kind: 'rm-r', path: 'src' }),
      ask({ api: 'os.remove', kind: 'rm', path: path.join(w.home, 'notes.txt') }),
      ask({ api: 'os.remove', kind: 'rm', path: 'missing.txt' }),
      { argv: ['sh', '-c', 'echo x > fresh.txt'] },
      ask({ api: 'os.remove', kind: 'unlink', path: 'fresh.txt' }),
      ask({ api: 'os.remove', kind: 'sideways', path: 'x' }),
    ]);
    const v = res.map((r) => (r.exitCode !== 0 ? r.exitCode : r.stdout === '' ? null : JSON.parse(r.stdout)));
    expect(v[0]).toMatchObject({ action: 'done', code: 'RELOCATE_TREE' });
    expect(v[1]).toMatchObject({ action: 'refuse', decision: 'BLOCK', code: 'BLOCK_OUT_OF_WORKSPACE' });
    expect(v[1].message).toContain(`agent-guard refused os.remove(${JSON.stringify(path.join(w.home, 'notes.txt'))}) in python3 -c: BLOCK BLOCK_OUT_OF_WORKSPACE`);
    expect(v[2]).toEqual({ action: 'real', why: 'missing' });
    expect(v[4]).toEqual({ action: 'real', why: 'own' }); // the caller then deletes it
    expect(v[5]).toBe(1);
    expect(res[5]!.stderr).toMatch(/kind must be one of/);
    expect(tree(w.ws)).toEqual({ 'fresh.txt': 'x\n' });
    expect(tree(w.home)['notes.txt']).toBe('mine\n');
    const starts = records(path.join(w.ws, '.agent-trash', 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    expect(starts.map((x) => x.command)).toEqual(['python3 -c: shutil.rmtree("src")']);
    const audit = records(path.join(w.ws, '.agent-trash', 'audit.jsonl'));
    expect(audit.map((a) => [a.decision, a.code, a.via, a.api])).toEqual([
      ['ALLOW', 'RELOCATE_TREE', 'python', 'shutil.rmtree'],
      ['BLOCK', 'BLOCK_OUT_OF_WORKSPACE', 'python', 'os.remove'],
    ]);
    // Restorable like any transaction.
    expect(batch(w, [{ argv: [NODE, BIN, 'restore', starts[0].txid] }])[0]!.exitCode).toBe(0);
    expect(tree(w.ws)['src/a.py']).toBe('a\n');
  }, 120_000);
});
