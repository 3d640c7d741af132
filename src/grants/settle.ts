// An ASK at a refusal point (docs/grants.md). ASK means "a human authorizes this one execution";
// this is where a human is found:
//
//   1. a one-time grant for exactly this command (text, cwd, dialect), given earlier with
//      `agent-guard allow <id>`, is taken (once);
//   2. else, in a guarded interactive shell, the human at the terminal is asked on /dev/tty
//      (default no; no answer within AGENT_GUARD_ASK_TIMEOUT seconds is no);
//   3. else a request is recorded and the refusal names the grant: `agent-guard allow <id>`.
//
// Authorized (1 or 2), the line is decided again without the shape rules (PolicyContext.authorized)
// and compensated like any SAFE decision: a BLOCK from any other rule still refuses it.
import type { Config } from '../config.js';
import type { CheckResult } from '../engine.js';
import { decideLine, enforce } from '../enforce/index.js';
import type { ReasonCode } from '../policy/reasons.js';
import { askOnTty, tellTty, visible, type AskOptions, type TtyAnswer } from '../tty.js';
import { auditGrant, grantStore, recordRequest, REQUEST_TTL_MS, takeGrant } from './store.js';
import { quarantinePlace } from '../workspace.js';

export interface AskPolicy {
  /** A human may be at this terminal (a guarded interactive shell): ask on /dev/tty. */
  tty: boolean;
  /** When nobody could be asked, record a request a human can grant with `agent-guard allow`. */
  grant: boolean;
  /** The entry point, for the records: `hook-shell`, `hook codex`, `check`. */
  entry: string;
  /** The line was decided with its directory unknown (DecideLine.cwdUnknown): so is its authorized retry. */
  cwdUnknown?: boolean;
}

export type Settled =
  | { action: 'run'; r: CheckResult }
  /** `next`: one line saying what to do now (the grant, or why nothing ran). `audited`: `r` is in
   *  the audit log already. */
  | { action: 'refuse'; decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string; next?: string; r: CheckResult; audited?: true };

export interface SettleDeps {
  ask?: (question: string, opts: AskOptions) => TtyAnswer;
  tell?: (text: string) => void;
  now?: () => number;
}

function refuse(r: CheckResult, next?: string, audited = false): Settled {
  return { action: 'refuse', decision: r.decision === 'ASK' ? 'ASK' : 'BLOCK', code: r.code, explanation: r.explanation, ...(next ? { next } : {}), r, ...(audited ? { audited: true as const } : {}) };
}

/** The one line an agent (or a person) can act on when a grant was recorded. */
export function grantNext(allow: string): string {
  return `To run it once, ask the user to type \`${allow}\` in their own terminal (within ${REQUEST_TTL_MS / 60_000} minutes), then retry the same command unchanged; or do what the explanation says instead.`;
}

/** Decides the line again as authorized and performs its compensation. */
function runAuthorized(r: CheckResult, text: string, config: Config, by: NonNullable<CheckResult['authorizedBy']>, cwdUnknown = false): Settled {
  const again = decideLine({ text, config, mode: r.mode, dialect: r.dialect, authorized: true, ...(cwdUnknown ? { cwdUnknown: true } : {}) });
  if (again.decision === 'BLOCK' || again.decision === 'ASK') return refuse(again);
  const done = enforce({ ...again, authorizedBy: by }, text, config);
  if (done.decision === 'BLOCK' || done.decision === 'ASK') return refuse(done, undefined, true);
  return { action: 'run', r: done };
}

function question(r: CheckResult, text: string, config: Config): string {
  const shown = visible(text.length > 2000 ? `${text.slice(0, 2000)}…` : text);
  return [
    `agent-guard: ASK ${r.code}: ${visible(r.explanation)}`,
    `  command: ${shown.replace(/\n/g, '\n           ')}`,
    `  in:      ${visible(config.cwd)}`,
    '  yes runs it this once; what it deletes that exists now is quarantined first (restorable).',
    `Run it once? [y/N] (no answer in ${Math.round(config.askTimeoutMs / 1000)} s: no) `,
  ].join('\n');
}

/** Settles an ASK decision `r` of `text` (decided with `config`): see the header. */
export function settleAsk(r: CheckResult, text: string, config: Config, policy: AskPolicy, deps: SettleDeps = {}): Settled {
  const now = (deps.now ?? Date.now)();
  const store = grantStore(config);
  const subject = { text, cwd: config.cwd, dialect: r.dialect };
  const place = r.workspace ? quarantinePlace(r.workspace) : null;
  const record = { command: text, cwd: config.cwd, code: r.code, entry: policy.entry };
  if (store) {
    const t = takeGrant(store, subject, now);
    if (t.kind === 'taken') {
      auditGrant(config, place, { event: 'used', id: t.grant.id, ...record });
      return runAuthorized(r, text, config, { by: 'grant', id: t.grant.id }, policy.cwdUnknown === true);
    }
    if (t.kind === 'expired') auditGrant(config, place, { event: 'expired', id: t.grant.id, ...record });
  }
  if (policy.tty) {
    const answer = (deps.ask ?? askOnTty)(question(r, text, config), { timeoutMs: config.askTimeoutMs });
    if (answer !== 'none') auditGrant(config, place, { event: `terminal-${answer}`, id: null, ...record });
    if (answer === 'yes') {
      const s = runAuthorized(r, text, config, { by: 'terminal' }, policy.cwdUnknown === true);
      const txids = s.action === 'run' ? s.r.compensations.map((c) => c.txid).filter((x): x is string => typeof x === 'string') : [];
      if (txids.length > 0) (deps.tell ?? tellTty)(`agent-guard: quarantined first as ${txids.join(', ')} (undo: agent-guard restore ${txids[0]})\n`);
      return s;
    }
    if (answer === 'no') return refuse(r, 'Not run: the answer was no.');
    if (answer === 'timeout') return refuse(r, `Not run: no answer within ${Math.round(config.askTimeoutMs / 1000)} s.`);
  }
  if (!policy.grant) return refuse(r);
  const own = 'A human must authorize it: ask the user to run it in their own terminal';
  if (!store) return refuse(r, `${own} (no grant can be recorded: HOME is not set).`);
  try {
    const req = recordRequest(store, subject, { code: r.code, explanation: r.explanation, workspace: place, session: config.session, entry: policy.entry }, now);
    auditGrant(config, place, { event: 'requested', id: req.id, ...record, expires: req.expires });
    const allow = `agent-guard allow ${req.id}`;
    return refuse({ ...r, grant: { id: req.id, allow, expires: req.expires } }, grantNext(allow));
  } catch (err) {
    return refuse(r, `${own} (no grant could be recorded: ${err instanceof Error ? err.message : String(err)}).`);
  }
}

/** `check --enforce` on an ASK line: a grant runs it; otherwise the refusal carries a new grant.
 *  The result is audited either way. */
export function settleCheck(r: CheckResult, text: string, config: Config): CheckResult {
  const s = settleAsk(r, text, config, { tty: false, grant: true, entry: 'check' });
  if (s.action === 'run' || s.audited) return s.r;
  return enforce(s.r, text, config);
}
