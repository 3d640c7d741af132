// Random hex for the names the recovery module makes (txids, staging copies, spare directories), from
// a pool filled 256 bytes at a time: one call into node:crypto for many names of a long-lived
// process (the warm checker names three per relocation). node:crypto is loaded on first use, not at
// start-up (every check pays for start-up).
let pool = Buffer.alloc(0);
let poolAt = 0;

export function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    pool = process.getBuiltinModule('node:crypto').randomBytes(Math.max(256, bytes));
    poolAt = 0;
  }
  poolAt += bytes;
  return pool.toString('hex', poolAt - bytes, poolAt);
}
