// Runs the built, bundled CLI (dist/agent-guard.cjs) as a user would: a real process, a temp HOME.
import { execaSync } from 'execa';
import path from 'node:path';

export const BIN = path.resolve(import.meta.dirname, '../../dist/agent-guard.cjs');

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { cwd: string; env: Record<string, string | undefined> }): CliRun {
  const r = execaSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: opts.env, extendEnv: false, reject: false, stdin: 'ignore' });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}
