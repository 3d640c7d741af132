// The audit log (`audit.jsonl` in the quarantine; docs/records.md): every enforced decision about a
// line that holds an operation of the vocabulary, or that a compensation kept something for, from
// every entry point (`via` says which, when it is not `check`). Best effort: the manifest already
// holds what moved, so an audit failure is a warning, never a reason to lose or to allow anything.
import type { Config } from '../config.js';
import type { CheckResult } from '../engine.js';
import { gitRunner, isIgnoredPath } from '../probe/git.js';
import { auditPath, ensureQuarantine } from '../recovery/quarantine.js';
import { appendRecord } from '../recovery/records.js';
import { redact } from '../recovery/redact.js';
import type { QuarantinePlace } from '../workspace.js';

/** Fields that say which entry point asked: `{ via: 'shim' }`; a runtime guard's `via`, `program`, `api`. */
export type Via = Readonly<Record<string, string>>;

/** Appends the decision record of `r` (about `command`) to `place`'s audit log. */
export function audit(r: CheckResult, place: QuarantinePlace, command: string, config: Config, via?: Via): CheckResult {
  try {
    // A relocation that moved something into this quarantine has just made it ready.
    const kept = r.compensations.some((c) => 'moved' in c && c.moved.length > 0 && (c.quarantine ?? null) === (place.zone ? place.quarantine : null));
    if (!kept) {
      const git = gitRunner(config.gitBinary, config.env);
      ensureQuarantine(place, (dir) => isIgnoredPath(git, place.root, dir));
    }
    appendRecord(
      auditPath(place),
      {
        kind: 'decision',
        txid: r.compensations.find((c) => typeof c.txid === 'string')?.txid ?? null,
        session: config.session,
        decision: r.decision,
        code: r.code,
        command: redact(command),
        cwd: config.cwd,
        mode: r.mode,
        compensations: r.compensations.map((c) => ({ strategy: c.strategy, txid: c.txid ?? null, status: c.status, ...('zone' in c && c.zone ? { zone: c.zone, quarantine: c.quarantine } : {}) })),
        ...(r.authorizedBy ? { authorizedBy: r.authorizedBy } : {}),
        ...(r.grant ? { grant: r.grant.id } : {}),
        ...via,
      },
      // best effort, as the rest of the audit; the warm checker writes it after its answer
      { sync: false, deferrable: true },
    );
    return r;
  } catch (err) {
    return { ...r, warnings: [...r.warnings, `the decision could not be audited: ${err instanceof Error ? err.message : String(err)}`] };
  }
}
