// Enumerate-then-act: `agent-guard delete` expands patterns itself, so every concrete path is
// classified before anything moves. Supports `*`, `?` and `[…]` per path segment (no `**`, no
// braces); a leading dot is matched only by a pattern segment that starts with a dot, as in the shell.
import fs from 'node:fs';
import path from 'node:path';

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

/** The paths `pattern` names, relative to `cwd` or absolute as given, sorted; [] when none match. */
export function expandGlob(pattern: string, cwd: string): string[] {
  if (!hasPattern(pattern)) return [pattern];
  const absolute = pattern.startsWith('/');
  const segs = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  let current: string[] = [absolute ? '/' : ''];
  for (const seg of segs) {
    if (seg === '') continue;
    const next: string[] = [];
    for (const base of current) {
      if (!hasPattern(seg)) {
        next.push(base === '' ? seg : path.posix.join(base, seg));
        continue;
      }
      const dir = path.posix.resolve(cwd, base === '' ? '.' : base);
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch {
        continue;
      }
      const re = segmentRegex(seg);
      for (const n of names.sort()) {
        if (n.startsWith('.') && !seg.startsWith('.')) continue;
        if (re.test(n)) next.push(base === '' ? n : path.posix.join(base, n));
      }
    }
    current = next;
  }
  return current.filter((p) => {
    try {
      fs.lstatSync(path.posix.resolve(cwd, p));
      return true;
    } catch {
      return false;
    }
  });
}
