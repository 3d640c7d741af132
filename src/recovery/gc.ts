// Retention and garbage collection of the quarantine (docs/gc.md). Thresholds only MARK restorable
// transactions GC_ELIGIBLE — older than the retention period, or the oldest ones while the restorable
// total exceeds the cap; `gc --execute` is the one thing that purges. A purge is recorded (audit, then
// manifest) before anything is removed, removes only `<quarantine>/<txid>` itself (never through a
// symlink), besides the partial copies of killed cross-filesystem moves and the empty spare
// directories of killed checkers, and never touches the manifest, the audit log, or anything else.
import fs from 'node:fs';
import path from 'node:path';
import { appendRecord, encodePath } from './records.js';
import { bdirname, bIsWithin, bjoin, brelative } from './bpath.js';
import { auditPath, manifestPath, processGone, withQuarantineLock, type QuarantinePlace } from './quarantine.js';
import { listTransactions, type Transaction } from './restore.js';
import { dirEntries, INDEX_FILE, itemDest, loadFolded, tx, type Folded, type TxRow } from './txindex.js';
import { dropKeptRefs } from './snapshot.js';
import { SPARE_NAME } from './spare.js';
import type { GitRunner } from '../probe/git.js';

/** Retention period: a restorable transaction older than this is eligible. */
export const GC_MAX_AGE_DAYS = 30;
/** Cap on the restorable total: above it, the oldest transactions are eligible until the rest fits. */
export const GC_MAX_BYTES = 5 * 1024 ** 3;

const DAY_MS = 86_400_000;

/** What a transaction id looks like; nothing else is ever removed. */
export const TXID_PATTERN = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;

export interface GcOptions {
  /** The time ages are measured from (default: the current time). */
  now?: Date | number;
  /** Default GC_MAX_AGE_DAYS. */
  maxAgeDays?: number;
  /** Default GC_MAX_BYTES. */
  maxBytes?: number;
}

export type GcReason = 'age' | 'cap';

/** A transaction as gc sees it: its state with GC_ELIGIBLE computed, and its size. */
export interface GcTransaction extends Transaction {
  /** Bytes under `<quarantine>/<txid>` (sum of lstat sizes, links not followed); 0 without a directory. */
  bytes: number;
  /** Milliseconds since the transaction started, or null when its time cannot be read. */
  ageMs: number | null;
  /** Set when the state is GC_ELIGIBLE. */
  why?: GcReason;
}

export interface GcCandidate {
  txid: string;
  ts: string;
  ageMs: number | null;
  bytes: number;
  why: GcReason;
  /** Regenerable artifacts (rule 13): purged before anything else under the cap. */
  regenerable?: true;
}

export interface GcPlan {
  quarantine: string;
  /** The quarantine directory exists. */
  exists: boolean;
  now: string;
  maxAgeDays: number;
  maxBytes: number;
  /** Every transaction, oldest first, RESTORABLE ones that meet a threshold as GC_ELIGIBLE. */
  transactions: GcTransaction[];
  /** What `gc --execute` would purge, in the order it purges: regenerable transactions first, then
   *  the rest, each oldest first. */
  eligible: GcCandidate[];
  eligibleBytes: number;
  /** Bytes held by restorable transactions (eligible ones included). */
  restorableBytes: number;
  /** Bytes of everything in the quarantine (records, session files and markers included; the
   *  transaction index, a cache, excluded). */
  quarantineBytes: number;
  /** PURGED transactions whose directory is still there (a removal that did not finish): removed
   *  again by `gc --execute`, without new records. */
  unfinished: { txid: string; bytes: number }[];
  /** Partial copies left by a move across filesystems that was killed mid-copy
   *  (`.agent-guard-copy-*` next to an entry whose move has only its intent), once the process that
   *  made them is gone or a day has passed: the origin still holds the data. Removed by
   *  `gc --execute` (audited), never counted as a transaction's content. */
  staging: StagingCopy[];
  /** Spare transaction directories (spare.ts) of warm checkers that are gone: empty directories,
   *  removed by `gc --execute` with rmdir (one that holds anything is left alone). Names. */
  spares: string[];
  /** Unreadable manifest lines (skipped). */
  corrupt: number;
}

export interface StagingCopy {
  txid: string;
  /** Display path (lossy for names that are not UTF-8) and the exact bytes in base64. */
  path: string;
  pathB64: string;
  bytes: number;
}

/** The prefix of a staging copy's name (quarantine.ts). */
const STAGING_PREFIX = 'agent-guard-copy-';

/** A staging copy is abandoned a day after its transaction started even if the pid is in use again. */
const STAGING_GRACE_MS = DAY_MS;

/** Staging copies next to the intent-only entries of the transactions (targeted: only the
 *  directories those entries were being copied into are read). */
function findStaging(q: QuarantinePlace, folded: Folded, nowMs: number): StagingCopy[] {
  const out: StagingCopy[] = [];
  const quarantineB = Buffer.from(q.quarantine);
  for (const row of folded.txs.values()) {
    const txid = tx.txid(row);
    const pending = tx.items(row).filter((it) => it[3] === 0);
    if (pending.length === 0) continue;
    const started = Date.parse(tx.ts(row));
    if (!processGone(tx.pid(row)) && !(Number.isFinite(started) && nowMs - started > STAGING_GRACE_MS)) continue;
    const dirs = new Map<string, Buffer>();
    // An entry the transaction quarantined may itself be named like a staging copy: never a candidate.
    const own = new Set(tx.items(row).map((it) => bjoin(quarantineB, it[5] !== undefined ? Buffer.from(it[5], 'base64') : Buffer.from(itemDest(txid, it))).toString('base64')));
    for (const it of pending) {
      const dest = it[5] !== undefined ? Buffer.from(it[5], 'base64') : Buffer.from(itemDest(txid, it));
      const dir = bdirname(bjoin(quarantineB, dest));
      dirs.set(dir.toString('base64'), dir);
    }
    for (const dir of dirs.values()) {
      let names: Buffer[];
      try {
        names = fs.readdirSync(dir, { encoding: 'buffer' });
      } catch {
        continue;
      }
      for (const name of names) {
        if (!name.subarray(1).toString('latin1').startsWith(STAGING_PREFIX) || name[0] !== 0x2e) continue;
        const p = bjoin(dir, name);
        if (own.has(p.toString('base64'))) continue;
        const st = lstatOrNull(p);
        if (!st) continue;
        out.push({ txid, path: p.toString('utf8'), pathB64: p.toString('base64'), bytes: st.size + (st.isDirectory() ? treeBytes(p) : 0) });
      }
    }
  }
  return out;
}

export interface GcOutcome {
  purged: GcCandidate[];
  /** Unfinished removals completed by this run. */
  finished: { txid: string; bytes: number }[];
  failed: { txid: string; recorded: boolean; error: string }[];
  freedBytes: number;
  /** Staging copies removed. */
  staging: StagingCopy[];
  /** Spare directories removed. */
  spares: number;
}

function lstatOrNull(p: string | Buffer): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/** Sum of the lstat sizes of every entry below `dir` (not `dir` itself). Symlinks are counted as
 *  links and never followed; names are handled as bytes; unreadable parts are skipped. */
export function treeBytes(dir: string | Buffer): number {
  let total = 0;
  const sep = Buffer.from('/');
  const stack: Buffer[] = [Buffer.isBuffer(dir) ? dir : Buffer.from(dir)];
  while (stack.length > 0) {
    const d = stack.pop()!;
    let names: Buffer[];
    try {
      names = fs.readdirSync(d, { encoding: 'buffer' });
    } catch {
      continue;
    }
    for (const name of names) {
      const p = Buffer.concat([d, sep, name]);
      const st = lstatOrNull(p);
      if (!st) continue;
      total += st.size;
      if (st.isDirectory()) stack.push(p);
    }
  }
  return total;
}

/** When a transaction started: its start record's time, else the time in its id. */
function startTime(tx: Transaction): number | null {
  const t = Date.parse(tx.ts);
  if (Number.isFinite(t)) return t;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-/.exec(tx.txid);
  if (!m) return null;
  const s = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isFinite(s) ? s : null;
}

/** startTime of a transaction of a kept listing (listTransactions' `shared`), computed once. */
const starts = new WeakMap<Transaction, number | null>();
function startOf(t: Transaction): number | null {
  let s = starts.get(t);
  if (s === undefined) starts.set(t, (s = startTime(t)));
  return s;
}

function threshold(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`gc: ${name} must be a non-negative number, not ${String(v)}`);
  return v;
}

/** The quarantine's top-level entries: the size of each (entry included) and which are txid
 *  directories (real directories, not links, named like a txid). */
/** What usage() took from the cached sizes of transaction directories, for one listing of the
 *  quarantine (the very array: dirEntries keeps it while the directory is unchanged) and one state of
 *  the folded transactions (`gen`: their record counts, which key the cached sizes). */
interface Measured {
  txs: Map<string, unknown>;
  gen: number;
  total: number;
  txDirs: Map<string, number>;
  /** The entries measured on every call (no transaction of their name). */
  rest: fs.Dirent[];
}
const measured = new WeakMap<fs.Dirent[], Measured>();

function usage(quarantine: string, folded: Folded): { exists: boolean; total: number; txDirs: Map<string, number>; names: Set<string> } {
  const st = lstatOrNull(quarantine);
  if (!st) return { exists: false, total: 0, txDirs: new Map(), names: new Set() };
  // latin1: each byte of a name is one character, so names are exact without a Buffer each.
  let entries: fs.Dirent[];
  let names: Set<string>;
  try {
    ({ dirents: entries, names } = dirEntries(quarantine));
  } catch {
    return { exists: true, total: 0, txDirs: new Map(), names: new Set() };
  }
  const base = Buffer.from(quarantine.endsWith('/') ? quarantine : `${quarantine}/`);
  const kept = folded.gen === null ? undefined : measured.get(entries);
  const reuse = kept !== undefined && kept.txs === folded.txs && kept.gen === folded.gen;
  // The part served by the cached sizes (kept for the next call inside withFoldedMemory), and the rest.
  let fromRows = reuse ? kept.total : 0;
  const rowDirs = reuse ? kept.txDirs : new Map<string, number>();
  const rest: fs.Dirent[] = reuse ? kept.rest : [];
  let total = 0;
  const txDirs = new Map<string, number>();
  const measure = (entry: fs.Dirent, row: TxRow | undefined): void => {
    const text = entry.name;
    const p = Buffer.concat([base, Buffer.from(text, 'latin1')]);
    const s = lstatOrNull(p);
    if (!s) return;
    const below = s.isDirectory() ? treeBytes(p) : 0;
    if (s.isDirectory() && row) {
      tx.setSize(row, below, s.size);
      fromRows += s.size + below;
      if (TXID_PATTERN.test(text)) rowDirs.set(text, below);
      return;
    }
    total += s.size + below;
    if (s.isDirectory() && TXID_PATTERN.test(text)) txDirs.set(text, below);
  };
  if (reuse) for (const entry of rest) measure(entry, undefined);
  else
    for (const entry of entries) {
      const text = entry.name;
      // The index is a cache of the records, rewritten by the very commands that measure: not counted.
      if (text === INDEX_FILE || text.startsWith(`${INDEX_FILE}.tmp-`)) continue;
      // A transaction directory's size (its own entry included) is cached in the index while its
      // record count is unchanged: no walk, and no stat, for the thousands that do not change.
      const row = entry.isDirectory() ? folded.txs.get(text) : undefined;
      const cached = row ? tx.size(row) : null;
      if (cached) {
        fromRows += cached.self + cached.bytes;
        if (TXID_PATTERN.test(text)) rowDirs.set(text, cached.bytes);
        continue;
      }
      if (!row) rest.push(entry);
      measure(entry, row);
    }
  if (!reuse && folded.gen !== null) measured.set(entries, { txs: folded.txs, gen: folded.gen, total: fromRows, txDirs: rowDirs, rest });
  // Read only by the caller: the kept map itself when nothing else is a transaction directory.
  if (txDirs.size === 0) return { exists: true, total: total + fromRows, txDirs: rowDirs, names };
  for (const [k, v] of rowDirs) txDirs.set(k, v);
  return { exists: true, total: total + fromRows, txDirs, names };
}

/** Does a transaction hold git objects under keep-alive refs of its own (`refs/agent-guard/<txid>/…`:
 *  a snapshot, or the commits of dropped branches and stash entries)? A snapshot of an older version
 *  (in the user's `refs/stash`) does not: gc never touches the user's stash. */
export function keptInRefs(tx: Transaction): boolean {
  const s = tx.snapshot;
  return !!s && tx.itemCount === 0 && (s.ref !== undefined || (s.refs?.length ?? 0) + (s.stashes?.length ?? 0) > 0);
}

/** A transaction gc may purge: restorable, and either its entries in a real `<quarantine>/<txid>`
 *  directory, or its commits under its own keep-alive refs. */
function purgeable(tx: Transaction, txDirs: Map<string, number>): boolean {
  if (tx.state !== 'RESTORABLE' || !TXID_PATTERN.test(tx.txid)) return false;
  return (txDirs.has(tx.txid) && tx.itemCount > 0 && !tx.snapshot) || keptInRefs(tx);
}

/** A copy of a listed transaction for gc's view, its fields written out (a spread copy that then
 *  gets gc's fields was ten times slower for 10,000 transactions: V8 leaves such objects slow). */
function gcView(t: Transaction): GcTransaction {
  const v: GcTransaction = { txid: t.txid, ts: t.ts, session: t.session, command: t.command, pid: t.pid, state: t.state, itemCount: t.itemCount, items: t.items, bytes: 0, ageMs: null };
  if (t.snapshot) v.snapshot = t.snapshot;
  if (t.partly) v.partly = t.partly;
  if (t.regenerable) v.regenerable = t.regenerable;
  return v;
}

/** What gc would do now. Reads only: never creates, moves or removes anything. */
export function planGc(q: QuarantinePlace, opts: GcOptions = {}): GcPlan {
  const nowMs = opts.now === undefined ? Date.now() : typeof opts.now === 'number' ? opts.now : opts.now.getTime();
  if (!Number.isFinite(nowMs)) throw new Error('gc: now must be a valid time');
  const maxAgeDays = threshold('maxAgeDays', opts.maxAgeDays, GC_MAX_AGE_DAYS);
  const maxBytes = threshold('maxBytes', opts.maxBytes, GC_MAX_BYTES);
  const folded = loadFolded(q.quarantine);
  const use = usage(q.quarantine, folded);
  const { transactions, corrupt, shared } = listTransactions(q, folded, { items: false, topLevel: use.names });
  // The listed transactions become gc's view in place (no copies: there may be tens of thousands),
  // unless the listing is kept for the next call (shared: the warm checker).
  const txs = shared ? transactions.map(gcView) : (transactions as GcTransaction[]);
  for (let i = 0; i < txs.length; i++) {
    const t = txs[i]!;
    const start = shared ? startOf(transactions[i]!) : startTime(t);
    t.bytes = use.txDirs.get(t.txid) ?? 0;
    t.ageMs = start === null ? null : nowMs - start;
  }
  const restorable = txs.filter((t) => t.state === 'RESTORABLE');
  const restorableBytes = restorable.reduce((n, t) => n + t.bytes, 0);
  // Regenerable transactions first (their content can be made again), then oldest first; a
  // transaction whose time cannot be read counts as the newest.
  const candidates = restorable.filter((t) => purgeable(t, use.txDirs));
  let remaining = restorableBytes;
  let anyOld = false;
  for (const t of candidates) {
    if (t.ageMs !== null && t.ageMs > maxAgeDays * DAY_MS) {
      t.why = 'age';
      remaining -= t.bytes;
      anyOld = true;
    }
  }
  // The order matters only when something is eligible (the cap's choice, the order of `eligible`).
  if (anyOld || remaining > maxBytes) candidates.sort((a, b) => Number(b.regenerable === true) - Number(a.regenerable === true) || (b.ageMs ?? -Infinity) - (a.ageMs ?? -Infinity) || (a.txid < b.txid ? -1 : 1));
  for (const t of candidates) {
    if (remaining <= maxBytes) break;
    // What lives in git takes no room in the quarantine: only age makes it eligible.
    if (t.why || !use.txDirs.has(t.txid)) continue;
    t.why = 'cap';
    remaining -= t.bytes;
  }
  for (const t of candidates) if (t.why) t.state = 'GC_ELIGIBLE';
  const eligible: GcCandidate[] = candidates.filter((t) => t.why).map((t) => ({ txid: t.txid, ts: t.ts, ageMs: t.ageMs, bytes: t.bytes, why: t.why!, ...(t.regenerable ? { regenerable: true as const } : {}) }));
  const unfinished = txs.filter((t) => t.state === 'PURGED' && TXID_PATTERN.test(t.txid) && use.txDirs.has(t.txid)).map((t) => ({ txid: t.txid, bytes: t.bytes }));
  return {
    quarantine: q.quarantine,
    exists: use.exists,
    now: new Date(nowMs).toISOString(),
    maxAgeDays,
    maxBytes,
    transactions: txs,
    eligible,
    eligibleBytes: eligible.reduce((n, c) => n + c.bytes, 0),
    restorableBytes,
    quarantineBytes: use.total,
    unfinished,
    staging: findStaging(q, folded, nowMs),
    spares: leftSpares(q.quarantine, use.names),
    corrupt,
  };
}

/** The spares (spare.ts) in the quarantine whose process is gone and that are empty real directories. */
function leftSpares(quarantine: string, names: Set<string>): string[] {
  const out: string[] = [];
  for (const name of names) {
    const m = SPARE_NAME.exec(name);
    if (!m || !processGone(Number(m[1]))) continue;
    const p = path.join(quarantine, name);
    const st = lstatOrNull(p);
    try {
      if (st?.isDirectory() && fs.readdirSync(p).length === 0) out.push(name);
    } catch {
      // unreadable: left alone
    }
  }
  return out;
}

/** `<quarantine>/<txid>` if it is safe to remove: a txid, directly under the (physical) quarantine,
 *  a real directory and not a symlink. Throws otherwise. */
function txDir(physicalQuarantine: string, txid: string): string {
  if (!TXID_PATTERN.test(txid)) throw new Error(`${JSON.stringify(txid)} is not a transaction id`);
  const dir = path.join(physicalQuarantine, txid);
  if (path.dirname(dir) !== physicalQuarantine || path.basename(dir) !== txid) throw new Error(`${dir} is not directly under the quarantine`);
  const st = lstatOrNull(dir);
  if (!st) throw Object.assign(new Error(`${dir} does not exist`), { code: 'ENOENT' });
  if (st.isSymbolicLink() || !st.isDirectory()) throw new Error(`${dir} is not a directory (a symlink or file is never followed or removed)`);
  return dir;
}

/** Purges what the plan marked, and finishes removals a previous run left. For each transaction: a
 *  `purge` record goes to audit.jsonl, then to manifest.jsonl (write-ahead: if either cannot be
 *  written, nothing is removed), then `<quarantine>/<txid>` is removed with fs.rmSync, which unlinks
 *  symlinks inside rather than following them. Besides those, only the partial copies of killed
 *  cross-filesystem moves (`plan.staging`, audited) and the empty spares of checkers that are gone
 *  (`plan.spares`, rmdir) are removed. */
export function executeGc(q: QuarantinePlace, plan: GcPlan, opts: GcExecuteOptions): GcOutcome {
  if (plan.eligible.length === 0 && plan.unfinished.length === 0 && plan.staging.length === 0 && plan.spares.length === 0) return { purged: [], finished: [], failed: [], freedBytes: 0, staging: [], spares: 0 };
  // Under the quarantine's lock: a restore of the same transaction waits, and then finds it purged
  // (or gc finds it restored and leaves it).
  return withQuarantineLock(q, () => executeLocked(q, plan, opts));
}

export interface GcExecuteOptions {
  session: string | null;
  /** Removes the keep-alive refs of purged snapshot and refs transactions; without it they fail. */
  git?: GitRunner;
}

function executeLocked(q: QuarantinePlace, plan: GcPlan, opts: GcExecuteOptions): GcOutcome {
  const out: GcOutcome = { purged: [], finished: [], failed: [], freedBytes: 0, staging: [], spares: 0 };
  let physical: string;
  try {
    physical = fs.realpathSync(q.quarantine);
  } catch (err) {
    for (const c of [...plan.eligible, ...plan.unfinished]) out.failed.push({ txid: c.txid, recorded: false, error: `the quarantine cannot be resolved: ${(err as Error).message}` });
    return out;
  }
  // Re-read the states: a transaction restored since the plan was made is no longer purged.
  const now = new Map(listTransactions(q, undefined, { items: false }).transactions.map((t) => [t.txid, t]));
  const states = new Map([...now.values()].map((t) => [t.txid, t.state]));
  for (const c of plan.eligible) {
    let dir: string | null;
    const t = now.get(c.txid);
    const refs = t !== undefined && keptInRefs(t) ? t.snapshot! : null;
    try {
      if (states.get(c.txid) !== 'RESTORABLE') throw new Error(`no longer restorable (now ${states.get(c.txid) ?? 'unknown'}); left alone`);
      if (refs && !opts.git) throw new Error('its commits are kept by git refs, and there is no git to remove them with; left alone');
      dir = refs && !fs.existsSync(path.join(physical, c.txid)) ? null : txDir(physical, c.txid);
    } catch (err) {
      out.failed.push({ txid: c.txid, recorded: false, error: (err as Error).message });
      continue;
    }
    const bytes = dir ? treeBytes(dir) : 0;
    const record = { kind: 'purge' as const, txid: c.txid, session: opts.session, bytes, reason: c.why };
    try {
      // The audit first: a purge in the manifest then always has its audit record, and a failure
      // here leaves the transaction restorable and untouched.
      appendRecord(auditPath(q), record);
      appendRecord(manifestPath(q), record);
    } catch (err) {
      out.failed.push({ txid: c.txid, recorded: false, error: `not recorded, nothing removed: ${(err as Error).message}` });
      continue;
    }
    if (refs) {
      const error = dropKeptRefs(opts.git!, c.txid, refs.repo, refs.globals);
      if (error) {
        out.failed.push({ txid: c.txid, recorded: true, error: `purge recorded but its refs were not all removed (git for-each-ref refs/agent-guard/${c.txid}/ lists them): ${error}` });
        continue;
      }
    }
    try {
      if (dir) fs.rmSync(dir, { recursive: true });
    } catch (err) {
      out.failed.push({ txid: c.txid, recorded: true, error: `purge recorded but the removal did not finish (run gc --execute again): ${(err as Error).message}` });
      continue;
    }
    out.purged.push({ ...c, bytes });
    out.freedBytes += bytes;
  }
  for (const u of plan.unfinished) {
    try {
      if (states.get(u.txid) !== 'PURGED') throw new Error('not purged; left alone');
      const dir = txDir(physical, u.txid);
      const bytes = treeBytes(dir);
      fs.rmSync(dir, { recursive: true });
      out.finished.push({ txid: u.txid, bytes });
      out.freedBytes += bytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // finished by someone else
      out.failed.push({ txid: u.txid, recorded: true, error: `the removal did not finish: ${(err as Error).message}` });
    }
  }
  for (const c of plan.staging) {
    const p = Buffer.from(c.pathB64, 'base64');
    // Only a name made by the relocation, directly inside the quarantine's own tree.
    if (!bIsWithin(p, Buffer.from(physical)) || p.equals(Buffer.from(physical))) continue;
    try {
      appendRecord(auditPath(q), { kind: 'purge', txid: c.txid, session: opts.session, bytes: c.bytes, reason: 'staging', staging: encodePath(brelative(Buffer.from(physical), p)) });
      fs.rmSync(p, { recursive: true, force: true });
      out.staging.push(c);
      out.freedBytes += c.bytes;
    } catch (err) {
      out.failed.push({ txid: c.txid, recorded: false, error: `the staging copy ${c.path} was not removed: ${(err as Error).message}` });
    }
  }
  // Empty directories: rmdir removes nothing else, and one that holds anything now stays.
  for (const name of plan.spares) {
    if (!SPARE_NAME.test(name)) continue;
    try {
      fs.rmdirSync(path.join(physical, name));
      out.spares++;
    } catch {
      // gone, or not empty any more: left alone
    }
  }
  return out;
}

/** 1536 → "1.5 KiB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** A duration for people: "45d", "3h", "12m" ("?" when unknown). */
export function formatAge(ms: number | null): string {
  if (ms === null) return '?';
  if (ms < 0) return 'future';
  if (ms >= DAY_MS) return `${Math.floor(ms / DAY_MS)}d`;
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)}h`;
  return `${Math.floor(ms / 60_000)}m`;
}
