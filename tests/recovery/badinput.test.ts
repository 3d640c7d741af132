// Bad input to restore: clear errors, nothing lost. Inside the sandbox (restore moves files).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runGuardSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';

const area = useSandboxArea('ag-badinput');

function setup(name: string) {
  const ws = path.join(area.rw(), name, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  expect(spawnSync('git', ['init', '-q'], { cwd: ws }).status).toBe(0);
  const env = { HOME: path.join(area.rw(), name) };
  const cli = (args: string[]) => {
    return runGuardSandboxed(area.rw(), BIN, args, { cwd: ws, env });
  };
  return { ws, cli };
}

describeSandboxed('restore with bad input', () => {
  itSandboxed('rejects a malformed or unknown txid with a clear error', () => {
    const { cli } = setup('txid');
    const bad = cli(['restore', '../../etc']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/not a transaction id/);
    const unknown = cli(['restore', '20260101T000000Z-deadbeef']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no transaction/);
  });

  itSandboxed('reads past corrupted manifest lines and still restores', () => {
    const { ws, cli } = setup('corrupt');
    fs.writeFileSync(path.join(ws, 'f.txt'), 'data\n');
    const c = cli(['check', '--enforce', '--json', '--', 'rm f.txt']);
    const txid = c.json.compensations[0].txid;
    const manifest = path.join(ws, '.agent-trash/manifest.jsonl');
    fs.appendFileSync(manifest, '{"v":1,"kind":"relocate","txid":\n\u0000\u0000garbage\nnot json at all\n');
    const list = cli(['restore', 'list', '--json']);
    expect(list.exitCode).toBe(0);
    expect(list.json.corruptRecords).toBeGreaterThan(0);
    expect(list.json.transactions.map((t: any) => t.txid)).toEqual([txid]);
    expect(cli(['restore', txid, '--json']).exitCode).toBe(0);
    expect(fs.readFileSync(path.join(ws, 'f.txt'), 'utf8')).toBe('data\n');
  });

  itSandboxed('never restores to a path outside the workspace, whatever the manifest says', () => {
    const { ws, cli } = setup('forged');
    fs.writeFileSync(path.join(ws, 'f.txt'), 'data\n');
    const c = cli(['check', '--enforce', '--json', '--', 'rm f.txt']);
    const txid: string = c.json.compensations[0].txid;
    // A forged record pointing the quarantined file at the canary outside the workspace.
    const escape = path.relative(ws, path.join(area.canary(), 'planted.txt'));
    const rec = { v: 1, kind: 'relocate', ts: new Date().toISOString(), txid, session: null, pid: 1, origin: { path: escape, pathB64: Buffer.from(escape).toString('base64') }, dest: { path: `${txid}/f.txt`, pathB64: Buffer.from(`${txid}/f.txt`).toString('base64') }, type: 'file' };
    fs.appendFileSync(path.join(ws, '.agent-trash/manifest.jsonl'), JSON.stringify(rec) + '\n');
    const r = cli(['restore', txid, '--json']);
    expect(r.json.skipped.some((s: any) => /outside the workspace/.test(s.reason))).toBe(true);
    expect(fs.existsSync(path.join(area.canary(), 'planted.txt'))).toBe(false);
  });
});
