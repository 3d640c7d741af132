// One table of a TOML file, edited in place (Codex's config.toml, `[mcp_servers.agent-guard]`):
// the document is scanned statement by statement — table headers, key/value pairs with the exact
// span of their values (multi-line strings and arrays, inline tables, comments) — and only the
// spans of our table are replaced, inserted or cut. Everything else (comments, other tables, the
// order, the formatting) is kept byte for byte: nothing goes through a parser that rewrites.
// What the scan cannot read, and forms of the table this editor does not write (dotted keys, an
// inline `mcp_servers`, an array of tables), are refused: nothing is changed.

export interface TomlStatement {
  kind: 'header' | 'keyval';
  /** header: the table's key path; keyval: the key path within its table. */
  path: string[];
  /** header: the full path of the table it opens; keyval: the table it is in (`[]`: the root). */
  table: string[];
  /** `[[…]]`. */
  array: boolean;
  /** Offsets of the statement: from its first character to after its line's end (newline included). */
  start: number;
  end: number;
}

export class TomlScanError extends Error {}

const BARE = /[A-Za-z0-9_-]/;

/** Scans `text` into its statements; comments and blank lines are the gaps between them. */
export function scanToml(text: string): TomlStatement[] {
  const out: TomlStatement[] = [];
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  let table: string[] = [];
  const n = text.length;
  const err = (what: string): never => {
    const line = text.slice(0, i).split('\n').length;
    throw new TomlScanError(`line ${line}: ${what}`);
  };
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  const eol = (): void => {
    ws();
    if (text[i] === '#') while (i < n && text[i] !== '\n') i++;
    if (text[i] === '\r' && text[i + 1] === '\n') i++;
    if (i < n && text[i] !== '\n') err('unexpected text after a value');
    if (i < n) i++;
  };
  // Whitespace, newlines and comments (inside arrays).
  const gap = (): void => {
    for (;;) {
      ws();
      if (text[i] === '#') while (i < n && text[i] !== '\n') i++;
      else if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) i += text[i] === '\r' ? 2 : 1;
      else return;
    }
  };
  const basic = (): string => {
    // at the opening quote of a one-line basic string
    let s = '';
    i++;
    for (;;) {
      if (i >= n || text[i] === '\n') err('unterminated string');
      const c = text[i]!;
      if (c === '"') {
        i++;
        return s;
      }
      if (c === '\\') {
        const e = text[i + 1];
        const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
        if (e !== undefined && simple[e] !== undefined) {
          s += simple[e];
          i += 2;
        } else if (e === 'u' || e === 'U') {
          const len = e === 'u' ? 4 : 8;
          const hex = text.slice(i + 2, i + 2 + len);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) err('bad escape');
          s += String.fromCodePoint(parseInt(hex, 16));
          i += 2 + len;
        } else err('bad escape');
        continue;
      }
      s += c;
      i++;
    }
  };
  const literal = (): string => {
    const close = text.indexOf("'", i + 1);
    const nl = text.indexOf('\n', i + 1);
    if (close < 0 || (nl >= 0 && nl < close)) err('unterminated string');
    const s = text.slice(i + 1, close);
    i = close + 1;
    return s;
  };
  const multi = (q: string): void => {
    // at the opening triple quote
    i += 3;
    for (;;) {
      if (i >= n) err('unterminated multi-line string');
      if (q === '"' && text[i] === '\\') {
        i += 2;
        continue;
      }
      if (text.startsWith(q.repeat(3), i)) {
        i += 3;
        // up to two more quotes belong to the content
        for (let k = 0; k < 2 && text[i] === q; k++) i++;
        return;
      }
      i++;
    }
  };
  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      ws();
      const c = text[i];
      if (c === '"') parts.push(basic());
      else if (c === "'") parts.push(literal());
      else if (c !== undefined && BARE.test(c)) {
        const s = i;
        while (i < n && BARE.test(text[i]!)) i++;
        parts.push(text.slice(s, i));
      } else err('expected a key');
      ws();
      if (text[i] !== '.') return parts;
      i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '"') {
      if (text.startsWith('"""', i)) multi('"');
      else basic();
    } else if (c === "'") {
      if (text.startsWith("'''", i)) multi("'");
      else literal();
    } else if (c === '[') {
      i++;
      for (;;) {
        gap();
        if (text[i] === ']') {
          i++;
          return;
        }
        value();
        gap();
        if (text[i] === ',') i++;
        else if (text[i] !== ']') err('expected , or ] in an array');
      }
    } else if (c === '{') {
      i++;
      for (;;) {
        gap();
        if (text[i] === '}') {
          i++;
          return;
        }
        key();
        if (text[i] !== '=') err('expected = in an inline table');
        i++;
        value();
        gap();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') err('expected , or } in an inline table');
      }
    } else {
      const s = i;
      while (i < n && !/[,\]}#\n\r]/.test(text[i]!)) i++;
      if (text.slice(s, i).trim() === '') err('expected a value');
    }
  };

  while (i < n) {
    ws();
    const start = i;
    const c = text[i];
    if (c === undefined) break;
    if (c === '#' || c === '\n' || c === '\r') {
      eol();
      continue;
    }
    if (c === '[') {
      const array = text[i + 1] === '[';
      i += array ? 2 : 1;
      const path = key();
      if (text[i] !== ']' || (array && text[i + 1] !== ']')) err('expected ] after a table name');
      i += array ? 2 : 1;
      eol();
      table = path;
      out.push({ kind: 'header', path, table: path, array, start, end: i });
      continue;
    }
    const path = key();
    if (text[i] !== '=') err('expected = after a key');
    i++;
    value();
    eol();
    out.push({ kind: 'keyval', path, table, array: false, start, end: i });
  }
  return out;
}

const startsWith = (a: readonly string[], b: readonly string[]): boolean => b.every((x, k) => a[k] === x);
const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && startsWith(a, b);

/** A TOML basic string (JSON's escapes are TOML's, except that TOML wants DEL escaped too). */
export const tomlString = (s: string): string => JSON.stringify(s).replace(/\x7f/g, '\\u007F');

/** Where the table `name` is, and whether the file defines it (or what holds it) in a form this
 *  editor does not write. */
function locate(text: string, name: string[]): { statements: TomlStatement[]; header: TomlStatement | null; sections: { start: number; end: number }[] } {
  let statements: TomlStatement[];
  try {
    statements = scanToml(text);
  } catch (e) {
    throw new Error(`cannot read it as TOML (${(e as Error).message})`);
  }
  const headers = statements.filter((s) => s.kind === 'header' && same(s.path, name));
  if (headers.length > 1 || headers.some((h) => h.array)) throw new Error(`[${name.join('.')}] is defined more than once`);
  for (const s of statements) {
    const full = s.kind === 'header' ? s.path : [...s.table, ...s.path];
    if (s.kind === 'header' && s.array && startsWith(name, s.path)) throw new Error(`[[${s.path.join('.')}]] is an array of tables`);
    // A key/value that defines the table, something in it from outside it, or one of its parents inline.
    if (s.kind === 'keyval' && !startsWith(s.table, name) && (startsWith(full, name) || startsWith(name, full))) {
      throw new Error(`${full.join('.')} is set with a dotted key or an inline table, which this installer does not edit`);
    }
  }
  // Our table and its sub-tables: from their header to their last key/value.
  const sections: { start: number; end: number }[] = [];
  statements.forEach((s, k) => {
    if (s.kind !== 'header' || !startsWith(s.path, name)) return;
    let end = s.end;
    for (let j = k + 1; j < statements.length && statements[j]!.kind === 'keyval'; j++) end = statements[j]!.end;
    sections.push({ start: s.start, end });
  });
  return { statements, header: headers[0] ?? null, sections };
}

export interface TomlEdit {
  /** The new text (equal to the old one when nothing changes). */
  text: string;
  present: boolean;
}

/** Sets `keys` (raw TOML values) in table `name`: each replaces the key's statement where the table
 *  has it, or goes right after the header; a table that is not there is appended at the end. Other
 *  keys, comments and sub-tables of the table stay. */
export function setTableKeys(text: string, name: string[], keys: [string, string][]): TomlEdit {
  const { statements, header } = locate(text, name);
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const bare = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));
  const line = ([k, v]: [string, string]): string => `${bare(k)} = ${v}${nl}`;
  const headerText = `[${name.map(bare).join('.')}]`;
  if (!header) {
    const body = text === '' ? '' : text.endsWith('\n') ? `${text}${nl}` : `${text}${nl}${nl}`;
    return { text: `${body}${headerText}${nl}${keys.map(line).join('')}`, present: false };
  }
  let out = text;
  const edits: { start: number; end: number; with: string }[] = [];
  const missing: [string, string][] = [];
  for (const kv of keys) {
    const found = statements.filter((s) => s.kind === 'keyval' && same(s.table, name) && same(s.path, [kv[0]]));
    if (found.length === 0) missing.push(kv);
    else edits.push({ start: found[0]!.start, end: found[0]!.end, with: line(kv) });
  }
  if (missing.length > 0) edits.push({ start: header.end, end: header.end, with: missing.map(line).join('') });
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.with + out.slice(e.end);
  return { text: out, present: true };
}

/** Cuts table `name` and its sub-tables (from each header to its last key/value; a comment or blank
 *  line after that belongs to what follows). A blank line left before the cut goes with it when the
 *  cut ends the file or meets another blank line. */
export function removeTable(text: string, name: string[]): TomlEdit {
  const { sections } = locate(text, name);
  if (sections.length === 0) return { text, present: false };
  let out = text;
  for (const s of [...sections].sort((a, b) => b.start - a.start)) {
    let start = s.start;
    const after = out.slice(s.end);
    const before = out.slice(0, start);
    const blankBefore = /(^|\n)[ \t]*\r?\n$/.test(before) && before.length > 0;
    if (blankBefore && (after === '' || /^[ \t]*\r?\n/.test(after))) start = before.replace(/[ \t]*\r?\n$/, '').length;
    out = out.slice(0, start) + out.slice(s.end);
  }
  return { text: out, present: true };
}

/** Whether table `name` has a header in `text` (null: the text cannot be read as TOML). */
export function hasTable(text: string, name: string[]): boolean | null {
  try {
    return scanToml(text).some((s) => s.kind === 'header' && same(s.path, name));
  } catch {
    return null;
  }
}
