// Wiring agent-guard's hook into an agent harness's settings file (issue 5). Pure file operations:
// no CLI, no process state beyond the paths in the context. The contract, per harness, is in
// docs/harness-install.md; the hook shapes come from the design notes (shell-mechanics.md, section D).
//
// Rules: the existing file is parsed as JSON and refused (nothing written) when it is not a JSON
// object; every other key and hook entry is kept in order; our entry is recognised by its command
// (contains "agent-guard", ends with " hook <harness>"), so a re-install with another binary path
// replaces it; nothing is written when nothing changes; before a write the old file is copied to
// `<file>.agent-guard.bak` and the new content goes in atomically (tmp + rename, same mode).
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { copilotDeny, HARNESSES, type Harness } from './answers.js';
import { jsonText, parseJsonObject, readJsonObject, readText, writeText } from './files.js';

export { HARNESSES, type Harness };
export type Scope = 'user' | 'project';
export interface InstallContext {
  home: string;
  projectDir: string;
  /** The absolute hook command to register, e.g. "/usr/local/agent-guard/bin/agent-guard hook claude". */
  command: string;
  /** The variables that move a harness's user directory: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME,
   *  COPILOT_HOME (userDir). Absent: none is set. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Write Claude Code's per-hook `onFailure: "block"` (a timeout or a crash of the hook blocks the
   *  tool): only for a Claude Code known to read it (src/harness/versions.ts). */
  claudeOnFailure?: boolean;
}
export interface InstallResult {
  file: string;
  changed: boolean;
  backup: string | null;
}

export { BACKUP_SUFFIX } from './files.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** How a harness lays out its hooks: grouped ({matcher, hooks: [...]}) or flat (Copilot). */
interface Layout {
  event: string;
  /** For grouped layouts: the tool matcher of our group. Flat layouts have none. */
  matcher: string | null;
  /** The key in a hook entry that holds the command line. */
  commandKey: string;
  entry(command: string, ctx: InstallContext): Obj;
  /** Keys of our entry that are written only in some installs: dropped from an existing entry of ours
   *  when this install does not write them. */
  optional?: readonly string[];
}

const LAYOUTS: Record<Harness, Layout> = {
  claude: {
    event: 'PreToolUse',
    matcher: 'Bash',
    commandKey: 'command',
    entry: (command, ctx) => ({ type: 'command', command, timeout: 30, ...(ctx.claudeOnFailure ? { onFailure: 'block' } : {}) }),
    optional: ['onFailure'],
  },
  codex: {
    event: 'PreToolUse',
    matcher: 'Bash',
    commandKey: 'command',
    entry: (command) => ({ type: 'command', command, timeout: 30 }),
  },
  gemini: {
    event: 'BeforeTool',
    matcher: 'run_shell_command',
    commandKey: 'command',
    entry: (command) => ({ type: 'command', command, name: 'agent-guard', timeout: 30000 }),
  },
  copilot: {
    event: 'preToolUse',
    matcher: null,
    commandKey: 'bash',
    entry: (command) => ({ type: 'command', bash: command, timeoutSec: 30 }),
  },
};

/** A harness's own user directory, as the harness itself finds it: CLAUDE_CONFIG_DIR (Claude Code),
 *  CODEX_HOME (Codex), COPILOT_HOME (Copilot CLI: its `resolveCopilotHome`), else `~/.claude`,
 *  `~/.codex`, `~/.copilot`; Gemini CLI: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. A relative
 *  value is taken from the project directory (the directory the harness is started in). */
export function userDir(h: Harness, ctx: Pick<InstallContext, 'home' | 'projectDir' | 'env'>): string {
  const v = (name: string): string | null => {
    const value = ctx.env?.[name];
    return value ? resolve(ctx.projectDir, value) : null;
  };
  switch (h) {
    case 'claude':
      return v('CLAUDE_CONFIG_DIR') ?? join(ctx.home, '.claude');
    case 'codex':
      return v('CODEX_HOME') ?? join(ctx.home, '.codex');
    case 'gemini':
      return join(v('GEMINI_CLI_HOME') ?? ctx.home, '.gemini');
    case 'copilot':
      return v('COPILOT_HOME') ?? join(ctx.home, '.copilot');
  }
}

export function settingsPath(h: Harness, scope: Scope, ctx: InstallContext): string {
  if (scope === 'user') {
    const dir = userDir(h, ctx);
    switch (h) {
      case 'claude':
      case 'gemini':
        return join(dir, 'settings.json');
      case 'codex':
        return join(dir, 'hooks.json');
      case 'copilot':
        // Personal hooks: every *.json in <COPILOT_HOME>/hooks (0.0.422; `userHooksDir` in 1.0.102).
        return join(dir, 'hooks', 'agent-guard.json');
    }
  }
  const base = ctx.projectDir;
  switch (h) {
    case 'claude':
      return join(base, '.claude', 'settings.json');
    case 'codex':
      return join(base, '.codex', 'hooks.json');
    case 'gemini':
      return join(base, '.gemini', 'settings.json');
    case 'copilot':
      return join(base, '.github', 'hooks', 'agent-guard.json');
  }
}

/** The text after `<runner> hook <h>` in the registered command: what runs when agent-guard itself could
 *  not (Node missing, a broken installation, a crash before our code runs). The harnesses let a tool
 *  call through on any status but a block, so the fallback turns every failure into that block:
 *  exit 2 with a reason on stderr for Claude, Codex and Gemini; for Copilot, whose preToolUse acts on a
 *  `deny` on stdout (not on an exit status), the deny answer itself (both shapes, as the adapter does). */
export function fallbackOf(h: Harness): string {
  const why = 'agent-guard: the hook could not run (status $s), so nothing was checked: refused';
  // Status 2 is the hook's own refusal (its reason is already on stderr): passed on as it is.
  if (h !== 'copilot') return ` || { s=$?; [ "$s" = 2 ] || echo "${why}" >&2; exit 2; }`;
  // Copilot: the hook answers every refusal with a deny on stdout and status 0, so any other status
  // means it did not answer.
  const reason = 'agent-guard: the hook could not run, so nothing was checked: refused';
  const deny = JSON.stringify(copilotDeny(reason));
  return ` || { s=$?; echo "${why}" >&2; echo '${deny}'; exit 0; }`;
}

/** The command line written into the settings file for `command` (`<runner> hook <h>`). Codex runs
 *  it as `$SHELL -lc <command>` (codex-rs/hooks command_runner.rs): under fish the fallback's
 *  `|| { …; }` does not parse (fish then exits 0: nothing checked), so for Codex the whole line is
 *  handed to `sh -c '…'`, which every login shell passes on as it is. The quoting uses only `'…'`
 *  and `'\''`, which bash, zsh, dash and fish read alike; a backslash would not be (fish unescapes
 *  `\\` inside single quotes), so a command holding one is refused. */
export function registeredCommand(h: Harness, command: string): string {
  const line = command.trim() + fallbackOf(h);
  if (h !== 'codex') return line;
  if (line.includes('\\')) throw new Error(`agent-guard: the hook command holds a backslash, which Codex's login shell would not pass on unchanged: ${command}`);
  return `sh -c '${line.replace(/'/g, `'\\''`)}'`;
}

/** Whether a command line is an agent-guard hook for harness `h` (any install prefix; with or without
 *  the fallback, which installs before it was added did not write). */
export function isOurCommand(h: Harness, command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const c = command.trim();
  if (!c.includes('agent-guard')) return false;
  return c.endsWith(` hook ${h}`) || c.includes(` hook ${h} || `);
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The event array, checking the shapes on the way; undefined when absent. */
function eventArray(file: string, settings: Obj, layout: Layout): Json[] | undefined {
  const hooks = settings['hooks'];
  if (hooks === undefined) return undefined;
  if (!isObj(hooks)) throw new Error(`agent-guard: "hooks" in ${file} is not an object; nothing changed`);
  const arr = hooks[layout.event];
  if (arr === undefined) return undefined;
  if (!Array.isArray(arr)) {
    throw new Error(`agent-guard: "hooks.${layout.event}" in ${file} is not an array; nothing changed`);
  }
  return arr;
}

/** Removes every entry of ours; groups left empty by that are dropped. Returns the new array. */
function withoutOurs(h: Harness, layout: Layout, arr: Json[]): Json[] {
  const out: Json[] = [];
  for (const item of arr) {
    if (layout.matcher === null) {
      if (isObj(item) && isOurCommand(h, item[layout.commandKey])) continue;
      out.push(item);
      continue;
    }
    if (!isObj(item) || !Array.isArray(item['hooks'])) {
      out.push(item);
      continue;
    }
    const inner = item['hooks'];
    const kept = inner.filter((e) => !(isObj(e) && isOurCommand(h, e[layout.commandKey])));
    if (kept.length === inner.length) out.push(item);
    else if (kept.length > 0) out.push({ ...item, hooks: kept });
    // a group holding nothing but ours goes away with it
  }
  return out;
}

/** Does a group's matcher select the shell tool? The harnesses read a matcher as a regular expression
 *  over the tool name (`*` or empty: every tool), so a group a user widened (`Bash|PowerShell`) still
 *  holds our entry in place. */
function covers(matcher: Json | undefined, tool: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (typeof matcher !== 'string') return false;
  if (matcher === tool) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return false;
  }
}

/** Our entry in place of the first one found (in a group whose matcher selects the shell tool); others
 *  removed. */
/** An existing entry of ours updated to `desired`: extra keys a user added stay, our optional keys
 *  this install does not write go. */
function updated(layout: Layout, old: Obj, desired: Obj): Obj {
  const out: Obj = { ...old, ...desired };
  for (const k of layout.optional ?? []) if (!(k in desired)) delete out[k];
  return out;
}

function withOurs(h: Harness, layout: Layout, arr: Json[], ctx: InstallContext): Json[] {
  const desired = layout.entry(registeredCommand(h, ctx.command), ctx);
  if (layout.matcher === null) {
    const at = arr.findIndex((e) => isObj(e) && isOurCommand(h, e[layout.commandKey]));
    if (at < 0) return [...withoutOurs(h, layout, arr), desired];
    const out = withoutOurs(h, layout, arr.slice(0, at));
    out.push(updated(layout, arr[at] as Obj, desired));
    return out.concat(withoutOurs(h, layout, arr.slice(at + 1)));
  }
  const tool = layout.matcher;
  const gi = arr.findIndex(
    (g) =>
      isObj(g) &&
      covers(g['matcher'], tool) &&
      Array.isArray(g['hooks']) &&
      g['hooks'].some((e) => isObj(e) && isOurCommand(h, e[layout.commandKey])),
  );
  if (gi < 0) return [...withoutOurs(h, layout, arr), { matcher: layout.matcher, hooks: [desired] }];
  const group = arr[gi] as Obj;
  const inner = group['hooks'] as Json[];
  const ei = inner.findIndex((e) => isObj(e) && isOurCommand(h, e[layout.commandKey]));
  const newInner = inner.filter((e, i) => i === ei || !(isObj(e) && isOurCommand(h, e[layout.commandKey])));
  const at = newInner.indexOf(inner[ei] as Json);
  newInner[at] = updated(layout, inner[ei] as Obj, desired);
  return [
    ...withoutOurs(h, layout, arr.slice(0, gi)),
    { ...group, hooks: newInner },
    ...withoutOurs(h, layout, arr.slice(gi + 1)),
  ];
}

function apply(h: Harness, scope: Scope, ctx: InstallContext, install: boolean): InstallResult {
  const file = settingsPath(h, scope, ctx);
  const layout = LAYOUTS[h];
  if (install && !(isOurCommand(h, ctx.command) && ctx.command.trim().endsWith(` hook ${h}`))) {
    throw new Error(`agent-guard: hook command must contain "agent-guard" and end with " hook ${h}": ${ctx.command}`);
  }
  const text = readText(file);
  const current: Obj | null = text === null ? null : (parseJsonObject(file, text) as Obj);
  if (current === null && !install) return { file, changed: false, backup: null };
  const settings: Obj = current ?? (h === 'copilot' ? { version: 1 } : {});
  const arr = eventArray(file, settings, layout);
  if (!install && arr === undefined) return { file, changed: false, backup: null };

  const next = install ? withOurs(h, layout, arr ?? [], ctx) : withoutOurs(h, layout, arr ?? []);
  if (arr !== undefined && isDeepStrictEqual(arr, next)) return { file, changed: false, backup: null };

  const hooks: Obj = isObj(settings['hooks']) ? { ...settings['hooks'] } : {};
  if (next.length > 0) hooks[layout.event] = next;
  else delete hooks[layout.event];
  const updated: Obj = { ...settings, hooks };
  if (h === 'copilot' && updated['version'] === undefined) updated['version'] = 1;
  return writeText(file, jsonText(updated), text);
}

/** Merges our hook into the harness's settings file (created if missing). */
export function installHook(h: Harness, scope: Scope, ctx: InstallContext): InstallResult {
  return apply(h, scope, ctx, true);
}

/** Takes our hook out again; an event array left empty is removed, everything else stays. */
export function removeHook(h: Harness, scope: Scope, ctx: InstallContext): InstallResult {
  return apply(h, scope, ctx, false);
}

/** One entry of ours in a settings file: its position (group and index in the group; for Copilot's
 *  flat layout the group is its index and index 0), its group's matcher and the entry itself. */
export interface OurEntry {
  group: number;
  index: number;
  matcher: Json | undefined;
  entry: { [k: string]: Json };
}

export interface Wired {
  harness: Harness;
  scope: Scope;
  file: string;
  entries: OurEntry[];
}

/** Where an agent-guard hook is installed (any command prefix). Unreadable files are skipped. */
export function wiredHarnesses(ctx: InstallContext): Wired[] {
  const found: Wired[] = [];
  const seen = new Set<string>();
  for (const harness of HARNESSES) {
    for (const scope of ['user', 'project'] as const) {
      const file = settingsPath(harness, scope, ctx);
      if (seen.has(file)) continue;
      seen.add(file);
      let arr: Json[] | undefined;
      try {
        const settings = readJsonObject(file) as Obj | null;
        if (settings === null) continue;
        arr = eventArray(file, settings, LAYOUTS[harness]);
      } catch {
        continue;
      }
      if (arr === undefined) continue;
      const entries = oursIn(harness, LAYOUTS[harness], arr);
      if (entries.length > 0) found.push({ harness, scope, file, entries });
    }
  }
  return found;
}

function oursIn(h: Harness, layout: Layout, arr: Json[]): OurEntry[] {
  const out: OurEntry[] = [];
  arr.forEach((item, group) => {
    if (!isObj(item)) return;
    if (layout.matcher === null) {
      if (isOurCommand(h, item[layout.commandKey])) out.push({ group, index: 0, matcher: undefined, entry: item });
      return;
    }
    if (!covers(item['matcher'], layout.matcher)) return;
    const inner = item['hooks'];
    if (!Array.isArray(inner)) return;
    inner.forEach((e, index) => {
      if (isObj(e) && isOurCommand(h, e[layout.commandKey])) out.push({ group, index, matcher: item['matcher'], entry: e });
    });
  });
  return out;
}
