// Typed errors: a GuardError carries a code the CLI can print and tests can assert.

export type GuardErrorCode = 'USAGE' | 'BAD_CWD' | 'INTERNAL';

export class GuardError extends Error {
  readonly code: GuardErrorCode;
  readonly isGuardError = true;
  constructor(code: GuardErrorCode, message: string) {
    super(message);
    this.name = 'GuardError';
    this.code = code;
  }
}

export function isGuardError(e: unknown): e is GuardError {
  return typeof e === 'object' && e !== null && (e as { isGuardError?: unknown }).isGuardError === true;
}
