// Drives Gemini CLI's own hook pipeline (the pinned @google/gemini-cli-core): the real HookSystem
// (registry, planner, runner, aggregator) and the scheduler's before-tool evaluation
// (`evaluateBeforeToolHook`, what scheduler.js calls before a tool runs), against the hooks of a
// settings.json. Only the Config object is a stand-in, holding what these classes read from it.
//
//   node drive.mjs CASES.json   → one line `RESULT <json>` per case on stdout (Gemini's debug log
//                                  may print other lines)
//
// CASES.json: { settings: <path of settings.json>, cwd, trusted, cases: [{ name, tool, args }] }.
// A case's result: { name, status: 'continue' | 'error', errorType?, message?, decision? }.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const core = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules', '@google', 'gemini-cli-core', 'dist', 'src');
const { HookSystem } = await import(path.join(core, 'hooks', 'hookSystem.js'));
const { evaluateBeforeToolHook } = await import(path.join(core, 'scheduler', 'hook-utils.js'));

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const settings = JSON.parse(fs.readFileSync(spec.settings, 'utf8'));

/** The Config a Gemini session would pass (config.ts): the hooks of the merged settings, the folder's
 *  trust, the working directory the payload's `cwd` comes from. */
const config = {
  getHooks: () => settings.hooks,
  getProjectHooks: () => settings.hooks,
  getDisabledHooks: () => settings.hooksConfig?.disabled ?? [],
  getExtensions: () => [],
  isTrustedFolder: () => spec.trusted,
  getProjectRoot: () => spec.cwd,
  getTargetDir: () => spec.cwd,
  getWorkingDir: () => spec.cwd,
  getSessionId: () => 'agent-guard-test-session',
  getMcpClientManager: () => undefined,
  getMcpServers: () => ({}),
  getHookSystem: () => hooks,
  sanitizationConfig: { enableEnvironmentVariableRedaction: false },
  getUsageStatisticsEnabled: () => false,
  storage: { getPlansDir: () => path.join(spec.cwd, '.gemini', 'plans') },
  geminiClient: undefined,
};
config.config = config;
const hooks = new HookSystem(config);
await hooks.initialize();

for (const c of spec.cases) {
  const request = { callId: c.name, name: c.tool, args: c.args, isClientInitiated: false, prompt_id: 'p' };
  const invocation = { params: c.args };
  const tool = { name: c.tool, build: () => invocation };
  let out;
  try {
    const r = await evaluateBeforeToolHook(config, tool, request, invocation);
    out = { name: c.name, status: r.status, ...(r.errorType ? { errorType: r.errorType } : {}), ...(r.error ? { message: r.error.message } : {}), ...(r.hookDecision ? { decision: r.hookDecision } : {}) };
  } catch (err) {
    out = { name: c.name, status: 'threw', message: String(err) };
  }
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}
process.exit(0);
