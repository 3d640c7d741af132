// What a test needs to run code as an unprivileged user (nobody, through setpriv or spawn's uid):
// that user may not be able to enter the checkout at all (a 0700 or 0750 home, e.g. /root), so
// nothing it runs may be read from there. The code is bundled into one file in a directory of the
// test's temp area, and node is copied there when nobody cannot run the one in use.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

export const NOBODY = 65534;

/** A directory everyone can read and enter (mode 0755), made if needed. The caller makes sure its
 *  parents can be entered too (the tests' temp areas are made 0755). */
function openDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** Bundles a TypeScript entry and everything it imports into `<dir>/<name>` (ESM, readable by
 *  everyone): run it with plain node, no tsx, no node_modules. */
export function bundleForNobody(entry: string, dir: string, name = `${path.basename(entry).replace(/\.[cm]?ts$/, '')}.mjs`): string {
  const outfile = path.join(openDir(dir), name);
  if (!fs.existsSync(outfile)) {
    buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
    fs.chmodSync(outfile, 0o644);
  }
  return outfile;
}

/** A copy of a file everyone can read (and run, with `mode`). */
export function copyForNobody(file: string, dir: string, mode = 0o644): string {
  const out = path.join(openDir(dir), path.basename(file));
  if (!fs.existsSync(out)) fs.copyFileSync(file, out);
  fs.chmodSync(out, mode);
  return out;
}

/** The node nobody can run: the one in use, or a copy of it in `dir`. */
export function nodeForNobody(dir: string): string {
  const probe = spawnSync('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--', process.execPath, '-e', '0']);
  if (probe.status === 0) return process.execPath;
  return copyForNobody(process.execPath, dir, 0o755);
}
