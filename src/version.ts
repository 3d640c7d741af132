// The version of this agent-guard: package.json's, compiled into the bundle by scripts/build.mjs
// (AG_VERSION) and defined the same way for the tests (vitest.config.ts). `agent-guard --version`
// prints it.
declare const AG_VERSION: string | undefined;

export const VERSION: string = typeof AG_VERSION === 'string' ? AG_VERSION : '0.0.0-dev';
