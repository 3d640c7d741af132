// The bash/zsh hooks' requests to the warm checker (shell/hook-client.sh; docs/shell-hooks.md): a
// text the hook sends to the checker (a program by its path, a PATH prefix, a redirection over a
// file that holds data, …) is decided here with `hook-shell`'s own code, as
// `agent-guard hook-shell` would in a Node of its own, with the client's argv, environment and
// working directory read from /proc. The request is a shim request whose name is `hook-shell`
// (protocol.ts); the client is `/bin/sh …/hook-client.sh <hook-shell arguments>`.
import type { Env } from '../config.js';
import { hookShell, parseHookArgs } from '../shell-hooks/checker.js';
import { CHECKER_ENV } from './place.js';
import { readClient } from './proc.js';
import type { Output } from './protocol.js';

/** The name a hook request carries in place of a shim's. */
export const HOOK_REQUEST = 'hook-shell';
/** The client script's file name, which the request's command line must show before its arguments. */
export const HOOK_CLIENT = 'hook-client.sh';

/** Decides one hook request: the output and the exit status, or a string saying why the client
 *  must take the cold path (nothing was done). An interactive shell's request is cold: a question
 *  for the human at its terminal is asked from the shell's own process. */
export function serveHook(pid: number, argc: number, uid: number): { out: Output[]; code: number } | string {
  const client = readClient(pid, argc, HOOK_CLIENT, uid);
  if (typeof client === 'string') return client;
  if (client.lossy) return 'an argument is not valid UTF-8';
  // `hook-client.sh hook-shell --shell … -- TEXT`: the cold command's own argv.
  if (client.args[0] !== HOOK_REQUEST) return 'not a hook-shell command line';
  const input = parseHookArgs(client.args.slice(1), client.cwd);
  if (typeof input === 'string') return input;
  if (input.interactive) return 'interactive: the question is asked at the terminal';
  const out: Output[] = [];
  // The probes' own children (git hooks, fsmonitor) must not wait for this busy server.
  const env: Env = { ...client.env, [CHECKER_ENV.dir]: '' };
  const code = hookShell(input, { env, io: { stderr: (t) => out.push({ fd: 2, text: t }) } });
  return { out, code };
}
