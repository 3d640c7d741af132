// The `request_permission` tool (docs/mcp.md): for a line decided ASK, records the request a human
// grants with `agent-guard allow <id>` (docs/grants.md) — the same request a refusal records, with
// the agent's reason beside it. It never grants: a BLOCK is refused, a SAFE line needs nothing.
import { loadConfig, type Env } from '../config.js';
import { decideLine } from '../enforce/index.js';
import { grantNext } from '../grants/settle.js';
import { auditGrant, grantStore, recordRequest } from '../grants/store.js';
import { redact } from '../recovery/redact.js';
import { quarantinePlace } from '../workspace.js';
import { fail, type Outcome } from './outcome.js';

export function requestPermission(command: string, why: string, cwd: string, env: Env, now = Date.now()): Outcome {
  const config = loadConfig(env, cwd);
  const r = decideLine({ text: command, config, mode: 'NORMAL' });
  const decided = { decision: r.decision, code: r.code, explanation: r.explanation };
  if (r.decision === 'BLOCK') return fail(r.code, `${r.explanation} A BLOCK is never granted: do what the explanation says instead.`, { decision: r.decision });
  if (r.decision !== 'ASK') return { ok: true, requested: false, ...decided, message: 'No permission is needed: run it (what it deletes or overwrites is kept first when the decision is RELOCATE or SNAPSHOT).' };
  const store = grantStore(config);
  if (!store) return fail('NO_STATE', 'No grant can be recorded (HOME is not set): ask the user to run the command in their own terminal.', decided);
  const place = r.workspace ? quarantinePlace(r.workspace) : null;
  const req = recordRequest(store, { text: command, cwd: config.cwd, dialect: r.dialect }, { code: r.code, explanation: r.explanation, workspace: place, session: config.session, entry: 'mcp', why }, now);
  const warning = auditGrant(config, place, { event: 'requested', id: req.id, command, cwd: config.cwd, code: r.code, entry: 'mcp', expires: req.expires, why: redact(why) });
  const allow = `agent-guard allow ${req.id}`;
  return {
    ok: true,
    requested: true,
    id: req.id,
    allow,
    expires: req.expires,
    ...decided,
    command,
    cwd: config.cwd,
    next: grantNext(allow),
    ...(warning ? { warnings: [`the request could not be audited: ${warning}`] } : {}),
  };
}
