// The JSONL record store: round trips, corrupt lines, path bytes, failures that must throw, and
// concurrent writers in separate processes that must never tear or interleave a line.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForNobody, nodeForNobody, NOBODY } from '../helpers/nobody.js';
import { appendRecord, decodePath, encodePath, readRecords, RECORD_KINDS, RECORD_VERSION, type RecordKind } from '../../src/recovery/records.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const RECORDS_TS = path.join(REPO, 'src/recovery/records.ts');

let tmp: string;
let count = 0;
const fresh = (): string => path.join(tmp, `r${++count}.jsonl`);

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-records-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('appendRecord and readRecords', () => {
  it('round-trip every kind, one line each, base fields filled', () => {
    const file = fresh();
    const written = RECORD_KINDS.map((kind: RecordKind, i) =>
      appendRecord(file, { kind, txid: i % 2 === 0 ? `tx-${i}` : null, session: i % 3 === 0 ? null : 's1', n: i, nested: { list: [1, 'two', null] } }),
    );
    const { records, corrupt } = readRecords(file);
    expect(corrupt).toEqual([]);
    expect(records).toEqual(written);
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(RECORD_KINDS.length + 1);
    for (const r of records) {
      expect(r.v).toBe(RECORD_VERSION);
      expect(r.ts).toMatch(ISO);
      expect(r.pid).toBe(process.pid);
      expect(Object.keys(r).slice(0, 6)).toEqual(['v', 'kind', 'ts', 'txid', 'session', 'pid']);
    }
  });

  it('keeps a given ts and pid, and always stores the current version', () => {
    const file = fresh();
    const r = appendRecord(file, { kind: 'mode', txid: null, session: null, ts: '2020-01-01T00:00:00.000Z', pid: 42, v: 99 } as never);
    expect(r).toMatchObject({ v: 1, ts: '2020-01-01T00:00:00.000Z', pid: 42 });
    expect(readRecords(file).records).toEqual([r]);
  });

  it('creates the file with mode 0600', () => {
    const file = fresh();
    appendRecord(file, { kind: 'mode', txid: null, session: null });
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('keeps newlines, NULs and odd characters inside one line', () => {
    const file = fresh();
    const odd = 'a\nb\r\nc\u0000d\u2028e\ud800f"g\\h';
    appendRecord(file, { kind: 'decision', txid: null, session: null, note: odd });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(readRecords(file).records[0]!.note).toBe(odd);
  });

  it('redacts a command field', () => {
    const file = fresh();
    const r = appendRecord(file, { kind: 'decision', txid: null, session: null, decision: 'ALLOW', code: 'ALLOW_NOOP', command: 'GH_TOKEN=abc123 gh pr list', cwd: '/w' });
    expect(r.command).toBe('GH_TOKEN=*** gh pr list');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('abc123');
  });

  it('refuses an unknown kind or a malformed txid, writing nothing', () => {
    const file = fresh();
    expect(() => appendRecord(file, { kind: 'nope' as RecordKind, txid: null, session: null })).toThrow(/unknown record kind/);
    expect(() => appendRecord(file, { kind: 'purge', txid: 7 as unknown as string, session: null })).toThrow(/txid/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('throws for a file in a directory that does not exist, and creates no directory', () => {
    const dir = path.join(tmp, 'missing-dir');
    expect(() => appendRecord(path.join(dir, 'm.jsonl'), { kind: 'mode', txid: null, session: null })).toThrow(/cannot append a record to .*open failed: ENOENT/);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('throws for a path that is a directory', () => {
    expect(() => appendRecord(tmp, { kind: 'mode', txid: null, session: null })).toThrow(/EISDIR/);
  });

  it('throws for a read-only file, leaving it untouched', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'ro-'));
    const file = path.join(dir, 'audit.jsonl');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o444);
    if (process.getuid?.() === 0) {
      // root ignores mode bits: ask an unprivileged user to append, through the real module
      // (bundled into the temp dir: that user may not be able to read the checkout).
      fs.chmodSync(tmp, 0o755);
      fs.chmodSync(dir, 0o755);
      const records = bundleForNobody(RECORDS_TS, path.join(dir, 'tools'));
      const script = `const { appendRecord } = await import(process.argv[1]);
        try { appendRecord(process.argv[2], { kind: 'mode', txid: null, session: null }); console.log('appended'); }
        catch (e) { console.log('threw: ' + e.message); }`;
      const r = spawnSync(nodeForNobody(path.join(dir, 'tools')), ['--input-type=module', '-e', script, records, file], {
        cwd: dir, uid: NOBODY, gid: NOBODY, encoding: 'utf8', env: { ...process.env, HOME: dir },
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^threw: cannot append a record to .*open failed: EACCES/);
    } else {
      expect(() => appendRecord(file, { kind: 'mode', txid: null, session: null })).toThrow(/EACCES|EPERM/);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });
});

describe('readRecords on damaged files', () => {
  const good = (n: number): string => JSON.stringify({ v: 1, kind: 'mode', ts: '2024-01-01T00:00:00.000Z', txid: null, session: null, pid: 1, n });

  it('reports each bad line with its number and still reads the good ones', () => {
    const file = fresh();
    const lines = [
      good(1),
      'garbage here',
      '{"v":1,"kind":"relocate","txid":"t","ori', // truncated JSON
      '{"kind":"mode","txid":null}', // no v
      '{"v":1,"txid":null}', // no kind
      '', // empty
      good(2).replace('"mode"', '"mo\u0000de"'), // NUL inside a string
      `\u0000\u0000${good(3)}`, // NULs a crash left before an append: reported, the record recovered
      '[1,2,3]',
      'null',
      '{"v":"1","kind":"mode"}', // v is not a number
      good(4),
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const { records, corrupt } = readRecords(file);
    expect(records.map((r) => r.n)).toEqual([1, 3, 4]);
    expect(corrupt.map((c) => c.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(corrupt[0]).toEqual({ line: 2, text: 'garbage here' });
    expect(corrupt[4]).toEqual({ line: 6, text: '' });
  });

  it('truncates a reported line to 200 characters', () => {
    const file = fresh();
    fs.writeFileSync(file, `${'x'.repeat(5000)}\n${good(1)}\n`);
    const { records, corrupt } = readRecords(file);
    expect(corrupt).toEqual([{ line: 1, text: 'x'.repeat(200) }]);
    expect(records).toHaveLength(1);
  });

  it('reads a last line without its newline, and reports a torn one', () => {
    const complete = fresh();
    fs.writeFileSync(complete, `${good(1)}\n${good(2)}`);
    expect(readRecords(complete)).toEqual({ records: [expect.objectContaining({ n: 1 }), expect.objectContaining({ n: 2 })], corrupt: [] });
    const torn = fresh();
    fs.writeFileSync(torn, `${good(1)}\n${good(2).slice(0, 30)}`);
    const r = readRecords(torn);
    expect(r.records).toHaveLength(1);
    expect(r.corrupt).toEqual([{ line: 2, text: good(2).slice(0, 30) }]);
  });

  it('recovers a record appended after a torn line, and still reports the line', () => {
    const file = fresh();
    fs.writeFileSync(file, `${good(1)}\n${good(2).slice(0, 40)}`);
    appendRecord(file, { kind: 'purge', txid: 't1', session: null, bytes: 10 });
    const { records, corrupt } = readRecords(file);
    expect(records.map((r) => r.kind)).toEqual(['mode', 'purge']);
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]!.line).toBe(2);
  });

  it('is empty for a missing file', () => {
    expect(readRecords(path.join(tmp, 'does-not-exist.jsonl'))).toEqual({ records: [], corrupt: [] });
  });
});

describe('encodePath and decodePath', () => {
  const NAMES = [
    Buffer.from([0x66, 0xff, 0x0a, 0x2d]),
    Buffer.from('plain.txt'),
    Buffer.from('-rf'),
    Buffer.from('--no-preserve-root'),
    Buffer.from('line\nbreak\r\nname'),
    Buffer.from('dir/sub dir/ünïcødé 名前.txt'),
    Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]), // invalid UTF-8 sequences
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
    Buffer.from(Array.from({ length: 255 }, (_, i) => i + 1)),
    Buffer.alloc(0),
  ];

  it('round-trip the exact bytes, directly and through a stored record', () => {
    const file = fresh();
    for (const bytes of NAMES) {
      const enc = encodePath(bytes);
      expect(decodePath(enc).equals(bytes)).toBe(true);
      appendRecord(file, { kind: 'relocate-intent', txid: 't', session: null, origin: enc, dest: enc });
    }
    const { records, corrupt } = readRecords(file);
    expect(corrupt).toEqual([]);
    records.forEach((r, i) => {
      expect(decodePath(r.origin as { pathB64: string }).equals(NAMES[i]!)).toBe(true);
      expect(decodePath(r.dest as { pathB64: string }).equals(NAMES[i]!)).toBe(true);
    });
  });

  it('give a readable, lossy display form', () => {
    expect(encodePath(Buffer.from([0x66, 0xff, 0x0a, 0x2d]))).toEqual({ path: 'f\ufffd\n-', pathB64: 'Zv8KLQ==' });
  });

  it('prefer pathB64, fall back to path, and throw when neither is valid', () => {
    expect(decodePath({ path: 'display', pathB64: 'ZXhhY3Q=' }).toString()).toBe('exact');
    expect(decodePath({ path: 'display' }).toString()).toBe('display');
    expect(decodePath({ path: 'display', pathB64: 'not base64!' }).toString()).toBe('display');
    expect(decodePath({ path: 'display', pathB64: 'ZXhhY3Q' }).toString()).toBe('display'); // unpadded
    expect(() => decodePath({})).toThrow(/no valid path/);
    expect(() => decodePath({ path: 3, pathB64: '%%%%' })).toThrow(/no valid path/);
    expect(() => decodePath(null as never)).toThrow(/no valid path/);
  });
});

describe('concurrent writers', () => {
  const WRITERS = 8;
  const EACH = 500;
  // Each child imports the real module, says ready, waits for "go", then appends as fast as it can.
  const CHILD = `
    const [mod, file, id, each] = process.argv.slice(1);
    const { appendRecord } = await import(mod);
    process.stdin.once('data', () => {
      for (let seq = 0; seq < Number(each); seq++) {
        const len = 1024 + ((seq * 7919 + Number(id) * 104729) % 3072);
        const payload = (id + ':' + seq + ';').repeat(len).slice(0, len);
        appendRecord(file, { kind: 'decision', txid: null, session: 'w' + id, writer: Number(id), seq, len, payload });
      }
      process.stdin.destroy();
    });
    process.stdout.write('ready\\n');`;

  // Resolves when the child has printed `text` (rejects if it exits first).
  function waitFor(child: ChildProcess, text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes(text)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`writer exited (${code}) before ${text}`)));
    });
  }

  function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  }

  it(`${WRITERS} processes × ${EACH} records of 1–4 KB: every line whole, every record once`, async () => {
    const file = fresh();
    // The real module bundled once (esbuild): a writer started with tsx would spend half a second of
    // CPU loading it, eight times.
    const mod = bundleForNobody(RECORDS_TS, path.join(tmp, 'tools-writers'));
    const children = Array.from({ length: WRITERS }, (_, id) =>
      spawn(process.execPath, ['--input-type=module', '-e', CHILD, mod, file, String(id), String(EACH)], { cwd: REPO, stdio: 'pipe' }),
    );
    const done = children.map(exited);
    await Promise.all(children.map((c) => waitFor(c, 'ready')));
    for (const c of children) c.stdin.write('go\n');
    for (const r of await Promise.all(done)) expect(r).toEqual({ code: 0, stderr: '' });

    const { records, corrupt } = readRecords(file);
    expect(corrupt).toEqual([]);
    expect(fs.readFileSync(file, 'utf8').split('\n')).toHaveLength(WRITERS * EACH + 1);
    expect(records).toHaveLength(WRITERS * EACH);
    const seen = Array.from({ length: WRITERS }, () => new Set<number>());
    for (const r of records) {
      const payload = r.payload as string;
      expect(payload).toBe(`${r.writer}:${r.seq};`.repeat(r.len as number).slice(0, r.len as number));
      seen[r.writer as number]!.add(r.seq as number);
    }
    for (const s of seen) expect(s.size).toBe(EACH);
    // Writers ran at the same time: their lines are mixed, not one block after another.
    const switches = records.filter((r, i) => i > 0 && r.writer !== records[i - 1]!.writer).length;
    expect(switches).toBeGreaterThan(WRITERS);
  }, 180_000);
});
