// Planning the compensation of `find … -delete` (GNU findutils): which entries must be moved to the
// quarantine so that, after the move (and, when needed, a rerun of the real find), what is left on
// disk, the output and the exit status are what the real `find … -delete` would have produced.
//
// The plan is made by running the REAL find over the same expression with every -delete replaced
// by -print0 (same boolean structure) and -depth added after the starting points (-delete implies
// -depth), then walking the tree ourselves (lstat, names as bytes) to decide which matched
// directories find could actually remove (only empty ones: every entry below was deleted first).
// Tests whose value changes while -delete runs (-empty of a directory emptied by the deletion, and
// the time/-links/-size/-xtype/-readable family) are re-evaluated with further enumerations in
// which that test is replaced by -true/-false; anything that stays undecidable is refused.
// Nothing is modified here. docs/find-delete.md describes the accepted expressions and the gaps.
//
// Paths are handled as latin1 strings inside (one char per byte, so any byte sequence round-trips)
// and handed out as Buffers with the exact bytes find printed.
import fs from 'node:fs';
import path from 'node:path';
import { parseFindArgs, type FindArgs } from './find-args.js';
import { B, childKey, Enumerator, EnumerationError, guardDeletes, joinCanon, L, literalPattern, lstat, realpath, startInfo, stat, stripOneSlash, stripSlashes, under, type EnumerateOptions, type Node, type StartInfo } from './find-tree.js';

export { parseFindArgs, type FindArgs, type ParsedFind } from './find-args.js';

export type FindPlan =
  | {
      ok: true;
      /** What the enumeration printed: every path some -delete was reached for, exact bytes, in
       *  find's order (relative to cwd or absolute, as find prints them). */
      matches: Buffer[];
      /** The top-most entries to move to the quarantine, in traversal order. */
      relocate: Buffer[];
      /** Run the real find afterwards (with rerunArgs) and pass its output and status through. */
      rerun: boolean;
      /** The argv (without the program name) for that rerun: args without the starting points that
       *  are relocated as a whole (a find over them would only report them missing). */
      rerunArgs: string[];
      /** The first enumeration's exit status and stderr. */
      enumeration: { status: number; stderr: string };
      /** The argv's parts: leading options and starting points as given, and whether each starting
       *  point is relocated as a whole. */
      leading: string[];
      starts: string[];
      startMoved: boolean[];
      /** The expression a later run of the real find must use: as given, or, when the quarantine
       *  lies below a starting point (`guarded`), with every -delete made `( -path Q/* -o -delete )`
       *  so that it never reaches into the quarantine. A guarded argv is no subset of the original. */
      expression: string[];
      guarded: boolean;
    }
  | { ok: false; reason: string };

export interface PlanFindOptions extends EnumerateOptions {
  /** The physical quarantine: nothing below it is ever matched (the enumeration and `expression`
   *  skip it); the directory itself still is, so that the caller can refuse it. A starting point
   *  below it is refused: the caller leaves those out. */
  quarantine?: string;
}

const MAX_VARIED = 4; // at most 2^4 extra enumerations for one entry

/** The -path tests (or-ed) that are true for every entry find reaches below the quarantine `q`
 *  (latin1, physical), one per starting point whose tree holds it: find names those entries after
 *  the starting point as given, then the path from its physical tree down to `q`. A string when a
 *  starting point lies inside the quarantine or the place cannot be written as a pattern. */
function quarantineGuard(infos: readonly (StartInfo | null)[], q: string): string[] | string {
  const tests: string[] = [];
  for (const info of infos) {
    if (!info) continue;
    if (info.self !== q && under(q, info.self)) return `the starting point ${JSON.stringify(info.key)} is inside the quarantine`;
    if (info.tree === null || !under(info.tree, q)) continue;
    const rel = info.tree === q ? '' : q.slice(info.tree === '/' ? 1 : info.tree.length + 1);
    const prefix = rel === '' ? stripOneSlash(info.key) : childKey(info.key, rel);
    const text = B(prefix).toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(B(prefix))) return `the quarantine's place below ${JSON.stringify(info.key)} is not valid UTF-8`;
    tests.push(...(tests.length > 0 ? ['-o'] : []), '-path', `${literalPattern(text)}/*`);
  }
  return tests;
}

export function planFindDelete(args: readonly string[], opts: PlanFindOptions): FindPlan {
  const parsed = parseFindArgs(args);
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const f = parsed.find;
  // find receives the arguments as UTF-8 bytes; inside, paths are latin1 strings of those bytes
  const starts = f.starts.map((s) => L(Buffer.from(s)));
  const cwd = L(Buffer.from(path.resolve(opts.cwd)));

  // GNU find refuses -prune with -delete unless -depth is explicit, before touching anything: the
  // real find reproduces that error by itself and there is nothing to move.
  const parts = { leading: f.leading, starts: f.starts, expression: f.expression, guarded: false };
  if (f.prune && !f.explicitDepth) {
    return { ok: true, matches: [], relocate: [], rerun: true, rerunArgs: [...args], enumeration: { status: 1, stderr: '' }, ...parts, startMoved: f.starts.map(() => false) };
  }

  const infos = (starts.length > 0 ? starts : ['.']).map((s) => startInfo(s, cwd, f.follow));
  const guard = opts.quarantine === undefined ? [] : quarantineGuard(infos, L(Buffer.from(opts.quarantine)));
  if (typeof guard === 'string') return { ok: false, reason: `cannot compensate this find -delete: ${guard}` };
  for (let a = 0; a < infos.length; a++) {
    for (let b = 0; b < infos.length; b++) {
      const x = infos[a];
      const y = infos[b];
      if (a === b || !x || !y) continue;
      if (x.self === y.self || (x.tree !== null && (under(x.tree, y.self) || (y.tree !== null && under(x.tree, y.tree))))) {
        return {
          ok: false,
          reason: `cannot compensate this find -delete: the starting points ${JSON.stringify(x.key)} and ${JSON.stringify(y.key)} overlap (find would visit the same entries twice)`,
        };
      }
    }
  }

  const en = new Enumerator(f, opts, guard);
  try {
    const p = plan(f, infos, en, cwd);
    return p.ok && guard.length > 0 ? { ...p, expression: guardDeletes(f.expression, f.deletes, guard), guarded: true } : p;
  } catch (e) {
    if (e instanceof EnumerationError) return { ok: false, reason: `cannot enumerate the find -delete: ${e.message}` };
    if (e instanceof RangeError) return { ok: false, reason: `cannot compensate this find -delete: the tree is too deep to plan for (${e.message})` };
    throw e;
  }
}

function plan(f: FindArgs, infos: (StartInfo | null)[], en: Enumerator, cwd: string): FindPlan {
  const e0 = en.run(false, null);
  const hasEmpty = f.sensitive.some((s) => s.kind === 'empty');
  const attrOcc = f.sensitive.filter((s) => s.kind === 'attr');
  const inodeOcc = attrOcc.filter((s) => s.inode);
  const linkOcc = f.sensitive.filter((s) => s.kind === 'link');
  // Dirtiness that crosses the tree (another hard link, a symlink's target) needs the whole tree.
  const fullListing = attrOcc.length > 0 || linkOcc.length > 0;

  // Directories worth listing: those with a match below (or matched themselves).
  const prefixes = new Set<string>();
  for (const k of e0.counts.keys()) for (let c = k.indexOf('/'); c !== -1; c = k.indexOf('/', c + 1)) prefixes.add(k.slice(0, c));
  const descend = (n: Node): boolean => fullListing || e0.counts.has(n.key) || prefixes.has(stripOneSlash(n.key));

  const nodes = new Map<string, Node>();
  const order: Node[] = []; // post-order: entries before their directory
  const roots: (Node | null)[] = [];

  const list = (n: Node): void => {
    if (!n.dir) return;
    if (!descend(n)) return;
    if (f.xdev && n.mount) return; // -xdev: find does not enter another file system
    let names: Buffer[];
    try {
      names = fs.readdirSync(B(n.abs), { encoding: 'buffer' });
    } catch {
      n.unreadable = true; // find cannot list it either; children stay unknown
      return;
    }
    const kids: Node[] = [];
    for (const nb of names) {
      const name = L(nb);
      const abs = childKey(n.abs, name);
      const st = lstat(abs);
      if (!st) return; // vanished under us: unknown
      const canon = joinCanon(n.canonDir, name);
      const c: Node = {
        key: childKey(n.key, name),
        abs,
        parent: n,
        dir: st.isDirectory(),
        symlink: st.isSymbolicLink(),
        dev: st.dev,
        inode: `${st.dev}:${st.ino}`,
        nlink: st.nlink,
        children: null,
        unreadable: false,
        removable: st.dev === n.dev, // a mount point cannot be removed
        mount: st.dev !== n.dev,
        silent: false,
        canon,
        canonDir: canon,
        decided: false,
        deleted: false,
        failed: false,
        printed: 0,
      };
      kids.push(c);
    }
    n.children = kids;
    for (const c of kids) {
      nodes.set(c.key, c);
      list(c);
      order.push(c);
    }
  };

  for (const info of infos) {
    if (!info) {
      roots.push(null);
      continue;
    }
    const stripped = stripSlashes(info.key);
    const last = stripped.slice(stripped.lastIndexOf('/') + 1);
    const dir = info.view.isDirectory();
    let removable = stripped !== '' && last !== '.' && last !== '..' && !(dir && info.isLink);
    if (removable) {
      const parentDev = dir ? stat(`${info.abs}/..`)?.dev : stat(info.abs.slice(0, Math.max(1, stripSlashes(info.abs).lastIndexOf('/'))))?.dev;
      if (parentDev !== undefined && parentDev !== info.view.dev) removable = false;
    }
    const n: Node = {
      key: info.key,
      abs: info.abs,
      parent: null,
      dir,
      symlink: info.isLink,
      dev: info.view.dev,
      inode: `${info.view.dev}:${info.view.ino}`,
      nlink: info.view.nlink,
      children: null,
      unreadable: false,
      removable,
      mount: false,
      silent: info.key === '.',
      canon: info.self,
      canonDir: info.tree ?? info.self,
      decided: false,
      deleted: false,
      failed: false,
      printed: 0,
    };
    nodes.set(n.key, n);
    list(n);
    order.push(n);
    roots.push(n);
  }

  for (const k of e0.counts.keys()) {
    if (!nodes.has(k)) {
      return { ok: false, reason: `cannot compensate this find -delete: find printed ${JSON.stringify(k)}, which agent-guard cannot place in the tree it lists` };
    }
  }

  // Symlink resolution traces (for the -xtype/access family): canonical paths each link goes through.
  const traces = new Map<Node, string[]>();
  const traceOf = (n: Node): string[] => {
    let t = traces.get(n);
    if (t) return t;
    t = [];
    const visited = t;
    let budget = 40;
    const walk = (dir: string, rel: string): string | null => {
      let cur = rel.startsWith('/') ? '' : dir;
      for (const comp of rel.split('/')) {
        if (comp === '' || comp === '.') continue;
        if (comp === '..') {
          cur = cur.slice(0, Math.max(0, cur.lastIndexOf('/')));
          continue;
        }
        const p = `${cur}/${comp}`;
        visited.push(p);
        const st = lstat(p);
        if (!st) return null;
        if (st.isSymbolicLink()) {
          if (--budget < 0) return null;
          let target: string;
          try {
            target = L(fs.readlinkSync(B(p), { encoding: 'buffer' }));
          } catch {
            return null;
          }
          const r = walk(cur, target);
          if (r === null) return null;
          cur = r;
        } else cur = p;
      }
      return cur;
    };
    const c = n.canon;
    const parent = c.slice(0, Math.max(0, c.lastIndexOf('/')));
    try {
      walk(parent, L(fs.readlinkSync(B(n.abs), { encoding: 'buffer' })));
    } catch {
      // not readable as a link: nothing to trace
    }
    traces.set(n, visited);
    return visited;
  };

  const decide = (n: Node, emptyTrue: boolean, vary: { at: number }[]): { v: boolean | 'uncertain'; printed: number } => {
    if (vary.length === 0) {
      const c = en.run(emptyTrue, null).counts.get(n.key) ?? 0;
      return { v: c > 0, printed: c };
    }
    if (vary.length > MAX_VARIED) return { v: 'uncertain', printed: 0 };
    let v: boolean | undefined;
    let printed = 0;
    for (let mask = 0; mask < 1 << vary.length; mask++) {
      const assign = new Map(vary.map((s, bit) => [s.at, ((mask >> bit) & 1) === 1]));
      const c = en.run(emptyTrue, assign).counts.get(n.key) ?? 0;
      printed = Math.max(printed, c);
      if (v === undefined) v = c > 0;
      else if (v !== c > 0) return { v: 'uncertain', printed };
    }
    return { v: v ?? false, printed };
  };

  // One pass decides every entry bottom-up from the previous pass's deletions (needed only for
  // dirtiness across the tree: hard links, symlink targets); repeat until nothing changes.
  // An entry found undecidable in any pass makes the whole plan refused (conservative: a later
  // pass may see other deletions, but the answer could flip back and forth).
  let uncertain: { node: Node; vary: { name: string }[] } | null = null;
  let stable = false;
  let prev = new Set<Node>();
  for (let pass = 0; pass < 8 && !stable; pass++) {
    const deletedInodes = new Map<string, number>();
    const deletedCanon = new Set<string>();
    for (const n of prev) {
      if (!n.dir) deletedInodes.set(n.inode, (deletedInodes.get(n.inode) ?? 0) + 1);
      deletedCanon.add(n.canon);
    }
    for (const n of order) {
      const kids = n.children;
      const gone = kids ? kids.filter((k) => k.deleted).length : 0;
      const emptied = n.dir && kids !== null && kids.length > 0 && gone === kids.length;
      const dirDirty = n.dir && gone > 0;
      const inodeDirty = !n.dir && n.nlink > 1n && (deletedInodes.get(n.inode) ?? 0) - (prev.has(n) ? 1 : 0) > 0;
      const linkDirty = linkOcc.length > 0 && n.symlink && traceOf(n).some((p) => deletedCanon.has(p));
      const vary = [...(dirDirty ? attrOcc : inodeDirty ? inodeOcc : []), ...(linkDirty ? linkOcc : [])];
      const d = decide(n, emptied && hasEmpty, vary);
      if (d.v === 'uncertain') uncertain ??= { node: n, vary };
      n.decided = d.v;
      n.printed = d.printed;
      const empty = !n.dir || (kids !== null && gone === kids.length);
      n.deleted = d.v === true && n.removable && empty;
      n.failed = d.v === true && !n.deleted && !n.silent;
    }
    const now = new Set(order.filter((n) => n.deleted));
    stable = !fullListing || (now.size === prev.size && [...now].every((n) => prev.has(n)));
    prev = now;
  }
  if (uncertain) {
    const u: { node: Node; vary: { name: string }[] } = uncertain;
    const tests = [...new Set(u.vary.map((s) => s.name))].join(', ');
    return {
      ok: false,
      reason: `cannot compensate this find -delete: whether it deletes ${JSON.stringify(u.node.key)} depends on ${tests}, whose value for it changes while find deletes other entries`,
    };
  }
  if (!stable) return { ok: false, reason: 'cannot compensate this find -delete: its result depends on the order of the deletions (no stable plan)' };

  for (const n of order) {
    // find removes an unreadable directory when it happens to be empty; nothing tells whether it
    // is (unless it has subdirectories), and the rerun would remove it outside the quarantine.
    if (n.decided === true && n.unreadable && n.removable && n.nlink <= 2n) {
      return {
        ok: false,
        reason: `cannot compensate this find -delete: it would remove the directory ${JSON.stringify(n.key)} if it is empty, and agent-guard cannot read it to know`,
      };
    }
    if (n.deleted && n.printed > 1) {
      return { ok: false, reason: `cannot compensate this find -delete: several -delete actions apply to ${JSON.stringify(n.key)} (the second one fails in the real find)` };
    }
  }

  const top = order.filter((n) => n.deleted && !n.parent?.deleted);
  const relocate = top.map((n) => B(n.key));
  const failures = order.some((n) => n.failed);
  const remaining = f.starts.filter((_, k) => !roots[k]?.deleted);
  const rerunArgs = [...f.leading, ...remaining, ...f.expression];
  let rerun = failures || e0.status !== 0 || e0.stderr !== '';
  if (rerun && f.starts.length > 0 && remaining.length === 0) {
    if (e0.status !== 0) {
      return { ok: false, reason: 'cannot compensate this find -delete: find reports errors, and every starting point would be moved, so no rerun can reproduce them' };
    }
    rerun = false; // only command-line warnings, left in enumeration.stderr
  }
  if (rerun) {
    // The rerun must find its working directory and the files its tests refer to where they were.
    const moved = (p: string): Node | undefined => top.find((n) => under(n.canon, p));
    const here = realpath(cwd) ?? cwd;
    const gone = moved(here);
    if (gone) {
      return { ok: false, reason: `cannot compensate this find -delete: find must run again, but its working directory would be moved with ${JSON.stringify(gone.key)}` };
    }
    for (const r of f.references) {
      const abs = L(Buffer.from(r)).startsWith('/') ? L(Buffer.from(r)) : `${cwd === '/' ? '' : cwd}/${L(Buffer.from(r))}`;
      const stripped = stripSlashes(abs) || '/';
      const cut = stripped.lastIndexOf('/');
      const dir = cut <= 0 ? '/' : stripped.slice(0, cut);
      const canon = joinCanon(realpath(dir) ?? dir, stripped.slice(cut + 1));
      const hit = moved(canon) ?? moved(realpath(abs) ?? canon);
      if (hit) {
        return { ok: false, reason: `cannot compensate this find -delete: find must run again, but the file ${JSON.stringify(r)} its expression refers to would be moved with ${JSON.stringify(hit.key)}` };
      }
    }
  }
  return {
    ok: true,
    matches: e0.paths,
    relocate,
    rerun,
    rerunArgs,
    enumeration: { status: e0.status, stderr: e0.stderr },
    leading: f.leading,
    starts: f.starts,
    startMoved: f.starts.map((_, k) => roots[k]?.deleted === true),
    expression: f.expression,
    guarded: false,
  };
}
