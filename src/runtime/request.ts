// A runtime guard's deletion request (docs/interpreters.md, "Other runtimes"), as JSON: read by
// `agent-guard runtime-delete` from stdin and by the warm checker from a request line.
//
//   {runtime, program, api, kind, path, cwd, env?, startedAt}   (env: the caller's when absent)
import type { Env } from '../config.js';
import type { DeleteKind, DeleteRequest } from './delete.js';

const KINDS: readonly DeleteKind[] = ['rm', 'rm-r', 'unlink', 'rmdir', 'rmdir-r'];

/** The request, or a sentence saying what is wrong with it. */
export function parseDeleteRequest(text: string, env: Env): DeleteRequest | string {
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

