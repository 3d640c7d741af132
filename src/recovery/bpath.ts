// Paths as bytes. File names on disk are bytes: they need not be valid UTF-8, and a JS string made
// from them is lossy. The recovery engine composes and compares paths as Buffers (which node:fs
// accepts everywhere), so a name that is not UTF-8 relocates and restores exactly.

const SLASH = 0x2f;

export type BytePath = Buffer;

export function toBytes(p: string | Buffer): Buffer {
  return Buffer.isBuffer(p) ? p : Buffer.from(p, 'utf8');
}

/** For people and JSON (lossy when the bytes are not UTF-8). */
export function display(p: string | Buffer): string {
  return Buffer.isBuffer(p) ? p.toString('utf8') : p;
}

/** `a/b` (no normalisation: both parts are already clean). */
export function bjoin(a: Buffer, ...parts: Buffer[]): Buffer {
  const out: Buffer[] = [a];
  let last = a;
  for (const p of parts) {
    if (p.length === 0) continue;
    if (last.length === 0 || last[last.length - 1] !== SLASH) out.push(Buffer.of(SLASH));
    out.push(p);
    last = p;
  }
  return Buffer.concat(out);
}

/** Everything before the last slash ("/" for a top-level entry). */
export function bdirname(p: Buffer): Buffer {
  let end = p.length;
  while (end > 1 && p[end - 1] === SLASH) end--;
  const i = p.lastIndexOf(SLASH, end - 1);
  if (i < 0) return Buffer.from('.');
  if (i === 0) return Buffer.from('/');
  return p.subarray(0, i);
}

/** `p` is `root` or below it (byte-wise, on slash boundaries). */
export function bIsWithin(p: Buffer, root: Buffer): boolean {
  if (p.equals(root)) return true;
  const r = root[root.length - 1] === SLASH ? root : Buffer.concat([root, Buffer.of(SLASH)]);
  return p.length > r.length && p.subarray(0, r.length).equals(r);
}

/** The part of `p` below `root` (empty when equal); `p` must be within `root`. */
export function brelative(root: Buffer, p: Buffer): Buffer {
  if (p.equals(root)) return Buffer.alloc(0);
  const skip = root[root.length - 1] === SLASH ? root.length : root.length + 1;
  return p.subarray(skip);
}

/** The components of a relative path. */
export function bsplit(p: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= p.length; i++) {
    if (i === p.length || p[i] === SLASH) {
      if (i > start) out.push(p.subarray(start, i));
      start = i + 1;
    }
  }
  return out;
}

/** Slash count: ancestors sort before their descendants. */
export function depth(p: Buffer): number {
  let n = 0;
  for (const b of p) if (b === SLASH) n++;
  return n;
}
