// delete, mode, and the audit log, through the built CLI inside the read-only sandbox.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runGuardSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { world as makeWorld, type World } from '../helpers/world.js';
import { readRecords } from '../../src/recovery/records.js';

const area = useSandboxArea('ag-commands');

const world = (name: string): World => makeWorld(path.join(area.rw(), name, 'home'), { env: { AGENT_GUARD_SESSION: 'agent-1' } });

function cli(w: World, args: string[], extra: Record<string, string> = {}) {
  return runGuardSandboxed(area.rw(), BIN, args, { cwd: w.ws, env: { ...w.env, ...extra } });
}

describeSandboxed('delete', () => {
  itSandboxed('expands patterns itself and quarantines every match under one txid', () => {
    const w = world('delete');
    for (const n of ['a.log', 'b.log', '.hidden.log', 'keep.txt']) fs.writeFileSync(path.join(w.ws, n), n);
    fs.mkdirSync(path.join(w.ws, 'node_modules'));
    fs.writeFileSync(path.join(w.ws, '.gitignore'), 'node_modules/\n');
    const r = cli(w, ['delete', '*.log', 'node_modules', '--reason', 'cleanup', '--json']);
    expect(r.exitCode).toBe(0);
    expect(r.json.moved.map((m: any) => path.basename(m.origin)).sort()).toEqual(['a.log', 'b.log', 'node_modules']);
    expect(fs.readdirSync(w.ws).sort()).toEqual(['.agent-trash', '.git', '.gitignore', '.hidden.log', 'keep.txt']);
    expect(cli(w, ['restore', r.json.txid, '--json']).exitCode).toBe(0);
    expect(fs.existsSync(path.join(w.ws, 'a.log')) && fs.existsSync(path.join(w.ws, 'node_modules'))).toBe(true);
  });
  itSandboxed('refuses what the policy refuses, and a pattern with no match, moving nothing', () => {
    const w = world('delete-refused');
    fs.writeFileSync(path.join(w.ws, 'x.txt'), 'x');
    fs.writeFileSync(path.join(w.ws, '..', 'notes.txt'), 'n');
    expect(cli(w, ['delete', 'x.txt', '../notes.txt', '--json'])).toMatchObject({ exitCode: 2, json: { code: 'BLOCK_OUT_OF_WORKSPACE' } });
    // The canary is in /tmp, a scratch zone: its quarantine cannot be made in the read-only /tmp
    // here, so nothing moves — not x.txt either (every quarantine is made ready first).
    expect(cli(w, ['delete', 'x.txt', area.canary(), '--json'])).toMatchObject({ exitCode: 2, json: { code: 'RELOCATE_FAILED_STORAGE', moved: [] } });
    expect(fs.existsSync(path.join(w.ws, 'x.txt'))).toBe(true);
    expect(cli(w, ['delete', '.git', '--json'])).toMatchObject({ exitCode: 2, json: { code: 'BLOCK_PROTECTED_PATH' } });
    expect(cli(w, ['delete', 'x.txt', '*.nothing', '--json'])).toMatchObject({ exitCode: 1, json: { error: 'no match' } });
    expect(fs.readFileSync(path.join(w.ws, 'x.txt'), 'utf8')).toBe('x');
  });
});

describeSandboxed('modes', () => {
  itSandboxed('restrict is one-way for an agent; RESTRICTED applies rules 7 and 8 to the session only', () => {
    const w = world('modes');
    fs.mkdirSync(path.join(w.ws, 'dir'));
    expect(cli(w, ['mode', '--json']).json.mode).toBe('NORMAL');
    expect(cli(w, ['mode', 'restrict', '--reason', 'human veto', '--json'])).toMatchObject({ exitCode: 0, json: { mode: 'RESTRICTED', session: 'agent-1' } });
    const blocked = cli(w, ['check', '--enforce', '--json', '--', 'rm -rf dir']);
    expect(blocked).toMatchObject({ exitCode: 2, json: { code: 'BLOCK_RESTRICTED_MODE', mode: 'RESTRICTED' } });
    expect(cli(w, ['check', '--json', '--mode', 'normal', '--', 'git clean -fd']).json.code).toBe('BLOCK_RESTRICTED_MODE');
    // Another session is not affected.
    expect(cli(w, ['check', '--json', '--', 'rm -rf dir'], { AGENT_GUARD_SESSION: 'agent-2' }).json.code).toBe('RELOCATE_TREE');
    // No terminal: promotion is refused.
    expect(cli(w, ['mode', 'normal']).exitCode).toBe(2);
    expect(cli(w, ['mode', '--json']).json.mode).toBe('RESTRICTED');
    // A corrupted state file counts as RESTRICTED.
    fs.writeFileSync(path.join(w.ws, '.agent-trash/sessions/agent-2.json'), '{not json');
    expect(cli(w, ['mode', '--json'], { AGENT_GUARD_SESSION: 'agent-2' }).json.mode).toBe('RESTRICTED');
    const audit = readRecords(path.join(w.ws, '.agent-trash/audit.jsonl')).records;
    expect(audit.filter((r) => r.kind === 'mode').map((r) => r.mode)).toEqual(['RESTRICTED']);
  });
});

describeSandboxed('audit', () => {
  itSandboxed('records every enforced decision with its session and redacted command', () => {
    const w = world('audit');
    fs.mkdirSync(path.join(w.ws, 'build'));
    cli(w, ['check', '--enforce', '--', 'GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz01 rm -rf build']);
    cli(w, ['check', '--enforce', '--', 'rm -rf /']);
    cli(w, ['check', '--enforce', '--', 'ls -la']);
    const text = fs.readFileSync(path.join(w.ws, '.agent-trash/audit.jsonl'), 'utf8');
    expect(text).not.toContain('ghp_0123456789');
    const decisions = readRecords(path.join(w.ws, '.agent-trash/audit.jsonl')).records.filter((r) => r.kind === 'decision');
    expect(decisions.map((r) => [r.decision, r.code, r.session])).toEqual([
      ['ALLOW', 'RELOCATE_TREE', 'agent-1'],
      ['BLOCK', 'BLOCK_PROTECTED_ANCESTOR', 'agent-1'],
    ]);
    expect(typeof decisions[0]!.txid).toBe('string');
  });
});
