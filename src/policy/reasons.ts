// Reason codes: the stable, machine-readable half of every decision. One string-literal union; the
// REASONS table gives each its decision and the remediation an agent or a human can act on.
// The policy reference's codes come first; the ones agent-guard adds are marked and documented in
// docs/reason-codes.md beside them.

export type Decision = 'ALLOW' | 'RELOCATE' | 'SNAPSHOT' | 'ASK' | 'BLOCK';

/** A session's mode: RESTRICTED narrows what NORMAL allows (rule 8; docs/recovery.md). */
export type Mode = 'NORMAL' | 'RESTRICTED';

export type ReasonCode =
  | 'ALLOW_NOOP'
  | 'BLOCK_UNDETERMINABLE_EFFECT'
  | 'COMPOUND_CWD_DELETE'
  | 'COMPOUND_CREATE_DELETE'
  | 'BLOCK_PROTECTED_ANCESTOR'
  | 'ALLOW_TRASH_GC'
  | 'BLOCK_OUT_OF_WORKSPACE'
  | 'BLOCK_PROTECTED_PATH'
  | 'BLOCK_WILDCARD'
  | 'BLOCK_RESTRICTED_MODE'
  | 'RELOCATE_NARROW'
  | 'BLOCK_FORCE_PUSH'
  | 'RELOCATE_VIA_CLEAN_ENUMERATE'
  | 'SNAPSHOT_GIT_STASH'
  | 'BLOCK_GIT_RESET_COLLISION'
  | 'ALLOW_REGENERABLE'
  | 'RELOCATE_TREE'
  | 'RELOCATE_PATHS'
  | 'RELOCATE_FAILED_STORAGE'
  | 'COMPENSATION_FAILED'
  | 'BLOCK_DIALECT_UNKNOWN'
  | 'BLOCK_DIALECT_INVALID'
  // added by agent-guard
  | 'BLOCK_INTERNAL_ERROR'
  | 'BLOCK_GUARD_TAMPERING'
  | 'RELOCATE_SCRATCH'
  | 'RELOCATE_GIT_LOCK';

export interface ReasonInfo {
  decision: Decision;
  /** What the code means, one sentence. */
  summary: string;
  /** What to do instead (empty for silent SAFE outcomes). */
  remediation: string;
  /** Added by agent-guard (not in the policy reference). */
  extension?: true;
}

export const REASONS: Readonly<Record<ReasonCode, ReasonInfo>> = {
  ALLOW_NOOP: { decision: 'ALLOW', summary: 'Nothing is deleted or overwritten (a dry run, no targets, or nothing destructive).', remediation: '' },
  BLOCK_UNDETERMINABLE_EFFECT: {
    decision: 'BLOCK',
    summary: 'What this would delete cannot be known before it runs.',
    remediation: 'Name the targets literally (no variables, substitutions, stdin-fed lists or nested shells), or use `agent-guard delete PATH...`, which enumerates first.',
  },
  COMPOUND_CWD_DELETE: {
    decision: 'ASK',
    summary: 'A `cd` earlier in the same line decides where this deletion lands.',
    remediation: 'Run the `cd` and the deletion as separate commands, or give the deletion a path from the current directory.',
  },
  COMPOUND_CREATE_DELETE: {
    decision: 'ASK',
    summary: 'The line creates files and then deletes, so the targets are not known when it is checked.',
    remediation: 'Run the creating command and the deletion as separate commands.',
  },
  BLOCK_PROTECTED_ANCESTOR: {
    decision: 'BLOCK',
    summary: 'The target is a filesystem root or a home directory.',
    remediation: 'Never delete a root or home directory; name the specific paths inside the workspace.',
  },
  ALLOW_TRASH_GC: { decision: 'ALLOW', summary: 'The targets, named in the command, are inside the quarantine: housekeeping deletes them directly.', remediation: '' },
  BLOCK_OUT_OF_WORKSPACE: {
    decision: 'BLOCK',
    summary: 'The target lies outside the workspace.',
    remediation: 'Only paths inside the workspace can be deleted; set AGENT_GUARD_WORKSPACE if the workspace boundary is wrong.',
  },
  BLOCK_PROTECTED_PATH: {
    decision: 'BLOCK',
    summary: 'The target is the workspace root, git metadata (.git), the quarantine, its state, or something that holds the quarantine.',
    remediation: 'Delete specific paths inside the workspace instead; .git and the quarantine are never deleted by an agent (move AGENT_GUARD_TRASH out of a directory you want to delete whole).',
  },
  BLOCK_WILDCARD: {
    decision: 'BLOCK',
    summary: 'A shell pattern picks the targets, so they are not known when the command is checked.',
    remediation: 'Use `agent-guard delete PATTERN...`, which expands the pattern itself and quarantines each match, or name the paths.',
  },
  BLOCK_RESTRICTED_MODE: {
    decision: 'BLOCK',
    summary: 'The session is in RESTRICTED mode, which forbids this operation.',
    remediation: 'Only a human at an interactive terminal can return the session to NORMAL mode.',
  },
  RELOCATE_NARROW: { decision: 'RELOCATE', summary: 'RESTRICTED mode: the named files are quarantined, then the command runs.', remediation: '' },
  BLOCK_FORCE_PUSH: {
    decision: 'BLOCK',
    summary: 'The push rewrites or deletes remote history (force, +ref, --mirror, --delete, :ref, --force-with-lease).',
    remediation: 'Remote history is never rewritten by an agent: push without force, or ask a human to run it.',
  },
  RELOCATE_VIA_CLEAN_ENUMERATE: {
    decision: 'RELOCATE',
    summary: 'git clean: every path it would remove is enumerated (git clean -n) and quarantined, then it runs.',
    remediation: '',
  },
  SNAPSHOT_GIT_STASH: { decision: 'SNAPSHOT', summary: 'Tracked changes are snapshotted (git stash create, kept under refs/agent-guard/) before git overwrites them.', remediation: '' },
  BLOCK_GIT_RESET_COLLISION: {
    decision: 'BLOCK',
    summary: 'git would overwrite untracked or ignored files that a stash snapshot cannot hold, or write into the quarantine (a reset or a forced checkout/switch to another commit, paths checked out or restored from another commit, or ignored files in the way of a branch switch).',
    remediation: 'Move or commit the colliding files first (they are listed), then run it again; a commit that tracks the quarantine cannot be checked out over it.',
  },
  ALLOW_REGENERABLE: {
    decision: 'ALLOW',
    summary: 'Every target is git-ignored and a known build artifact: moved to the quarantine when one rename does it (marked regenerable), else deleted directly.',
    remediation: '',
  },
  RELOCATE_TREE: { decision: 'RELOCATE', summary: 'The tree is moved to the quarantine, then the command runs.', remediation: '' },
  RELOCATE_PATHS: { decision: 'RELOCATE', summary: 'The named paths are moved to the quarantine, then the command runs.', remediation: '' },
  RELOCATE_FAILED_STORAGE: {
    decision: 'BLOCK',
    summary: 'The quarantine could not take the targets (full, read-only or over quota); nothing was deleted.',
    remediation: 'Free space (agent-guard gc) or point AGENT_GUARD_TRASH at a writable location; a scratch zone\'s quarantine owned by someone else must be removed by its owner. Deletion never falls back to permanent.',
  },
  COMPENSATION_FAILED: {
    decision: 'BLOCK',
    summary: 'The safety copy (quarantine or snapshot) could not be completed, so the command was refused.',
    remediation: 'Fix the reported cause and retry; anything already moved is restorable with its txid.',
  },
  BLOCK_DIALECT_UNKNOWN: {
    decision: 'BLOCK',
    summary: 'The shell dialect named by --dialect or AGENT_GUARD_DIALECT is not one agent-guard knows.',
    remediation: 'Use posix, cmd or powershell.',
  },
  BLOCK_DIALECT_INVALID: {
    decision: 'BLOCK',
    summary: 'The shell dialect selector is malformed.',
    remediation: 'Give exactly one dialect name: posix, cmd or powershell.',
  },
  BLOCK_INTERNAL_ERROR: {
    decision: 'BLOCK',
    summary: 'agent-guard failed while checking a command that may be destructive, so it refused (fail closed).',
    remediation: 'Report the error shown; meanwhile run the command without destructive parts or ask a human.',
    extension: true,
  },
  BLOCK_GUARD_TAMPERING: {
    decision: 'BLOCK',
    summary: 'The line would switch off part of agent-guard itself (its shell traps, its startup files, or the tag its PATH shims use to avoid loops).',
    remediation: 'Run the command without touching agent-guard; a human who means to can leave the guarded shell (or use `agent-guard mode` for the session).',
    extension: true,
  },
  RELOCATE_SCRATCH: {
    decision: 'RELOCATE',
    summary: 'The targets are in a scratch zone (the temp or cache directory): they are moved to that zone\'s quarantine, then the command runs.',
    remediation: '',
    extension: true,
  },
  RELOCATE_GIT_LOCK: {
    decision: 'RELOCATE',
    summary: 'A lock file git left behind (`.git/index.lock`, …) is moved to the quarantine, then the command runs.',
    remediation: '',
    extension: true,
  },
};

export const REASON_CODES = Object.keys(REASONS) as ReasonCode[];

/** How restrictive a decision is: a line takes the most restrictive decision of its ops. */
export const SEVERITY: Readonly<Record<Decision, number>> = { ALLOW: 0, RELOCATE: 1, SNAPSHOT: 2, ASK: 3, BLOCK: 4 };

/** The explanation of a decision: the code's summary, the detail that applies, the remediation. */
export function explain(code: ReasonCode, detail: string): string {
  const r = REASONS[code];
  const body = detail ? `${r.summary} (${detail})` : r.summary;
  return r.remediation ? `${body} ${r.remediation}` : body;
}
