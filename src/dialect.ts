// The dialect selector: an unusable selector is a BLOCK, never a silent POSIX fallback.
import type { ReasonCode } from './policy/reasons.js';

export type Dialect = 'posix' | 'cmd' | 'powershell';
const KNOWN: readonly Dialect[] = ['posix', 'cmd', 'powershell'];

export type DialectChoice = { ok: true; dialect: Dialect } | { ok: false; code: ReasonCode; selector: string };

/** `flag` (--dialect) wins over `env` (AGENT_GUARD_DIALECT); both absent or empty: posix. */
export function chooseDialect(flag: string | undefined, env: string | undefined): DialectChoice {
  const raw = flag ?? (env === '' ? undefined : env);
  if (raw === undefined) return { ok: true, dialect: 'posix' };
  const name = raw.toLowerCase();
  if (!/^[a-z][a-z0-9_-]*$/.test(name)) return { ok: false, code: 'BLOCK_DIALECT_INVALID', selector: raw };
  if (!(KNOWN as readonly string[]).includes(name)) return { ok: false, code: 'BLOCK_DIALECT_UNKNOWN', selector: raw };
  return { ok: true, dialect: name as Dialect };
}
