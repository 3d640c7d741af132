// "This process wants to delete this path": the one decision every runtime guard reaches (the Node
// preload, in process; other runtimes through the checker). docs/interpreters.md.
//
// 1. passThrough (churn.ts): nothing there, a type the real call refuses, an empty directory, the
//    process's own new entries, the package managers' territory → the real function runs.
// 2. Otherwise the path is decided as `rm -- PATH` (or `rm -r -- PATH`) in the process's cwd would be,
//    with the same engine, policy and session mode: ALLOW → the real function runs; RELOCATE → the
//    same recovery code quarantines it (audited), and the caller reports success as the real call
//    would have; BLOCK or ASK → refused (the caller raises EPERM with the reason).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { quoteArgv } from '../classifier/index.js';
import type { CheckResult } from '../engine.js';
import { decideLine, enforce } from '../enforce/index.js';
import { keptBy, notice } from '../notice.js';
import { explain, type ReasonCode } from '../policy/reasons.js';
import { joinCwd, passThrough, type DeleteRequest, type PassReason } from './churn.js';

export type { DeleteKind, DeleteRequest, PassReason } from './churn.js';

export type DeleteVerdict =
  /** Run the real function: its outcome is the program's (`code` is the policy's ALLOW code, if it decided). */
  | { action: 'real'; why: PassReason | 'policy'; code?: ReasonCode }
  /** Compensated: the entry is in the quarantine; report success as the real call would have. */
  | { action: 'done'; code: ReasonCode; txids: string[] }
  /** Refused: raise EPERM with `message`. */
  | { action: 'refuse'; decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string; message: string };

/** The refusal text: the call, the program, the decision and its reason with the fix. */
export function refusalMessage(req: Pick<DeleteRequest, 'api' | 'path' | 'program'>, decision: string, code: string, explanation: string): string {
  return `agent-guard refused ${req.api}(${JSON.stringify(req.path)}) in ${req.program}: ${decision} ${code}: ${explanation}`;
}

function refuse(req: DeleteRequest, decision: 'BLOCK' | 'ASK', code: ReasonCode, explanation: string): DeleteVerdict {
  return { action: 'refuse', decision, code, explanation, message: refusalMessage(req, decision, code, explanation) };
}

/** What the records say ran: the call and the program (`restore list` shows it). */
export function recordText(req: Pick<DeleteRequest, 'api' | 'path' | 'program'>): string {
  return `${req.program}: ${req.api}(${JSON.stringify(req.path)})`;
}

/** Decides (and, for RELOCATE, compensates) one deletion by a program. Never throws: an internal
 *  error refuses (BLOCK_INTERNAL_ERROR). `stderr` gets the AGENT_GUARD_NOTICE line of a compensation. */
export function runtimeDelete(req: DeleteRequest, stderr: (s: string) => void = () => {}): DeleteVerdict {
  try {
    return decideDelete(req, stderr);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return refuse(req, 'BLOCK', 'BLOCK_INTERNAL_ERROR', explain('BLOCK_INTERNAL_ERROR', message));
  }
}

function decideDelete(req: DeleteRequest, stderr: (s: string) => void): DeleteVerdict {
  const pass = passThrough(req);
  if (pass !== null) return { action: 'real', why: pass };
  const undeterminable = (detail: string): DeleteVerdict => refuse(req, 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT', explain('BLOCK_UNDETERMINABLE_EFFECT', detail));
  // Forms whose effect is not that of `rm` on the entry named (passThrough left them here).
  const trimmed = req.path.replace(/\/+$/, '');
  const base = path.posix.basename(trimmed);
  if (trimmed === '' || base === '.' || base === '..') {
    return undeterminable(`${JSON.stringify(req.path)} ends in ${base === '' ? '/' : base}: the call would empty the directory it names; name the directory itself`);
  }
  if (trimmed !== req.path && fs.lstatSync(joinCwd(req.cwd, trimmed), { throwIfNoEntry: false })?.isSymbolicLink()) {
    return undeterminable(`${JSON.stringify(req.path)} is a symlink named with a trailing slash, so the call would act on its target; name the link (no slash) or the directory itself`);
  }
  const recursive = req.kind === 'rm-r' || req.kind === 'rmdir-r';
  const argv = ['rm', ...(recursive ? ['-r'] : []), '--', req.path];
  const config = loadConfig(req.env, req.cwd);
  const r: CheckResult = decideLine({ text: quoteArgv(argv), argv, config, mode: 'NORMAL', dialect: 'posix' });
  const record = recordText(req);
  const via = { via: req.runtime, program: req.program, api: req.api };
  if (r.decision === 'BLOCK' || r.decision === 'ASK') {
    enforce(r, record, config, { via }); // audited; nothing to compensate
    return refuse(req, r.decision, r.code, r.explanation);
  }
  if (r.decision === 'ALLOW') return { action: 'real', why: 'policy', code: r.code };
  const done = enforce(r, record, config, { via });
  if (done.decision !== 'ALLOW') return refuse(req, done.decision === 'ASK' ? 'ASK' : 'BLOCK', done.code, done.explanation);
  notice(req.env, req.cwd, keptBy(done), stderr);
  return { action: 'done', code: r.code, txids: done.compensations.map((c) => c.txid).filter((t): t is string => typeof t === 'string') };
}
