// The Node preload (dist/agent-guard-preload.cjs): `run` and `shell-init` put
// `--require <this file>` into NODE_OPTIONS, so every Node program under the guard loads it first.
// docs/interpreters.md.
//
// It wraps the deletion calls of `fs` and `fs/promises` — rm, rmdir, unlink, in their sync, callback
// and promise forms; what rimraf, fs-extra and del end up calling — and loads nothing else until one
// of them needs a decision: the checks of churn.ts run here (a few stats), and only a path they do
// not settle loads the bundle (agent-guard.cjs, beside this file) as a library and asks
// runtimeDelete. Its verdict is carried out as the caller expects it:
//   real    the real function runs with the caller's arguments (its result, its errors)
//   done    the entry is in the quarantine: success, as the real call would have reported it
//   refuse  an error with code EPERM, errno -1 and the reason (thrown, or through the callback or
//           the promise), and the same line on stderr
// The guard's own file operations (the relocation, its EXDEV copy-then-remove, the records) run
// with the real functions: while a decision runs, and while a real call the guard let through runs,
// every wrapper calls straight through. An error inside the guard refuses (fail closed).
import { builtin, passThrough, type DeleteKind, type DeleteRequest } from './churn.js';
import type { DeleteVerdict } from './delete.js';

// Builtins through process.getBuiltinModule: an `import` costs a copy of their exports here (see churn.ts).
const fs = builtin('node:fs');
const path = builtin('node:path');

/** The bundle beside this file, loaded as a library on the first deletion the policy must decide. */
const BUNDLE_NAME = 'agent-guard.cjs';
/** globalThis[PRELOAD_KEY]: this preload's state; the CLI (bin.ts) switches it off in its own process. */
const PRELOAD_KEY = Symbol.for('agent-guard.node-preload');

interface PreloadState {
  file: string;
  /** False in agent-guard's own processes (the checker, restore, gc): they are the guard. */
  active: boolean;
}

type Lib = { runtimeDelete(req: DeleteRequest, stderr: (s: string) => void): DeleteVerdict };

type Outcome = { kind: 'real' } | { kind: 'done' } | { kind: 'refuse'; error: Error };

const REAL: Outcome = { kind: 'real' };
const DONE: Outcome = { kind: 'done' };

let state: PreloadState;
/** > 0 while a decision runs or a synchronous real call the guard let through runs. */
let busy = 0;
/** Absolute paths of asynchronous real calls the guard let through, until they finish: Node's own
 *  recursive removal calls unlink and rmdir for each entry below them. */
const inflight = new Map<string, number>();
let lib: Lib | null = null;
let warnedRmdir = false;

/** When this process started (ms since the epoch), taken when first needed: the `performance` global
 *  would cost a module load at every start. */
function startedAt(): number {
  return Date.now() - process.uptime() * 1000;
}

/** The program, as refusals and records name it: `node -e`, `node /w/scripts/clean.js`, `node`. */
function programName(): string {
  const node = path.basename(process.execPath);
  if (typeof (process as { _eval?: unknown })._eval === 'string') return `${node} -e`;
  const script = process.argv[1];
  return script ? `${node} ${script}` : node;
}

function stderr(s: string): void {
  try {
    fs.writeSync(2, s);
  } catch {
    // nowhere to say it
  }
}

function loadLib(): Lib {
  if (lib) return lib;
  const loaded = require(path.join(__dirname, BUNDLE_NAME)) as Partial<Lib>;
  if (typeof loaded.runtimeDelete !== 'function') throw new Error(`${path.join(__dirname, BUNDLE_NAME)} has no runtimeDelete`);
  return (lib = loaded as Lib);
}

/** A Node older than the bundle needs (20.16: no process.getBuiltinModule) cannot load it: the
 *  decision is asked of `agent-guard runtime-delete`, run by the node `run`/`shell-init` exported
 *  (AGENT_GUARD_NODE). No answer is an error, which refuses. */
function viaChecker(req: DeleteRequest): DeleteVerdict {
  const node = process.env.AGENT_GUARD_NODE;
  if (!node || !path.isAbsolute(node)) throw new Error(`this Node (${process.version}) cannot load the guard and AGENT_GUARD_NODE names no Node that can`);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const r = builtin('node:child_process').spawnSync(node, [path.join(__dirname, BUNDLE_NAME), 'runtime-delete'], {
    input: JSON.stringify({ ...req, env }),
    stdio: ['pipe', 'pipe', 'inherit'],
    encoding: 'utf8',
    // The checker is the guard: no preload (and no CA bundle to parse) in it.
    env: { ...env, NODE_OPTIONS: '', NODE_EXTRA_CA_CERTS: '' },
  });
  if (r.status !== 0 || typeof r.stdout !== 'string') throw new Error(`agent-guard runtime-delete failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`);
  return JSON.parse(r.stdout) as DeleteVerdict;
}

function refusal(message: string, p: string | Buffer, syscall: string, code: string, decision: string): Outcome {
  stderr(`${message}\n`);
  const error = Object.assign(new Error(`EPERM: operation not permitted, ${syscall} '${String(p)}': ${message}`), {
    errno: -1,
    code: 'EPERM',
    syscall,
    path: typeof p === 'string' ? p : p.toString('utf8'),
    agentGuard: { decision, code },
  });
  return { kind: 'refuse', error };
}

/** The path argument as a string (a Buffer when its bytes are not UTF-8); null when it is not a path
 *  the real function accepts (it reports that itself). */
function pathArg(p: unknown): string | Buffer | null {
  let s: string | Buffer;
  if (typeof p === 'string') s = p;
  else if (p instanceof Uint8Array) {
    const b = Buffer.from(p.buffer, p.byteOffset, p.byteLength);
    const text = b.toString('utf8');
    s = Buffer.from(text, 'utf8').equals(b) ? text : Buffer.from(b);
  } else if (p instanceof URL) {
    if (p.protocol !== 'file:') return null;
    try {
      s = builtin('node:url').fileURLToPath(p);
    } catch {
      return null;
    }
  } else return null;
  if (s.length === 0 || (typeof s === 'string' ? s.includes('\0') : s.includes(0))) return null;
  return s;
}

/** The decision for one call, with every wrapper calling straight through meanwhile. */
function decide(api: string, kind: DeleteKind, p: string | Buffer, syscall: string): Outcome {
  busy++;
  const program = programName();
  try {
    if (typeof p !== 'string') {
      // Bytes that are not UTF-8 cannot be decided exactly; a missing path is the real call's to report.
      if (!fs.lstatSync(p, { throwIfNoEntry: false })) return REAL;
      const why = 'the path is not valid UTF-8 and cannot be checked exactly';
      return refusal(`agent-guard refused ${api}(${JSON.stringify(p.toString('utf8'))}) in ${program}: BLOCK BLOCK_UNDETERMINABLE_EFFECT: ${why}`, p, syscall, 'BLOCK_UNDETERMINABLE_EFFECT', 'BLOCK');
    }
    const req: DeleteRequest = { runtime: 'node', program, api, kind, path: p, cwd: process.cwd(), env: process.env, startedAt: startedAt() };
    if (passThrough(req) !== null) return REAL;
    const v = typeof process.getBuiltinModule === 'function' ? loadLib().runtimeDelete(req, stderr) : viaChecker(req);
    if (v.action === 'real') return REAL;
    if (v.action === 'done') {
      if (kind === 'rmdir-r' && !warnedRmdir) {
        // What the real call prints once per process.
        warnedRmdir = true;
        process.emitWarning('In future versions of Node.js, fs.rmdir(path, { recursive: true }) will be removed. Use fs.rm(path, { recursive: true }) instead', 'DeprecationWarning', 'DEP0147');
      }
      return DONE;
    }
    return refusal(v.message, p, syscall, v.code, v.decision);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return refusal(`agent-guard refused ${api}(${JSON.stringify(String(p))}) in ${program}: BLOCK BLOCK_INTERNAL_ERROR: the guard failed (${why}); nothing was deleted`, p, syscall, 'BLOCK_INTERNAL_ERROR', 'BLOCK');
  } finally {
    busy--;
  }
}

/** Is `p` below (or at) a path an asynchronous real call the guard let through is removing? */
function inFlight(p: string | Buffer): boolean {
  if (inflight.size === 0) return false;
  let d = path.resolve(String(p));
  for (;;) {
    if (inflight.has(d)) return true;
    const up = path.dirname(d);
    if (up === d) return false;
    d = up;
  }
}

function track(p: string | Buffer): () => void {
  const key = path.resolve(String(p));
  inflight.set(key, (inflight.get(key) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const n = (inflight.get(key) ?? 1) - 1;
    if (n <= 0) inflight.delete(key);
    else inflight.set(key, n);
  };
}

type Options = { recursive?: unknown; force?: unknown } | undefined;

/** The kind of a call from its options; null when the options are not what the real function
 *  accepts (it reports that itself). */
function kindOf(fn: 'rm' | 'rmdir' | 'unlink', opts: unknown): DeleteKind | null {
  if (fn === 'unlink') return 'unlink';
  if (opts !== undefined && (opts === null || typeof opts !== 'object')) return null;
  const o = opts as Options;
  if (o?.recursive !== undefined && typeof o.recursive !== 'boolean') return null;
  if (fn === 'rm' && o?.force !== undefined && typeof o.force !== 'boolean') return null;
  if (fn === 'rm') return o?.recursive ? 'rm-r' : 'rm';
  return o?.recursive ? 'rmdir-r' : 'rmdir';
}

const off = (): boolean => !state.active || busy > 0;

function named<F extends Function>(real: Function, f: F): F {
  Object.defineProperty(f, 'name', { value: real.name, configurable: true });
  return f;
}

function wrapSync(obj: Record<string, unknown>, name: string, fn: 'rm' | 'rmdir' | 'unlink', api: string): void {
  const real = obj[name] as (...a: unknown[]) => unknown;
  obj[name] = named(real, function (this: unknown, ...args: unknown[]) {
    if (off()) return real.apply(this, args);
    const p = pathArg(args[0]);
    const kind = kindOf(fn, args[1]);
    if (p === null || kind === null || kind === 'rmdir') return real.apply(this, args);
    const o = decide(api, kind, p, fn);
    if (o.kind === 'done') return undefined;
    if (o.kind === 'refuse') throw o.error;
    busy++;
    try {
      return real.apply(this, args);
    } finally {
      busy--;
    }
  });
}

function wrapCallback(obj: Record<string, unknown>, name: string, fn: 'rm' | 'rmdir' | 'unlink', api: string): void {
  const real = obj[name] as (...a: unknown[]) => unknown;
  obj[name] = named(real, function (this: unknown, ...args: unknown[]) {
    const at = typeof args[1] === 'function' ? 1 : 2;
    const cb = args[at];
    if (off() || typeof cb !== 'function') return real.apply(this, args);
    const p = pathArg(args[0]);
    const kind = kindOf(fn, at === 1 ? undefined : args[1]);
    if (p === null || kind === null || kind === 'rmdir' || inFlight(p)) return real.apply(this, args);
    const o = decide(api, kind, p, fn);
    if (o.kind === 'done') return void process.nextTick(cb as () => void, null);
    if (o.kind === 'refuse') return void process.nextTick(cb as (e: Error) => void, o.error);
    const untrack = track(p);
    const wrapped = [...args];
    wrapped[at] = function (this: unknown, ...r: unknown[]) {
      untrack();
      return (cb as (...x: unknown[]) => unknown).apply(this, r);
    };
    try {
      return real.apply(this, wrapped);
    } catch (err) {
      untrack();
      throw err;
    }
  });
}

function wrapPromise(obj: Record<string, unknown>, name: string, fn: 'rm' | 'rmdir' | 'unlink', api: string): void {
  const real = obj[name] as (...a: unknown[]) => Promise<unknown>;
  obj[name] = named(real, function (this: unknown, ...args: unknown[]) {
    if (off()) return real.apply(this, args);
    const p = pathArg(args[0]);
    const kind = kindOf(fn, args[1]);
    if (p === null || kind === null || kind === 'rmdir' || inFlight(p)) return real.apply(this, args);
    const o = decide(api, kind, p, fn);
    if (o.kind === 'done') return Promise.resolve(undefined);
    if (o.kind === 'refuse') return Promise.reject(o.error);
    const untrack = track(p);
    let pending: Promise<unknown>;
    try {
      pending = real.apply(this, args);
    } catch (err) {
      untrack();
      throw err;
    }
    return pending.finally(untrack);
  });
}

let promisesWrapped = false;

/** Wraps fs/promises' deletion calls (once). `sync`: ES module facades of the builtins may already
 *  exist, holding the unwrapped functions as named bindings: bring them up to date. */
function wrapPromises(sync: boolean): void {
  if (promisesWrapped) return;
  promisesWrapped = true;
  const p = (promisesGetter ? promisesGetter.call(fs) : fs.promises) as Record<string, unknown>;
  wrapPromise(p, 'rm', 'rm', 'fs.promises.rm');
  wrapPromise(p, 'rmdir', 'rmdir', 'fs.promises.rmdir');
  wrapPromise(p, 'unlink', 'unlink', 'fs.promises.unlink');
  if (sync) builtin('node:module').syncBuiltinESMExports();
}

/** fs's own `promises` getter (Node loads fs/promises on first use). */
let promisesGetter: (() => unknown) | undefined;

/** Can an ES module import fs/promises before a CommonJS route reaches it? Then it is wrapped now.
 *  An ES module main (.mjs, a .js in a "type": "module" package), ES module flags (--import, a loader,
 *  --input-type=module), a worker thread, or a Node that decides the module format by syntax (22+). */
function esmAhead(): boolean {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return true;
  if ((process as unknown as { moduleLoadList?: string[] }).moduleLoadList?.includes('NativeModule internal/process/worker_thread_only')) return true;
  const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (/--(import|loader|experimental-loader)\b|--input-type=module|--experimental-default-type=module|--experimental-detect-module/.test(flags)) return true;
  if (typeof (process as { _eval?: unknown })._eval === 'string') return false;
  const main = process.argv[1];
  if (!main) return false; // the REPL
  let file: string;
  try {
    file = fs.realpathSync(main);
  } catch {
    return true;
  }
  if (file.endsWith('.mjs')) return true;
  if (file.endsWith('.cjs')) return false;
  // The package scope's "type", as Node decides it for .js and extensionless files.
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    let text: string | null = null;
    try {
      text = fs.readFileSync(path.join(dir, 'package.json'), 'utf8');
    } catch {
      text = null;
    }
    if (text !== null) {
      try {
        return (JSON.parse(text) as { type?: unknown }).type === 'module';
      } catch {
        return true;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

function install(): void {
  const f = fs as unknown as Record<string, unknown>;
  wrapSync(f, 'rmSync', 'rm', 'fs.rmSync');
  wrapSync(f, 'rmdirSync', 'rmdir', 'fs.rmdirSync');
  wrapSync(f, 'unlinkSync', 'unlink', 'fs.unlinkSync');
  wrapCallback(f, 'rm', 'rm', 'fs.rm');
  wrapCallback(f, 'rmdir', 'rmdir', 'fs.rmdir');
  wrapCallback(f, 'unlink', 'unlink', 'fs.unlink');
  // fs/promises costs a module load that a plain Node start does not make (a few ms): it is wrapped
  // when a program first reaches it — fs.promises, require('fs/promises'), process.getBuiltinModule —
  // or at start when an ES module may import it first, or at the first timer tick at the latest.
  // ES modules take named bindings of a builtin (`import { rm } from 'fs/promises'`) from a facade
  // made when it is first imported: one made before the wrapping is brought up to date then.
  const desc = Object.getOwnPropertyDescriptor(fs, 'promises');
  promisesGetter = desc?.get;
  if (esmAhead() || !desc?.get || !desc.configurable) return wrapPromises(false);
  Object.defineProperty(fs, 'promises', {
    configurable: true,
    enumerable: desc.enumerable ?? true,
    get() {
      wrapPromises(true);
      return promisesGetter!.call(fs);
    },
  });
  const isPromises = (id: unknown): boolean => id === 'fs/promises' || id === 'node:fs/promises';
  // The CommonJS loader's Module class: this module's own constructor (loading node:module would cost
  // half a millisecond).
  const Module = (module as unknown as { constructor: { _load: (...a: unknown[]) => unknown } }).constructor;
  const load = Module._load;
  Module._load = function (this: unknown, ...args: unknown[]) {
    const out = load.apply(this, args);
    if (!promisesWrapped && isPromises(args[0])) wrapPromises(true);
    return out;
  };
  const getBuiltin = process.getBuiltinModule;
  if (typeof getBuiltin === 'function') {
    process.getBuiltinModule = function (this: unknown, id: string) {
      const out = getBuiltin.call(this, id);
      if (!promisesWrapped && isPromises(id)) wrapPromises(true);
      return out;
    } as typeof process.getBuiltinModule;
  }
  // A timer that does not keep the process alive: a program that runs on past its first tick gets
  // it wrapped then, before an ES module it imports reads its files.
  setTimeout(() => wrapPromises(true), 0).unref();
}

const g = globalThis as unknown as Record<symbol, PreloadState | undefined>;
if (g[PRELOAD_KEY] === undefined) {
  state = { file: __filename, active: true };
  g[PRELOAD_KEY] = state;
  try {
    install();
  } catch (err) {
    stderr(`agent-guard: the Node preload could not wrap fs (${err instanceof Error ? err.message : String(err)}); deletions by this program are not guarded\n`);
  }
}
