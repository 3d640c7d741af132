// `agent-guard allow [ID] [--json]`: a human authorizes one execution of a command that was
// refused with ASK where nobody could be asked (docs/grants.md). Without an ID: the pending
// requests. With one: only at an interactive terminal (like `mode normal`), after showing the
// command and its directory and asking on the terminal.
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { EXIT } from '../exit-codes.js';
import { auditGrant, dropRequest, findRequest, grantRequest, grantStore, ID_PATTERN, listRequests, GRANT_TTL_MS } from '../grants/store.js';
import { askOnTty, visible } from '../tty.js';
import type { CommandContext } from '../context.js';

export function configureAllow(program: Command, ctx: CommandContext): void {
  program
    .command('allow')
    .description('let one command refused with ASK run once (a human at a terminal only); without an id: the pending requests')
    .argument('[id]', 'the id the refusal named')
    .option('--json', 'print the result as one JSON object')
    .action((id: string | undefined, opts: { json?: boolean }) => {
      ctx.exitCode = runAllow(id, opts, ctx);
    });
}

const age = (iso: string, now: number): string => `${Math.max(0, Math.round((now - Date.parse(iso)) / 1000))} s ago`;

export function runAllow(id: string | undefined, opts: { json?: boolean }, ctx: CommandContext, now = Date.now()): number {
  const config = loadConfig(ctx.env, ctx.cwd);
  const store = grantStore(config);
  const fail = (msg: string, status: number = EXIT.ERROR): number => {
    ctx.io.stderr(`agent-guard allow: ${msg}\n`);
    return status;
  };
  if (store === null) return fail('there is no state directory (HOME is not set), so there are no requests');
  if (id === undefined) {
    const reqs = listRequests(store, now);
    if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, requests: reqs.map((r) => ({ id: r.id, command: r.text, cwd: r.cwd, code: r.code, requested: r.requested, expires: r.expires, ...(typeof r.why === 'string' ? { why: r.why } : {}) })) }) + '\n');
    else if (reqs.length === 0) ctx.io.stdout('no pending requests\n');
    else for (const r of reqs) ctx.io.stdout(`${r.id}  ${age(r.requested, now)}  ${visible(r.code)}  in ${visible(r.cwd)}\n    ${visible(r.text).replace(/\n/g, '\n    ')}\n${typeof r.why === 'string' ? `    the agent says: ${visible(r.why)}\n` : ''}`);
    return EXIT.OK;
  }
  if (!ID_PATTERN.test(id)) return fail(`${JSON.stringify(id)} is not a request id (8 letters and digits, as the refusal printed it)`);
  // A grant is a human's decision: an agent's process has no terminal to answer from.
  if (!ctx.interactive) return fail('only a human at an interactive terminal can allow a command (run `agent-guard allow ID` yourself, in your own terminal)', EXIT.BLOCK);
  const found = findRequest(store, id, now);
  if (!found.ok) return fail(found.why === 'expired' ? `request ${id} has expired: retry the command to get a new id` : `no pending request ${id} (requests expire after 10 minutes; retry the command to get a new id)`);
  const req = found.req;
  const minutes = GRANT_TTL_MS / 60_000;
  const answer = askOnTty(
    [
      `agent-guard: ${visible(`${req.code}: ${req.explanation}`)}`,
      `  command: ${visible(req.text).replace(/\n/g, '\n           ')}`,
      `  in:      ${visible(req.cwd)}`,
      `  asked:   ${age(req.requested, now)} (${visible(`${req.entry}${req.session ? `, session ${req.session}` : ''}`)})`,
      ...(typeof req.why === 'string' ? [`  the agent says: ${visible(req.why)}`] : []),
      `Allow exactly this command, in this directory, to run once within ${minutes} minutes? [y/N] `,
    ].join('\n'),
    { timeoutMs: config.askTimeoutMs },
  );
  const record = { id: req.id, command: req.text, cwd: req.cwd, code: req.code, entry: 'allow' };
  if (answer === 'none') return fail('there is no terminal to ask on (/dev/tty)', EXIT.BLOCK);
  if (answer !== 'yes') {
    if (answer === 'no') dropRequest(store, req);
    auditGrant(config, req.workspace, { event: answer === 'no' ? 'declined' : 'unanswered', ...record });
    return fail(answer === 'no' ? 'not allowed' : 'no answer: not allowed', EXIT.BLOCK);
  }
  let g: ReturnType<typeof grantRequest>;
  try {
    g = grantRequest(store, req, now);
  } catch (err) {
    return fail(`the grant could not be written: ${err instanceof Error ? err.message : String(err)}`);
  }
  const warn = auditGrant(config, req.workspace, { event: 'granted', ...record, expires: g.expires });
  if (warn) ctx.io.stderr(`warning: the grant could not be audited: ${warn}\n`);
  if (opts.json) ctx.io.stdout(JSON.stringify({ version: 1, id: g.id, command: req.text, cwd: req.cwd, expires: g.expires }) + '\n');
  else ctx.io.stdout(`allowed once, until ${g.expires}: the agent can now retry the same command\n`);
  return EXIT.OK;
}
