// Session modes: NORMAL or RESTRICTED, per session: `.agent-trash/sessions/<id>.json` for a session
// named by AGENT_GUARD_SESSION, `.agent-trash/state.json` without one (the reference's layout: the
// portable fallback; harness adapters may keep the authoritative copy in memory). Read by
// src/workspace.ts (`readMode`); written here.
// Restricting is one-way and allowed from anywhere; only a human at an interactive terminal may
// return a session to NORMAL.
import fs from 'node:fs';
import path from 'node:path';
import type { Mode } from '../policy/reasons.js';
import { readMode, sessionFile, type QuarantinePlace } from '../workspace.js';
import { appendRecord } from './records.js';
import { auditPath } from './quarantine.js';

export class AuthorizationRequired extends Error {
  readonly code = 'AUTHORIZATION_REQUIRED';
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
