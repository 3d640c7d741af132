// PYTHONPATH with the Python guard first (docs/interpreters.md, "Python"): `run`, `shell-init` and
// `doctor` read and write it. Python imports the first `sitecustomize` on sys.path, so the guard's
// directory must come before every other entry; the guard then runs the sitecustomize it shadows.
import fs from 'node:fs';
import path from 'node:path';

/** The directory of the Python guard (sitecustomize.py and agent-guard-delete.py), beside the bundle
 *  (dist/ of a checkout or package, lib/ of an installation). */
export const PYTHON_DIR_NAME = 'agent-guard-python';

/** PYTHONPATH with `dir` first and the user's entries kept after it, in order (empty entries too:
 *  Python reads them as the working directory). Idempotent: a value that starts with `dir` is
 *  returned as it is. Another installation's guard directory, and `dir` further on, are taken out. */
export function withSitecustomize(value: string | undefined, dir: string): string {
  if (value === undefined || value === '') return dir;
  const entries = value.split(':');
  if (entries[0] === dir) return value;
  const kept = entries.filter((e) => e !== dir && !(e !== '' && path.basename(e.replace(/\/+$/, '')) === PYTHON_DIR_NAME));
  return kept.length === 0 ? dir : [dir, ...kept].join(':');
}

/** Does PYTHONPATH put `dir` first (where Python takes its sitecustomize from)? */
export function hasSitecustomizeFirst(value: string | undefined, dir: string): boolean {
  const first = (value ?? '').split(':')[0] ?? '';
  if (first === dir) return true;
  if (!path.isAbsolute(first)) return false;
  try {
    const a = fs.statSync(first);
    const b = fs.statSync(dir);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** The guard's directory when its sitecustomize.py is there; otherwise null, and `warn` says what
 *  that means (`run` and `shell-init` go on: the shims and hooks still guard). */
export function pythonGuardOrWarn(layout: { python: string }, warn: (message: string) => void): string | null {
  if (layout.python.includes(':')) {
    warn(`${layout.python} holds a ':' and cannot be put on PYTHONPATH: Python programs run without the deletion guard`);
    return null;
  }
  try {
    if (fs.statSync(path.join(layout.python, 'sitecustomize.py')).isFile()) return layout.python;
  } catch {
    // missing: below
  }
  warn(`${path.join(layout.python, 'sitecustomize.py')} is missing: Python programs run without the deletion guard (the shims still apply); run 'agent-guard doctor'`);
  return null;
}
