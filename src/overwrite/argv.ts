// The argv of mv, cp, truncate and rsync as the real tools read it (GNU coreutils, rsync 3): which
// existing entries a call replaces, truncates or deletes. Pure except for the stats that say whether
// a destination is a directory and what it holds (docs/overwrites.md).
import fs from 'node:fs';
import path from 'node:path';
import type { OverwriteTarget } from './keep.js';

/** A call this module cannot read exactly: the checker refuses it rather than guess. */
export class Unreadable extends Error {}

interface Opt {
  /** The option takes a value (the rest of a short cluster, `=value`, or the next argument). */
  value: boolean;
}

/** GNU getopt_long: options anywhere before `--` (unless POSIXLY_CORRECT), long names by any unique
 *  prefix. Returns the options seen (by their long name, or the short letter) and the operands. */
function getopt(args: readonly string[], short: Readonly<Record<string, string>>, long: Readonly<Record<string, Opt>>, posixly: boolean): { opts: { name: string; value: string | null }[]; operands: string[] } {
  const opts: { name: string; value: string | null }[] = [];
  const operands: string[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || a === '-' || !a.startsWith('-')) {
      operands.push(a);
      if (posixly) ended = true;
      continue;
    }
    if (a === '--') {
      ended = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const given = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const exact = long[given] ? [given] : Object.keys(long).filter((n) => n.startsWith(given));
      if (exact.length !== 1) throw new Unreadable(`${a} is not an option agent-guard knows for this program`);
      const name = exact[0]!;
      const spec = long[name]!;
      let value: string | null = eq < 0 ? null : a.slice(eq + 1);
      if (spec.value && value === null) {
        if (i + 1 >= args.length) throw new Unreadable(`${a} needs a value`);
        value = args[++i]!;
      }
      opts.push({ name, value });
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const c = a[k]!;
      const name = short[c];
      if (name === undefined) throw new Unreadable(`-${c} is not an option agent-guard knows for this program`);
      if (long[name]?.value) {
        let value = a.slice(k + 1);
        if (value === '') {
          if (i + 1 >= args.length) throw new Unreadable(`-${c} needs a value`);
          value = args[++i]!;
        }
        opts.push({ name, value });
        break;
      }
      opts.push({ name, value: null });
    }
  }
  return { opts, operands };
}

// ---------------------------------------------------------------------------------------------
// mv and cp (GNU coreutils 9)

const flag: Opt = { value: false };
const valued: Opt = { value: true };

const CP_LONG: Record<string, Opt> = {
  archive: flag, 'attributes-only': flag, backup: flag, 'copy-contents': flag, debug: flag, force: flag, interactive: flag,
  link: flag, dereference: flag, 'no-clobber': flag, 'no-dereference': flag, preserve: flag, 'no-preserve': valued, parents: flag,
  recursive: flag, reflink: flag, 'remove-destination': flag, sparse: valued, 'strip-trailing-slashes': flag, 'symbolic-link': flag,
  suffix: valued, 'target-directory': valued, 'no-target-directory': flag, update: flag, verbose: flag, 'keep-directory-symlink': flag,
  'one-file-system': flag, context: flag, help: flag, version: flag,
};
const CP_SHORT: Record<string, string> = {
  a: 'archive', b: 'backup', d: 'no-dereference', f: 'force', i: 'interactive', H: 'dereference-args', l: 'link', L: 'dereference',
  n: 'no-clobber', P: 'no-dereference', p: 'preserve', R: 'recursive', r: 'recursive', s: 'symbolic-link', S: 'suffix',
  t: 'target-directory', T: 'no-target-directory', u: 'update', v: 'verbose', x: 'one-file-system', Z: 'context',
};
const MV_LONG: Record<string, Opt> = {
  backup: flag, 'exchange': flag, force: flag, interactive: flag, 'no-clobber': flag, 'no-copy': flag, 'strip-trailing-slashes': flag,
  suffix: valued, 'target-directory': valued, 'no-target-directory': flag, update: flag, verbose: flag, context: flag, debug: flag,
  help: flag, version: flag,
};
const MV_SHORT: Record<string, string> = { b: 'backup', f: 'force', i: 'interactive', n: 'no-clobber', S: 'suffix', t: 'target-directory', T: 'no-target-directory', u: 'update', v: 'verbose', Z: 'context' };

const strip = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, '') || '/' : p);
const isDir = (abs: string): boolean => fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory() === true;

/** Entries of `src` (a directory) that `dest` (an existing directory) also holds as non-directories:
 *  what `cp -r` merging one into the other overwrites. */
function collisions(src: string, dest: string, out: string[]): void {
  let names: string[];
  try {
    names = fs.readdirSync(src);
  } catch {
    return; // cp reports it
  }
  for (const n of names) {
    const s = path.join(src, n);
    const d = path.join(dest, n);
    const ds = fs.lstatSync(d, { throwIfNoEntry: false });
    if (!ds) continue;
    const ss = fs.lstatSync(s, { throwIfNoEntry: false });
    if (ss?.isDirectory() && isDir(d)) collisions(s, d, out);
    else out.push(d);
  }
}

/** The existing entries `mv` or `cp` would replace (or write into), relative to `cwd`. */
export function mvCpTargets(program: 'mv' | 'cp', args: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): OverwriteTarget[] {
  const { opts, operands } = getopt(args, program === 'cp' ? CP_SHORT : MV_SHORT, program === 'cp' ? CP_LONG : MV_LONG, env.POSIXLY_CORRECT !== undefined);
  const has = (n: string): boolean => opts.some((o) => o.name === n);
  const optValue = (n: string): string | null => opts.filter((o) => o.name === n).at(-1)?.value ?? null;
  if (has('help') || has('version') || has('no-clobber') || has('exchange')) return []; // nothing replaced (exchange keeps both)
  // A backup keeps the replaced file (unless the control says none/off).
  const backup = opts.filter((o) => o.name === 'backup').at(-1);
  if (backup && !['none', 'off'].includes(backup.value ?? '') && (env.VERSION_CONTROL === undefined || !['none', 'off'].includes(env.VERSION_CONTROL))) return [];
  const abs = (p: string): string => path.resolve(cwd, p);
  let dir: string | null = optValue('target-directory');
  let sources = operands;
  let single: string | null = null;
  if (dir === null) {
    if (operands.length < 2) return []; // the tool reports the missing operand
    const dest = operands[operands.length - 1]!;
    sources = operands.slice(0, -1);
    if (has('no-target-directory') || (sources.length === 1 && !isDir(abs(dest)))) single = dest;
    else dir = dest;
  }
  const recursive = program === 'cp' && (has('recursive') || has('archive'));
  const update = has('update');
  const out: OverwriteTarget[] = [];
  const follow = program === 'cp';
  const consider = (src: string, dest: string): void => {
    const d = abs(dest);
    const ds = fs.lstatSync(d, { throwIfNoEntry: false });
    if (!ds) return;
    const s = abs(src);
    const ss = fs.statSync(s, { throwIfNoEntry: false });
    if (ss?.isDirectory()) {
      // cp -r merges into an existing directory; mv replaces only an empty one (nothing lost).
      if (recursive && isDir(d)) {
        const hits: string[] = [];
        collisions(s, d, hits);
        for (const h of hits) if (!update || newer(path.join(s, path.relative(d, h)), h)) out.push({ path: h, follow });
      }
      return;
    }
    if (ds.isDirectory() && !ds.isSymbolicLink()) return; // the tool refuses a file over a directory
    if (update && !newer(s, d)) return;
    out.push({ path: d, follow });
  };
  if (single !== null) consider(sources[0]!, single);
  else
    for (const src of sources) {
      const base = has('parents') ? strip(src).replace(/^\/+/, '') : path.basename(strip(src));
      if (base === '' || base === '.' || base === '..') continue;
      consider(src, path.join(dir!, base));
    }
  return out;
}

/** `--update`: the source is newer than the destination (or the destination is missing). */
function newer(src: string, dest: string): boolean {
  const s = fs.statSync(src, { throwIfNoEntry: false });
  const d = fs.lstatSync(dest, { throwIfNoEntry: false });
  return !d || !s || s.mtimeMs > d.mtimeMs;
}

// ---------------------------------------------------------------------------------------------
// truncate (GNU coreutils)

const TRUNCATE_LONG: Record<string, Opt> = { 'no-create': flag, 'io-blocks': flag, reference: valued, size: valued, help: flag, version: flag };
const TRUNCATE_SHORT: Record<string, string> = { c: 'no-create', o: 'io-blocks', r: 'reference', s: 'size' };

const UNITS = 'KMGTPEZY';

/** A SIZE of truncate: `[+-<>/%]N[unit]` (K M G … powers of 1024, KB MB … of 1000, KiB = K); null
 *  when it cannot be read. */
export function parseSize(s: string): { op: string; n: number } | null {
  const m = /^([-+<>/%]?)(\d+)([kKmMgGtTpPeEzZyY])?(iB|B)?$/.exec(s.trim());
  if (!m || (m[4] && !m[3])) return null;
  const mult = m[3] ? (m[4] === 'B' ? 1000 : 1024) ** (UNITS.indexOf(m[3].toUpperCase()) + 1) : 1;
  return { op: m[1]!, n: Number(m[2]) * mult };
}

/** The existing files `truncate` would shrink (what is past the new size is lost). */
export function truncateTargets(args: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): OverwriteTarget[] {
  const { opts, operands } = getopt(args, TRUNCATE_SHORT, TRUNCATE_LONG, env.POSIXLY_CORRECT !== undefined);
  if (opts.some((o) => o.name === 'help' || o.name === 'version')) return [];
  const sizeArg = opts.filter((o) => o.name === 'size').at(-1)?.value ?? null;
  const ref = opts.filter((o) => o.name === 'reference').at(-1)?.value ?? null;
  const size = sizeArg === null ? null : parseSize(sizeArg);
  const refSize = ref === null ? null : (fs.statSync(path.resolve(cwd, ref), { throwIfNoEntry: false })?.size ?? null);
  const out: OverwriteTarget[] = [];
  for (const f of operands) {
    const st = fs.statSync(path.resolve(cwd, f), { throwIfNoEntry: false });
    if (!st?.isFile() || st.size === 0) continue;
    let blocks = 1;
    if (opts.some((o) => o.name === 'io-blocks')) blocks = st.blksize || 512;
    const cur = st.size;
    let next: number | null = null;
    if (size === null) next = sizeArg === null ? refSize : null; // -r alone: the reference's size
    else {
      const n = size.n * blocks;
      const base = refSize ?? cur;
      next = { '': n, '+': base + n, '-': Math.max(0, base - n), '<': Math.min(cur, n), '>': Math.max(cur, n), '/': n === 0 ? null : Math.floor(cur / n) * n, '%': n === 0 ? null : Math.ceil(cur / n) * n }[size.op] ?? null;
    }
    // Unknown (a size this reader does not take): kept, as a shrink would need.
    if (next === null || next < cur) out.push({ path: f, follow: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// rsync 3

/** rsync's options that take a value (`--name=V` or `--name V`; short `-B -e -@ -T -f -M`). */
export const RSYNC_VALUED = new Set([
  'address', 'backup-dir', 'block-size', 'bwlimit', 'checksum-choice', 'cc', 'checksum-seed', 'chmod', 'chown', 'compare-dest',
  'compress-choice', 'zc', 'compress-level', 'zl', 'compress-threads', 'zt', 'confine-root', 'contimeout', 'copy-as', 'copy-dest',
  'debug', 'early-input', 'exclude', 'exclude-from', 'files-from', 'filter', 'groupmap', 'iconv', 'include', 'include-from', 'info',
  'link-dest', 'log-file', 'log-file-format', 'log-format', 'max-alloc', 'max-delete', 'max-size', 'min-size', 'modify-window',
  'only-write-batch', 'out-format', 'outbuf', 'partial-dir', 'password-file', 'port', 'protocol', 'read-batch', 'remote-option', 'rsh',
  'rsync-path', 'skip-compress', 'sockopts', 'stop-after', 'stop-at', 'time-limit', 'suffix', 'temp-dir', 'timeout', 'usermap',
  'write-batch',
]);
const RSYNC_SHORT_VALUED: Record<string, string> = { B: 'block-size', e: 'rsh', '@': 'modify-window', T: 'temp-dir', f: 'filter', M: 'remote-option' };

export interface RsyncArgs {
  /** Every operand (sources, then the destination last). */
  operands: string[];
  /** Index of each argument that is an output option the enumeration must not get (quiet, the
   *  user's formats and log file), with the argument that holds its value. */
  output: Set<number>;
  /** Short clusters holding `q` (index → the cluster without it). */
  unquiet: Map<number, string>;
  dryRun: boolean;
  /** --server, --daemon, --sender, --list-only: not a local transfer to guard here. */
  passive: boolean;
}

/** Reads rsync's argv (options anywhere, as popt permutes them; `--` ends them). */
export function parseRsync(args: readonly string[]): RsyncArgs {
  const out: RsyncArgs = { operands: [], output: new Set(), unquiet: new Map(), dryRun: false, passive: false };
  const OUTPUT = new Set(['info', 'out-format', 'log-format', 'log-file', 'log-file-format']);
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || a === '-' || !a.startsWith('-')) {
      out.operands.push(a);
      continue;
    }
    if (a === '--') {
      ended = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (name === 'dry-run') out.dryRun = true;
      if (['server', 'daemon', 'sender', 'list-only'].includes(name)) out.passive = true;
      if (name === 'quiet') out.output.add(i);
      const takes = RSYNC_VALUED.has(name) && eq < 0;
      if (OUTPUT.has(name)) {
        out.output.add(i);
        if (takes) out.output.add(i + 1);
      }
      if (takes) i++;
      continue;
    }
    let rest = '';
    let kept = '-';
    for (let k = 1; k < a.length; k++) {
      const c = a[k]!;
      if (c === 'n') out.dryRun = true;
      if (RSYNC_SHORT_VALUED[c]) {
        rest = a.slice(k + 1);
        kept += a.slice(k);
        if (rest === '') i++;
        break;
      }
      if (c === 'q') continue;
      kept += c;
    }
    if (kept !== a) {
      if (kept === '-') out.output.add(i);
      else out.unquiet.set(i, kept);
    }
  }
  return out;
}

/** Is an rsync operand remote (`host:path`, `user@host:path`, `host::module`, `rsync://…`)? */
export function rsyncRemote(op: string): boolean {
  if (op.startsWith('rsync://')) return true;
  const slash = op.indexOf('/');
  const colon = op.indexOf(':');
  return colon > 0 && (slash < 0 || colon < slash);
}

/** Decodes rsync's `\#ooo` escapes of a name in its output. */
function unescape(name: string): string {
  return name.replace(/\\#([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** What an rsync dry run (`--itemize-changes --out-format='%i %n'`) says will happen at the
 *  destination `dest` (as given): each existing entry it deletes or replaces, relative to cwd. */
export function rsyncTargets(listing: string, dest: string, cwd: string): OverwriteTarget[] {
  const d = path.resolve(cwd, dest);
  const st = fs.statSync(d, { throwIfNoEntry: false });
  const destIsFile = st !== undefined && !st.isDirectory() && !dest.endsWith('/');
  const out: OverwriteTarget[] = [];
  for (const line of listing.split('\n')) {
    const m = /^(\*deleting  |[>ch.][fdLDS][^ ]{9}) (.+)$/.exec(line);
    if (!m) continue;
    const item = m[1]!;
    const name = unescape(m[2]!);
    if (item.startsWith('*deleting')) {
      if (name.endsWith('/')) continue; // a directory: its entries are listed one by one
      out.push({ path: destIsFile ? d : path.join(d, name), follow: false });
      continue;
    }
    // A new item (all `+`) replaces nothing; `.` in the first place: no transfer (attributes only).
    if (item[0] === '.' || /^\++$/.test(item.slice(2))) continue;
    if (item[1] === 'd') continue;
    out.push({ path: destIsFile ? d : path.join(d, name), follow: false });
  }
  return out;
}
