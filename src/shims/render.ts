// The PATH shims: one POSIX sh template (shims/shim.sh) rendered once per guarded program, with the
// absolute paths of node and of the bundled checker baked in, written into a directory marked with
// SHIM_MARKER. docs/shims.md describes what the rendered files do.
import fs from 'node:fs';
import path from 'node:path';

/** The programs that get a shim. */
export const SHIM_NAMES = ['rm', 'rmdir', 'unlink', 'shred', 'git', 'find', 'mv', 'cp', 'truncate', 'rsync'] as const;
export type ShimName = (typeof SHIM_NAMES)[number];

/** The file that marks a shim directory: every shim skips such directories when it looks for the
 *  real program, whatever the directory is called and however many installs there are (defined in
 *  realbin.ts, which the checker uses for the same walk). */
export { SHIM_MARKER } from '../probe/realbin.js';
import { SHIM_MARKER } from '../probe/realbin.js';

const MARKER_TEXT =
  'This directory holds agent-guard PATH shims (written by writeShims, src/shims/render.ts).\n' +
  'Shims skip every directory holding this file when they look for the real program.\n';

export interface WriteShimsOptions {
  /** Absolute path of the node binary the slow path runs. */
  node: string;
  /** Absolute path of the bundled checker (dist/agent-guard.cjs or its installed copy). */
  bundle: string;
  /** The template text itself. Wins over templatePath; lets a caller (a bundle, an installer)
   *  supply the template without a file next to it. */
  template?: string;
  /** Where to read the template. Default: shims/shim.sh of this checkout, found from the module's
   *  own location (see defaultTemplatePath). */
  templatePath?: string;
}

// The placeholders of shims/shim.sh. Values are substituted in one pass, so a value that happens to
// contain a placeholder is left as it is.
const PLACEHOLDER = /@AG_(NAME|NODE|BUNDLE)@/g;

// A program name goes into single quotes and into file names: a plain word only.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

// Paths go between double quotes in sh: ", $, ` and \ would end or change the quoting; a newline or
// other control character would break the line structure (and has no business in these paths).
const UNSAFE_PATH_CHAR = /["$`\\\x00-\x1f\x7f]/;

function checkPath(what: string, value: string): void {
  if (!path.isAbsolute(value)) {
    throw new Error(`agent-guard shims: the ${what} path must be absolute, got ${JSON.stringify(value)}`);
  }
  const bad = UNSAFE_PATH_CHAR.exec(value);
  if (bad) {
    throw new Error(
      `agent-guard shims: the ${what} path ${JSON.stringify(value)} contains ${JSON.stringify(bad[0])}, ` +
        'which cannot be placed in a shell script safely (not allowed: newline and other control characters, ", $, `, \\); ' +
        'install node and agent-guard under a path without these characters',
    );
  }
}

/** Renders the template for one program: a pure function, no file access. Throws on values that
 *  would break the shell quoting, and on a template that does not look like shims/shim.sh. */
export function renderShim(template: string, name: string, node: string, bundle: string): string {
  if (!SAFE_NAME.test(name)) {
    throw new Error(`agent-guard shims: not a plain program name: ${JSON.stringify(name)}`);
  }
  checkPath('node', node);
  checkPath('checker bundle', bundle);
  if (!template.startsWith('#!/bin/sh\n')) {
    throw new Error('agent-guard shims: the template must start with "#!/bin/sh"');
  }
  for (const p of ['@AG_NAME@', '@AG_NODE@', '@AG_BUNDLE@']) {
    if (!template.includes(p)) throw new Error(`agent-guard shims: the template has no ${p} placeholder`);
  }
  const values: Record<string, string> = { NAME: name, NODE: node, BUNDLE: bundle };
  return onlyFor(template, name).replace(PLACEHOLDER, (_m, key: string) => values[key] ?? '');
}

/** Keeps the template's `#@only NAME…` … `#@end` blocks that name `name` (without the marker lines)
 *  and drops the others: a shim holds only its own program's fast-path code, so the shell parses
 *  less on every call (the markers are comments: the template itself runs as it is). Blocks do not
 *  nest; an unbalanced marker is an error. */
export function onlyFor(template: string, name: string): string {
  const out: string[] = [];
  let keep: boolean | null = null;
  for (const line of template.split('\n')) {
    if (line.startsWith('#@only ')) {
      if (keep !== null) throw new Error('agent-guard shims: the template nests #@only blocks');
      keep = line.slice(7).split(' ').includes(name);
      continue;
    }
    if (line === '#@end') {
      if (keep === null) throw new Error('agent-guard shims: the template has an #@end without #@only');
      keep = null;
      continue;
    }
    if (keep !== false) out.push(line);
  }
  if (keep !== null) throw new Error('agent-guard shims: the template has an #@only block without #@end');
  return out.join('\n');
}

/** shims/shim.sh of this checkout, found from the module's own directory: dist/ for the bundle
 *  (dist/agent-guard.cjs), src/shims/ for the sources under vitest. Undefined when the module has
 *  no __dirname (ESM under tsx): pass `template` or `templatePath` there. */
export function defaultTemplatePath(): string | undefined {
  if (typeof __dirname !== 'string') return undefined;
  for (const rel of ['../shims/shim.sh', '../../shims/shim.sh']) {
    const p = path.resolve(__dirname, rel);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

function loadTemplate(opts: WriteShimsOptions): string {
  if (opts.template !== undefined) return opts.template;
  const p = opts.templatePath ?? defaultTemplatePath();
  if (p === undefined) {
    throw new Error('agent-guard shims: cannot find shims/shim.sh from here; pass the template text or templatePath');
  }
  return fs.readFileSync(p, 'utf8');
}

let tmpSeq = 0;

// Writes through a temporary file in the same directory and a rename: a shell that runs the file
// meanwhile sees the old or the new version, never half of one.
function writeAtomic(file: string, text: string, mode: number): void {
  try {
    const st = fs.lstatSync(file);
    if (st.isFile() && (st.mode & 0o7777) === mode && fs.readFileSync(file, 'utf8') === text) return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${Date.now()}-${tmpSeq++}`);
  try {
    fs.writeFileSync(tmp, text, { mode, flag: 'wx' });
    fs.chmodSync(tmp, mode); // the umask may have taken bits away
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes the marker and one executable shim (0755) per SHIM_NAMES entry into `dir` (created if
 *  missing). Every value is checked before anything is written; files already up to date are left
 *  alone, so running it again changes nothing. Returns the paths written: the shims in SHIM_NAMES
 *  order, then the marker. The marker comes first on disk, so the directory is never an unmarked
 *  shim directory. */
export function writeShims(dir: string, opts: WriteShimsOptions): string[] {
  const template = loadTemplate(opts);
  const rendered = SHIM_NAMES.map((name) => [name, renderShim(template, name, opts.node, opts.bundle)] as const);
  const root = path.resolve(dir);
  fs.mkdirSync(root, { recursive: true });
  const marker = path.join(root, SHIM_MARKER);
  writeAtomic(marker, MARKER_TEXT, 0o644);
  const written: string[] = [];
  for (const [name, text] of rendered) {
    const file = path.join(root, name);
    writeAtomic(file, text, 0o755);
    written.push(file);
  }
  written.push(marker);
  return written;
}
