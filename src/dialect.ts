// The dialect selector: an unusable selector is a BLOCK, never a silent POSIX fallback.
import type { ReasonCode } from './policy/reasons.js';

export type Dialect = 'posix' | 'cmd' | 'powershell';

/** Every accepted spelling (after trimming and lower-casing) and the dialect it names. */
export const DIALECT_ALIASES: ReadonlyMap<string, Dialect> = new Map(Object.entries({
  posix: 'posix',
  sh: 'posix',
  bash: 'posix',
  zsh: 'posix',
  cmd: 'cmd',
  'cmd.exe': 'cmd',
  batch: 'cmd',
  bat: 'cmd',
  powershell: 'powershell',
  pwsh: 'powershell',
  ps: 'powershell',
} satisfies Record<string, Dialect>));

export type DialectChoice = { ok: true; dialect: Dialect } | { ok: false; code: ReasonCode; selector: string };

/** One selector as given (a flag, an environment variable, a field of a harness payload, which may be any
 *  JSON value). `undefined` means "not given". */
export function parseDialect(raw: unknown): DialectChoice | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') {
    // A list, a number, an object, null: malformed, whatever it holds.
    let shown: string;
    try {
      shown = JSON.stringify(raw) ?? String(raw);
    } catch {
      shown = String(raw);
    }
    return { ok: false, code: 'BLOCK_DIALECT_INVALID', selector: shown };
  }
  const name = raw.trim().toLowerCase();
  if (name === '') return { ok: false, code: 'BLOCK_DIALECT_INVALID', selector: raw };
  const known = DIALECT_ALIASES.get(name);
  if (known !== undefined) return { ok: true, dialect: known };
  // One name is letters, digits, `.`, `_` and `-`; anything else (`posix:cmd`, `bash,cmd`, `a b`) is a
  // malformed selector rather than an unknown name.
  if (!/^[a-z][a-z0-9._-]*$/.test(name)) return { ok: false, code: 'BLOCK_DIALECT_INVALID', selector: raw };
  return { ok: false, code: 'BLOCK_DIALECT_UNKNOWN', selector: raw };
}

/** `flag` (--dialect, or a harness payload's field) wins over `env` (AGENT_GUARD_DIALECT); both absent:
 *  posix. An empty AGENT_GUARD_DIALECT counts as absent (an unset-by-assignment variable); an empty
 *  flag is malformed. */
export function chooseDialect(flag: unknown, env: string | undefined): DialectChoice {
  const fromFlag = parseDialect(flag);
  if (fromFlag !== undefined) return fromFlag;
  if (env === undefined || env === '') return { ok: true, dialect: 'posix' };
  return parseDialect(env)!;
}
