// passThrough (src/runtime/churn.ts): which deletions by a program need no decision. It only reads
// (lstat, realpath, readdir), so these cases run on a temp tree without a sandbox: nothing is deleted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birthTimesAreReal, bornAfter, OWN_TREE_LIMIT, passThrough, type DeleteKind, type DeleteRequest } from '../../src/runtime/churn.js';

let dir = '';
let home = '';
let ws = '';
/** A moment after the tree below was made: entries older than it are not the process's own. */
let before = 0;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-churn-')));
  home = path.join(dir, 'home');
  ws = path.join(dir, 'ws');
  for (const d of ['ws/src/deep', 'ws/node_modules/pkg/lib', 'ws/packages/a/node_modules/b', 'home/.npm/_cacache/tmp', 'home/docs', 'outside']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const f of ['ws/src/deep/a.ts', 'ws/node_modules/pkg/lib/i.js', 'ws/packages/a/node_modules/b/x.js', 'home/.npm/_cacache/tmp/t1', 'home/docs/notes.txt', 'outside/o.txt']) fs.writeFileSync(path.join(dir, f), f);
  fs.symlinkSync(path.join(home, 'docs'), path.join(ws, 'node_modules', 'docs-link')); // node_modules/docs-link -> ~/docs
  fs.symlinkSync(path.join(ws, 'node_modules'), path.join(ws, 'nm-link')); // nm-link -> node_modules
  fs.symlinkSync(path.join(dir, 'outside'), path.join(ws, 'out-link'));
  before = Date.now() + 50;
  // Let the coarse filesystem clock pass `before`.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120);
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function put(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}

const req = (kind: DeleteKind, p: string, extra: Partial<DeleteRequest> = {}): DeleteRequest => ({
  runtime: 'node',
  program: 'node -e',
  api: 'fs.rmSync',
  kind,
  path: p,
  cwd: ws,
  env: { HOME: home },
  startedAt: before,
  ...extra,
});

describe('passThrough', () => {
  it('missing paths, types the real call refuses, and empty-directory rmdir run as they are', () => {
    expect(passThrough(req('rm-r', 'nothing-here'))).toBe('missing');
    expect(passThrough(req('unlink', 'src/missing.ts'))).toBe('missing');
    expect(passThrough(req('rm', 'src'))).toBe('type'); // fs.rm without recursive: EISDIR
    expect(passThrough(req('unlink', 'src'))).toBe('type');
    expect(passThrough(req('rmdir-r', 'src/deep/a.ts'))).toBe('type'); // ENOTDIR
    expect(passThrough(req('rmdir', 'src'))).toBe('empty-dir');
  });

  it('workspace data and data outside are decided; names ending in . or .. and link/ too', () => {
    expect(passThrough(req('rm-r', 'src'))).toBeNull();
    expect(passThrough(req('unlink', 'src/deep/a.ts'))).toBeNull();
    expect(passThrough(req('rm', path.join(home, 'docs/notes.txt')))).toBeNull();
    expect(passThrough(req('rm-r', 'src/..'))).toBeNull();
    expect(passThrough(req('rm-r', 'src/.'))).toBeNull();
    expect(passThrough(req('rm-r', 'out-link/'))).toBeNull();
    expect(passThrough(req('rm-r', 'node_modules'))).toBeNull(); // the directory itself: the policy's (rule 13)
  });

  it('below a node_modules directory, judged where the removal lands', () => {
    expect(passThrough(req('rm-r', 'node_modules/pkg'))).toBe('node_modules');
    expect(passThrough(req('unlink', 'packages/a/node_modules/b/x.js'))).toBe('node_modules');
    expect(passThrough(req('rm-r', 'nm-link/pkg'))).toBe('node_modules'); // through a link: physically below node_modules
    expect(passThrough(req('rm', 'node_modules/docs-link'))).toBe('node_modules'); // the link itself goes
    expect(passThrough(req('unlink', 'node_modules/docs-link/notes.txt'))).toBeNull(); // lands in ~/docs
    expect(passThrough(req('rm-r', 'node_modules/docs-link/'))).toBeNull(); // acts on the link's target
  });

  it("inside a package manager's cache (npm's $npm_config_cache, else ~/.npm; yarn, pnpm, bun, node-gyp), never the cache itself", () => {
    expect(passThrough(req('rm-r', path.join(home, '.npm/_cacache/tmp/t1')))).toBe('package-cache');
    expect(passThrough(req('rm-r', path.join(home, '.npm')))).toBeNull();
    const elsewhere = { HOME: home, npm_config_cache: path.join(dir, 'outside') };
    expect(passThrough(req('unlink', path.join(dir, 'outside/o.txt'), { env: elsewhere }))).toBe('package-cache');
    expect(passThrough(req('rm-r', path.join(home, '.npm/_cacache/tmp/t1'), { env: elsewhere }))).toBeNull();
    put(home, { '.yarn/berry/cache/pkg.zip': 'z', '.local/share/pnpm/store/v3/f': 'f' });
    expect(passThrough(req('unlink', path.join(home, '.yarn/berry/cache/pkg.zip')))).toBe('package-cache');
    expect(passThrough(req('rm-r', path.join(home, '.local/share/pnpm/store/v3')))).toBe('package-cache');
    expect(passThrough(req('rm', path.join(home, 'docs/notes.txt')))).toBeNull();
  });

  it("the process's own new entries: born after it started, every one of them", () => {
    expect(birthTimesAreReal()).toBe(true); // Linux with statx, as on the machines the tests run on
    fs.mkdirSync(path.join(ws, 'fresh/sub'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'fresh/sub/f'), 'new');
    fs.writeFileSync(path.join(ws, 'fresh.txt'), 'new');
    expect(passThrough(req('rm-r', 'fresh'))).toBe('own');
    expect(passThrough(req('unlink', 'fresh.txt'))).toBe('own');
    // Started later than they were made: not its own.
    expect(passThrough(req('rm-r', 'fresh', { startedAt: Date.now() + 1000 }))).toBeNull();
    expect(passThrough(req('rm-r', 'fresh', { startedAt: null }))).toBeNull();
    // An old entry moved into a new directory keeps its birth time: the tree is not all new.
    fs.mkdirSync(path.join(ws, 'fresh2'));
    fs.renameSync(path.join(ws, 'src/deep/a.ts'), path.join(ws, 'fresh2/a.ts'));
    try {
      expect(passThrough(req('rm-r', 'fresh2'))).toBeNull();
    } finally {
      fs.renameSync(path.join(ws, 'fresh2/a.ts'), path.join(ws, 'src/deep/a.ts'));
    }
  });

  it('a new tree bigger than the limit is decided rather than walked to the end', () => {
    expect(OWN_TREE_LIMIT).toBe(5000);
    const big = path.join(ws, 'big');
    fs.mkdirSync(path.join(big, 'd'), { recursive: true });
    for (let i = 0; i < 9; i++) fs.writeFileSync(path.join(big, 'd', String(i)), '');
    expect(bornAfter(big, fs.lstatSync(big), before, 10)).toBe(true); // d and its 9 files
    fs.writeFileSync(path.join(big, 'one-more'), '');
    expect(bornAfter(big, fs.lstatSync(big), before, 10)).toBe(false);
  });
});
