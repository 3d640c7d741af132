// Tool managers whose shims are bash scripts that load a builtin on every call (pyenv, rbenv,
// nodenv, goenv: `enable -f …/libexec/<tool>-realpath.dylib realpath`). Under the bash hook such a
// line must run: `doctor` reads the lines a manager found on PATH would run and reports any the hook
// would refuse as tampering (src/enforce/tamper.ts `tampering`), so a refused `python3` shows up there
// rather than as a broken Python.
import fs from 'node:fs';
import path from 'node:path';
import { tampering } from '../enforce/tamper.js';

export const TOOL_MANAGERS = ['pyenv', 'rbenv', 'nodenv', 'goenv'] as const;

export interface ToolManagerFinding {
  manager: string;
  shims: string;
  /** The `enable` commands its scripts run, each with the refusal the hook would give (null: runs). */
  lines: { file: string; text: string; refusal: string | null }[];
}

/** The `enable …` commands of a script's text (the command alone, without `if`/`!`/`; then`). */
export function enableCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s;&|(!])(enable\s[^;&|\n)]*)/gm)) out.push(m[1]!.trim());
  return out;
}

/** Each tool manager whose shims dir is on PATH, with the `enable` lines of its libexec scripts. */
export function toolManagersOnPath(pathVar: string): ToolManagerFinding[] {
  const found: ToolManagerFinding[] = [];
  for (const dir of pathVar.split(':')) {
    const m = /(?:^|\/)\.?(pyenv|rbenv|nodenv|goenv)\/shims\/?$/.exec(dir);
    if (!m || found.some((f) => f.shims === dir)) continue;
    const manager = m[1]!;
    const libexec = libexecOf(dir, manager);
    const lines: ToolManagerFinding['lines'] = [];
    if (libexec) {
      for (const name of safeReaddir(libexec).filter((n) => n === manager || n.startsWith(`${manager}-`))) {
        const file = path.join(libexec, name);
        let text: string;
        try {
          if (!fs.statSync(file).isFile()) continue;
          text = fs.readFileSync(file, 'utf8').slice(0, 256 * 1024);
        } catch {
          continue;
        }
        for (const t of enableCommands(text)) lines.push({ file, text: t, refusal: tampering(t) });
      }
    }
    found.push({ manager, shims: dir, lines });
  }
  return found;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The libexec dir a manager's shims run: from a shim's `exec "…/libexec/<manager>"` line, else the
 *  dir beside the shims (`~/.pyenv/libexec`). */
function libexecOf(shims: string, manager: string): string | null {
  for (const name of safeReaddir(shims).slice(0, 3)) {
    try {
      const text = fs.readFileSync(path.join(shims, name), 'utf8').slice(0, 8192);
      const m = new RegExp(`exec\\s+"([^"]+/libexec)/${manager}"`).exec(text);
      if (m) return m[1]!;
    } catch {
      // an unreadable shim: try the next, then the default
    }
  }
  const beside = path.join(path.dirname(shims.replace(/\/$/, '')), 'libexec');
  return fs.existsSync(beside) ? beside : null;
}
