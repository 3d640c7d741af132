// From tokens to what an interpreter's code calls. Not a grammar of four languages: a tolerant
// reader of expressions — names, member chains (`a.b`, `a?.b`, `a::b`, `a->b`, `a['b']`), calls
// with their arguments and keyword arguments, lists, dictionaries and blocks — that visits every
// call wherever it sits (in an argument, a lambda, a block, a comprehension) and says so in source
// order, with the assignments and imports that name modules. Anything else in an expression makes
// it `other`: a value known only when the code runs. Brackets that do not match make it unreadable.
import { strTok, type Lang, type StrTok, type Tok } from './tokens.js';

interface Span {
  at: number;
  end: number;
}

export type Node =
  | (Span & { n: 'name'; v: string })
  | (Span & { n: 'str'; v: string | null; tok: StrTok })
  | (Span & { n: 'list'; items: Node[] })
  | (Span & { n: 'dict'; entries: Map<string, Node> })
  | (Span & { n: 'member'; obj: Node; name: string })
  | (Span & { n: 'index'; obj: Node })
  | (Span & { n: 'call'; fn: Node; args: Node[]; kw: Map<string, Node> })
  | (Span & { n: 'bool'; v: boolean })
  | (Span & { n: 'module'; v: string })
  | (Span & { n: 'num' })
  | (Span & { n: 'other' });

export type CallNode = Extract<Node, { n: 'call' }>;

/** What the code does, in source order: a call; a function or method named without calling it (a
 *  reference handed on, `map(os.remove, …)`); a string that runs or holds code; a name bound to a
 *  value (`fs = require('fs')`, `import shutil as sh`, a destructuring); a star import. */
export type Event =
  | { e: 'call'; node: CallNode }
  | { e: 'ref'; node: Node }
  | { e: 'str'; tok: StrTok }
  | { e: 'bind'; name: string; value: Node }
  | { e: 'star'; module: string };

export interface Parsed {
  events: Event[];
  error: string | null;
}

const MEMBER_OPS: Readonly<Record<Lang, readonly string[]>> = { python: ['.'], node: ['.', '?.'], perl: ['->'], ruby: ['.', '&.', '::'] };
const CLOSERS = new Set([')', ']', '}']);
const OPENERS = new Set(['(', '[', '{']);
/** Words that end a Perl or Ruby call written without parentheses. */
const BARE_STOPS: Readonly<Record<Lang, ReadonlySet<string>>> = {
  python: new Set(),
  node: new Set(),
  perl: new Set(['if', 'unless', 'while', 'until', 'for', 'foreach', 'or', 'and', 'xor']),
  ruby: new Set(['if', 'unless', 'while', 'until', 'and', 'or', 'do', 'then', 'end', 'rescue']),
};
/** Brackets (and calls without parentheses) nested deeper than this make the code unreadable. */
const MAX_NEST = 200;
const LITERALS: Readonly<Record<string, boolean>> = { True: true, False: false, true: true, false: false };

/** `bare`: does this Perl or Ruby name or member chain take arguments without parentheses (and is
 *  it a call even with none)? */
export function parseCalls(toks: readonly Tok[], lang: Lang, bare: (n: Node) => boolean): Parsed {
  return new Parser(toks, lang, bare).run();
}

class Parser {
  private i = 0;
  private readonly events: Event[] = [];
  private error: string | null = null;
  private bareDepth = 0;
  private nest = 0;

  constructor(
    private readonly toks: readonly Tok[],
    private readonly lang: Lang,
    private readonly bare: (n: Node) => boolean,
  ) {}

  run(): Parsed {
    while (this.i < this.toks.length && this.error === null) {
      const before = this.i;
      this.statement();
      const t = this.toks[this.i];
      if (t && (t.k === 'nl' || (t.k === 'op' && (t.v === ';' || t.v === ',')))) this.i++;
      else if (t && t.k === 'op' && CLOSERS.has(t.v)) this.fail(`an unmatched ${t.v}`);
      else if (this.i === before) this.i++;
    }
    return { events: this.events, error: this.error };
  }

  private fail(why: string): void {
    this.error ??= why;
    this.i = this.toks.length;
  }

  private peek(k = 0): Tok | undefined {
    return this.toks[this.i + k];
  }

  private isOp(t: Tok | undefined, v: string): boolean {
    return t !== undefined && t.k === 'op' && t.v === v;
  }

  private span(at: number): Span {
    return { at, end: this.toks[this.i - 1]?.end ?? at };
  }

  private stops(t: Tok): boolean {
    if (t.k === 'nl') return true;
    if (t.k === 'op') return t.v === ',' || t.v === ';' || CLOSERS.has(t.v);
    return this.bareDepth > 0 && t.k === 'id' && BARE_STOPS[this.lang].has(t.v);
  }

  /** A statement: an import, an assignment that binds a name, or an expression. */
  private statement(): Node {
    const t = this.peek();
    if (t === undefined) return { n: 'other', at: 0, end: 0 };
    if (t.k === 'id') {
      if (this.lang === 'python' && (t.v === 'import' || t.v === 'from')) return this.pyImport();
      if (this.lang === 'node' && t.v === 'import' && !this.isOp(this.peek(1), '(') && !this.isOp(this.peek(1), '.')) return this.jsImport();
      if (this.lang === 'node' && (t.v === 'const' || t.v === 'let' || t.v === 'var')) {
        this.i++;
        const p = this.peek();
        if (this.isOp(p, '{')) return this.destructure();
      }
    }
    const a = this.peek();
    const b = this.peek(1);
    if (a?.k === 'id' && this.isOp(b, '=') && (this.lang !== 'perl' || /^\$/.test(a.v))) {
      this.i += 2;
      const value = this.expr();
      // `rm = shutil.rmtree` names the function; the calls through `rm` are what count.
      const last = this.events[this.events.length - 1];
      if (last?.e === 'ref' && last.node === value) this.events.pop();
      this.events.push({ e: 'bind', name: a.v, value });
      return value;
    }
    return this.expr();
  }

  private dotted(): string {
    let name = '';
    while (this.isOp(this.peek(), '.')) {
      name += '.';
      this.i++;
    }
    for (let t = this.peek(); t?.k === 'id'; t = this.peek()) {
      name += t.v;
      this.i++;
      if (!this.isOp(this.peek(), '.')) break;
      name += '.';
      this.i++;
    }
    return name;
  }

  private mod(v: string, at: number): Node {
    return { n: 'module', v, at, end: at };
  }

  /** `import a.b as c, d` and `from a import b as c, (d, e)`, `from a import *`. */
  private pyImport(): Node {
    const at = this.peek()!.at;
    const from = this.peek()!.k === 'id' && (this.peek() as { v: string }).v === 'from';
    this.i++;
    const base = from ? this.dotted() : '';
    if (from) {
      if (!(this.peek()?.k === 'id' && (this.peek() as { v: string }).v === 'import')) return { n: 'other', at, end: at };
      this.i++;
    }
    const paren = this.isOp(this.peek(), '(');
    if (paren) this.i++;
    for (;;) {
      const t = this.peek();
      if (from && this.isOp(t, '*')) {
        this.i++;
        this.events.push({ e: 'star', module: base });
      } else if (t?.k === 'id') {
        const name = from ? (this.i++, t.v) : this.dotted();
        let local = from ? name : name.split('.')[0]!;
        let value: Node = from ? { n: 'member', obj: this.mod(base, at), name, at, end: at } : this.mod(local, at);
        if (this.peek()?.k === 'id' && (this.peek() as { v: string }).v === 'as' && this.peek(1)?.k === 'id') {
          local = (this.peek(1) as { v: string }).v;
          if (!from) value = this.mod(name, at);
          this.i += 2;
        }
        this.events.push({ e: 'bind', name: local, value });
      } else break;
      if (this.isOp(this.peek(), ',')) this.i++;
      else break;
    }
    if (paren && this.isOp(this.peek(), ')')) this.i++;
    return { n: 'other', at, end: at };
  }

  /** `import x from 'm'`, `import * as x from 'm'`, `import { a, b as c } from 'm'`, `import x, {a} from 'm'`. */
  private jsImport(): Node {
    const at = this.peek()!.at;
    this.i++;
    const names: [string, string | null][] = [];
    for (let t = this.peek(); t !== undefined && !(t.k === 'id' && t.v === 'from') && t.k !== 'str'; t = this.peek()) {
      if (t.k === 'id' && t.v !== 'as' && t.v !== 'type') names.push([t.v, null]);
      if (this.isOp(t, '*') && this.peek(2)?.k === 'id') {
        names.push([(this.peek(2) as { v: string }).v, null]);
        this.i += 2;
      }
      if (this.isOp(t, '{')) {
        for (this.i++; this.peek() !== undefined && !this.isOp(this.peek(), '}'); this.i++) {
          const x = this.peek()!;
          if (x.k !== 'id' && x.k !== 'str') continue;
          const imported = x.k === 'id' ? x.v : (x.v ?? '');
          const alias = this.peek(1)?.k === 'id' && (this.peek(1) as { v: string }).v === 'as' ? (this.peek(2) as { v?: string } | undefined)?.v : undefined;
          names.push([alias ?? imported, imported]);
          if (alias !== undefined) this.i += 2;
        }
      }
      this.i++;
    }
    if (this.peek()?.k === 'id') this.i++;
    const src = this.peek();
    if (src?.k !== 'str' || src.v === null) return { n: 'other', at, end: at };
    this.i++;
    for (const [local, imported] of names) {
      const m = this.mod(src.v, at);
      this.events.push({ e: 'bind', name: local, value: imported === null ? m : { n: 'member', obj: m, name: imported, at, end: at } });
    }
    return { n: 'other', at, end: at };
  }

  /** `{ a, b: c } = value` after const/let/var. */
  private destructure(): Node {
    const at = this.peek()!.at;
    const names: [string, string][] = [];
    let depth = 0;
    do {
      const t = this.peek()!;
      if (this.isOp(t, '{')) depth++;
      else if (this.isOp(t, '}')) depth--;
      else if (depth === 1 && t.k === 'id') {
        const next = this.peek(1);
        if (this.isOp(next, ':') && this.peek(2)?.k === 'id') {
          names.push([(this.peek(2) as { v: string }).v, t.v]);
          this.i += 2;
        } else if (!this.isOp(this.toks[this.i - 1], '...')) names.push([t.v, t.v]);
      }
      this.i++;
    } while (depth > 0 && this.i < this.toks.length);
    if (!this.isOp(this.peek(), '=')) return { n: 'other', at, end: at };
    this.i++;
    const value = this.expr();
    for (const [local, prop] of names) this.events.push({ e: 'bind', name: local, value: { n: 'member', obj: value, name: prop, at, end: at } });
    return value;
  }

  private expr(): Node {
    const at = this.peek()?.at ?? 0;
    const parts: Node[] = [];
    let ops = 0;
    for (let t = this.peek(); t !== undefined && !this.stops(t) && this.error === null; t = this.peek()) {
      if (t.k === 'op' && !OPENERS.has(t.v)) {
        this.i++;
        ops++;
        continue;
      }
      parts.push(this.postfix());
    }
    // `await x`, `new X(…)`, `not x`: the value is x's.
    while (parts.length > 1 && parts[0]!.n === 'name' && ['await', 'new', 'yield', 'not', 'typeof', 'void', 'return'].includes((parts[0] as { v: string }).v)) parts.shift();
    if (parts.length === 1 && ops === 0) return parts[0]!;
    // Python's adjacent string literals are one string.
    if (ops === 0 && parts.length > 1 && parts.every((p) => p.n === 'str' && p.v !== null && !p.tok.flavor)) {
      const v = parts.map((p) => (p as { v: string }).v).join('');
      return { ...(parts[0] as Extract<Node, { n: 'str' }>), v, ...this.span(at) };
    }
    return { n: 'other', ...this.span(at) };
  }

  /** Items up to `close` (or, for a bare call, up to a stop): values, and `key: value`,
   *  `key => value`, `name = value` pairs (keyword arguments, dictionary entries). */
  private seq(close: string | null): { items: Node[]; kw: Map<string, Node>; trailingComma: boolean } {
    if (++this.nest > MAX_NEST) this.fail('brackets nested deeper than agent-guard follows');
    try {
      return this.items(close);
    } finally {
      this.nest--;
    }
  }

  private items(close: string | null): { items: Node[]; kw: Map<string, Node>; trailingComma: boolean } {
    const items: Node[] = [];
    const kw = new Map<string, Node>();
    let trailingComma = false;
    for (;;) {
      while (this.peek()?.k === 'nl' || (close !== null && this.isOp(this.peek(), ';'))) this.i++;
      const t = this.peek();
      if (t === undefined) {
        if (close !== null) this.fail(`an unclosed ${close}`);
        break;
      }
      if (close !== null && this.isOp(t, close)) {
        this.i++;
        break;
      }
      if (close === null && this.stops(t)) break;
      if (t.k === 'op' && CLOSERS.has(t.v)) {
        this.fail(`${t.v} where ${close ?? 'an argument'} was expected`);
        break;
      }
      const sep = this.peek(1);
      const key = t.k === 'id' ? t.v : t.k === 'str' ? t.v : null;
      if (key !== null && sep?.k === 'op' && (sep.v === ':' || sep.v === '=>' || (sep.v === '=' && t.k === 'id' && this.lang !== 'perl'))) {
        this.i += 2;
        const value = this.expr();
        kw.set(key, value);
        if (sep.v === '=') this.events.push({ e: 'bind', name: key, value });
      } else {
        const before = this.i;
        items.push(this.statement());
        if (this.i === before) this.i++;
      }
      trailingComma = this.isOp(this.peek(), ',');
      if (trailingComma) this.i++;
      else if (close === null) break;
    }
    return { items, kw, trailingComma };
  }

  private primary(): Node {
    const t = this.toks[this.i++]!;
    const at = t.at;
    if (t.k === 'id') return Object.prototype.hasOwnProperty.call(LITERALS, t.v) ? { n: 'bool', v: LITERALS[t.v]!, at, end: t.end } : { n: 'name', v: t.v, at, end: t.end };
    if (t.k === 'str') {
      if (t.flavor === 'shell' || t.code.length > 0) this.events.push({ e: 'str', tok: t });
      if (t.flavor === 'words') return t.words ? { n: 'list', items: t.words.map((w) => ({ n: 'str', v: w, tok: strTok(at, t.end, [w], [], false), at, end: t.end })), at, end: t.end } : { n: 'other', at, end: t.end };
      if (t.flavor === 'regex' || t.flavor === 'glob') return { n: 'other', at, end: t.end };
      return { n: 'str', v: t.v, tok: t, at, end: t.end };
    }
    if (t.k === 'op' && (t.v === '(' || t.v === '[')) {
      const { items, kw, trailingComma } = this.seq(t.v === '(' ? ')' : ']');
      if (t.v === '(' && items.length === 1 && kw.size === 0 && !trailingComma) return items[0]!;
      return { n: 'list', items, ...this.span(at) };
    }
    if (t.k === 'op' && t.v === '{') return { n: 'dict', entries: this.seq('}').kw, ...this.span(at) };
    return { n: t.k === 'num' ? 'num' : 'other', at, end: t.end };
  }

  /** Can a Perl or Ruby call without parentheses take this token as its first argument? */
  private startsArg(t: Tok | undefined): boolean {
    if (t === undefined || t.k === 'nl') return false;
    if (t.k === 'str' || t.k === 'num') return true;
    if (t.k === 'id') return !BARE_STOPS[this.lang].has(t.v);
    return t.v === '[' || (this.lang === 'perl' && t.v === '\\');
  }

  private call(fn: Node, args: Node[], kw: Map<string, Node>, at: number): CallNode {
    const node: CallNode = { n: 'call', fn, args, kw, ...this.span(at) };
    this.events.push({ e: 'call', node });
    return node;
  }

  private postfix(): Node {
    const at = this.peek()!.at;
    let node = this.primary();
    const members = MEMBER_OPS[this.lang];
    for (;;) {
      let t = this.peek();
      // Ruby: a chain may go on on the next line (`.method`).
      if (t?.k === 'nl' && this.lang === 'ruby' && this.peek(1)?.k === 'op' && members.includes((this.peek(1) as { v: string }).v)) {
        this.i++;
        t = this.peek();
      }
      if (t?.k === 'op' && members.includes(t.v) && this.peek(1)?.k === 'id') {
        if (node.n === 'member' || node.n === 'name') this.ref(node);
        this.i += 2;
        node = { n: 'member', obj: node, name: (this.peek(-1) as { v: string }).v, ...this.span(at) };
        continue;
      }
      if (t?.k === 'op' && t.v === '->' && this.lang === 'perl') {
        this.i++;
        continue;
      }
      if (this.isOp(t, '(') && node.n !== 'str' && node.n !== 'other') {
        this.i++;
        const { items, kw } = this.seq(')');
        node = this.call(node, items, kw, at);
        continue;
      }
      if (this.isOp(t, '[') || (this.isOp(t, '{') && this.lang === 'perl' && (node.n === 'index' || (node.n === 'name' && /^[$@%]/.test(node.v))))) {
        this.i++;
        const { items } = this.seq(t!.k === 'op' && t!.v === '[' ? ']' : '}');
        const key = items.length === 1 && items[0]!.n === 'str' ? items[0]!.v : null;
        node = key !== null && this.lang !== 'perl' ? { n: 'member', obj: node, name: key, ...this.span(at) } : { n: 'index', obj: node, ...this.span(at) };
        continue;
      }
      if (this.isOp(t, '{') && this.lang === 'ruby' && (node.n === 'call' || node.n === 'member' || node.n === 'name')) {
        // A block: its statements are read like any others.
        if (node.n !== 'call' && this.bare(node)) node = this.call(node, [], new Map(), at);
        this.i++;
        this.seq('}');
        continue;
      }
      if ((this.lang === 'perl' || this.lang === 'ruby') && (node.n === 'name' || node.n === 'member') && this.bare(node) && this.startsArg(t)) {
        this.bareDepth++;
        const { items, kw } = this.seq(null);
        this.bareDepth--;
        node = this.call(node, items, kw, at);
        continue;
      }
      break;
    }
    if (node.n === 'member' || node.n === 'name') {
      if ((this.lang === 'perl' || this.lang === 'ruby') && this.bare(node)) node = this.call(node, [], new Map(), at);
      else this.ref(node);
    }
    return node;
  }

  private ref(node: Node): void {
    this.events.push({ e: 'ref', node });
  }
}
