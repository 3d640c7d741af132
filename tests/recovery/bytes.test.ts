// Names that are not valid UTF-8 (and names with newlines or leading dashes), end to end: git clean
// enumerates them, `check --enforce` relocates the exact bytes, the real `git clean` then finds
// nothing, and `restore` brings back every byte; `delete` with a pattern does the same.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runGuardSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world as makeWorld, type World } from '../helpers/world.js';

const area = useSandboxArea('ag-bytes');

const world = (name: string): World => makeWorld(path.join(area.rw(), name, 'home'), { env: { AGENT_GUARD_SESSION: 'bytes' } });

const cli = (w: World, args: string[]) => runGuardSandboxed(area.rw(), BIN, args, { cwd: w.ws, env: w.env });

const B = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** Every entry under dir as "relative-bytes-in-hex type content-hex" (names compared as bytes). */
function byteListing(dir: Buffer, skip: (name: Buffer) => boolean = () => false): string[] {
  const out: string[] = [];
  const walk = (d: Buffer, rel: Buffer): void => {
    for (const name of fs.readdirSync(d, { encoding: 'buffer' }).sort(Buffer.compare)) {
      if (rel.length === 0 && skip(name)) continue;
      const p = Buffer.concat([d, Buffer.from('/'), name]);
      const r = rel.length === 0 ? name : Buffer.concat([rel, Buffer.from('/'), name]);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out.push(`${r.toString('hex')} link ${fs.readlinkSync(p, { encoding: 'buffer' }).toString('hex')}`);
      else if (st.isDirectory()) {
        out.push(`${r.toString('hex')} dir ${(st.mode & 0o777).toString(8)}`);
        walk(p, r);
      } else out.push(`${r.toString('hex')} file ${(st.mode & 0o777).toString(8)} ${fs.readFileSync(p).toString('hex')}`);
    }
  };
  walk(dir, Buffer.alloc(0));
  return out;
}

const notOurs = (name: Buffer): boolean => ['.git', '.agent-trash'].includes(name.toString('latin1'));

describeSandboxed('names that are not UTF-8', () => {
  itSandboxed('git clean -fd: relocated exactly, the real git clean finds nothing, restore brings every byte back', () => {
    const w = world('clean');
    const ws = Buffer.from(w.ws);
    fs.writeFileSync(path.join(w.ws, 'tracked.txt'), 'tracked\n');
    expect(spawnSync('git', ['add', 'tracked.txt'], { cwd: w.ws }).status).toBe(0);
    expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init'], { cwd: w.ws }).status).toBe(0);
    fs.writeFileSync(B(w.ws, '/bad', [0xff], '.txt'), 'latin1 byte\n');
    fs.writeFileSync(B(w.ws, '/-rf'), 'leading dash\n');
    fs.writeFileSync(B(w.ws, '/new\nline'), 'newline\n');
    fs.mkdirSync(B(w.ws, '/dir', [0xfe, 0x80]));
    fs.writeFileSync(B(w.ws, '/dir', [0xfe, 0x80], '/in', [0xc3], 'side'), 'nested\n');
    fs.symlinkSync(B('tracked', [0xff]), B(w.ws, '/link', [0xfa]));
    fs.writeFileSync(path.join(w.ws, 'plain.txt'), 'plain\n');
    const before = byteListing(ws, notOurs);

    const r = cli(w, ['check', '--enforce', '--json', '--', 'git clean -fd']);
    expect(r.exitCode).toBe(0);
    expect(r.json).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_VIA_CLEAN_ENUMERATE' });
    const txid: string = r.json.compensations[0].txid;
    expect(r.json.compensations[0].moved).toHaveLength(6);
    // Nothing is left for the real command; it runs and removes nothing.
    expect(runSandboxed(area.rw(), ['git', 'clean', '-fd'], { cwd: w.ws, env: w.env }).exitCode).toBe(0);
    expect(byteListing(ws, notOurs)).toEqual(before.filter((l) => l.startsWith(Buffer.from('tracked.txt').toString('hex'))));

    const list = cli(w, ['restore', 'list', '--json']);
    const tx = list.json.transactions.find((t: any) => t.txid === txid);
    expect(tx.state).toBe('RESTORABLE');
    expect(tx.items.filter((i: any) => i.bytes !== undefined)).toHaveLength(3); // bad\xff.txt, dir\xfe\x80, link\xfa
    const back = cli(w, ['restore', txid, '--json']);
    expect(back.exitCode).toBe(0);
    expect(back.json.skipped).toEqual([]);
    expect(byteListing(ws, notOurs)).toEqual(before);
  });

  itSandboxed('delete with a pattern moves and restores names that are not UTF-8 exactly', () => {
    const w = world('delete');
    fs.mkdirSync(path.join(w.ws, 'logs'));
    fs.writeFileSync(B(w.ws, '/logs/a', [0xff], '.log'), 'one\n');
    fs.writeFileSync(B(w.ws, '/logs/b.log'), 'two\n');
    fs.writeFileSync(B(w.ws, '/logs/keep.txt'), 'keep\n');
    const before = byteListing(Buffer.from(w.ws), notOurs);
    const r = cli(w, ['delete', 'logs/*.log', '--json']);
    expect(r.exitCode).toBe(0);
    expect(r.json.moved).toHaveLength(2);
    expect(fs.readdirSync(path.join(w.ws, 'logs'))).toEqual(['keep.txt']);
    expect(cli(w, ['restore', r.json.txid, '--json']).json.skipped).toEqual([]);
    expect(byteListing(Buffer.from(w.ws), notOurs)).toEqual(before);
  });
});
