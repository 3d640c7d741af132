// Codex's hook trust (docs/harness/codex.md): a user or project hook runs only when the hash Codex
// computes for it equals the `trusted_hash` stored for its position in Codex's config.toml:
//
//   [hooks.state."<hooks.json path>:pre_tool_use:<group index>:<hook index>"]
//   trusted_hash = "sha256:…"
//
// The hash (codex-rs/hooks discovery.rs `command_hook_hash`, config fingerprint.rs `version_for_toml`)
// is SHA-256 over the compact JSON, keys sorted, of the hook's normalized identity: `event_name`,
// the group's `matcher`, and `hooks` holding only this handler with its defaults filled in (`timeout`
// 600, `async` false) and absent fields left out. Checked against Codex 0.171.0 itself: its app-server
// `hooks/list` reports the same `currentHash` and `trustStatus` for the entries in the tests.
// Read-only; no TOML library: a small reader for the key/value shapes config.toml holds. node:crypto
// is loaded only when a hash is computed (doctor), not by every hook call that loads the bundle.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** The handler fields Codex keeps in a command hook's identity (HookHandlerConfig::Command). */
const HANDLER_KEYS = new Set(['type', 'command', 'timeout', 'async', 'statusMessage']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObj(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k]!)]));
  return v;
}

/** Codex's hash of one PreToolUse command hook in a group with `matcher`; null when the entry holds
 *  something this computation does not model (then the state cannot be told). */
export function codexHookHash(matcher: Json | undefined, entry: Obj): string | null {
  if (!Object.keys(entry).every((k) => HANDLER_KEYS.has(k))) return null;
  if (entry['type'] !== 'command' || typeof entry['command'] !== 'string') return null;
  if (matcher !== undefined && matcher !== null && typeof matcher !== 'string') return null;
  const timeout = entry['timeout'] === undefined ? 600 : entry['timeout'];
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 0) return null;
  const handler: Obj = { type: 'command', command: entry['command'], timeout: Math.max(1, timeout), async: entry['async'] ?? false };
  if (typeof handler['async'] !== 'boolean') return null;
  if (entry['statusMessage'] !== undefined && entry['statusMessage'] !== null) {
    if (typeof entry['statusMessage'] !== 'string') return null;
    handler['statusMessage'] = entry['statusMessage'];
  }
  const identity: Obj = { event_name: 'pre_tool_use', hooks: [handler] };
  if (typeof matcher === 'string') identity['matcher'] = matcher;
  return `sha256:${process.getBuiltinModule('node:crypto').createHash('sha256').update(JSON.stringify(canonical(identity))).digest('hex')}`;
}

/** The key Codex stores a hook's state under. */
export function codexHookKey(file: string, group: number, index: number): string {
  return `${file}:pre_tool_use:${group}:${index}`;
}

export interface HookState {
  trustedHash?: string;
  enabled?: boolean;
}

// ----- a small TOML reader: tables, dotted and quoted keys, strings, booleans, inline tables -----

class TomlError extends Error {}

function basicString(s: string, i: number): [string, number] {
  let out = '';
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j]!;
    if (c === '"') return [out, j + 1];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++j];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
    if (e !== undefined && simple[e] !== undefined) out += simple[e];
    else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const hex = s.slice(j + 1, j + 1 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) throw new TomlError('bad escape');
      out += String.fromCodePoint(parseInt(hex, 16));
      j += n;
    } else throw new TomlError('bad escape');
  }
  throw new TomlError('unterminated string');
}

function literalString(s: string, i: number): [string, number] {
  const end = s.indexOf("'", i + 1);
  if (end < 0) throw new TomlError('unterminated string');
  return [s.slice(i + 1, end), end + 1];
}

const skipWs = (s: string, i: number): number => {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  return i;
};

/** A dotted key at i: its parts and the index after it. */
function readKey(s: string, i: number): [string[], number] {
  const parts: string[] = [];
  for (;;) {
    i = skipWs(s, i);
    let part: string;
    if (s[i] === '"') [part, i] = basicString(s, i);
    else if (s[i] === "'") [part, i] = literalString(s, i);
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) throw new TomlError('bad key');
      part = m[0];
      i += part.length;
    }
    parts.push(part);
    i = skipWs(s, i);
    if (s[i] !== '.') return [parts, i];
    i++;
  }
}

type Value = { scalar: string | boolean } | { table: [string[], Value][] } | { other: true };

/** A value at i (strings, booleans, inline tables; anything else is skipped as `other`). Multi-line
 *  strings and arrays may run over several lines: `more` gives the next line. */
function readValue(s: string, i: number, more: () => string | null): [Value, string, number] {
  i = skipWs(s, i);
  if (s.startsWith('"""', i) || s.startsWith("'''", i)) {
    const q = s.slice(i, i + 3);
    let rest = s.slice(i + 3);
    while (!rest.includes(q)) {
      const next = more();
      if (next === null) throw new TomlError('unterminated string');
      rest = next;
    }
    return [{ other: true }, rest, rest.indexOf(q) + 3];
  }
  if (s[i] === '"') {
    const [v, j] = basicString(s, i);
    return [{ scalar: v }, s, j];
  }
  if (s[i] === "'") {
    const [v, j] = literalString(s, i);
    return [{ scalar: v }, s, j];
  }
  if (s.startsWith('true', i)) return [{ scalar: true }, s, i + 4];
  if (s.startsWith('false', i)) return [{ scalar: false }, s, i + 5];
  if (s[i] === '{') {
    const entries: [string[], Value][] = [];
    i = skipWs(s, i + 1);
    if (s[i] === '}') return [{ table: entries }, s, i + 1];
    for (;;) {
      const [key, j] = readKey(s, i);
      if (s[j] !== '=') throw new TomlError('bad inline table');
      let v: Value;
      [v, s, i] = readValue(s, j + 1, more);
      entries.push([key, v]);
      i = skipWs(s, i);
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === '}') return [{ table: entries }, s, i + 1];
      throw new TomlError('bad inline table');
    }
  }
  if (s[i] === '[') {
    // An array (possibly over several lines): skipped, strings and nesting respected.
    let depth = 0;
    for (;;) {
      for (; i < s.length; i++) {
        const c = s[i]!;
        if (c === '"') i = basicString(s, i)[1] - 1;
        else if (c === "'") i = literalString(s, i)[1] - 1;
        else if (c === '#') i = s.length;
        else if (c === '[') depth++;
        else if (c === ']' && --depth === 0) return [{ other: true }, s, i + 1];
      }
      const next = more();
      if (next === null) throw new TomlError('unterminated array');
      s = next;
      i = 0;
    }
  }
  const m = /^[^\s#,}]+/.exec(s.slice(i));
  if (!m) throw new TomlError('bad value');
  return [{ other: true }, s, i + m[0].length];
}

/** The `hooks.state` entries of a config.toml text; null when the text cannot be read. */
export function readHookStates(text: string): Map<string, HookState> | null {
  const states = new Map<string, HookState>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let n = 0;
  const more = (): string | null => (n < lines.length ? lines[n++]! : null);
  let table: string[] = [];
  const record = (path: string[], v: Value): void => {
    if ('table' in v) {
      for (const [k, inner] of v.table) record([...path, ...k], inner);
      return;
    }
    if (!('scalar' in v) || path.length !== 4 || path[0] !== 'hooks' || path[1] !== 'state') return;
    const s = states.get(path[2]!) ?? {};
    if (path[3] === 'trusted_hash' && typeof v.scalar === 'string') s.trustedHash = v.scalar;
    else if (path[3] === 'enabled' && typeof v.scalar === 'boolean') s.enabled = v.scalar;
    else return;
    states.set(path[2]!, s);
  };
  try {
    for (let line = more(); line !== null; line = more()) {
      let i = skipWs(line, 0);
      if (i >= line.length || line[i] === '#') continue;
      if (line.startsWith('[[', i)) {
        const [key] = readKey(line, i + 2);
        table = ['\u0000array', ...key]; // an array of tables: nothing of ours
        continue;
      }
      if (line[i] === '[') {
        const [key, j] = readKey(line, i + 1);
        if (line[j] !== ']') throw new TomlError('bad table header');
        table = key;
        continue;
      }
      const [key, j] = readKey(line, i);
      if (line[j] !== '=') throw new TomlError('bad key/value');
      const [v, rest, end] = readValue(line, j + 1, more);
      i = skipWs(rest, end);
      if (i < rest.length && rest[i] !== '#') throw new TomlError('trailing text');
      record([...table, ...key], v);
    }
  } catch (err) {
    if (err instanceof TomlError) return null;
    throw err;
  }
  return states;
}

export type TrustStatus = 'trusted' | 'untrusted' | 'modified' | 'disabled' | 'unknown';

/** The trust status of one hook as Codex will judge it (HookTrustStatus; `disabled`: enabled = false). */
export function trustStatus(hash: string | null, state: HookState | undefined): TrustStatus {
  if (state?.enabled === false) return 'disabled';
  if (hash === null) return 'unknown';
  if (state?.trustedHash === undefined) return 'untrusted';
  return state.trustedHash === hash ? 'trusted' : 'modified';
}
