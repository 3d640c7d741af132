// planFindDelete (src/shims/find-plan.ts, find-args.ts, find-tree.ts) against the real GNU find, in the sandbox: two identical trees
// A and B; on A the real `find … -delete` runs; on B the plan's `relocate` entries are moved to a
// trash directory (the quarantine's stand-in) and the real find reruns only when the plan says so.
// B must end up as A, the output and status must be the real ones, and B plus the trash must hold
// every original entry. Parsing and refusals (nothing run): find-plan.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { bundleForNobody, nodeForNobody, NOBODY } from '../helpers/nobody.js';

const DRIVER = fileURLToPath(new URL('./fixtures/find-plan-driver.ts', import.meta.url));
const FIND = '/usr/bin/find';

const area = useSandboxArea('ag-find');

const B = (...parts: (string | number[] | Buffer)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.isBuffer(p) ? p : Buffer.from(p))));
const at = (root: string, ...parts: (string | number[])[]): Buffer => B(root, '/', ...parts);

/** The tree every case starts from (built identically, in the same order, for A and B). */
function populate(root: string): void {
  fs.mkdirSync(root, { recursive: true });
  const file = (rel: Buffer | string, content = `${rel}\n`, mode?: number): void => {
    const p = typeof rel === 'string' ? at(root, rel) : Buffer.concat([B(root, '/'), rel]);
    fs.writeFileSync(p, content);
    if (mode !== undefined) fs.chmodSync(p, mode);
  };
  const dir = (rel: string, mode?: number): void => {
    fs.mkdirSync(at(root, rel), { recursive: true });
    if (mode !== undefined) fs.chmodSync(at(root, rel), mode);
  };
  file('a.o');
  file('b.c');
  file('b');
  file('keep');
  file('zero.o', '');
  file('with space.o');
  file('new\nline.o');
  file(B('bad', [0xff], '.o'));
  file('-dash.o');
  dir('-x');
  file('-x/inner.o');
  dir('src');
  file('src/x.o');
  file('src/y.c', 'y\n', 0o640);
  file('src/keep');
  dir('src/deep');
  file('src/deep/z.o');
  dir('build/sub/empty');
  file('build/out.o');
  file('build/log.txt');
  dir('empty1');
  dir('nest/a/b');
  dir('a');
  file('a/b');
  file('a/c');
  dir('x');
  file('x/y');
  dir('d/e');
  file('d/f1');
  file('d/e/f2');
  file('d/keep');
  dir('private', 0o700);
  file('private/secret.o', 'secret\n', 0o600);
  dir('hl');
  file('hl/h1');
  fs.linkSync(at(root, 'hl/h1'), at(root, 'hl/h2'));
  fs.symlinkSync('a.o', at(root, 'lf'));
  fs.symlinkSync('src', at(root, 'ld'));
  fs.symlinkSync('nowhere', at(root, 'dangling'));
  fs.symlinkSync('build/out.o', at(root, 'lbuild'));
  fs.symlinkSync(B('bad', [0xff], '.o'), at(root, 'lbad', [0xfe]));
}

/** Every entry below dir (or dir itself and everything below it, named `as`, when `as` is given) as
 *  "rel-hex type mode content-or-target-hex", sorted. */
function listing(dir: Buffer, as: Buffer = Buffer.alloc(0)): string[] {
  const out: string[] = [];
  const join = (a: Buffer, b: Buffer): Buffer => (a.length === 0 ? b : Buffer.concat([a, B('/'), b]));
  const entry = (p: Buffer, rel: Buffer): void => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) out.push(`${rel.toString('hex')} link ${fs.readlinkSync(p, { encoding: 'buffer' }).toString('hex')}`);
    else if (st.isDirectory()) {
      out.push(`${rel.toString('hex')} dir ${(st.mode & 0o7777).toString(8)}`);
      for (const name of fs.readdirSync(p, { encoding: 'buffer' }).sort(Buffer.compare)) entry(join(p, name), join(rel, name));
    } else out.push(`${rel.toString('hex')} file ${(st.mode & 0o7777).toString(8)} ${fs.readFileSync(p).toString('hex')}`);
  };
  if (as.length === 0) {
    for (const name of fs.readdirSync(dir, { encoding: 'buffer' }).sort(Buffer.compare)) entry(join(dir, name), name);
  } else entry(dir, as);
  return out.sort();
}

/** Where an entry find printed was, relative to root (through symlinks: "ld/x.o" is "src/x.o"),
 *  from the real path of its directory, which is still there after the entry moved. */
function relative(root: string, printed: Buffer): Buffer {
  let p = printed.toString('latin1');
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  const cut = p.lastIndexOf('/');
  const parent = cut === -1 ? '.' : p.slice(0, cut) || '/';
  const abs = parent.startsWith('/') ? parent : `${root}/${parent}`;
  const real = fs.realpathSync(Buffer.from(abs, 'latin1'), { encoding: 'buffer' }).toString('latin1');
  const base = real === fs.realpathSync(root) ? '' : real.slice(fs.realpathSync(root).length + 1);
  return Buffer.from(base ? `${base}/${p.slice(cut + 1)}` : p.slice(cut + 1), 'latin1');
}

interface Case {
  name: string;
  /** find's argv without the program name; root is the tree's directory (also the cwd). */
  args: (root: string) => string[];
  /** The working directory, below the tree's directory (default: the tree's directory). */
  cwd?: string;
  /** The plan must be refused with this reason (and B left untouched). */
  refuse?: RegExp;
  rerun?: boolean;
  check?: (plan: { relocate: Buffer[]; matches: Buffer[]; rerunArgs: string[] }, root: string) => void;
}

const hexOf = (...parts: (string | number[])[]): string => B(...parts).toString('hex');

const CASES: Case[] = [
  {
    name: "-name '*.o' (names with a space, a newline, a 0xff byte, a leading dash)",
    args: () => ['.', '-name', '*.o', '-delete'],
    rerun: false,
    check: (p) => {
      const rel = p.relocate.map((b) => b.toString('hex'));
      for (const n of ['./new\nline.o', './-dash.o', './with space.o', './src/deep/z.o', './-x/inner.o']) expect(rel).toContain(hexOf(n));
      expect(rel).toContain(hexOf('./bad', [0xff], '.o'));
      expect(rel).toHaveLength(11);
    },
  },
  { name: '-type f', args: () => ['.', '-type', 'f', '-delete'], rerun: false },
  {
    name: '-empty (directories emptied by the deletion are deleted too)',
    args: () => ['.', '-empty', '-delete'],
    rerun: false,
    check: (p) => {
      const rel = p.relocate.map((b) => b.toString('latin1'));
      expect(rel).toEqual(expect.arrayContaining(['./nest', './build/sub', './empty1', './zero.o']));
      expect(rel).not.toContain('./nest/a');
    },
  },
  { name: '-type d -empty (a chain of empty directories)', args: () => ['.', '-type', 'd', '-empty', '-delete'], rerun: false },
  { name: '-name build (a non-empty directory: Directory not empty)', args: () => ['.', '-name', 'build', '-delete'], rerun: true },
  { name: '( -name a -o -name b )', args: () => ['.', '(', '-name', 'a', '-o', '-name', 'b', ')', '-delete'], rerun: true },
  { name: '! -name keep', args: () => ['.', '!', '-name', 'keep', '-delete'], rerun: true },
  {
    name: '-mindepth 1 (everything below .)',
    args: () => ['.', '-mindepth', '1', '-delete'],
    rerun: false,
    check: (p) => expect(p.relocate.every((b) => b.toString('latin1').split('/').length === 2)).toBe(true),
  },
  { name: '-maxdepth 1 -name x', args: () => ['.', '-maxdepth', '1', '-name', 'x', '-delete'], rerun: true },
  {
    name: "-path './d/*'",
    args: () => ['.', '-path', './d/*', '-delete'],
    rerun: false,
    check: (p) => expect(p.relocate.map((b) => b.toString()).sort()).toEqual(['./d/e', './d/f1', './d/keep']),
  },
  { name: "-name '*' (find does not delete . itself, silently)", args: () => ['.', '-name', '*', '-delete'], rerun: false },
  { name: 'no expression but -delete, start ./ (find cannot delete ./: Invalid argument)', args: () => ['./', '-delete'], rerun: true },
  { name: 'two starting points', args: () => ['src', 'build', '-name', '*.o', '-delete'], rerun: false },
  {
    name: 'two starting points moved whole',
    args: () => ['build', 'd', '-delete'],
    rerun: false,
    check: (p) => expect(p.relocate.map((b) => b.toString())).toEqual(['build', 'd']),
  },
  { name: 'starting points with trailing slashes', args: () => ['d//', 'build/', '-delete'], rerun: false },
  { name: 'two starting points, both with directories that stay', args: () => ['build', 'd', '-type', 'd', '-delete'], rerun: true },
  {
    name: 'a missing starting point next to one moved whole (the rerun leaves the moved one out)',
    args: () => ['empty1', 'nope', '-delete'],
    rerun: true,
    check: (p) => expect(p.rerunArgs).toEqual(['nope', '-delete']),
  },
  { name: 'a missing starting point', args: () => ['src', 'nope', '-name', '*.o', '-delete'], rerun: true },
  { name: 'an absolute starting point', args: (root) => [`${root}/src`, '-name', '*.o', '-delete'], rerun: false },
  { name: 'an absolute starting point moved whole', args: (root) => [`${root}/d`, `${root}/empty1`, '-delete'], rerun: false },
  { name: 'no starting point', args: () => ['-name', '*.o', '-delete'], rerun: false },
  { name: '-type l (links are deleted, not followed)', args: () => ['.', '-type', 'l', '-delete'], rerun: false },
  { name: '-xtype l (the dangling link)', args: () => ['.', '-xtype', 'l', '-delete'], rerun: false },
  { name: '-H on a link to a directory: its entries go, the link fails (Not a directory)', args: () => ['-H', 'ld', '-delete'], rerun: true },
  { name: '-H on a link to a directory with a test', args: () => ['-H', '-O3', 'ld', '-name', '*.o', '-delete'], rerun: false },
  { name: '-prune without -depth (find refuses, nothing moves)', args: () => ['.', '-name', 'src', '-prune', '-o', '-name', '*.o', '-delete'], rerun: true },
  { name: '-depth -prune (-prune does nothing)', args: () => ['.', '-depth', '-name', 'src', '-prune', '-o', '-name', '*.o', '-delete'], rerun: false },
  { name: 'two -delete actions on different entries', args: () => ['.', '-name', '*.o', '-delete', '-o', '-name', '*.c', '-delete'], rerun: false },
  { name: '-type f -mmin -600 (times of emptied directories change, but -type f decides)', args: () => ['.', '-type', 'f', '-mmin', '-600', '-delete'], rerun: false },
  { name: '-mmin +6000 (nothing is that old)', args: () => ['.', '-mmin', '+6000', '-delete'], rerun: false },
  { name: '-perm and -user', args: () => ['.', '-type', 'f', '-perm', '-u=rw', '!', '-perm', '-o=r', '-user', 'root', '-delete'], rerun: false },
  { name: 'a missing argument in find itself: -newer of a missing file', args: () => ['.', '-newer', 'missing-ref', '-delete'], rerun: true },
  // refused after the enumeration: the result depends on what -delete changes on the way
  { name: '-mmin -600 on directories (their mtime changes as find empties them)', args: () => ['.', '-mmin', '-600', '-delete'], refuse: /depends on -mmin/ },
  { name: '-links 2 on hard links (deleting one changes the other)', args: () => ['.', '-type', 'f', '-links', '2', '-delete'], refuse: /"\.\/hl\/h[12]".*-links/ },
  { name: '-xtype l with the target deleted first', args: () => ['.', '(', '-name', 'out.o', '-o', '-xtype', 'l', ')', '-delete'], refuse: /"\.\/lbuild".*-xtype/ },
  { name: 'the same entry deleted twice', args: () => ['.', '-name', 'a.o', '-delete', '-delete'], refuse: /several -delete/ },
  {
    name: 'a rerun whose -samefile reference would be moved',
    args: () => ['.', '(', '-samefile', 'b.c', '-o', '-name', 'build', ')', '-delete'],
    refuse: /the file "b\.c" its expression refers to would be moved/,
  },
  {
    name: 'a rerun whose working directory would be moved',
    cwd: 'build/sub/empty',
    args: () => ['../../..', '(', '-path', '../../../build*', '-o', '-path', '../../../x', ')', '-delete'],
    refuse: /working directory would be moved with "\.\.\/\.\.\/\.\.\/build"/,
  },
  { name: 'overlapping starting points', args: () => ['.', 'src', '-name', '*.o', '-delete'], refuse: /overlap/ },
];


/** Extra entries for the non-root run: directories nobody can read (mode 000, owned by nobody). */
function populateLocked(root: string): void {
  populate(root);
  fs.mkdirSync(path.join(root, 'locked'));
  fs.writeFileSync(path.join(root, 'locked', 'in.o'), 'locked\n');
  fs.mkdirSync(path.join(root, 'lockedempty'));
  fs.mkdirSync(path.join(root, 'locked2', 'sub'), { recursive: true });
  const own = (p: Buffer): void => {
    fs.lchownSync(p, NOBODY, NOBODY);
    if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p, { encoding: 'buffer' })) own(B(p, '/', n));
  };
  own(Buffer.from(root));
  for (const d of ['locked', 'lockedempty', 'locked2']) fs.chmodSync(path.join(root, d), 0);
}

const NOBODY_CASES: Case[] = [
  { name: "-name '*.o' next to unreadable directories (Permission denied, status 1)", args: () => ['.', '-name', '*.o', '-delete'], rerun: true },
  { name: 'an unreadable directory with a subdirectory (surely not empty: Directory not empty)', args: () => ['.', '-name', 'locked2', '-delete'], rerun: true },
  { name: 'an unreadable directory that may be empty is refused', args: () => ['.', '-mindepth', '1', '-delete'], refuse: /"\.\/locked(empty)?".*cannot read it/ },
];

/** Registers one sandboxed suite: builds A and B for every case, runs all of them in one sandboxed
 *  driver run (node + tsx start once, not per case), then checks each case. */
function equivalence(title: string, cases: Case[], opts: { build: (root: string) => void; nobody?: boolean }): void {
  describeSandboxed(title, () => {
    const slug = opts.nobody ? 'nobody' : 'root';
    const roots = (i: number) => {
      const dir = path.join(area.rw(), `${slug}${String(i).padStart(2, '0')}`);
      return { dir, A: path.join(dir, 'A'), B: path.join(dir, 'B'), trash: path.join(dir, 'trash') };
    };
    let before: string[] = [];
    let reports: any[] = [];

    beforeAll(() => {
      if (opts.nobody) fs.chmodSync(area.rw(), 0o755);
      cases.forEach((_, i) => {
        const r = roots(i);
        opts.build(r.A);
        opts.build(r.B);
        if (opts.nobody) fs.chownSync(r.dir, NOBODY, NOBODY);
      });
      before = listing(Buffer.from(roots(0).B));
      const spec = cases.map((c, i) => {
        const r = roots(i);
        const sub = (root: string): string => (c.cwd ? path.join(root, c.cwd) : root);
        return { argsA: c.args(r.A), cwdA: sub(r.A), argsB: c.args(r.B), cwdB: sub(r.B), trash: r.trash };
      });
      // The driver bundled into the writable area: a user who is not root may not be able to read
      // the checkout (a 0700 home).
      const tools = path.join(area.rw(), 'tools');
      const node = [opts.nobody ? nodeForNobody(tools) : process.execPath, bundleForNobody(DRIVER, tools), JSON.stringify({ real: FIND, cases: spec })];
      const argv = opts.nobody ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...node] : node;
      const drv = runSandboxed(area.rw(), argv, { cwd: area.rw(), timeoutMs: 120_000, env: { HOME: area.rw() } });
      if (drv.exitCode !== 0) throw new Error(`driver exited ${drv.exitCode}: ${drv.stderr}`);
      reports = JSON.parse(drv.stdout);
    }, 180_000);

    cases.forEach((c, i) => {
      itSandboxed(`${c.name}: find ${c.args('<root>').join(' ')}`, () => {
        const { A: rootA, B: rootB, trash } = roots(i);
        const report = reports[i];
        const real = report.real;
        if (c.refuse) {
          expect(report.plan.ok, JSON.stringify(report.plan)).toBe(false);
          expect(report.plan.reason).toMatch(c.refuse);
          expect(listing(Buffer.from(rootB))).toEqual(before);
          return;
        }
        expect(report.plan.ok, JSON.stringify(report.plan)).toBe(true);
        const relocate: Buffer[] = report.plan.relocate.map((h: string) => Buffer.from(h, 'hex'));
        const matches: Buffer[] = report.plan.matches.map((h: string) => Buffer.from(h, 'hex'));

        // what is left on disk is what the real find left
        const afterA = listing(Buffer.from(rootA));
        const afterB = listing(Buffer.from(rootB));
        expect(afterB).toEqual(afterA);
        // nothing lost: B and the trash together hold every original entry, exactly
        const moved = relocate.flatMap((p, k) => listing(Buffer.from(path.join(trash, String(k))), relative(rootB, p)));
        expect([...afterB, ...moved].sort()).toEqual(before);
        // output and status
        if (c.rerun !== undefined) expect(report.plan.rerun).toBe(c.rerun);
        if (!report.plan.rerun) {
          expect(real.stdout).toBe('');
          expect(real.stderr).toBe('');
          expect(real.status).toBe(0);
          expect(report.rerun).toBeNull();
        } else {
          expect(report.rerun.status).toBe(real.status);
          expect(report.rerun.stdout).toBe(real.stdout);
          expect(report.rerun.stderr.replaceAll(rootB, rootA)).toBe(real.stderr);
        }
        c.check?.({ relocate, matches, rerunArgs: report.plan.rerunArgs }, rootB);
      });
    });
  });
}

equivalence('find -delete: the plan reproduces the real find', CASES, { build: populate });
equivalence('find -delete as a user who cannot read some directories', NOBODY_CASES, { build: populateLocked, nobody: true });
