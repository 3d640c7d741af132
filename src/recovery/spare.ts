// Spare transaction directories: the warm checker makes the next transaction's directory while it
// waits for the next request, so a relocation on its critical path renames an empty directory into
// place instead of creating one. On ext4 here a `mkdir` cost 0.03–2 ms (a new inode and a directory
// block), a `rename` of an empty directory 0.02–0.04 ms (docs/performance.md, "Where a warm rm
// spends its time"). Only a long-lived process enables them: a one-shot process would make a spare
// it never uses.
//
// A spare is `<quarantine>/.agent-guard-spare-<pid>-<hex>`, mode 0700, empty. It is taken only by
// the process that made it (the pid in its name), checked to be still an empty real directory, and
// renamed to `<txid>`; anything else falls back to `mkdir`. The process removes its spares when it
// stops; one left by a killed process is an empty directory that `gc --execute` removes (rmdir, never
// recursive: a spare that holds anything is left alone).
import fs from 'node:fs';
import { bjoin } from './bpath.js';
import { randomHex } from './random.js';

/** `.agent-guard-spare-<pid>-<hex>`: the pid that made it, and a random part. */
export const SPARE_NAME = /^\.agent-guard-spare-([1-9]\d*)-[0-9a-f]{12}$/;
/** At most this many quarantines get a spare at a time (the most recently used ones). */
const MAX_QUARANTINES = 4;

/** quarantine (its path as given to relocate) → the spare made for it, or null when one is wanted. */
let spares: Map<string, Buffer | null> | null = null;

/** Turns spares on for this process (the warm checker). */
export function enableSpares(): void {
  spares ??= new Map();
}

/** Makes the directory of a new transaction: the spare of `quarantine` renamed to `txdir` when this
 *  process has one, else a mkdir (mode 0700). Remembers that `quarantine` wants a spare. */
export function makeTxDir(quarantine: Buffer, txdir: Buffer): void {
  if (spares !== null) {
    const key = quarantine.toString('latin1');
    const spare = spares.get(key) ?? null;
    spares.delete(key);
    spares.set(key, null); // most recently used last
    if (spare !== null && takeable(spare)) {
      try {
        fs.renameSync(spare, txdir);
        return;
      } catch {
        // gone, or txdir is there: mkdir below decides
      }
    }
  }
  fs.mkdirSync(txdir, { mode: 0o700 });
}

/** Is `p` still what this process made: a real directory (not a link), empty? */
function takeable(p: Buffer): boolean {
  try {
    const st = fs.lstatSync(p);
    return st.isDirectory() && !st.isSymbolicLink() && fs.readdirSync(p).length === 0;
  } catch {
    return false;
  }
}

/** Makes a spare for each quarantine that used its own (or had none) since the last call. Failures
 *  are ignored: the next transaction makes its directory itself. */
export function refillSpares(): void {
  if (spares === null) return;
  while (spares.size > MAX_QUARANTINES) {
    const [oldest, spare] = spares.entries().next().value!;
    spares.delete(oldest);
    if (spare) removeSpare(spare);
  }
  for (const [key, spare] of spares) {
    if (spare !== null) continue;
    const p = bjoin(Buffer.from(key, 'latin1'), Buffer.from(`.agent-guard-spare-${process.pid}-${randomHex(6)}`));
    try {
      fs.mkdirSync(p, { mode: 0o700 });
      spares.set(key, p);
    } catch {
      spares.delete(key); // the quarantine is gone or full: no spare for it
    }
  }
}

/** Removes this process's spares (when it stops). */
export function dropSpares(): void {
  if (spares === null) return;
  for (const spare of spares.values()) if (spare) removeSpare(spare);
  spares.clear();
}

function removeSpare(p: Buffer): void {
  try {
    fs.rmdirSync(p);
  } catch {
    // gone, or not empty: left alone
  }
}
