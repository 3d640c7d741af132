// The decision engine: a command line (or a concrete argv) in, one decision out. Every entry point
// reaches it through src/enforce/ (`decideLine`), so a command gets the same decision and reason code
// however it arrives. The result is the JSON report `check --json` prints.
import type { Config } from './config.js';
import { chooseDialect, type Dialect } from './dialect.js';
import { classify, classifyDialect, smellsDestructiveIn } from './classifier/index.js';
import type { OpKind, UndeterminableReason } from './classifier/types.js';
import { resetFsCache } from './probe/fs.js';
import { aliasOf, gitRunner, probe, type GitRunner, type ProbedOp } from './probe/index.js';
import { combine, evaluateOp, type Verdict } from './policy/evaluate.js';
import { explain, REASONS, type Decision, type Mode, type ReasonCode } from './policy/reasons.js';
import type { Zone, ZoneKind } from './probe/zones.js';
import { discoverWorkspace, readMode, type Workspace } from './workspace.js';

export const SCHEMA_VERSION = 1;

export interface TargetResult {
  /** The operand as written (or, for git clean, the path git reported). */
  raw: string;
  /** The index of the word it comes from in the op's argv (TargetSpec.arg): for an argv input, the
   *  index into that argv (the shim's `keep` index). */
  arg?: number;
  path: string | null;
  physical: string | null;
  /** The exact physical path in base64, when a name is not valid UTF-8 (`physical` is lossy then). */
  physicalB64?: string;
  type: string;
  role?: 'scope';
  /** The scratch zone (its root) the target is relocated into, when it is in one (docs/zones.md). */
  zone?: string;
}

export interface OpResult {
  program: string;
  kind: OpKind;
  argv: string[];
  cwd: string | null;
  wrappers: string[];
  targets: TargetResult[];
  decision: Decision;
  code: ReasonCode;
  rule: string;
  detail: string;
  undeterminable?: UndeterminableReason;
  /** git ops: where git runs and the global options it is given (replayed by compensations). */
  git?: { subcommand: string; dir: string | null; globals: string[] };
  /** Indirect ops (`sh -c TEXT`, `eval TEXT`, a heredoc into a shell): the text that runs, and
   *  whether it holds expansions read only when it runs. */
  inner?: { text: string; dynamic: boolean };
}

/** An entry a relocation moved (or, for `copy`, copied): display forms (the manifest holds the bytes). */
export interface MovedEntry {
  origin: string;
  dest: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  via: 'rename' | 'copy';
}

interface CompensationBase {
  /** Index into `ops` of the op it compensates (null: kept for no op of the line, as the refs a
   *  `git branch -D` drops). */
  op: number | null;
  /** The policy code of that op. */
  policyCode: ReasonCode;
  error?: string;
}

/** Targets moved into a quarantine before the command runs (src/enforce/compensate.ts):
 *  `relocate` (rm and the other deletes), `clean-enumerate` (what `git clean -n` listed),
 *  `find-delete` (what the find -delete plan chose, src/shims/find-plan.ts), `copy` (copied, the
 *  origin left for the command: shred). One per quarantine: a scratch zone's carries `zone` and
 *  `quarantine`. `regenerable`: rule 13's artifacts — what one rename moves, the rest (`direct`, its
 *  status `direct` when nothing moved) left for the command to delete itself. */
export interface RelocateCompensation extends CompensationBase {
  strategy: 'relocate' | 'clean-enumerate' | 'find-delete' | 'copy';
  status: 'done' | 'failed' | 'direct';
  txid: string | null;
  moved: MovedEntry[];
  skipped: { origin: string; reason: 'missing' | 'covered' }[];
  zone?: ZoneKind;
  quarantine?: string;
  regenerable?: true;
  direct?: string[];
}

/** Local changes kept as a git snapshot before a git command overwrites them (`stash`: null when
 *  there was nothing to keep). */
export interface SnapshotCompensation extends CompensationBase {
  strategy: 'snapshot';
  status: 'done' | 'failed';
  txid: string;
  stash: string | null;
}

/** Commits a git command drops kept reachable first (`git branch -D`, `git stash drop/clear`, the
 *  detached HEAD of a removed work tree): the refs re-created by `restore`, and the stash entries. */
export interface RefsCompensation extends CompensationBase {
  strategy: 'refs';
  status: 'done' | 'failed';
  txid: string;
  refs: string[];
  stashes: number;
}

/** A compensation this build cannot perform: the line is refused before anything moves. */
export interface UnavailableCompensation extends CompensationBase {
  strategy: 'relocate' | 'clean-enumerate' | 'snapshot';
  status: 'unavailable';
  txid?: undefined;
}

export type Compensation = RelocateCompensation | SnapshotCompensation | RefsCompensation | UnavailableCompensation;

export interface CheckResult {
  version: typeof SCHEMA_VERSION;
  decision: Decision;
  code: ReasonCode;
  explanation: string;
  /** Index into `ops` of the op that decided the line, or null. */
  decidingOp: number | null;
  ops: OpResult[];
  compensations: Compensation[];
  dialect: string;
  mode: Mode;
  cwd: string;
  workspace: { root: string; source: Workspace['source']; quarantine: string; zones: Zone[] } | null;
  warnings: string[];
  /** Set when the engine failed and refused (BLOCK_INTERNAL_ERROR). */
  error?: string;
  /** An ASK refused where no human could be asked: the one-time grant a human can give
   *  (`agent-guard allow <id>`; docs/grants.md). */
  grant?: { id: string; allow: string; expires: string };
  /** An ASK a human authorized, decided again without the shape rules: at the terminal, or by a grant. */
  authorizedBy?: { by: 'terminal' | 'grant'; id?: string };
}

export interface DecideInput {
  /** The command line; for an `argv` input, its quoted text (for the fail-closed smell only). */
  command: string;
  /** A concrete argv (what a PATH shim receives), classified as it is (`classify({argv})`), never
   *  lexed from `command`; POSIX dialect only. */
  argv?: readonly string[];
  config: Config;
  mode?: Mode;
  /** The dialect selector as given: the --dialect flag or a harness payload's field, any JSON value
   *  (AGENT_GUARD_DIALECT comes from config). */
  dialect?: unknown;
  git?: GitRunner;
  /** A human authorized this one execution: the shape rules are skipped (PolicyContext.authorized). */
  authorized?: boolean;
  /** The directory the line runs in is not known (config.cwd only locates the workspace): relative
   *  targets are undeterminable (ClassifyOptions.cwdUnknown). */
  cwdUnknown?: boolean;
  /** Narrow `mode` by the session's stored mode (src/workspace.ts `readMode`), read once the
   *  workspace (and so the quarantine) is known: it can only narrow, never widen; a line without
   *  operations never reads it. */
  sessionMode?: boolean;
}

/** A decision about the line as a whole (no op decided it). */
export function lineResult(config: Pick<Config, 'cwd'>, mode: Mode, dialect: string, code: ReasonCode, detail: string): CheckResult {
  return {
    version: SCHEMA_VERSION,
    decision: REASONS[code].decision,
    code,
    explanation: explain(code, detail),
    decidingOp: null,
    ops: [],
    compensations: [],
    dialect,
    mode,
    cwd: config.cwd,
    workspace: null,
    warnings: [],
  };
}

function opResult(p: ProbedOp, v: Verdict): OpResult {
  const o = p.op;
  return {
    program: o.program,
    kind: o.kind,
    argv: o.argv,
    cwd: o.cwd,
    wrappers: o.wrappers,
    targets: p.targets.map((t) => ({ raw: t.raw, ...(t.arg !== undefined ? { arg: t.arg } : {}), path: t.path, physical: t.physical, ...(t.bytes ? { physicalB64: t.bytes.toString('base64') } : {}), type: t.type, ...(t.role ? { role: t.role } : {}), ...(t.zone ? { zone: t.zone.root } : {}) })),
    decision: v.decision,
    code: v.code,
    rule: v.rule,
    detail: v.detail,
    ...(o.undeterminable ? { undeterminable: o.undeterminable.reason } : {}),
    ...(o.git ? { git: { subcommand: o.git.subcommand, dir: o.git.dir, globals: o.git.globals } } : {}),
    ...(o.kind === 'indirect' && o.inner !== undefined ? { inner: { text: o.inner, dynamic: o.innerDynamic !== false } } : {}),
  };
}

function decideUnguarded(input: DecideInput, given: Mode, dialect: Dialect): CheckResult {
  let mode = given;
  const { config } = input;
  const git = input.git ?? gitRunner(config.gitBinary, config.env);
  resetFsCache();
  const opts = {
    cwd: config.cwd,
    ...(input.cwdUnknown ? { cwdUnknown: true } : {}),
    home: config.home,
    cdpath: config.cdpath,
    resolveGitAlias: (name: string, cwd: string | null, globals: readonly string[]) => aliasOf(git, cwd ?? config.cwd, globals, name),
  };
  const classification = input.argv !== undefined && dialect === 'posix' ? classify({ argv: input.argv }, opts) : classifyDialect(dialect, input.command, opts);
  const base = lineResult(config, mode, dialect, 'ALLOW_NOOP', 'nothing in the line deletes or overwrites');
  if (classification.ops.length === 0) return base;
  const ws = discoverWorkspace(config);
  if (mode === 'NORMAL' && input.sessionMode && readMode(ws, config.session) === 'RESTRICTED') mode = 'RESTRICTED';
  const probed = probe(classification.ops, config, ws, { mode }, git);
  const ctx = { mode, allowRegenerable: config.allowRegenerable, authorized: input.authorized === true };
  const verdicts = probed.map((p) => evaluateOp(p, ctx));
  const ops = probed.map((p, i) => opResult(p, verdicts[i]!));
  const best = combine(verdicts);
  const result: CheckResult = { ...base, mode, ops, workspace: { root: ws.root, source: ws.source, quarantine: ws.quarantine, zones: ws.zones }, warnings: ws.warnings };
  if (best) {
    result.decision = best.verdict.decision;
    result.code = best.verdict.code;
    result.decidingOp = best.index;
    result.explanation = explain(best.verdict.code, best.verdict.detail);
  }
  return result;
}

/** Decides one command line. Never throws for a line that may be destructive: an internal error
 *  there becomes BLOCK_INTERNAL_ERROR (fail closed). */
export function decide(input: DecideInput): CheckResult {
  const mode = input.mode ?? 'NORMAL';
  const choice = chooseDialect(input.dialect, input.config.dialect);
  if (!choice.ok) {
    return lineResult(input.config, mode, choice.selector, choice.code, `dialect selector ${JSON.stringify(choice.selector)}`);
  }
  try {
    return decideUnguarded(input, mode, choice.dialect);
  } catch (err) {
    if (!smellsDestructiveIn(choice.dialect, input.command)) throw err;
    return internalError(input.config, mode, choice.dialect, err);
  }
}

/** The refusal of a line whose check failed (fail closed): BLOCK_INTERNAL_ERROR with the error. */
export function internalError(config: Pick<Config, 'cwd'>, mode: Mode, dialect: string, err: unknown): CheckResult {
  const message = err instanceof Error ? err.message : String(err);
  return { ...lineResult(config, mode, dialect, 'BLOCK_INTERNAL_ERROR', message), error: message };
}
