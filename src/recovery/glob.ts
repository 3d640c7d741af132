// Enumerate-then-act: `agent-guard delete` expands patterns itself, so every concrete path is
// classified before anything moves. Supports `*`, `?` and `[…]` per path segment (no `**`, no
// braces); a leading dot is matched only by a pattern segment that starts with a dot, as in the shell.
import fs from 'node:fs';

export function hasPattern(s: string): boolean {
  return /[*?[]/.test(s);
}

function segmentRegex(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = seg.slice(i + 1, close);
        if (body.startsWith('!')) body = '^' + body.slice(1);
        re += '[' + body.replace(/\\/g, '\\\\') + ']';
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

/** A path a pattern named: `path` is for the policy and for people (lossy when a name is not UTF-8),
 *  `bytes` is exact (relative to cwd, or absolute as the pattern was). */
export interface Expanded {
  path: string;
  bytes: Buffer;
}

const SLASH = Buffer.from('/');

/** The paths `pattern` names, relative to `cwd` or absolute as given, sorted; [] when none match.
 *  Directory entries are read as bytes and matched by their UTF-8 reading (a byte that is not UTF-8
 *  is one character, as `?` would take it), so names that are not UTF-8 are found and kept exact. */
export function expandGlob(pattern: string, cwd: string): Expanded[] {
  if (!hasPattern(pattern)) return [{ path: pattern, bytes: Buffer.from(pattern) }];
  const absolute = pattern.startsWith('/');
  const segs = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  let current: Buffer[] = [absolute ? Buffer.from('/') : Buffer.alloc(0)];
  const join = (base: Buffer, name: Buffer): Buffer => (base.length === 0 ? name : base[base.length - 1] === 0x2f ? Buffer.concat([base, name]) : Buffer.concat([base, SLASH, name]));
  const resolve = (p: Buffer): Buffer => (p.length > 0 && p[0] === 0x2f ? p : join(Buffer.from(cwd), p.length === 0 ? Buffer.from('.') : p));
  for (const seg of segs) {
    if (seg === '') continue;
    const next: Buffer[] = [];
    for (const base of current) {
      if (!hasPattern(seg)) {
        next.push(join(base, Buffer.from(seg)));
        continue;
      }
      let names: Buffer[];
      try {
        names = fs.readdirSync(resolve(base), { encoding: 'buffer' });
      } catch {
        continue;
      }
      const re = segmentRegex(seg);
      for (const n of names.sort(Buffer.compare)) {
        if (n[0] === 0x2e && !seg.startsWith('.')) continue;
        if (re.test(n.toString('utf8'))) next.push(join(base, n));
      }
    }
    current = next;
  }
  return current
    .filter((p) => fs.lstatSync(resolve(p), { throwIfNoEntry: false }) !== undefined)
    .map((p) => ({ path: p.toString('utf8'), bytes: p }));
}
