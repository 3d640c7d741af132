// planFindDelete (src/shims/find-plan.ts, find-args.ts, find-tree.ts): parsing and refusals, in process (nothing is deleted; the
// quarantine case lets the real find enumerate a temp tree, read-only). The equivalence with the real
// GNU find is in find.test.ts (sandbox).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFindArgs, planFindDelete } from '../../src/shims/find-plan.js';

const FIND = '/usr/bin/find';
const NOWHERE = { real: '/nonexistent/find-must-not-run', cwd: '/nonexistent' };

function refused(args: string[]): string {
  const p = planFindDelete(args, NOWHERE);
  if (p.ok) throw new Error(`expected a refusal for ${JSON.stringify(args)}`);
  return p.reason;
}

describe('parseFindArgs', () => {
  it('splits leading options, starting points and expression the way GNU find does', () => {
    const p = parseFindArgs(['-H', '-P', '-O3', 'src', 'build', '-name', '*.o', '-delete']);
    expect(p).toMatchObject({ ok: true, find: { leading: ['-H', '-P', '-O3'], starts: ['src', 'build'], expression: ['-name', '*.o', '-delete'], follow: 'P', deletes: [2] } });
    // "--" ends the leading options; "-", ")" and "," are file names in starting-point position
    expect(parseFindArgs(['--', '-', ')', ',', '-delete'])).toMatchObject({ ok: true, find: { leading: ['--'], starts: ['-', ')', ','], expression: ['-delete'] } });
    // "!" and "(" start the expression; "!x" and "(x" are file names
    expect(parseFindArgs(['!x', '(x', '!', '-name', 'k', '-delete'])).toMatchObject({ ok: true, find: { starts: ['!x', '(x'], expression: ['!', '-name', 'k', '-delete'] } });
    expect(parseFindArgs(['(', '-name', 'a', '-o', '-name', 'b', ')', '-delete'])).toMatchObject({ ok: true, find: { starts: [], deletes: [7] } });
    // a directory named -x cannot be a starting point: it is (an unknown) primary
    expect(parseFindArgs(['-x', '-delete'])).toMatchObject({ ok: false, hasDelete: true, reason: expect.stringContaining('"-x"') });
    expect(parseFindArgs(['.', '-x', '-delete'])).toMatchObject({ ok: false, hasDelete: true });
    // the last of -H/-L/-P wins
    expect(parseFindArgs(['-L', '-P', '.', '-delete'])).toMatchObject({ ok: true, find: { follow: 'P' } });
    expect(parseFindArgs(['-P', '-H', '.', '-delete'])).toMatchObject({ ok: true, find: { follow: 'H' } });
  });

  it('knows the argument counts: a pattern "-delete" is not the action', () => {
    expect(parseFindArgs(['.', '-name', '-delete'])).toMatchObject({ ok: false, hasDelete: false });
    expect(parseFindArgs(['.', '-name', '-delete', '-delete'])).toMatchObject({ ok: true, find: { deletes: [2] } });
    expect(parseFindArgs(['.', '-maxdepth', '2', '-regextype', 'posix-extended', '-regex', '.*', '-newermt', '2020-01-01', '-delete'])).toMatchObject({ ok: true, find: { deletes: [8] } });
    // -exec's arguments up to ";" (or "{} +") are its own
    expect(parseFindArgs(['.', '-exec', 'echo', '-delete', ';'])).toMatchObject({ ok: false, hasDelete: false });
    expect(parseFindArgs(['.', '-exec', 'echo', '+', '{}', '+', '-delete'])).toMatchObject({ ok: false, hasDelete: true });
  });

  it('records -prune, an explicit -depth, -xdev and the tests whose value -delete changes', () => {
    const p = parseFindArgs(['.', '-d', '-xdev', '-name', 'x', '-prune', '-o', '-empty', '-mtime', '+1', '-xtype', 'l', '-delete']);
    expect(p).toMatchObject({ ok: true, find: { prune: true, explicitDepth: true, xdev: true } });
    if (!p.ok) return;
    expect(p.find.sensitive.map((s) => [s.name, s.kind, s.at, s.width])).toEqual([
      ['-empty', 'empty', 6, 1],
      ['-mtime', 'attr', 7, 2],
      ['-xtype', 'link', 9, 2],
    ]);
  });
});

describe('planFindDelete without an enumeration', () => {
  it('-prune without an explicit -depth: find itself refuses before touching anything, so nothing moves and find runs', () => {
    const args = ['.', '-name', 'keep', '-prune', '-o', '-delete'];
    expect(planFindDelete(args, NOWHERE)).toEqual({
      ok: true,
      matches: [],
      relocate: [],
      rerun: true,
      rerunArgs: args,
      enumeration: { status: 1, stderr: '' },
      leading: [],
      starts: ['.'],
      startMoved: [false],
      expression: args.slice(1),
      guarded: false,
    });
  });

  it('a real find that cannot be started is a refusal, not a crash', () => {
    const p = planFindDelete(['.', '-name', '*.o', '-delete'], NOWHERE);
    expect(p).toMatchObject({ ok: false, reason: expect.stringContaining('cannot enumerate') });
  });
});

describe('planFindDelete and the quarantine (the real find enumerates, read-only)', () => {
  it('never matches below the quarantine, names it as find names its entries, and guards every -delete', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-find-q-')));
    try {
      const q = path.join(root, 'ws/.q[1]*');
      for (const f of ['ws/a.o', 'ws/sub/b.o', 'ws/.q[1]*/tx/c.o', 'ws/.q[1]*/manifest.o']) {
        fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
        fs.writeFileSync(path.join(root, f), 'x');
      }
      const opts = { real: FIND, cwd: path.join(root, 'ws'), quarantine: q };
      const shown = (p: ReturnType<typeof planFindDelete>): string[] => (p.ok ? p.matches.map((m) => m.toString()).sort() : [p.reason]);
      const dot = planFindDelete(['.', '-name', '*.o', '-delete'], opts);
      expect(shown(dot)).toEqual(['./a.o', './sub/b.o']);
      expect(dot).toMatchObject({ guarded: true, expression: ['-name', '*.o', '(', '-path', './.q\\[1]\\*/*', '-o', '-delete', ')'] });
      // fts drops one trailing slash ("./" names its entries "./x", "ws//" "ws//x"); an absolute
      // starting point names them absolutely
      expect(planFindDelete(['./', '-name', '*.o', '-delete'], opts)).toMatchObject({ guarded: true, expression: ['-name', '*.o', '(', '-path', './.q\\[1]\\*/*', '-o', '-delete', ')'] });
      expect(planFindDelete(['../ws//', '-name', '*.o', '-delete'], opts)).toMatchObject({ guarded: true, expression: ['-name', '*.o', '(', '-path', '../ws//.q\\[1]\\*/*', '-o', '-delete', ')'] });
      expect(shown(planFindDelete(['../ws//', '-name', '*.o', '-delete'], opts))).toEqual(['../ws//a.o', '../ws//sub/b.o']);
      const abs = planFindDelete([path.join(root, 'ws'), '-name', '*.o', '-delete'], opts);
      expect(shown(abs)).toEqual([path.join(root, 'ws/a.o'), path.join(root, 'ws/sub/b.o')]);
      // the quarantine itself is still matched (the caller refuses it); its content never is
      expect(shown(planFindDelete(['.', '-name', '.q*', '-delete'], opts))).toEqual(['./.q[1]*']);
      // a starting point that does not hold it is not guarded
      expect(planFindDelete(['sub', '-name', '*.o', '-delete'], opts)).toMatchObject({ guarded: false, expression: ['-name', '*.o', '-delete'] });
      // a starting point inside it is refused (the caller leaves those out)
      expect(shown(planFindDelete(['.q[1]*/tx', '-delete'], opts))[0]).toMatch(/inside the quarantine/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('planFindDelete refusals (decided before anything runs)', () => {
  it('is not for us without -delete', () => {
    for (const args of [['.'], ['.', '-name', 'x'], ['.', '-print'], ['.', '-exec', 'rm', '{}', ';'], ['-L', '.', '-name', 'x']]) {
      expect(refused(args)).toMatch(/no -delete/);
    }
  });

  it('refuses every other action or side effect next to -delete', () => {
    const actions: string[][] = [
      ['-exec', 'rm', '{}', ';'],
      ['-exec', 'rm', '{}', '+'],
      ['-execdir', 'rm', '{}', ';'],
      ['-ok', 'rm', '{}', ';'],
      ['-okdir', 'rm', '{}', ';'],
      ['-fprint', 'out'],
      ['-fprint0', 'out'],
      ['-fprintf', 'out', '%p'],
      ['-fls', 'out'],
      ['-print'],
      ['-print0'],
      ['-printf', '%p\\n'],
      ['-ls'],
      ['-quit'],
    ];
    for (const a of actions) {
      expect(refused(['.', '-name', 'x', ...a, '-delete'])).toContain(a[0]);
      expect(refused(['.', '-name', 'x', '-delete', ...a])).toContain(a[0]);
    }
  });

  it('refuses following symlinks, debug output, unknown primaries and missing arguments', () => {
    expect(refused(['-L', '.', '-delete'])).toMatch(/-L.*symbolic links/);
    expect(refused(['-H', '-L', '.', '-delete'])).toMatch(/-L/);
    expect(refused(['.', '-follow', '-delete'])).toMatch(/-follow/);
    expect(refused(['-D', 'tree', '.', '-delete'])).toMatch(/-D tree/);
    expect(refused(['-D'])).toMatch(/no -delete/);
    expect(refused(['.', '-fancy', '-delete'])).toMatch(/unknown.*"-fancy"/);
    expect(refused(['.', '-newerXY', 'x', '-delete'])).toMatch(/unknown.*-newerXY/);
    expect(refused(['.', '-files0-from', 'list', '-delete'])).toMatch(/-files0-from/);
    expect(refused(['.', '-delete', '-name'])).toMatch(/missing argument to -name/);
    expect(refused(['.', '-delete', '-maxdepth'])).toMatch(/missing argument to -maxdepth/);
    expect(refused(['.', '-name', 'x', 'y', '-delete'])).toMatch(/unexpected argument "y"/);
    expect(refused(['.', '-help', '-delete'])).toMatch(/-help/);
  });
});
