// Bundles the CLI into one CommonJS file: every destructive command pays one Node start, and one
// file (no module graph to resolve) is the cheapest form measured (docs/performance.md).
// The MCP server (`agent-guard mcp`, docs/mcp.md) is a second bundle beside it, so the CLI's
// start-up never loads the MCP SDK.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const entries = [
  { entry: 'src/bin.ts', outfile: 'dist/agent-guard.cjs', banner: '#!/usr/bin/env node', mode: 0o755 },
  { entry: 'src/mcp/entry.ts', outfile: 'dist/agent-guard-mcp.cjs', banner: '', mode: 0o644 },
];
for (const e of entries) {
  await build({
    entryPoints: [e.entry],
    outfile: e.outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    ...(e.banner ? { banner: { js: e.banner } } : {}),
    logLevel: 'warning',
  });
  chmodSync(e.outfile, e.mode);
}
