// The hooks' side of overwrites (shell/guard.bash, shell/guard.zsh; docs/shell-hooks.md,
// "Redirections"): the DEBUG trap found, without a fork, redirections of the command about to run
// that would truncate existing non-empty files this shell did not write itself, and passes them as
// `hook-shell --overwrite PATH…`. Their content is kept here (keep.ts) before the command runs.
import type { Env } from '../config.js';
import type { ReasonCode } from '../policy/reasons.js';
import { keepOverwritten } from './keep.js';

/** Keeps what the redirections would truncate; null when done, else the refusal. */
export function keepRedirected(input: { shell: string; cwd: string; text: string; overwrites: readonly string[] }, env: Env, stderr: (s: string) => void): { decision: 'BLOCK' | 'ASK'; code: ReasonCode; explanation: string } | null {
  const v = keepOverwritten({ targets: input.overwrites.map((p) => ({ path: p, follow: true })), cwd: input.cwd, env, command: input.text, via: 'hook', program: input.shell }, stderr);
  return v.action === 'refuse' ? { decision: v.decision, code: v.code, explanation: v.explanation } : null;
}
