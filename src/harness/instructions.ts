// agent-guard's block in the instruction file a harness reads (`hook install <harness>
// --instructions`, docs/mcp.md): a few lines between two HTML comment markers, which Markdown does
// not show. Installed at the end of the file (or replaced where it is), removed with the blank line
// the install put before it; everything outside the markers stays byte for byte. The file contract
// is files.ts's.
//
//   claude   <project>/CLAUDE.md                       ~/.claude/CLAUDE.md ($CLAUDE_CONFIG_DIR)
//   codex    <project>/AGENTS.md                       $CODEX_HOME/AGENTS.md (~/.codex)
//   gemini   <project>/GEMINI.md                       ~/.gemini/GEMINI.md
//   copilot  <project>/.github/copilot-instructions.md $COPILOT_HOME/copilot-instructions.md (~/.copilot)
import path from 'node:path';
import type { Harness } from './answers.js';
import { readText, writeText, type FileChange } from './files.js';
import { envDir, type PartsContext, type Scope } from './mcp-config.js';
import { BEGIN_MARK, END_MARK, instructionsBlock } from '../mcp/text.js';

export function instructionsPath(h: Harness, scope: Scope, ctx: PartsContext): string {
  const user = scope === 'user';
  switch (h) {
    case 'claude':
      return user ? path.join(envDir(ctx.env, 'CLAUDE_CONFIG_DIR', path.join(ctx.home, '.claude')), 'CLAUDE.md') : path.join(ctx.projectDir, 'CLAUDE.md');
    case 'codex':
      return user ? path.join(envDir(ctx.env, 'CODEX_HOME', path.join(ctx.home, '.codex')), 'AGENTS.md') : path.join(ctx.projectDir, 'AGENTS.md');
    case 'gemini':
      return user ? path.join(ctx.home, '.gemini', 'GEMINI.md') : path.join(ctx.projectDir, 'GEMINI.md');
    case 'copilot':
      return user ? path.join(envDir(ctx.env, 'COPILOT_HOME', path.join(ctx.home, '.copilot')), 'copilot-instructions.md') : path.join(ctx.projectDir, '.github', 'copilot-instructions.md');
  }
}

/** The block's lines (begin and end marker line indexes), null when absent; throws when the markers
 *  are not one begin followed by one end. */
function findBlock(file: string, lines: string[]): { begin: number; end: number } | null {
  const at = (mark: string, exact: boolean): number[] => lines.flatMap((l, k) => ((exact ? l.trim() === mark : l.trimStart().startsWith(mark)) ? [k] : []));
  const begins = at(BEGIN_MARK, false);
  const ends = at(END_MARK, true);
  if (begins.length === 0 && ends.length === 0) return null;
  if (begins.length !== 1 || ends.length !== 1 || ends[0]! < begins[0]!) {
    throw new Error(`agent-guard: ${file}: its agent-guard block is damaged (${begins.length} begin and ${ends.length} end markers); fix it by hand, nothing changed`);
  }
  return { begin: begins[0]!, end: ends[0]! };
}

/** The text split into lines, keeping each line's end; the line-end style of the file. */
function linesOf(text: string): { lines: string[]; nl: string } {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  return { lines, nl };
}

function apply(h: Harness, scope: Scope, ctx: PartsContext, install: boolean): FileChange {
  const file = instructionsPath(h, scope, ctx);
  const old = readText(file);
  if (old === null && !install) return { file, changed: false, backup: null };
  const text = old ?? '';
  const { lines, nl } = linesOf(text);
  const block = findBlock(file, lines);
  const ours = instructionsBlock(h).split('\n');
  let out: string;
  if (install) {
    if (block) out = [...lines.slice(0, block.begin), ...ours, ...lines.slice(block.end + 1)].join(nl);
    else if (text.trim() === '') out = ours.join(nl) + nl;
    else out = text + (text.endsWith('\n') ? '' : nl) + nl + ours.join(nl) + nl;
  } else {
    if (!block) return { file, changed: false, backup: null };
    const before = lines.slice(0, block.begin);
    const after = lines.slice(block.end + 1);
    // The blank line the install put before the block goes with it (when a blank line or the end of
    // the file follows); at the top of the file, the blank line after it does.
    const endsFile = after.length === 1 && after[0] === '';
    if (before.length > 0 && before[before.length - 1]!.trim() === '' && (endsFile || after[0]?.trim() === '')) before.pop();
    else if (before.length === 0 && after.length > 1 && after[0]!.trim() === '') after.shift();
    out = [...before, ...after].join(nl);
  }
  return writeText(file, out, old);
}

/** Writes (or updates) the block in the harness's instruction file; the file is created if missing. */
export function installInstructions(h: Harness, scope: Scope, ctx: PartsContext): FileChange {
  return apply(h, scope, ctx, true);
}

/** Takes the block out again; the rest of the file stays. */
export function removeInstructions(h: Harness, scope: Scope, ctx: PartsContext): FileChange {
  return apply(h, scope, ctx, false);
}

/** Is the block there? null: the file cannot be read, or its markers are damaged. */
export function instructionsWired(h: Harness, scope: Scope, ctx: PartsContext): boolean | null {
  try {
    const text = readText(instructionsPath(h, scope, ctx));
    return text === null ? false : findBlock('', linesOf(text).lines) !== null;
  } catch {
    return null;
  }
}
