import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

// Two projects (docs/testing.md):
// - `sandbox`: every test file that uses the read-only sandbox (imports tests/helpers/sandbox.ts):
//   it runs destructive commands, spawned CLIs and shells; one forked process per file.
// - `unit`: everything else (pure, in-process, or read-only spawns): worker threads, the fast loop
//   (`npm run test:unit`).
// Which is which is read from the files themselves, so a new test lands in the right project.
const TESTS = path.join(import.meta.dirname, 'tests');
const USES_SANDBOX = /from '(?:\.\.?\/)+(?:helpers\/)?sandbox\.js'/;
const testFiles = fs
  .readdirSync(TESTS, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts') && !f.split(path.sep).includes('node_modules'))
  .map((f) => `tests/${f.split(path.sep).join('/')}`)
  .sort();
const sandboxFiles = testFiles.filter((f) => USES_SANDBOX.test(fs.readFileSync(path.join(import.meta.dirname, f), 'utf8')));

export default defineConfig({
  // package.json's version, as scripts/build.mjs compiles it into the bundle (src/version.ts).
  define: { AG_VERSION: JSON.stringify(version) },
  test: {
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Both cores (and more where there are more): most of a sandbox test's time is spent waiting
    // for the processes it starts, so one file per core leaves a core idle (vitest's default is
    // one worker fewer than the cores: one, on a 2-core machine).
    maxWorkers: Math.max(2, os.availableParallelism()),
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['tests/**/*.test.ts'], exclude: ['**/node_modules/**', ...sandboxFiles], pool: 'threads' },
      },
      {
        extends: true,
        test: { name: 'sandbox', include: sandboxFiles, pool: 'forks' },
      },
    ],
  },
});
