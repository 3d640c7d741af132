// The decision engine: command text in, one decision out. Every entry point (check, and later the
// shims, hooks and harness adapters) goes through `decide`, so a command gets the same decision and
// reason code however it arrives.
import type { Config } from './config.js';
import { chooseDialect, type Dialect } from './dialect.js';
import { classifyDialect, smellsDestructiveIn } from './classifier/index.js';
import type { OpKind, UndeterminableReason } from './classifier/types.js';
import { resetFsCache } from './probe/fs.js';
import { aliasOf, discoverWorkspace, gitRunner, probe, type GitRunner, type ProbedOp, type Workspace } from './probe/index.js';
import { combine, evaluateOp, type Verdict } from './policy/evaluate.js';
import { REASONS, type Decision, type ReasonCode } from './policy/reasons.js';
import type { Mode } from './policy/rules.js';
import type { Zone } from './probe/zones.js';

export const SCHEMA_VERSION = 1;

export interface TargetResult {
  /** The operand as written (or, for git clean, the path git reported). */
  raw: string;
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

export interface Compensation {
  strategy: 'relocate' | 'snapshot' | 'clean-enumerate';
  op: number;
  status: string;
  [key: string]: unknown;
}

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
  command: string;
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
  /** The session's stored mode, read once the workspace (and so the quarantine) is known. It can
   *  only narrow `mode`, never widen it; a line without operations never asks. */
  storedMode?: (place: { root: string; quarantine: string }) => Mode;
}

export function explain(code: ReasonCode, detail: string): string {
  const r = REASONS[code];
  const body = detail ? `${r.summary} (${detail})` : r.summary;
  return r.remediation ? `${body} ${r.remediation}` : body;
}

function lineResult(input: DecideInput, mode: Mode, dialect: string, code: ReasonCode, detail: string): CheckResult {
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
    cwd: input.config.cwd,
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
    targets: p.targets.map((t) => ({ raw: t.raw, path: t.path, physical: t.physical, ...(t.bytes ? { physicalB64: t.bytes.toString('base64') } : {}), type: t.type, ...(t.role ? { role: t.role } : {}), ...(t.zone ? { zone: t.zone.root } : {}) })),
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
  const classification = classifyDialect(dialect, input.command, {
    cwd: config.cwd,
    ...(input.cwdUnknown ? { cwdUnknown: true } : {}),
    home: config.home,
    cdpath: config.cdpath,
    resolveGitAlias: (name, cwd, globals) => aliasOf(git, cwd ?? config.cwd, globals, name),
  });
  const base = lineResult(input, mode, dialect, 'ALLOW_NOOP', 'nothing in the line deletes or overwrites');
  if (classification.ops.length === 0) return base;
  const ws = discoverWorkspace(config);
  if (mode === 'NORMAL' && input.storedMode?.({ root: ws.root, quarantine: ws.quarantine }) === 'RESTRICTED') mode = 'RESTRICTED';
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
    return lineResult(input, mode, choice.selector, choice.code, `dialect selector ${JSON.stringify(choice.selector)}`);
  }
  try {
    return decideUnguarded(input, mode, choice.dialect);
  } catch (err) {
    if (!smellsDestructiveIn(choice.dialect, input.command)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const r = lineResult(input, mode, choice.dialect, 'BLOCK_INTERNAL_ERROR', message);
    r.error = message;
    return r;
  }
}
