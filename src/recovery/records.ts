// The append-only JSONL record store behind `.agent-trash/manifest.jsonl` and `.agent-trash/audit.jsonl`.
// One record is one line, written by one write(2) on an O_APPEND descriptor — concurrent agents never
// tear or interleave each other's lines — and, unless the caller says it need not be, fsync'd before
// the call returns, so that it survives a power cut (docs/records.md: which records are). Readers skip what they cannot parse and say so.
import fs from 'node:fs';
import path from 'node:path';
import { redact } from './redact.js';

export const RECORD_VERSION = 1;

export const RECORD_KINDS = ['tx-start', 'relocate-intent', 'relocate', 'relocate-failed', 'snapshot', 'refs', 'restore', 'purge', 'decision', 'mode', 'grant'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface RecordBase {
  v: typeof RECORD_VERSION;
  kind: RecordKind;
  /** ISO-8601 UTC. */
  ts: string;
  txid: string | null;
  session: string | null;
  pid: number;
}

export type StoredRecord = RecordBase & Record<string, unknown>;

export type NewRecord = Omit<RecordBase, 'v' | 'ts' | 'pid'> & Partial<Pick<RecordBase, 'ts' | 'pid'>> & Record<string, unknown>;

/** How much of a corrupt line is reported. */
const CORRUPT_TEXT_MAX = 200;

// Errors name the step and the file; the cause is kept for the code (ENOSPC, EACCES, …).
function fail(step: string, file: string, cause: unknown): Error {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new Error(`cannot append a record to ${file}: ${step} failed: ${why}`, { cause });
}

// The full record as stored: base fields first, then the caller's fields; `command` redacted here
// as well, so no caller can store a secret by forgetting to.
function complete(record: NewRecord): StoredRecord {
  if (!(RECORD_KINDS as readonly unknown[]).includes(record.kind)) throw new Error(`unknown record kind: ${String(record.kind)}`);
  for (const key of ['txid', 'session'] as const) {
    const value: unknown = record[key];
    if (value !== null && typeof value !== 'string') throw new Error(`record field ${key} must be a string or null`);
  }
  const { kind, txid, session, ts, pid, ...rest } = record;
  const out: StoredRecord = { v: RECORD_VERSION, kind, ts: ts ?? new Date().toISOString(), txid, session, pid: pid ?? process.pid, ...rest };
  out.v = RECORD_VERSION;
  if (typeof out.command === 'string') out.command = redact(out.command);
  return out;
}

// Makes a new file's directory entry durable (fsync of the file covers its data, not its name).
// Windows cannot open a directory for this, and some filesystems refuse to sync one (EINVAL).
function fsyncDir(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = step('opening the directory', dir, () => fs.openSync(dir, 'r'));
  try {
    fs.fsyncSync(fd);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw fail('fsync of the directory', dir, e);
  } finally {
    fs.closeSync(fd);
  }
}

// Runs one step of an append, naming it in the error if it fails.
function step<T>(name: string, file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw fail(name, file, e);
  }
}

/** Appends one record as one line: opened with O_APPEND|O_CREAT (mode 0o600), the whole line written
 *  by ONE write call (so concurrent writers never interleave or tear lines), fsync'd, closed — durable
 *  when it returns. `{ sync: false }` skips the fsync for a record whose loss in a power cut loses
 *  nothing (a transaction's start and completion records, audit decisions: the next fsync of the
 *  file — the next write-ahead intent — or the kernel's writeback takes it to the disk; a killed
 *  process never loses it). `{ deferrable: true }` (with `sync: false`) lets a `deferringRecords`
 *  scope postpone the write until its caller has answered (the warm checker). Throws (an Error with a
 *  clear message) if any step fails — the caller treats that as "not recorded". Fills v/ts/pid when
 *  missing. Creates no directories. */
export function appendRecord(file: string, record: NewRecord, opts: { sync?: boolean; deferrable?: boolean } = {}): StoredRecord {
  return appendRecords(file, [record], opts)[0]!;
}

/** appendRecord for several records of one file in ONE write (and one fsync): a transaction's start
 *  with its first intent. The lines land together or not at all. */
export function appendRecords(file: string, records: readonly NewRecord[], opts: { sync?: boolean; deferrable?: boolean } = {}): StoredRecord[] {
  const full = records.map(complete);
  const line = step('serialising the record', file, () => Buffer.from(full.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8'));
  if (opts.sync === false && opts.deferrable && deferred !== null) {
    // Best effort by the caller's own terms: a later failure has no one left to tell.
    deferred.push(() => writeLine(file, line, false));
    return full;
  }
  writeLine(file, line, opts.sync !== false);
  return full;
}

// Opens, writes the whole buffer with one write(2), fsyncs when asked, closes.
function writeLine(file: string, line: Buffer, sync: boolean): void {
  const fd = step('open', file, () => fs.openSync(file, 'a', 0o600));
  let pending: unknown = null;
  try {
    // Every writer that finds the file empty syncs the directory before writing, so a non-empty
    // file means the first writer's directory sync is done: no record outlives a lost file name.
    if (step('fstat', file, () => fs.fstatSync(fd).size) === 0) fsyncDir(path.dirname(path.resolve(file)));
    const written = step('write', file, () => fs.writeSync(fd, line));
    // A second write could land after another writer's line: a short write is a failure, not a loop.
    if (written !== line.length) throw fail('write', file, new Error(`short write: ${written} of ${line.length} bytes`));
    if (sync) step('fsync', file, () => fs.fsyncSync(fd));
  } catch (e) {
    pending = e;
  }
  try {
    fs.closeSync(fd);
  } catch (e) {
    pending ??= fail('close', file, e);
  }
  if (pending !== null) throw pending;
}

/** The writes postponed by the current `deferringRecords` scope (null: none is open). */
let deferred: (() => void)[] | null = null;

/** Runs `fn` with the deferrable best-effort records it appends (a relocation's completion records,
 *  audit decisions) postponed: `flush` writes them, in order, failures ignored. The warm checker
 *  answers its client first and flushes right after, before it reads the next request; a checker
 *  killed in between loses only those records — the intents are on disk, so every move stays
 *  discoverable and restorable (docs/records.md). */
export function deferringRecords<T>(fn: () => T): { value: T; flush: () => void } {
  const outer = deferred;
  const mine: (() => void)[] = [];
  deferred = mine;
  let value: T;
  try {
    value = fn();
  } catch (e) {
    deferred = outer;
    flushWrites(mine);
    throw e;
  }
  deferred = outer;
  return { value, flush: () => flushWrites(mine) };
}

function flushWrites(writes: (() => void)[]): void {
  for (const w of writes.splice(0)) {
    try {
      w();
    } catch {
      // best effort: the records the scope may defer are the ones whose loss loses nothing
    }
  }
}

// A parsed line is a record when it is an object with a numeric version and a kind.
function asRecord(text: string): StoredRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const r = value as Record<string, unknown>;
  return typeof r.v === 'number' && typeof r.kind === 'string' && r.kind !== '' ? (r as StoredRecord) : null;
}

/** Where a record written after a torn line starts: a crash mid-write leaves a line without its
 *  newline, and the next append lands on the same line. Only the writer's own shape is looked for. */
const RECORD_START = `{"v":`;

/** How many record starts in one corrupt line are tried (each try parses the rest of the line). */
const SALVAGE_TRIES = 8;

// The record glued after a torn prefix, if the line has one: the first record start whose rest parses.
function salvage(text: string): StoredRecord | null {
  let at = text.indexOf(RECORD_START, 1);
  for (let i = 0; at > 0 && i < SALVAGE_TRIES; i++) {
    const rec = asRecord(text.slice(at));
    if (rec !== null) return rec;
    at = text.indexOf(RECORD_START, at + 1);
  }
  return null;
}

// Cuts a corrupt line for the report without splitting a surrogate pair.
function excerpt(text: string): string {
  if (text.length <= CORRUPT_TEXT_MAX) return text;
  const cut = text.slice(0, CORRUPT_TEXT_MAX);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** Reads every record; a line that does not parse, or lacks v/kind, is reported in `corrupt` (1-based
 *  line number and the text, truncated to 200 chars) and skipped — never throws for bad content; a
 *  missing file is empty. A record appended right after a torn line (same line, after the torn
 *  prefix) is still returned, and the line is still reported. */
export function readRecords(file: string): { records: StoredRecord[]; corrupt: { line: number; text: string }[] } {
  const r = readRecordsFrom(file, 0);
  return { records: r.records, corrupt: r.corrupt };
}

export interface RecordsFrom {
  records: StoredRecord[];
  /** Line numbers count from the start offset (1 = the first line read). */
  corrupt: { line: number; text: string }[];
  /** Offset just after the last complete (newline-terminated) line read: where the next read of
   *  complete lines starts. A partial last line (a torn write) is read but not counted here. */
  complete: number;
  /** How many bytes the file held. */
  size: number;
}

/** readRecords from a byte offset (the start of a line). Lines are split on the newline byte, which
 *  JSON never holds unescaped, and only each line is decoded. */
export function readRecordsFrom(file: string, offset: number): RecordsFrom {
  let data: Buffer;
  let base: number;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      base = Math.min(offset, size);
      data = Buffer.allocUnsafe(size - base);
      let got = 0;
      while (got < data.length) {
        const n = fs.readSync(fd, data, got, data.length - got, base + got);
        if (n === 0) break;
        got += n;
      }
      data = data.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], corrupt: [], complete: 0, size: 0 };
    throw new Error(`cannot read records from ${file}: ${(e as Error).message}`, { cause: e });
  }
  const records: StoredRecord[] = [];
  const corrupt: { line: number; text: string }[] = [];
  let start = 0;
  let complete = 0;
  for (let n = 1; start < data.length; n++) {
    const nl = data.indexOf(0x0a, start);
    const end = nl < 0 ? data.length : nl;
    const text = data.toString('utf8', start, end);
    start = end + 1;
    if (nl >= 0) complete = start;
    const rec = asRecord(text);
    if (rec !== null) {
      records.push(rec);
      continue;
    }
    corrupt.push({ line: n, text: excerpt(text) });
    const salvaged = salvage(text);
    if (salvaged !== null) records.push(salvaged);
  }
  return { records, corrupt, complete: base + complete, size: base + data.length };
}

/** Bytes → record field: file names are bytes on disk (may be invalid UTF-8, hold newlines or start
 *  with '-'). `path` is for people (lossy UTF-8), `pathB64` is exact. */
export function encodePath(bytes: Buffer): { path: string; pathB64: string } {
  if (!Buffer.isBuffer(bytes)) throw new Error('encodePath: expected a Buffer of path bytes');
  return { path: bytes.toString('utf8'), pathB64: bytes.toString('base64') };
}

/** Canonical padded base64 (what `encodePath` writes); Buffer.from would silently skip bad characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Record field → bytes: prefers the exact `pathB64`; falls back to `path` (records that only have the
 *  display form); throws a clear Error if neither is valid. */
export function decodePath(rec: { path?: unknown; pathB64?: unknown }): Buffer {
  const b64 = rec?.pathB64;
  if (typeof b64 === 'string' && BASE64.test(b64)) {
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.toString('base64') === b64) return bytes;
  }
  if (typeof rec?.path === 'string') return Buffer.from(rec.path, 'utf8');
  throw new Error('record holds no valid path: neither pathB64 (canonical base64) nor path (a string)');
}
