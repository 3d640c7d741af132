// The real program behind a name: the first executable on PATH outside any agent-guard shim
// directory (one holding the marker file). The checker's own git queries use it, so a probe never
// re-enters a shim (which would start the checker again, and again).
import fs from 'node:fs';
import path from 'node:path';

/** The marker file of a shim directory (src/shims/render.ts writes it). */
export const SHIM_MARKER = '.agent-guard-shims';

export function isShimDir(dir: string): boolean {
  try {
    fs.accessSync(path.join(dir, SHIM_MARKER));
    return true;
  } catch {
    return false;
  }
}

/** The first `name` on `pathVar` that is an executable file outside shim directories; relative and
 *  empty entries are skipped (never resolved through the cwd). Null when there is none. */
export function findReal(name: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(':')) {
    if (dir === '' || !dir.startsWith('/') || isShimDir(dir)) continue;
    const p = path.join(dir, name);
    try {
      if (!fs.statSync(p).isFile()) continue;
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      continue;
    }
  }
  return null;
}
