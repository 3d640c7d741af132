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
import { runtimeDelete, type DeleteKind, type DeleteRequest } from '../runtime/delete.js';

const KINDS: readonly DeleteKind[] = ['rm', 'rm-r', 'unlink', 'rmdir', 'rmdir-r'];

/** The request, or a sentence saying what is wrong with it. */
export function parseRequest(text: string, env: Env): DeleteRequest | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return `the request is not JSON (${(err as Error).message})`;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'the request must be a JSON object';
  const r = raw as Record<string, unknown>;
  for (const k of ['runtime', 'program', 'api', 'path', 'cwd'] as const) {
    if (typeof r[k] !== 'string' || r[k] === '') return `${k} must be a non-empty string`;
  }
  if (!(r.cwd as string).startsWith('/')) return 'cwd must be absolute';
  if (!KINDS.includes(r.kind as DeleteKind)) return `kind must be one of ${KINDS.join(', ')}`;
  if (r.startedAt !== null && (typeof r.startedAt !== 'number' || !Number.isFinite(r.startedAt))) return 'startedAt must be a number (ms since the epoch) or null';
  let reqEnv: Env = env;
  if (r.env !== undefined) {
    if (r.env === null || typeof r.env !== 'object' || Array.isArray(r.env) || Object.values(r.env).some((v) => typeof v !== 'string')) return 'env must be an object of strings';
    reqEnv = r.env as Env;
  }
  return {
    runtime: r.runtime as string,
    program: r.program as string,
    api: r.api as string,
    kind: r.kind as DeleteKind,
    path: r.path as string,
    cwd: r.cwd as string,
    env: reqEnv,
    startedAt: (r.startedAt as number | null | undefined) ?? null,
  };
}

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
  const req = parseRequest(text, env);
  if (typeof req === 'string') {
    io.stderr(`agent-guard runtime-delete: ${req}\n`);
    return 1;
  }
  io.stdout(JSON.stringify(runtimeDelete(req, io.stderr)) + '\n');
  return 0;
}
