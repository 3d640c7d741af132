// Harness adapters (docs/harnesses.md): `agent-guard hook claude|codex|gemini|copilot` reads the
// harness's pre-tool hook payload on stdin, decides the shell command with the one engine (the
// same text check as the shell hooks: checkText), and answers in the harness's own format. Each
// adapter only parses and maps; there is no rule logic here.
//
//   decision                         claude                    codex                copilot              gemini
//   run (ALLOW, compensated SAFE,    nothing, exit 0           nothing, exit 0      nothing, exit 0      nothing, exit 0
//        left to the shims, or an
//        ASK a grant authorized)
//   ASK                              permissionDecision: ask   exit 2 + reason      permissionDecision:  decision: deny
//   BLOCK                            permissionDecision: deny  on stderr            deny                 decision: deny
//   unreadable input, no command,    exit 2 + reason on stderr                      deny on stdout,      exit 2 + reason
//   internal error                   (the status these harnesses block on)          exit 0
//   agent-guard cannot start at all  the same, from the fallback written after the hook command
//                                    (src/harness/install.ts fallbackOf)
//
// Printing nothing for a command that may run keeps the user's own permission settings in force
// (an explicit "allow" would skip them). Claude asks its user. Codex has no "ask" (0.171.0 takes it
// for a failed hook and runs the tool), and gets no JSON (its login shell's profile may print to
// stdout); Gemini and Copilot get the stricter deny (Copilot denies its own "ask" in unattended
// modes). There an ASK is a refusal whose reason names a one-time grant (`agent-guard allow <id>`,
// src/grants/); the retry of the same command then runs, compensated. Where a payload does not say
// the directory its command runs in (Codex without `workdir`, Copilot's write_*), the line is
// decided with the directory unknown: relative targets are refused, or left to the shims.
import path from 'node:path';
import { shimsFirst, type Env } from '../config.js';
import { checkText, type TextVerdict } from '../enforce/text.js';

import { copilotDeny, HARNESSES, type Harness } from './answers.js';

export { HARNESSES, type Harness };

export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** What a payload carries: the shell command (null when the tool is not the shell), its cwd. */
type Parsed =
  | { ok: true; shell: false }
  /** `dialect`: the selector the payload gives (any JSON value, validated by the engine), or undefined
   *  to leave it to AGENT_GUARD_DIALECT. `cwdUnknown`: the payload does not say where the command
   *  runs (`cwd` then only locates the workspace). */
  | { ok: true; shell: true; command: string; cwd: string | null; dialect: unknown; cwdUnknown: boolean }
  | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Copilot's tools that type `input` into a running shell session (`{shellId, input, delay?}`,
 *  1.0.102): the text is checked as a command line of that shell, whose directory is not known. */
const WRITE_TOOL: Readonly<Record<string, string>> = { write_bash: 'posix', write_powershell: 'powershell' };

/** The shell tool's name in each harness's payload. Claude Code's `Monitor` runs a shell `command` too
 *  (2.1.332; a `Bash` matcher reaches it under the name `Bash`, a `*` matcher under its own). Codex
 *  0.171.0 sends every shell tool as `Bash` (`shell`, `local_shell`: older names, kept). */
const SHELL_TOOL: Record<Harness, readonly string[]> = {
  claude: ['Bash', 'PowerShell', 'Monitor'],
  codex: ['Bash', 'shell', 'local_shell'],
  gemini: ['run_shell_command'],
  copilot: ['bash', 'shell', 'powershell', ...Object.keys(WRITE_TOOL)],
};

/** Shell tools whose name says the dialect of their text (a payload's own `dialect` field wins). */
const TOOL_DIALECT: Record<Harness, Readonly<Record<string, string>>> = {
  claude: { Bash: 'posix', PowerShell: 'powershell', Monitor: 'posix' },
  codex: {},
  gemini: {},
  copilot: { bash: 'posix', powershell: 'powershell', ...WRITE_TOOL },
};

export function parsePayload(h: Harness, raw: string): Parsed {
  let ev: unknown;
  try {
    ev = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `the hook input is not JSON (${(err as Error).message})` };
  }
  if (!isObject(ev)) return { ok: false, error: 'the hook input is not a JSON object' };
  const tool = h === 'copilot' ? ev.toolName : ev.tool_name;
  if (typeof tool !== 'string') return { ok: false, error: `the hook input has no ${h === 'copilot' ? 'toolName' : 'tool_name'}` };
  if (!SHELL_TOOL[h].includes(tool)) return { ok: true, shell: false };
  let input: unknown = ev.tool_input;
  if (h === 'copilot') {
    // toolArgs arrives as a JSON-encoded string (D4); an object is accepted as well.
    input = ev.toolArgs;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch (err) {
        return { ok: false, error: `toolArgs is not JSON (${(err as Error).message})` };
      }
    }
  }
  if (!isObject(input)) return { ok: false, error: 'the hook input has no tool arguments object' };
  const write = h === 'copilot' && Object.prototype.hasOwnProperty.call(WRITE_TOOL, tool);
  const command = write ? input.input : input.command;
  if (typeof command !== 'string') return { ok: false, error: write ? `the ${tool} call has no input string` : 'the shell tool call has no command string' };
  let cwd = typeof ev.cwd === 'string' && ev.cwd.startsWith('/') ? ev.cwd : null;
  // Where the command really runs. Gemini runs it in `path.resolve(targetDir, dir_path)` (its
  // shell.js; the payload's cwd is its working directory, the target directory unless moved). Codex
  // 0.171.0 leaves a tool's `workdir` out of the payload, so its directory is not known unless a
  // later release sends `workdir`; a Copilot write_* types into a shell whose directory is its own.
  let cwdUnknown = false;
  const sub = h === 'gemini' ? input.dir_path : h === 'codex' ? input.workdir : undefined;
  if (typeof sub === 'string' && sub !== '') {
    if (sub.startsWith('/')) cwd = sub;
    else if (cwd !== null) cwd = path.resolve(cwd, sub);
    else cwdUnknown = true;
  } else if (sub !== undefined && sub !== null && sub !== '') {
    return { ok: false, error: `the tool's ${h === 'gemini' ? 'dir_path' : 'workdir'} is not a string` };
  } else if (h === 'codex' || write) cwdUnknown = true;
  // The dialect: the payload's own field, then the tool arguments', then what the tool's name says;
  // none of them: AGENT_GUARD_DIALECT (then POSIX). A field that is present is forwarded whatever it
  // holds, so a malformed one is refused (BLOCK_DIALECT_INVALID) rather than ignored.
  const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
  const dialect = has(ev, 'dialect') ? ev.dialect : has(input, 'dialect') ? input.dialect : TOOL_DIALECT[h][tool];
  return { ok: true, shell: true, command, cwd, dialect, cwdUnknown };
}

/** What to do instead when a relative target was refused because the directory is not known. */
const UNKNOWN_CWD_NEXT = {
  codex: 'Codex does not tell its hook the directory a command runs in (a tool call\'s workdir is not in the payload): use absolute paths, or start Codex under `agent-guard run`, where the PATH shims see the real directory.',
  copilot: 'The directory of the shell this text is typed into is not known to the hook: use absolute paths, or start Copilot under `agent-guard run`, where the PATH shims see the real directory.',
} as const;

function reasonOf(h: Harness, v: Extract<TextVerdict, { action: 'refuse' }>): string {
  const where = v.unknownCwd && (h === 'codex' || h === 'copilot') ? ` ${UNKNOWN_CWD_NEXT[h]}` : '';
  const human = v.next ? ` ${v.next}` : v.decision === 'ASK' ? ' A human must authorize this one execution: ask the user to run it in their own terminal.' : '';
  return `agent-guard: ${v.decision} ${v.code}: ${v.explanation}${where}${human}`;
}

function answerRefusal(h: Harness, v: Extract<TextVerdict, { action: 'refuse' }>): HookAnswer {
  const reason = reasonOf(h, v);
  // Codex runs the hook as `$SHELL -lc <command>`: a login profile that prints to stdout corrupts a
  // JSON answer, which Codex then ignores (the tool runs). Exit 2 with the reason on stderr blocks
  // whatever stdout holds (codex-rs/hooks pre_tool_use.rs: exit 2 + non-empty stderr).
  if (h === 'codex') return { stdout: '', stderr: reason + '\n', exitCode: 2 };
  if (h === 'claude') {
    const out = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: v.decision === 'ASK' ? 'ask' : 'deny', permissionDecisionReason: reason } };
    return { stdout: JSON.stringify(out) + '\n', stderr: '', exitCode: 0 };
  }
  if (h === 'gemini') return { stdout: JSON.stringify({ decision: 'deny', reason }) + '\n', stderr: '', exitCode: 0 };
  return { stdout: JSON.stringify(copilotDeny(reason)) + '\n', stderr: '', exitCode: 0 };
}

/** A refusal when nothing could be checked. Claude, Codex and Gemini block on exit 2 with the reason on
 *  stderr. Copilot's preToolUse acts on a `deny` on stdout, not on an exit status, so it gets the deny
 *  answer (exit 0, the status its documented answers come with) and the reason on stderr as well. */
export function refuseInput(h: Harness, why: string): HookAnswer {
  const stderr = `agent-guard: refused: ${why}; nothing was checked, so the command must not run\n`;
  if (h !== 'copilot') return { stdout: '', stderr, exitCode: 2 };
  return { stdout: JSON.stringify(copilotDeny(stderr.trim())) + '\n', stderr, exitCode: 0 };
}

/** The whole adapter: payload text in, the harness's answer out. Never throws: an error is a
 *  refusal (exit 2 with the reason on stderr). */
export function runHarnessHook(h: Harness, raw: string, env: Env, cwd: string): HookAnswer {
  try {
    const p = parsePayload(h, raw);
    if (!p.ok) return refuseInput(h, p.error);
    if (!p.shell) return { stdout: '', stderr: '', exitCode: 0 };
    // With the PATH shims first on PATH (a harness started by `agent-guard run`), what they will
    // see concretely is left to them, as in the shell hooks.
    const shims = shimsFirst(env);
    // Claude asks its user itself; elsewhere an ASK is a deny that names a one-time grant.
    const ask = { tty: false, grant: h !== 'claude', entry: `hook ${h}` };
    const v = checkText({ text: p.command, cwd: p.cwd ?? cwd, shims, ...(p.dialect !== undefined ? { dialect: p.dialect } : {}), ...(p.cwdUnknown ? { cwdUnknown: true } : {}) }, env, { tamper: true, ask });
    if (v.action === 'run') return { stdout: '', stderr: '', exitCode: 0 };
    return answerRefusal(h, v);
  } catch (err) {
    return refuseInput(h, `agent-guard failed while checking (${err instanceof Error ? err.message : String(err)})`);
  }
}
