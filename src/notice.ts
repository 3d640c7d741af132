// The one stderr line a guarded command prints, with AGENT_GUARD_NOTICE=1, for each transaction its
// compensation made (docs/recovery.md, "Notices"): the shims and the shell hooks call it where a
// compensation finishes (`check --enforce` reports the txids in its own output).
import fs from 'node:fs';
import path from 'node:path';
import { noticeEnabled, type Env } from './config.js';
import type { CheckResult } from './engine.js';

/** What a compensation kept: relocated entries (`moved`, absolute origins; `copied` when the origin
 *  stays, as for shred), a snapshot, or dropped refs. */
export interface Kept {
  txid: string | null | undefined;
  moved?: readonly { origin: string }[];
  copied?: boolean;
  stash?: string | null;
  refs?: readonly string[];
  stashes?: number;
}

/** What the compensations of an enforced decision kept. */
export function keptBy(r: CheckResult): Kept[] {
  return r.compensations.map((c) => ({
    txid: typeof c.txid === 'string' ? c.txid : null,
    ...('moved' in c ? { moved: c.moved, ...(c.strategy === 'copy' ? { copied: true } : {}) } : {}),
    ...('stash' in c && c.stash !== null ? { stash: c.stash } : {}),
    ...(c.strategy === 'refs' ? { refs: c.refs, stashes: c.stashes } : {}),
  }));
}

function names(cwd: string, origins: readonly string[]): string {
  let base = cwd;
  try {
    base = fs.realpathSync(cwd); // origins are physical paths
  } catch {
    // the logical form then
  }
  const shown = origins.map((o) => {
    const rel = path.relative(base, o);
    return (rel === '' ? '.' : rel).replace(/[\u0000-\u001f\u007f]/g, '?');
  });
  return shown.length <= 3 ? shown.join(', ') : `${shown.slice(0, 3).join(', ')} and ${shown.length - 3} more`;
}

/** The notice lines (empty unless AGENT_GUARD_NOTICE=1), written to `stderr`. */
export function notice(env: Env, cwd: string, kept: readonly Kept[], stderr: (s: string) => void): void {
  if (!noticeEnabled(env)) return;
  const lines: string[] = [];
  for (const k of kept) {
    if (typeof k.txid !== 'string') continue;
    const undo = `(tx ${k.txid}); agent-guard restore ${k.txid}`;
    if (k.moved && k.moved.length > 0) lines.push(`agent-guard: ${k.copied ? 'copied' : 'moved'} ${names(cwd, k.moved.map((m) => m.origin))} to the quarantine ${undo}`);
    else if (k.stash) lines.push(`agent-guard: kept the local changes in a snapshot ${undo}`);
    else if ((k.refs?.length ?? 0) + (k.stashes ?? 0) > 0) {
      const what = [...(k.refs ?? []).map((r) => r.replace(/^refs\/heads\//, 'branch ')), ...(k.stashes ? [`${k.stashes} stash entr${k.stashes === 1 ? 'y' : 'ies'}`] : [])];
      lines.push(`agent-guard: kept ${what.join(', ')} restorable ${undo}`);
    }
  }
  if (lines.length > 0) stderr(lines.join('\n') + '\n');
}
