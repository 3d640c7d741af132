// Reading and rewriting a harness's own files (MCP configuration, instruction files) with the
// installer's contract (docs/harness-install.md): read before writing, refuse what cannot be read
// or parsed (nothing written), back up the old content to `<file>.agent-guard.bak`, write the new
// content to a temp file beside it with the old permission bits and rename it over the file (a
// symlink's target is rewritten, the link stays), create missing directories, and write nothing
// when nothing changes.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const BACKUP_SUFFIX = '.agent-guard.bak';

export interface FileChange {
  file: string;
  changed: boolean;
  backup: string | null;
}

/** The file's text; null when it does not exist. Throws (nothing changed) when it cannot be read. */
export function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`agent-guard: cannot read ${file}: ${(e as Error).message}; nothing changed`);
  }
}

export type JsonObject = { [k: string]: unknown };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON file holding an object (empty text: `{}`); null when it does not exist. Throws when it is
 *  not valid JSON or not an object. */
export function readJsonObject(file: string): JsonObject | null {
  const text = readText(file);
  return text === null ? null : parseJsonObject(file, text);
}

/** The object a JSON file's text holds (empty text: `{}`); throws as readJsonObject does. */
export function parseJsonObject(file: string, text: string): JsonObject {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new Error(`agent-guard: ${file} is not valid JSON (${(e as Error).message}); fix it first, nothing changed`);
  }
  if (!isObject(parsed)) throw new Error(`agent-guard: ${file} does not hold a JSON object at the top level; nothing changed`);
  return parsed;
}

/** The installer's JSON layout: two-space indentation and a trailing newline. */
export const jsonText = (o: JsonObject): string => JSON.stringify(o, null, 2) + '\n';

/** Writes `text` to `file` (backup first when it exists, atomically); `old` is its current text or
 *  null when it does not exist. Nothing is written when the text is unchanged. */
export function writeText(file: string, text: string, old: string | null): FileChange {
  if (old !== null && old === text) return { file, changed: false, backup: null };
  mkdirSync(dirname(file), { recursive: true });
  const target = old !== null ? realpathSync(file) : file;
  let backup: string | null = null;
  let mode: number | undefined;
  if (old !== null) {
    mode = statSync(target).mode & 0o7777;
    backup = file + BACKUP_SUFFIX;
    copyFileSync(target, backup);
  }
  const tmp = `${target}.agent-guard.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode: mode ?? 0o644 });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, target);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
    throw e;
  }
  return { file, changed: true, backup };
}
