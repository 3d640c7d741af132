// `agent-guard runtime-delete`: runtimeDelete through a process, for a runtime guard that is not
// Node (docs/interpreters.md, "Other runtimes"). One JSON request on stdin, one JSON verdict line on
// stdout; the caller carries the verdict out. No commander: a runtime guard pays for it per decision.
//
//   request  {runtime, program, api, kind, path, cwd, env?, startedAt}   (env: this process's when absent)
//   verdict  {"action":"real",...} | {"action":"done",...} | {"action":"refuse",...}
//
// Exit 0 with a verdict (whatever it is), 1 for a request that cannot be read (no verdict: refuse).
import fs from 'node:fs';
import type { Env } from '../config.js';
import type { IO } from '../cli.js';
import { runtimeDelete } from '../runtime/delete.js';
import { parseDeleteRequest } from '../runtime/request.js';
import { ensureChecker } from '../checker/start.js';
import { CHECKER_ENV } from '../checker/place.js';
import { runningBundle } from '../layout.js';

export function runRuntimeDeleteCommand(argv: readonly string[], env: Env, io: IO): number {
  if (argv.length > 0) {
    io.stderr('agent-guard runtime-delete: usage: agent-guard runtime-delete < request.json (docs/interpreters.md)\n');
    return 1;
  }
  let text: string;
  try {
    text = fs.readFileSync(0, 'utf8');
  } catch (err) {
    io.stderr(`agent-guard runtime-delete: cannot read the request on stdin (${(err as Error).message})\n`);
    return 1;
  }
  const req = parseDeleteRequest(text, env);
  if (typeof req === 'string') {
    io.stderr(`agent-guard runtime-delete: ${req}\n`);
    return 1;
  }
  io.stdout(JSON.stringify(runtimeDelete(req, io.stderr)) + '\n');
  // The runtime's next decisions go to the session's warm checker (started in the background, as
  // a cold shim call starts it).
  if (req.env[CHECKER_ENV.dir]) ensureChecker(req.env, process.execPath, runningBundle());
  return 0;
}
