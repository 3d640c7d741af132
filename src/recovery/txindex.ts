// The transaction index: a cache of what the manifest says about each transaction, folded up to a
// byte offset, so `restore list`, `status` and `gc` read only the manifest's new lines rather than
// all of it (docs/records.md, "The index"). The manifest stays the one source of truth: the index is
// used only when the manifest is the same file, at least as long, and ends the indexed part with the
// same bytes; otherwise (or when the index does not parse) it is rebuilt from the manifest. Writing
// it is best effort (a read-only quarantine just goes without). It also caches the size of each
// transaction directory, keyed by how many records the transaction had when it was measured: every
// change the guard makes to a transaction directory (relocate, restore, purge) adds a record.
//
// In memory and on disk a transaction is one array (TxRow), not an object graph: the index of
// 10,000 transactions is parsed on every `restore list` and `status`, in a fresh process, and object
// churn was most of that cost (docs/performance.md).
import fs from 'node:fs';
import path from 'node:path';
import { decodePath, readRecordsFrom, type StoredRecord } from './records.js';
import type { HeadState } from './head.js';

export const INDEX_FILE = 'index.json';
const INDEX_VERSION = 7;
/** Bytes before the indexed offset that must match, and how many more 64-byte samples spread over
 *  the indexed part must match too (catches a manifest replaced or rewritten in place, without
 *  reading it all: that is what the index saves). */
const TAIL = 64;
const SAMPLES = 32;

export interface PathField {
  path?: unknown;
  pathB64?: unknown;
}

/** One quarantined entry: [origin relative to the workspace, dest relative to the quarantine or
 *  null when it is `<txid>/<origin>`, type, completed (1) or intent only (0), and — only for a name
 *  that is not UTF-8 — the exact origin and dest bytes in base64]. Without the base64 forms the
 *  display paths are exact. */
export type ItemRow = [string, string | null, string, number, string?, string?];

export type Snap = {
  stash: string | null;
  /** The ref that keeps the snapshot (`refs/agent-guard/<txid>/snapshot`); absent in records of an
   *  older version, which kept it in `refs/stash`. */
  ref?: string;
  /** HEAD before the command, and where the command was to leave it (null: not known). */
  before?: HeadState;
  after?: HeadState | null;
  repo: string;
  globals: string[];
  /** Refs and stash entries a git command dropped (recordRefs). */
  refs?: { ref: string; sha: string }[];
  stashes?: { sha: string; message: string }[];
};

/** [txid, ts, session, command, pid, flags (1 started, 2 restored, 4 purged, 8 partly restored
 *  (`restore <txid> PATH…`), 16 snapshot applied, 32 regenerable), records, items,
 *  snapshot or null, cached size: bytes below the directory, record count when measured, the
 *  directory entry's own size]. */
export type TxRow = [string, string, string | null, string | null, number | null, number, number, ItemRow[], Snap | null, number?, number?, number?];

export const STARTED = 1;
export const RESTORED = 2;
export const PURGED = 4;
/** A restore of chosen paths only. */
export const PARTIAL = 8;
/** The snapshot itself was applied by a restore. */
export const APPLIED = 16;
/** Its tx-start says `regenerable: true` (rule 13's relocation: gc purges these first). */
export const REGENERABLE = 32;

/** Accessors over a TxRow (no copies). */
export const tx = {
  txid: (t: TxRow): string => t[0],
  ts: (t: TxRow): string => t[1],
  session: (t: TxRow): string | null => t[2],
  command: (t: TxRow): string | null => t[3],
  pid: (t: TxRow): number | null => t[4],
  has: (t: TxRow, flag: number): boolean => (t[5] & flag) !== 0,
  recs: (t: TxRow): number => t[6],
  items: (t: TxRow): ItemRow[] => t[7],
  snap: (t: TxRow): Snap | null => t[8],
  /** The cached size when still valid: { bytes, self }. */
  size: (t: TxRow): { bytes: number; self: number } | null => (t[9] !== undefined && t[10] === t[6] && t[11] !== undefined ? { bytes: t[9], self: t[11] } : null),
  setSize: (t: TxRow, bytes: number, self: number): void => {
    t[9] = bytes;
    t[10] = t[6];
    t[11] = self;
  },
};

/** An item's dest relative to the quarantine. */
export const itemDest = (txid: string, it: ItemRow): string => it[1] ?? `${txid}/${it[0]}`;

export interface Folded {
  txs: Map<string, TxRow>;
  readonly corrupt: number;
  /** Inside withFoldedMemory: a number that changes whenever `txs` (kept in memory between calls)
   *  changes; null otherwise. What is derived from the same `txs` and `gen` may be reused. */
  readonly gen: number | null;
  /** Writes the index back if anything changed (best effort). */
  save(): void;
}

/** A record's display path when it is the exact name (UTF-8 without replacement characters, and
 *  consistent with pathB64's length); null when the bytes must be decoded from pathB64. */
export function plainPath(f: PathField): string | null {
  const p = f.path;
  if (typeof p !== 'string' || p.includes('\uFFFD')) return null;
  if (f.pathB64 === undefined) return p;
  if (typeof f.pathB64 !== 'string') return null;
  return Math.ceil(Buffer.byteLength(p) / 3) * 4 === f.pathB64.length ? p : null;
}

/** A path field of a record as (display, base64 when the display is not exact); null if invalid. */
function field(f: PathField): { shown: string; b64?: string } | null {
  const plain = plainPath(f);
  if (plain !== null) return { shown: plain };
  try {
    const bytes = decodePath(f);
    return { shown: bytes.toString('utf8'), b64: bytes.toString('base64') };
  } catch {
    return null;
  }
}

/** A recorded HEAD state, or null when it is not one. */
function head(v: unknown): HeadState | null {
  if (v === null || typeof v !== 'object') return null;
  const { ref, sha } = v as Record<string, unknown>;
  if ((ref !== null && typeof ref !== 'string') || (sha !== null && typeof sha !== 'string')) return null;
  return { ref, sha };
}

const keyOf = (txid: string, it: ItemRow): string => (it[5] !== undefined ? `b64:${it[5]}` : itemDest(txid, it));

function fold(txs: Map<string, TxRow>, records: readonly StoredRecord[]): void {
  // Items of the transactions touched here, by dest, so an intent and its completion are one item.
  const keyed = new Map<TxRow, Map<string, ItemRow>>();
  for (const r of records) {
    if (typeof r.txid !== 'string') continue;
    const txid = r.txid;
    let t = txs.get(txid);
    if (!t) {
      t = [txid, String(r.ts ?? ''), null, null, null, 0, 0, [], null];
      txs.set(txid, t);
    }
    t[6]++;
    switch (r.kind) {
      case 'tx-start':
        t[5] |= STARTED;
        t[1] = String(r.ts ?? t[1]);
        t[2] = typeof r.session === 'string' ? r.session : null;
        t[3] = typeof r.command === 'string' ? r.command : null;
        t[4] = typeof r.pid === 'number' ? r.pid : null;
        if (r.regenerable === true) t[5] |= REGENERABLE;
        break;
      case 'relocate-intent':
      case 'relocate': {
        const dest = r.dest as PathField | undefined;
        const origin = r.origin as PathField | undefined;
        if (!dest || !origin || typeof dest !== 'object' || typeof origin !== 'object') break;
        const o = field(origin);
        const d = field(dest);
        if (!o || !d) break;
        let byKey = keyed.get(t);
        if (!byKey) {
          byKey = new Map(t[7].map((i) => [keyOf(txid, i), i]));
          keyed.set(t, byKey);
        }
        const item: ItemRow = [o.shown, d.shown === `${txid}/${o.shown}` ? null : d.shown, String(r.type ?? 'file'), r.kind === 'relocate' ? 1 : 0];
        if (o.b64 !== undefined || d.b64 !== undefined) item.push(o.b64 ?? Buffer.from(o.shown).toString('base64'), d.b64 ?? Buffer.from(d.shown).toString('base64'));
        const prev = byKey.get(keyOf(txid, item));
        if (prev) {
          // The latest record for a dest says where it came from; completion is never undone.
          const completed = prev[3] || item[3];
          prev.splice(0, prev.length, ...item);
          prev[3] = completed;
        } else {
          byKey.set(keyOf(txid, item), item);
          t[7].push(item);
        }
        break;
      }
      case 'snapshot':
        if (typeof r.repo === 'string') {
          const snap: Snap = { stash: typeof r.stash === 'string' ? r.stash : null, repo: r.repo, globals: Array.isArray(r.globals) ? r.globals.map(String) : [] };
          if (typeof r.ref === 'string') snap.ref = r.ref;
          const before = head(r.before);
          if (before) snap.before = before;
          if (r.after !== undefined) snap.after = head(r.after);
          t[8] = snap;
        }
        break;
      case 'refs': {
        const list = <T>(v: unknown, ok: (x: Record<string, unknown>) => boolean): T[] => (Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object' && ok(x as Record<string, unknown>)) as T[]) : []);
        if (typeof r.repo !== 'string') break;
        t[8] = {
          stash: t[8]?.stash ?? null,
          repo: r.repo,
          globals: Array.isArray(r.globals) ? r.globals.map(String) : [],
          refs: list<{ ref: string; sha: string }>(r.refs, (x) => typeof x.ref === 'string' && typeof x.sha === 'string'),
          stashes: list<{ sha: string; message: string }>(r.stashes, (x) => typeof x.sha === 'string' && typeof x.message === 'string'),
        };
        break;
      }
      case 'restore': {
        t[5] |= Array.isArray(r.paths) ? PARTIAL : RESTORED;
        const stash = t[8]?.stash;
        if (stash && Array.isArray(r.restored) && r.restored.some((x) => typeof x === 'string' && x.startsWith(`stash ${stash}`))) t[5] |= APPLIED;
        break;
      }
      case 'purge':
        t[5] |= PURGED;
        break;
    }
  }
}

interface Stored {
  v: number;
  ino: number;
  offset: number;
  tail: string;
  corrupt: number;
  txs: TxRow[];
}

/** The fingerprint of the manifest's first `offset` bytes: its last 64 bytes and SAMPLES spread
 *  64-byte samples, base64. */
function readTail(file: string, offset: number): string | null {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const parts: Buffer[] = [];
      const positions = [Math.max(0, offset - TAIL)];
      if (offset > TAIL * 2) for (let i = 0; i < SAMPLES; i++) positions.push(Math.floor(((offset - TAIL) * i) / SAMPLES));
      for (const at of positions) {
        const n = Math.min(TAIL, offset - at);
        const buf = Buffer.alloc(n);
        if (fs.readSync(fd, buf, 0, n, at) !== n) return null;
        parts.push(buf);
      }
      return Buffer.concat(parts).toString('base64');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

function loadIndex(indexFile: string, manifest: string): Stored | null {
  let stored: Stored;
  try {
    stored = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as Stored;
  } catch {
    return null;
  }
  if (stored?.v !== INDEX_VERSION || !Array.isArray(stored.txs) || typeof stored.offset !== 'number' || typeof stored.corrupt !== 'number') return null;
  const st = fs.statSync(manifest, { throwIfNoEntry: false });
  if (!st || st.ino !== stored.ino || st.size < stored.offset) return null;
  return readTail(manifest, stored.offset) === stored.tail ? stored : null;
}

/** A fingerprint of the cached sizes, to tell whether a save has anything new to write. */
function sizeStamp(txs: Map<string, TxRow>): number {
  let n = 0;
  for (const t of txs.values()) if (t[10] !== undefined) n += (t[10] ?? 0) + 1;
  return n;
}

/** What a long-lived process (the warm checker, inside withFoldedMemory) keeps of a quarantine
 *  between calls: the folded transactions up to `offset` and the manifest's fingerprint there. */
interface Memo {
  ino: number;
  offset: number;
  tail: string;
  corrupt: number;
  txs: Map<string, TxRow>;
  gen: number;
}
let generations = 0;
/** Quarantines remembered at most (the least recently used is dropped). */
const MEMO_MAX = 8;
const memo = new Map<string, Memo>();
let memoOn = false;

/** Runs `fn` with loadFolded keeping what it folded in memory for the next call in this process, in
 *  place of parsing the index file again. The memory is used under the index's own rule (the same
 *  manifest inode, at least as long, the same fingerprint at the remembered offset), and only the
 *  manifest's lines after that offset are read: an answer is as fresh as the manifest. */
export function withFoldedMemory<T>(fn: () => T): T {
  const was = memoOn;
  memoOn = true;
  try {
    return fn();
  } finally {
    memoOn = was;
  }
}

/** The remembered state of `quarantine` when the manifest still begins with what it folded. */
function recall(quarantine: string, manifest: string): Memo | null {
  const m = memo.get(quarantine);
  if (!m) return null;
  memo.delete(quarantine); // re-inserted (most recent) by remember() when still good
  const st = fs.statSync(manifest, { throwIfNoEntry: false });
  if (!st || st.ino !== m.ino || st.size < m.offset || readTail(manifest, m.offset) !== m.tail) return null;
  return m;
}

function remember(quarantine: string, manifest: string, m: Omit<Memo, 'ino' | 'tail'>): void {
  const ino = fs.statSync(manifest, { throwIfNoEntry: false })?.ino;
  const tail = readTail(manifest, m.offset);
  if (ino === undefined || tail === null) return;
  memo.set(quarantine, { ...m, ino, tail });
  if (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value!);
}

/** A directory's entries, as latin1 names (each byte one character: exact without a Buffer each). */
export interface DirEntries {
  dirents: fs.Dirent[];
  names: Set<string>;
}
/** A listing is remembered only when the directory had not changed for this long when it was read:
 *  any later change of its entries then gives it a later ctime (the kernel's coarse clock ticks in
 *  at most 10 ms), so an unchanged ctime means unchanged entries. */
const SETTLED_MS = 1000;
const dirMemo = new Map<string, { ino: bigint; mtime: bigint; ctime: bigint; entries: DirEntries }>();

/** The entries of `dir` (a quarantine); throws as readdirSync does. Inside withFoldedMemory a
 *  listing is reused while the directory's inode, mtime and ctime are unchanged (SETTLED_MS). */
export function dirEntries(dir: string): DirEntries {
  const read = (): DirEntries => {
    const dirents = fs.readdirSync(dir, { encoding: 'latin1', withFileTypes: true });
    return { dirents, names: new Set(dirents.map((d) => d.name)) };
  };
  if (!memoOn) return read();
  const st = fs.statSync(dir, { bigint: true });
  const m = dirMemo.get(dir);
  if (m && m.ino === st.ino && m.mtime === st.mtimeNs && m.ctime === st.ctimeNs) return m.entries;
  dirMemo.delete(dir);
  const entries = read();
  if (Date.now() - Number(st.ctimeMs) > SETTLED_MS && Date.now() - Number(st.mtimeMs) > SETTLED_MS) {
    dirMemo.set(dir, { ino: st.ino, mtime: st.mtimeNs, ctime: st.ctimeNs, entries });
    if (dirMemo.size > MEMO_MAX) dirMemo.delete(dirMemo.keys().next().value!);
  }
  return entries;
}

/** The transactions of a quarantine's manifest, from the index plus the manifest's new lines. */
export function loadFolded(quarantine: string): Folded {
  const manifest = path.join(quarantine, 'manifest.jsonl');
  const indexFile = path.join(quarantine, INDEX_FILE);
  const recalled = memoOn ? recall(quarantine, manifest) : null;
  const stored = recalled ? null : loadIndex(indexFile, manifest);
  let txs = new Map<string, TxRow>();
  let corrupt = 0;
  let offset = 0;
  if (recalled) {
    txs = recalled.txs;
    corrupt = recalled.corrupt;
    offset = recalled.offset;
  } else if (stored) {
    for (const t of stored.txs) txs.set(t[0], t);
    corrupt = stored.corrupt;
    offset = stored.offset;
  }
  const fresh = readRecordsFrom(manifest, offset);
  fold(txs, fresh.records);
  corrupt += fresh.corrupt.length;
  const changed = fresh.complete > offset;
  // Records of a partial last line (a torn write) are used now but never indexed: the index is
  // rebuilt from the manifest until the line is complete.
  const torn = fresh.complete !== fresh.size;
  // The same rule for the memory: a fold that holds a torn line's records is not remembered.
  let gen: number | null = null;
  if (memoOn && !torn) {
    gen = recalled && fresh.records.length === 0 ? recalled.gen : ++generations;
    remember(quarantine, manifest, { offset: fresh.complete, corrupt, txs, gen });
  }
  const stamp = sizeStamp(txs);
  return {
    txs,
    corrupt,
    gen,
    save(): void {
      if (torn || (!changed && sizeStamp(txs) === stamp)) return;
      const ino = fs.statSync(manifest, { throwIfNoEntry: false })?.ino;
      const tail = readTail(manifest, fresh.complete);
      if (ino === undefined || tail === null) return;
      const out: Stored = { v: INDEX_VERSION, ino, offset: fresh.complete, tail, corrupt, txs: [...txs.values()] };
      const tmp = `${indexFile}.tmp-${process.pid}`;
      try {
        fs.writeFileSync(tmp, JSON.stringify(out), { mode: 0o600 });
        fs.renameSync(tmp, indexFile);
      } catch {
        try {
          fs.unlinkSync(tmp);
        } catch {
          // nothing written
        }
      }
    },
  };
}
