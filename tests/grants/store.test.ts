// The grant store (src/grants/store.ts) on its own: files in a temp state directory, the clock
// passed in. Nothing here runs a command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findRequest, grantRequest, grantStore, GRANT_TTL_MS, ID_PATTERN, keyOf, listRequests, MAX_PENDING, prune, recordRequest, REQUEST_TTL_MS, takeGrant, type GrantStore, type Subject } from '../../src/grants/store.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function fresh(): GrantStore {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-grants-')));
  dirs.push(home);
  const store = grantStore(loadConfig({ HOME: home }, home));
  expect(store!.requests).toBe(path.join(home, '.local/state/agent-guard/grants/requests'));
  return store!;
}

const subject: Subject = { text: 'cd src && rm -rf build', cwd: '/w/ws', dialect: 'posix' };
const info = { code: 'COMPOUND_CWD_DELETE', explanation: 'x', workspace: null, session: null, entry: 'check' };
const T0 = Date.parse('2026-12-01T10:00:00Z');

describe('grant store', () => {
  it('lives in XDG_STATE_HOME when it is set, and nowhere without a home', () => {
    expect(grantStore(loadConfig({ HOME: '/h', XDG_STATE_HOME: '/s' }, '/'))!.granted).toBe('/s/agent-guard/grants/granted');
    expect(grantStore(loadConfig({ HOME: '/h', XDG_STATE_HOME: 'relative' }, '/'))!.granted).toBe('/h/.local/state/agent-guard/grants/granted');
    expect(grantStore(loadConfig({}, '/'))).toBeNull();
  });

  it('a request keeps its id while pending, gets a new one once expired, and is found by it', () => {
    const s = fresh();
    const a = recordRequest(s, subject, info, T0);
    expect(a.id).toMatch(ID_PATTERN);
    expect(recordRequest(s, subject, info, T0 + 1000).id).toBe(a.id);
    expect(recordRequest(s, { ...subject, cwd: '/w/other' }, info, T0).id).not.toBe(a.id);
    expect(findRequest(s, a.id, T0 + 2000)).toMatchObject({ ok: true, req: { text: subject.text, cwd: subject.cwd } });
    expect(findRequest(s, 'zzzzzzzz', T0)).toEqual({ ok: false, why: 'unknown' });
    const late = T0 + 1000 + REQUEST_TTL_MS + 1;
    expect(findRequest(s, a.id, late)).toEqual({ ok: false, why: 'expired' });
    expect(recordRequest(s, subject, info, late).id).not.toBe(a.id);
  });

  it('a request whose text was edited is not found (the key no longer matches)', () => {
    const s = fresh();
    const a = recordRequest(s, subject, info, T0);
    const file = path.join(s.requests, `${a.key}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...a, text: 'rm -rf src' }));
    expect(findRequest(s, a.id, T0)).toEqual({ ok: false, why: 'unknown' });
  });

  it('a grant is taken once, only for exactly its text, cwd and dialect, and not after it expired', () => {
    const s = fresh();
    const g = grantRequest(s, recordRequest(s, subject, info, T0), T0);
    expect(listRequests(s, T0)).toEqual([]);
    expect(g.key).toBe(keyOf(subject));
    for (const other of [{ ...subject, text: `${subject.text} ` }, { ...subject, cwd: '/w/ws/src' }, { ...subject, dialect: 'cmd' }]) expect(takeGrant(s, other, T0).kind).toBe('none');
    expect(takeGrant(s, subject, T0 + 1000)).toMatchObject({ kind: 'taken', grant: { id: g.id } });
    expect(takeGrant(s, subject, T0 + 2000).kind).toBe('none');
    grantRequest(s, recordRequest(s, subject, info, T0), T0);
    expect(takeGrant(s, subject, T0 + GRANT_TTL_MS + 1).kind).toBe('expired');
    expect(takeGrant(s, subject, T0).kind).toBe('none');
    expect(fs.readdirSync(s.granted)).toEqual([]);
  });

  it('pending requests are bounded: expired ones and the oldest beyond the limit go', () => {
    const s = fresh();
    recordRequest(s, { ...subject, text: 'old' }, info, T0 - REQUEST_TTL_MS - 1);
    for (let i = 0; i < MAX_PENDING + 8; i++) recordRequest(s, { ...subject, text: `rm -rf b${i}` }, info, T0 + i);
    prune(s, T0 + 100);
    const left = listRequests(s, T0 + 100).map((r) => r.text);
    expect(left).toHaveLength(MAX_PENDING);
    expect(left[0]).toBe('rm -rf b8');
    expect(left).not.toContain('old');
    fs.writeFileSync(path.join(s.requests, 'x.json.123.tmp'), '');
    fs.utimesSync(path.join(s.requests, 'x.json.123.tmp'), new Date(T0 - 120_000), new Date(T0 - 120_000));
    prune(s, T0);
    expect(fs.readdirSync(s.requests).filter((n) => !n.endsWith('.json'))).toEqual([]);
  });
});
