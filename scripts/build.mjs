// Bundles the CLI into one CommonJS file: every destructive command pays one Node start, and one
// file (no module graph to resolve) is the cheapest form measured (docs/performance.md). Beside it,
// the Node preload (dist/agent-guard-preload.cjs, docs/interpreters.md): every Node program under the
// guard loads it, so it is its own small file; it loads the bundle only when a deletion needs a decision.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const outfile = 'dist/agent-guard.cjs';
await build({
  entryPoints: ['src/bin.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);

await build({
  entryPoints: ['src/runtime/node-preload.ts'],
  outfile: 'dist/agent-guard-preload.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // NODE_OPTIONS reaches every Node on PATH, not only the one agent-guard runs on: an older one must
  // still parse it (it falls back to require where getBuiltinModule is missing).
  target: 'node14',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
