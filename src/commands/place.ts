// The prelude the recovery commands share: configuration, the workspace and its quarantine.
import { loadConfig, type Config } from '../config.js';
import { discoverWorkspace, type Workspace } from '../probe/index.js';
import type { QuarantinePlace } from '../recovery/quarantine.js';
import type { CommandContext } from '../context.js';

export function workspaceOf(ctx: CommandContext, overrides: Partial<Config> = {}): { config: Config; ws: Workspace; place: QuarantinePlace } {
  const config = { ...loadConfig(ctx.env, ctx.cwd), ...overrides };
  const ws = discoverWorkspace(config);
  for (const w of ws.warnings) ctx.io.stderr(`warning: ${w}\n`);
  return { config, ws, place: { root: ws.root, quarantine: ws.quarantine } };
}
