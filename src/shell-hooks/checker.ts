// The checker side of the bash/zsh hooks (shell/guard.bash, shell/guard.zsh; docs/shell-hooks.md):
// `agent-guard hook-shell --shell bash|zsh [--interactive] [--shims] --cwd DIR -- TEXT`, called by
// the DEBUG trap with the command text before it runs (unexpanded). Exit 0: let it run (any
// compensation is done); 2: BLOCK; 3: ASK not authorized (with --interactive the human at /dev/tty
// is asked first; a one-time grant authorizes it too: src/grants/settle.ts); the reason goes to
// stderr. Any other status is treated as a refusal by the hooks (fail closed). The check itself is
// the text check every text entry point shares (src/enforce/text.ts); with --shims it defers what
// the PATH shims will see with its concrete argv.
import path from 'node:path';
import type { Env } from '../config.js';
import { checkText } from '../enforce/text.js';
import { EXIT } from '../exit-codes.js';
import { keptBy, notice } from '../notice.js';
import { keepRedirected } from '../overwrite/hook.js';

export interface HookInput {
  shell: 'bash' | 'zsh';
  interactive: boolean;
  shims: boolean;
  cwd: string;
  text: string;
  /** Files the text's redirections would truncate (absolute; the hook found them non-empty). */
  overwrites?: readonly string[];
  /** Only keep those: the text itself passed the hook's filter. */
  overwriteOnly?: boolean;
}

export interface HookContext {
  env: Env;
  io: { stderr(s: string): void };
}

function say(ctx: HookContext, r: { decision: string; code: string; explanation: string; next?: string }, text: string): number {
  ctx.io.stderr(`agent-guard: refused: ${r.decision} ${r.code}: ${r.explanation}\n  command: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}\n`);
  if (r.next) ctx.io.stderr(`agent-guard: ${r.next}\n`);
  else if (r.decision === 'ASK') ctx.io.stderr('agent-guard: this needs a human: ask the user to run it in their own terminal.\n');
  return r.decision === 'ASK' ? EXIT.ASK : EXIT.BLOCK;
}

/** Reads `hook-shell`'s arguments (`--shell bash|zsh [--interactive] [--shims] [--overwrite PATH]...
 *  [--overwrite-only] --cwd DIR -- TEXT`, DIR relative to `cwd`); a string saying what is wrong. The
 *  cold command and the warm checker (src/checker/hook-request.ts) read them the same way. */
export function parseHookArgs(argv: readonly string[], cwd: string): HookInput | string {
  let shell: string | undefined;
  let interactive = false;
  let shims = false;
  let dir = cwd;
  let text: string | undefined;
  const overwrites: string[] = [];
  let overwriteOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      text = argv.slice(i + 1).join(' ');
      break;
    }
    if (a === '--shell') shell = argv[++i];
    else if (a === '--cwd') dir = path.resolve(cwd, argv[++i] ?? '.');
    else if (a === '--interactive') interactive = true;
    else if (a === '--shims') shims = true;
    else if (a === '--overwrite' && i + 1 < argv.length) overwrites.push(argv[++i]!);
    else if (a === '--overwrite-only') overwriteOnly = true;
    else return `unknown argument ${JSON.stringify(a)}`;
  }
  if ((shell !== 'bash' && shell !== 'zsh') || text === undefined) return 'usage: agent-guard hook-shell --shell bash|zsh [--interactive] [--shims] --cwd DIR -- TEXT';
  return { shell, interactive, shims, cwd: dir, text, overwrites, overwriteOnly };
}

export function hookShell(input: HookInput, ctx: HookContext): number {
  // Redirections first: what they would truncate is kept before the command runs.
  if (input.overwrites && input.overwrites.length > 0) {
    const refused = keepRedirected({ shell: input.shell, cwd: input.cwd, text: input.text, overwrites: input.overwrites }, ctx.env, ctx.io.stderr);
    if (refused) return say(ctx, refused, input.text);
    if (input.overwriteOnly) return EXIT.OK;
  }
  // The shells' own text: POSIX whatever AGENT_GUARD_DIALECT says (it selects the dialect of text a
  // harness or `check` is given).
  const v = checkText({ text: input.text, cwd: input.cwd, shims: input.shims, dialect: 'posix', hooked: true }, ctx.env, { tamper: true, ask: { tty: input.interactive, grant: true, entry: 'hook-shell' } });
  if (v.action === 'run') {
    if (v.r && !v.deferred) notice(ctx.env, input.cwd, keptBy(v.r), ctx.io.stderr);
    return EXIT.OK;
  }
  return say(ctx, v, input.text);
}
