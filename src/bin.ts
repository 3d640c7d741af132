// The bundled entry (dist/agent-guard.cjs): the only place that exits the process.
import { main } from './cli.js';

let code: number;
try {
  code = main(process.argv.slice(2), process.env, { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) }, process.cwd());
} catch (err) {
  process.stderr.write(`agent-guard: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  code = 1;
}
process.exitCode = code;
