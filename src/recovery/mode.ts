// Session modes: NORMAL or RESTRICTED, per session: `.agent-trash/sessions/<id>.json` for a session
// named by AGENT_GUARD_SESSION, `.agent-trash/state.json` without one (the reference's layout: the
// portable fallback; harness adapters may keep the authoritative copy in memory).
// Restricting is one-way and allowed from anywhere; only a human at an interactive terminal may
// return a session to NORMAL.
import fs from 'node:fs';
import path from 'node:path';
import type { Mode } from '../policy/rules.js';
import { appendRecord } from './records.js';
import { auditPath, type QuarantinePlace } from './quarantine.js';

export class AuthorizationRequired extends Error {
  readonly code = 'AUTHORIZATION_REQUIRED';
}

/** The session's state file: `sessions/<id>.json` (the id made safe as a file name), or the
 *  quarantine's `state.json` when no session is named. */
export function sessionFile(q: QuarantinePlace, session: string | null): string {
  if (session === null || session === '') return path.join(q.quarantine, 'state.json');
  const id = session.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 128);
  return path.join(q.quarantine, 'sessions', `${id === '.' || id === '..' ? '_' : id}.json`);
}

/** The session's mode; an unreadable or unknown state file counts as RESTRICTED (fail closed). */
export function readMode(q: QuarantinePlace, session: string | null): Mode {
  let text: string;
  try {
    text = fs.readFileSync(sessionFile(q, session), 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'NORMAL' : 'RESTRICTED';
  }
  try {
    const mode = (JSON.parse(text) as { mode?: unknown }).mode;
    return mode === 'NORMAL' ? 'NORMAL' : 'RESTRICTED';
  } catch {
    return 'RESTRICTED';
  }
}

/** Sets the mode. `interactive`: stdin and stdout are a terminal (the caller checks). */
export function setMode(q: QuarantinePlace, session: string | null, mode: Mode, interactive: boolean, reason: string): void {
  if (mode === 'NORMAL' && readMode(q, session) !== 'NORMAL' && !interactive) {
    throw new AuthorizationRequired('returning a session to NORMAL needs a human at an interactive terminal (run `agent-guard mode normal` yourself)');
  }
  const file = sessionFile(q, session);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ version: 1, session: session ?? 'default', mode, since: new Date().toISOString(), reason }) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  appendRecord(auditPath(q), { kind: 'mode', txid: null, session, mode, reason });
}
