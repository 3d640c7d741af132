// One-time grants (docs/grants.md): where an ASK could not be put to a human, a *request* is
// recorded; `agent-guard allow <id>`, run by the human at a terminal, turns it into a *grant*; the
// next check of exactly that command (text, cwd, dialect) takes the grant, once.
//
//   <state>/grants/requests/<key>.json   pending requests (expire after REQUEST_TTL_MS; at most MAX_PENDING)
//   <state>/grants/granted/<key>.json    grants (expire after GRANT_TTL_MS; taken by an atomic rename)
//
// <state> is the user's state directory (Config.stateDir), outside every workspace; <key> is a hash
// of the command, its cwd and its dialect, so a lookup is one file. A request holds the command text
// (the human is shown exactly what they authorize); a grant holds only its redacted form.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { gitRunner, isIgnoredPath } from '../probe/git.js';
import { auditPath, ensureQuarantine } from '../recovery/quarantine.js';
import { appendRecord } from '../recovery/records.js';
import { redact } from '../recovery/redact.js';

// node:crypto is loaded on first use: every check loads this module, few need a grant (docs/performance.md).
const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');

export const REQUEST_TTL_MS = 10 * 60_000;
export const GRANT_TTL_MS = 10 * 60_000;
/** Pending requests kept at most; the oldest go first. */
export const MAX_PENDING = 32;

/** What a grant authorizes: exactly this text, decided in this dialect, in this directory. */
export interface Subject {
  text: string;
  cwd: string;
  dialect: string;
}

type Place = { root: string; quarantine: string } | null;

export interface GrantRequest {
  v: 1;
  id: string;
  key: string;
  text: string;
  cwd: string;
  dialect: string;
  code: string;
  explanation: string;
  workspace: Place;
  session: string | null;
  /** The entry point that refused (`hook-shell`, `hook codex`, `check`), or `mcp`: an agent asked
   *  through the MCP server's request_permission tool. */
  entry: string;
  /** The agent's stated reason (request_permission); shown to the human as the agent's words. */
  why?: string;
  requested: string;
  expires: string;
}

export interface Grant {
  v: 1;
  id: string;
  key: string;
  /** Redacted: the key, not the text, is what matches. */
  command: string;
  cwd: string;
  dialect: string;
  code: string;
  workspace: Place;
  granted: string;
  expires: string;
}

export interface GrantStore {
  requests: string;
  granted: string;
}

/** The store of a configuration; null when there is no state directory (no HOME). */
export function grantStore(config: Config): GrantStore | null {
  if (config.stateDir === null) return null;
  const dir = path.join(config.stateDir, 'grants');
  return { requests: path.join(dir, 'requests'), granted: path.join(dir, 'granted') };
}

export function keyOf(s: Subject): string {
  return crypto().createHash('sha256').update(JSON.stringify([s.dialect, s.cwd, s.text])).digest('hex').slice(0, 32);
}

/** Eight characters a human can type without confusing them (no 0/o, 1/l/i). */
const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const ID_PATTERN = /^[a-hjkmnp-z2-9]{8}$/;

function newId(): string {
  return [...crypto().randomBytes(8)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

function ensure(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

function readJson<T>(file: string): T | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null ? (v as T) : null;
  } catch {
    return null;
  }
}

function writeJson(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

const expired = (x: { expires: string }, now: number): boolean => !(Date.parse(x.expires) > now);

function entries(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Removes expired requests and grants, leftovers of interrupted writes and takes, and the oldest
 *  requests beyond MAX_PENDING. */
export function prune(store: GrantStore, now: number): void {
  for (const dir of [store.requests, store.granted]) {
    const live: { file: string; at: number }[] = [];
    for (const name of entries(dir)) {
      const file = path.join(dir, name);
      if (!name.endsWith('.json')) {
        // a `.tmp` or `.taken` file whose process is done with it
        const st = fs.statSync(file, { throwIfNoEntry: false });
        if (st && now - st.mtimeMs > 60_000) fs.rmSync(file, { force: true });
        continue;
      }
      const x = readJson<{ expires: string; requested?: string }>(file);
      if (!x || typeof x.expires !== 'string' || expired(x, now)) fs.rmSync(file, { force: true });
      else live.push({ file, at: Date.parse(x.requested ?? x.expires) });
    }
    if (dir === store.requests && live.length > MAX_PENDING) {
      live.sort((a, b) => a.at - b.at);
      for (const x of live.slice(0, live.length - MAX_PENDING)) fs.rmSync(x.file, { force: true });
    }
  }
}

/** Records (or renews) the request for a subject; a pending request for the same subject keeps its id. */
export function recordRequest(store: GrantStore, s: Subject, info: Pick<GrantRequest, 'code' | 'explanation' | 'workspace' | 'session' | 'entry' | 'why'>, now: number): GrantRequest {
  ensure(store.requests);
  prune(store, now);
  const key = keyOf(s);
  const file = path.join(store.requests, `${key}.json`);
  const old = readJson<GrantRequest>(file);
  const id = old && typeof old.id === 'string' && ID_PATTERN.test(old.id) && !expired(old, now) ? old.id : newId();
  const req: GrantRequest = { v: 1, id, key, text: s.text, cwd: s.cwd, dialect: s.dialect, ...info, requested: new Date(now).toISOString(), expires: new Date(now + REQUEST_TTL_MS).toISOString() };
  writeJson(file, req);
  return req;
}

/** The pending requests, oldest first. */
export function listRequests(store: GrantStore, now: number): GrantRequest[] {
  const out: GrantRequest[] = [];
  for (const name of entries(store.requests)) {
    if (!name.endsWith('.json')) continue;
    const r = readJson<GrantRequest>(path.join(store.requests, name));
    if (r && typeof r.id === 'string' && typeof r.text === 'string' && typeof r.expires === 'string' && !expired(r, now)) out.push(r);
  }
  return out.sort((a, b) => Date.parse(a.requested) - Date.parse(b.requested));
}

/** The request with this id, or why there is none. */
export function findRequest(store: GrantStore, id: string, now: number): { ok: true; req: GrantRequest } | { ok: false; why: 'unknown' | 'expired' } {
  for (const name of entries(store.requests)) {
    if (!name.endsWith('.json')) continue;
    const r = readJson<GrantRequest>(path.join(store.requests, name));
    if (!r || r.id !== id || typeof r.text !== 'string' || typeof r.cwd !== 'string' || typeof r.dialect !== 'string') continue;
    if (r.key !== keyOf(r)) continue; // edited by hand: not what was refused
    return expired(r, now) ? { ok: false, why: 'expired' } : { ok: true, req: r };
  }
  return { ok: false, why: 'unknown' };
}

/** Turns a request into a grant valid for GRANT_TTL_MS; the request is gone. */
export function grantRequest(store: GrantStore, req: GrantRequest, now: number): Grant {
  ensure(store.granted);
  const g: Grant = { v: 1, id: req.id, key: req.key, command: redact(req.text), cwd: req.cwd, dialect: req.dialect, code: req.code, workspace: req.workspace, granted: new Date(now).toISOString(), expires: new Date(now + GRANT_TTL_MS).toISOString() };
  writeJson(path.join(store.granted, `${req.key}.json`), g);
  dropRequest(store, req);
  return g;
}

export function dropRequest(store: GrantStore, req: GrantRequest): void {
  fs.rmSync(path.join(store.requests, `${req.key}.json`), { force: true });
}

export type Taken = { kind: 'none' } | { kind: 'taken'; grant: Grant } | { kind: 'expired'; grant: Grant };

/** Takes the grant for exactly this subject, if there is one: a rename, so of two processes that
 *  try at once only one gets it; the grant is gone afterwards, expired or not. */
export function takeGrant(store: GrantStore, s: Subject, now: number): Taken {
  const key = keyOf(s);
  const file = path.join(store.granted, `${key}.json`);
  const mine = `${file}.${process.pid}.${crypto().randomBytes(4).toString('hex')}.taken`;
  try {
    fs.renameSync(file, mine);
  } catch {
    return { kind: 'none' };
  }
  const g = readJson<Grant>(mine);
  fs.rmSync(mine, { force: true });
  if (!g || g.key !== key || g.cwd !== s.cwd || g.dialect !== s.dialect || typeof g.expires !== 'string') return { kind: 'none' };
  return expired(g, now) ? { kind: 'expired', grant: g } : { kind: 'taken', grant: g };
}

/** Appends a `grant` record to the workspace's audit log. Best effort: returns the failure, if any. */
export function auditGrant(config: Config, workspace: Place, fields: { event: string; id: string | null; command: string; cwd: string; code: string } & Record<string, unknown>): string | null {
  if (!workspace) return null;
  try {
    const git = gitRunner(config.gitBinary, config.env);
    ensureQuarantine(workspace, (dir) => isIgnoredPath(git, workspace.root, dir));
    appendRecord(auditPath(workspace), { kind: 'grant', txid: null, session: config.session, ...fields });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
