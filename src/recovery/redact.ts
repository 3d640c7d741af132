// Redaction of command text before it is stored: records are kept forever (the audit log is never
// garbage-collected), so a secret typed into a command must not land in them verbatim. Each rule
// replaces the secret with `***` and keeps its name visible (`GH_TOKEN=***`, `user:***@host`).
//
// Linear time on any input: every pattern below either starts only where a run of its characters
// starts (a lookbehind refuses the positions inside the run) or has a literal prefix, and every value
// that is scanned is then consumed, so no character is rescanned more than a constant number of times.

const MASK = '***';

/** Names that hold secrets. AUTH, but not AUTHOR (GIT_AUTHOR_NAME) unless AUTHORIZ(ATION). */
const SECRET_WORDS = 'TOKEN|SECRET|PASSWORD|PASSWD|PASS|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|SESSION_?KEY|COOKIE|BEARER';
const SECRET_NAME = new RegExp(`${SECRET_WORDS}|AUTH(?!OR(?!IZ))`, 'i');
/** A flag followed by a separate word is only taken as a secret for the sharper words: `--auth` and
 *  friends are as often switches (`--anyauth URL`) as options with a value. */
const SECRET_FLAG_SPACED = new RegExp(SECRET_WORDS, 'i');

// Hyphenated names (flags, headers) are tested like shell names.
function isSecretName(name: string, re: RegExp = SECRET_NAME): boolean {
  return re.test(name.replace(/-/g, '_'));
}

type Edit = { end: number; text: string } | null;

// Runs a global regex over the text; each match may be replaced by an edit that also consumes
// text beyond the match (a value). A null edit leaves the match as it is.
function rewrite(text: string, re: RegExp, edit: (m: RegExpExecArray) => Edit): string {
  let out = '';
  let last = 0;
  let changed = false;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const e = edit(m);
    if (e === null) {
      if (m[0] === '') re.lastIndex++;
      continue;
    }
    out += text.slice(last, m.index) + e.text;
    last = e.end;
    changed = true;
    re.lastIndex = Math.max(e.end, m.index + 1);
  }
  return changed ? out + text.slice(last) : text;
}

// The end of a double-quoted section whose opening quote is just before `i` (backslash escapes).
function closeDouble(text: string, i: number): number {
  for (let j = i; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return text.length;
}

const WORD_END = new Set([' ', '\t', '\n', '\r', '\f', '\v', ';', '&', '|', '<', '>', '(', ')', '"', "'"]);

// The end of the value starting at `i`. A quoted value ends at its closing quote; an unquoted one at
// whitespace, a shell operator or a quote (it may sit inside a quoted string: `"…?token=abc"`).
// Escapes, `$(…)` and backticks stay inside; an unterminated quote runs to the end of the text
// (over-redacting is the safe side).
function wordEnd(text: string, i: number): number {
  const n = text.length;
  if (text[i] === '"') return closeDouble(text, i + 1);
  if (text[i] === "'") {
    const k = text.indexOf("'", i + 1);
    return k < 0 ? n : k + 1;
  }
  let j = i;
  while (j < n) {
    const c = text[j]!;
    if (c === '`') {
      const k = text.indexOf(c, j + 1);
      j = k < 0 ? n : k + 1;
    } else if (c === '\\') {
      j += 2;
    } else if (c === '$' && text[j + 1] === '(') {
      let depth = 0;
      for (j++; j < n; j++) {
        if (text[j] === '(') depth++;
        else if (text[j] === ')' && --depth === 0) break;
      }
      j++;
    } else if (WORD_END.has(c)) {
      break;
    } else {
      j++;
    }
  }
  return Math.min(j, n);
}

// PEM private key blocks: the body goes, the armour lines stay. Without an END line, to the end.
function redactPem(text: string): string {
  const begin = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
  const end = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
  return rewrite(text, begin, (m) => {
    end.lastIndex = m.index + m[0].length;
    const e = end.exec(text);
    if (e === null) return { end: text.length, text: `${m[0]}${MASK}` };
    return { end: e.index + e[0].length, text: `${m[0]}${MASK}${e[0]}` };
  });
}

/** Token shapes that are secrets wherever they appear. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/g, // AWS access key id
  /(?<![\w-])xox[abposre]-[A-Za-z0-9-]{10,}/g, // Slack
  /(?<![\w-])sk-[A-Za-z0-9_-]{20,}/g, // OpenAI / Anthropic style (a digit required, below)
  /(?<![\w-])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
  /(?<![\w-])glpat-[A-Za-z0-9_-]{20,}/g, // GitLab
  /(?<![\w-])npm_[A-Za-z0-9]{36}/g, // npm
  /(?<![\w-])AIza[A-Za-z0-9_-]{35}/g, // Google API key
  /(?<![\w-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, // JWT
];

// `sk-` also starts ordinary words (`sk-learn-compatible-…`): a key has digits.
function redactTokens(text: string): string {
  let out = text;
  for (const re of TOKEN_SHAPES) {
    out = rewrite(out, re, (m) => (m[0].startsWith('sk-') && !/\d/.test(m[0]) ? null : { end: m.index + m[0].length, text: MASK }));
  }
  return out;
}

/** `scheme://userinfo@`: userinfo up to the last `@` before the host's end. */
const URL_USERINFO = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#]*)@/g;
/** A user name that is really a token: long, with letters and digits. */
const TOKEN_USER = /^(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9_.~%-]{20,}$/;

// `scheme://user:password@host` → `scheme://user:***@host`; `scheme://TOKEN@host` → `scheme://***@host`.
function redactUrls(text: string): string {
  return rewrite(text, URL_USERINFO, (m) => {
    const [all, scheme, info] = m as unknown as [string, string, string];
    const colon = info.indexOf(':');
    const end = m.index + all.length;
    if (colon >= 0) return colon === info.length - 1 ? null : { end, text: `${scheme}${info.slice(0, colon)}:${MASK}@` };
    return TOKEN_USER.test(info) ? { end, text: `${scheme}${MASK}@` } : null;
  });
}

/** `Name: value` and `"name": "value"` (HTTP headers, JSON, YAML). */
const HEADER = /(?<![\w-])([A-Za-z][\w-]*)(["']?)[ \t]*:[ \t]*/g;
const AUTH_HEADERS = new Set(['authorization', 'proxy-authorization']);
const BARE_SECRET_KEYS = new Set(['cookie', 'set-cookie', 'password', 'passwd']);
/** The scheme word of an Authorization value (`Bearer `, `Basic `), kept visible. */
const AUTH_SCHEME = /[A-Za-z][\w.-]*[ \t]+(?=[^\s"'])/y;

// Only key-shaped names: a bare `token:` is as likely a commit message (`fix token: …`), but a
// quoted key (`"token":`) or a compound one (`X-Api-Key:`, `api_key:`) is not prose.
function isSecretHeader(name: string, quoted: boolean): boolean {
  const lower = name.toLowerCase();
  if (AUTH_HEADERS.has(lower) || BARE_SECRET_KEYS.has(lower)) return true;
  return (quoted || /[-_]/.test(name)) && isSecretName(name);
}

// The value after `Name:`: a quoted string to its closing quote, else up to a quote or line end.
function headerValueEnd(text: string, i: number): number {
  const q = text[i];
  if (q === '"') return closeDouble(text, i + 1);
  if (q === "'") {
    const k = text.indexOf("'", i + 1);
    return k < 0 ? text.length : k + 1;
  }
  let j = i;
  while (j < text.length && !'"\'\r\n'.includes(text[j]!)) j++;
  return j;
}

function redactHeaders(text: string): string {
  return rewrite(text, HEADER, (m) => {
    const name = m[1]!;
    if (!isSecretHeader(name, m[2] !== '')) return null;
    const start = m.index + m[0].length;
    const end = headerValueEnd(text, start);
    if (end === start) return null;
    const q = text[start] === '"' || text[start] === "'" ? text[start]! : '';
    let keep = m[0] + q;
    if (AUTH_HEADERS.has(name.toLowerCase())) {
      AUTH_SCHEME.lastIndex = start + q.length;
      const s = AUTH_SCHEME.exec(text);
      if (s !== null && s.index + s[0].length < end) keep += s[0];
    }
    const closed = q !== '' && end > start + 1 && text[end - 1] === q;
    return { end, text: `${keep}${MASK}${closed ? q : ''}` };
  });
}

/** `--name=value`, `--name value`, `-u value`, at the start of a word. */
const FLAG = /(?<![^\s"'])(--?)([A-Za-z][\w-]*)(=|[ \t]+)/g;

// Strips one pair of matching outer quotes (for looking inside a `user:password` word).
function unquote(word: string): { inner: string; q: string } {
  const q = word[0];
  if ((q === '"' || q === "'") && word.length >= 2 && word.endsWith(q)) return { inner: word.slice(1, -1), q };
  return { inner: word, q: '' };
}

function redactFlags(text: string): string {
  return rewrite(text, FLAG, (m) => {
    const [all, dashes, name, sep] = m as unknown as [string, string, string, string];
    const start = m.index + all.length;
    if (sep !== '=' && (text[start] === '-' || start >= text.length)) return null;
    const lower = name.toLowerCase();
    const isUser = (dashes === '-' && name === 'u') || (dashes === '--' && lower === 'user');
    if (dashes === '-' && !isUser) return null;
    if (!isUser) {
      if (lower.startsWith('no-') || lower.endsWith('-stdin')) return null;
      if (!isSecretName(name, sep === '=' ? SECRET_NAME : SECRET_FLAG_SPACED)) return null;
    }
    const end = wordEnd(text, start);
    if (end === start) return null;
    if (!isUser) return { end, text: `${all}${MASK}` };
    // `-u user:password` (curl and friends); `-u 1000:1000` is a uid:gid, not a secret.
    const { inner, q } = unquote(text.slice(start, end));
    const colon = inner.indexOf(':');
    const secret = colon < 0 ? '' : inner.slice(colon + 1);
    if (secret === '' || /^\d+$/.test(secret)) return { end, text: text.slice(m.index, end) };
    return { end, text: `${all}${q}${inner.slice(0, colon)}:${MASK}${q}` };
  });
}

/** `NAME=value` wherever a name starts: prefix assignments, export/env, `-e`, query strings. */
const ASSIGNMENT = /(?<![\w$])([A-Za-z_]\w*)=/g;

function redactAssignments(text: string): string {
  return rewrite(text, ASSIGNMENT, (m) => {
    if (!isSecretName(m[1]!)) return null;
    const start = m.index + m[0].length;
    const end = wordEnd(text, start);
    return end === start ? null : { end, text: `${m[0]}${MASK}` };
  });
}

/** Command text with every secret it recognises replaced by `***`. Never throws: if redaction itself
 *  fails, nothing of the text is returned. */
export function redact(text: string): string {
  try {
    let out = typeof text === 'string' ? text : String(text);
    out = redactPem(out);
    out = redactTokens(out);
    out = redactUrls(out);
    out = redactHeaders(out);
    out = redactFlags(out);
    out = redactAssignments(out);
    return out;
  } catch {
    return `${MASK} (redaction failed)`;
  }
}
