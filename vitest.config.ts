import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  // package.json's version, as scripts/build.mjs compiles it into the bundle (src/version.ts).
  define: { AG_VERSION: JSON.stringify(version) },
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Fixture workspaces and spawned CLIs are per file; files run in parallel on two cores.
    pool: 'forks',
  },
});
