// The four languages' deletion calls and shell hand-offs, as tables: which qualified name (or, where
// the name is telling enough, which method name on any receiver) deletes what, runs what, or runs
// code. Each call the parser reports is looked up here and turned into Effects.
import type { CallNode, Node } from './calls.js';
import { argsOf, has, lastOf, literal, option, pathValue, qualify, srcOf, truth, type Arg, type Effect, type How, type Scope } from './effects.js';

type Judge = (call: CallNode, scope: Scope) => Effect[];

const computedArg = (why: string): Arg => ({ computed: why });
const one = (args: Arg[]): Arg => (args.length === 1 ? args[0]! : computedArg('a list where one command was expected'));

function del(call: CallNode, scope: Scope, api: string, how: How, targets: Arg[], glob = false, cwd?: Node): Effect {
  const e: Effect = { kind: 'delete', api, src: srcOf(call, scope), how, targets: targets.length > 0 ? targets : [computedArg('no target given (a default the language fills in)')] };
  if (glob) e.glob = true;
  if (cwd !== undefined) e.cwd = one(argsOf(cwd, scope));
  return e;
}

function shell(call: CallNode, scope: Scope, api: string, text: Node | undefined, cwd?: Node): Effect {
  const e: Effect = { kind: 'shell', api, src: srcOf(call, scope), text: text === undefined ? computedArg('no command') : one(argsOf(text, scope)) };
  if (cwd !== undefined) e.cwd = one(argsOf(cwd, scope));
  return e;
}

function exec(call: CallNode, scope: Scope, api: string, argv: Node[], cwd?: Node): Effect {
  const e: Effect = { kind: 'exec', api, src: srcOf(call, scope), argv: argv.flatMap((a) => argsOf(a, scope)) };
  if (cwd !== undefined) e.cwd = one(argsOf(cwd, scope));
  return e;
}

function code(call: CallNode, scope: Scope, api: string, text: Node | undefined): Effect[] {
  const v = literal(text);
  if (v !== null) return [{ kind: 'code', api, src: srcOf(call, scope), code: v }];
  // `exec(open('setup.py').read())` runs a script file, which is not read, as `python3 setup.py`
  // is not (docs/limitations.md); any other code built when it runs (decoded, read from stdin or
  // argv, concatenated) cannot be judged.
  if (text !== undefined && readsFile(text)) return [];
  return [{ kind: 'computed', api, src: srcOf(call, scope), deletes: false, why: 'runs code built when it runs' }];
}

/** `open(F).read()`, `Path(F).read_text()`, `fs.readFileSync(F…)`, `File.read(F)`, with a literal F. */
function readsFile(n: Node): boolean {
  if (n.n !== 'call' || n.fn.n !== 'member') return false;
  const { obj, name } = n.fn;
  if ((name === 'read' || name === 'read_text') && obj.n === 'call' && obj.args.length >= 1 && literal(obj.args[0]) !== null) {
    return obj.fn.n === 'name' ? obj.fn.v === 'open' || obj.fn.v === 'Path' : obj.fn.n === 'member' && obj.fn.name === 'Path';
  }
  if ((name === 'readFileSync' || name === 'read') && n.args.length >= 1 && literal(n.args[0]) !== null) return name === 'read' ? obj.n === 'name' && obj.v === 'File' : true;
  return false;
}

const computed = (call: Node, scope: Scope, api: string, deletes: boolean, why: string): Effect => ({ kind: 'computed', api, src: srcOf(call, scope), deletes, why });

const isBound = (n: Node, scope: Scope): boolean => n.n === 'name' && scope.binds.has(n.v);
const bareName = (call: CallNode, scope: Scope): string | null => (call.fn.n === 'name' && !isBound(call.fn, scope) ? call.fn.v : null);
const methodName = (call: CallNode): string | null => (call.fn.n === 'member' ? call.fn.name : null);
const receiver = (call: CallNode): Node | null => (call.fn.n === 'member' ? call.fn.obj : null);

// ---------------------------------------------------------------------------------------- Python

const PY_DELETE: Readonly<Record<string, How>> = { 'shutil.rmtree': 'rm-r', 'os.remove': 'rm', 'os.unlink': 'rm', 'os.rmdir': 'rmdir', 'os.removedirs': 'rmdir-p' };
/** Methods that delete whatever object they are called on (pathlib) or that no other library spells. */
const PY_METHODS: Readonly<Record<string, How>> = { rmtree: 'rm-r', removedirs: 'rmdir-p', unlink: 'rm', rmdir: 'rmdir' };
const PY_SHELL = new Set(['os.system', 'os.popen', 'subprocess.getoutput', 'subprocess.getstatusoutput', 'commands.getoutput', 'commands.getstatusoutput', 'asyncio.create_subprocess_shell', 'platform.popen']);
const PY_SUBPROCESS = new Set(['subprocess.run', 'subprocess.call', 'subprocess.check_call', 'subprocess.check_output', 'subprocess.Popen']);
/** os.exec*, os.spawn*, posix_spawn, pty.spawn: where the argv is (index of a list, or the first of the rest). */
const PY_EXEC: Readonly<Record<string, [number, 'list' | 'rest']>> = {
  'os.execv': [1, 'list'], 'os.execve': [1, 'list'], 'os.execvp': [1, 'list'], 'os.execvpe': [1, 'list'],
  'os.execl': [1, 'rest'], 'os.execle': [1, 'rest'], 'os.execlp': [1, 'rest'], 'os.execlpe': [1, 'rest'],
  'os.spawnv': [2, 'list'], 'os.spawnve': [2, 'list'], 'os.spawnvp': [2, 'list'], 'os.spawnvpe': [2, 'list'],
  'os.spawnl': [2, 'rest'], 'os.spawnle': [2, 'rest'], 'os.spawnlp': [2, 'rest'], 'os.spawnlpe': [2, 'rest'],
  'os.posix_spawn': [1, 'list'], 'os.posix_spawnp': [1, 'list'], 'pty.spawn': [0, 'list'], 'asyncio.create_subprocess_exec': [0, 'rest'],
};
const PY_MODULES = new Set(['os', 'shutil', 'subprocess', 'pathlib', 'posix']);

function pySubprocess(call: CallNode, scope: Scope, api: string): Effect[] {
  const a0 = call.args[0] ?? call.kw.get('args');
  const sh = truth(call.kw.get('shell'));
  const cwd = call.kw.get('cwd');
  if (a0 === undefined) return [computed(call, scope, api, false, 'is given its command in a way that cannot be read')];
  if (a0.n === 'list') return sh === true ? [shell(call, scope, api, a0.items[0], cwd)] : [exec(call, scope, api, a0.items, cwd)];
  // A string without shell=True is the program's path alone; with it (or unknown), a command line.
  return sh === false ? [exec(call, scope, api, [a0], cwd)] : [shell(call, scope, api, a0, cwd)];
}

const python: Judge = (call, scope) => {
  let q = qualify(call.fn, scope);
  const bare = bareName(call, scope);
  if (bare !== null) for (const m of scope.stars) if (has(PY_DELETE, `${m}.${bare}`) || PY_SHELL.has(`${m}.${bare}`) || PY_SUBPROCESS.has(`${m}.${bare}`)) q = `${m}.${bare}`;
  if (q !== null && has(PY_DELETE, q)) {
    if (call.kw.has('dir_fd')) return [computed(call, scope, q, true, 'deletes relative to a directory descriptor')];
    return [del(call, scope, q, PY_DELETE[q]!, argsOf(call.args[0] ?? call.kw.get('path'), scope))];
  }
  if (q !== null && PY_SHELL.has(q)) return [shell(call, scope, q, call.args[0] ?? call.kw.get('command') ?? call.kw.get('cmd'))];
  if (q !== null && PY_SUBPROCESS.has(q)) return pySubprocess(call, scope, q);
  if (q !== null && has(PY_EXEC, q)) {
    const [at, form] = PY_EXEC[q]!;
    const prog = q.startsWith('os.exec') || q.startsWith('os.spawn') || q.startsWith('os.posix_spawn') ? call.args[at - 1] : undefined;
    const list = form === 'list' ? call.args[at] : undefined;
    const argv = form === 'rest' ? call.args.slice(at) : list === undefined ? [] : list.n === 'list' ? list.items : [list];
    return [exec(call, scope, q, prog !== undefined && argv.length > 0 ? [prog, ...argv.slice(1)] : argv)];
  }
  if (q === 'os.chdir') return [{ kind: 'chdir', src: srcOf(call, scope), dir: one(argsOf(call.args[0], scope)) }];
  if (bare === 'exec' || bare === 'eval') return code(call, scope, bare, call.args[0]);
  const method = methodName(call) ?? (bare === 'rmtree' || bare === 'removedirs' ? bare : null);
  if (method !== null && has(PY_METHODS, method)) {
    // Path('x').unlink(), p.rmdir(), a module spelled some other way: x.rmtree('y').
    const recv = receiver(call);
    const targets = call.args.length > 0 ? argsOf(call.args[0], scope) : recv !== null && pathValue(recv, scope) !== null ? [{ lit: pathValue(recv, scope)! }] : [computedArg('the object it is called on')];
    return [del(call, scope, q ?? method, PY_METHODS[method]!, targets)];
  }
  // getattr(os, name)(…): a module's function looked up by a computed name.
  if (call.fn.n === 'call' && qualify(call.fn.fn, scope) === 'getattr' && literal(call.fn.args[1]) === null) {
    const m = call.fn.args[0] ? qualify(call.fn.args[0], scope) : null;
    if (m !== null && PY_MODULES.has(m)) return [computed(call, scope, `${m}.?`, true, 'calls a function looked up by a computed name')];
  }
  return [];
};

const pythonRef = (node: Node, scope: Scope): Effect[] => {
  if (node.n !== 'member' && !(node.n === 'name' && scope.binds.has(node.v))) return [];
  const q = qualify(node, scope);
  if (q === null) return [];
  if (has(PY_DELETE, q) || has(PY_EXEC, q) || PY_SHELL.has(q) || PY_SUBPROCESS.has(q)) return [computed(node, scope, q, has(PY_DELETE, q), 'is handed on as a function: what it is called with is known only when it runs')];
  return [];
};

// ------------------------------------------------------------------------------------------ Node

const FS_FNS: Readonly<Record<string, 'rm' | 'rmdir'>> = { rm: 'rm', rmSync: 'rm', unlink: 'rm', unlinkSync: 'rm', rmdir: 'rmdir', rmdirSync: 'rmdir' };
const FSE_FNS: Readonly<Record<string, How>> = { remove: 'rm-rf', removeSync: 'rm-rf', emptyDir: 'rm-r', emptyDirSync: 'rm-r', emptydir: 'rm-r', emptydirSync: 'rm-r' };
const FSE_MODULES = new Set(['fs-extra', 'fs', 'fse', 'fsExtra', 'fs_extra', 'fsx', 'fs.promises']);
const CP_FNS = new Set(['exec', 'execSync', 'execFile', 'execFileSync', 'spawn', 'spawnSync']);
const CP_MODULES = new Set(['child_process', 'cp', 'childProcess', 'child', 'proc']);
const NODE_EVAL = new Set(['vm.runInThisContext', 'vm.runInNewContext', 'vm.runInContext', 'vm.Script', 'vm.compileFunction']);

function split(q: string | null): [string, string] {
  if (q === null) return ['', ''];
  const dot = q.lastIndexOf('.');
  return dot < 0 ? ['', q] : [q.slice(0, dot), q.slice(dot + 1)];
}

/** shelljs's `rm('-rf', 'dir')`: options first, as rm reads them. */
function shelljsRm(call: CallNode, scope: Scope, api: string): Effect {
  const flags = literal(call.args[0]) ?? '';
  const how: How = /[rR]/.test(flags) ? (flags.includes('f') ? 'rm-rf' : 'rm-r') : flags.includes('f') ? 'rm-f' : 'rm';
  const rest = flags.startsWith('-') ? call.args.slice(1) : call.args;
  return del(call, scope, api, how, rest.flatMap((a) => argsOf(a, scope)));
}

const node: Judge = (call, scope) => {
  const q = qualify(call.fn, scope);
  const [mod, fn] = split(q ?? (methodName(call) !== null ? `?.${methodName(call)}` : null));
  const api = q ?? `${fn}`;
  if (q === 'process.chdir') return [{ kind: 'chdir', src: srcOf(call, scope), dir: one(argsOf(call.args[0], scope)) }];
  if ((q === 'eval' || q === 'Function') && bareName(call, scope) !== null) return code(call, scope, q, call.args[call.args.length - 1]);
  if (q !== null && NODE_EVAL.has(q)) return code(call, scope, q, call.args[0]);
  if (mod === 'shelljs' || (mod === 'shell' && fn === 'rm') || (fn === 'rm' && /^-[a-zA-Z]+$/.test(literal(call.args[0]) ?? ''))) {
    if (fn === 'rm') return [shelljsRm(call, scope, api)];
    if (fn === 'exec') return [shell(call, scope, api, call.args[0])];
  }
  if (has(FS_FNS, fn) && mod !== 'shelljs') {
    const recursive = truth(option(call, 'recursive'));
    const how: How = recursive === false ? FS_FNS[fn]! : 'rm-r';
    return [del(call, scope, api, how, argsOf(call.args[0], scope))];
  }
  if (has(FSE_FNS, fn) && (FSE_MODULES.has(mod) || mod.startsWith('fs-extra') || (mod === '' && fn !== 'remove'))) return [del(call, scope, api, FSE_FNS[fn]!, argsOf(call.args[0], scope))];
  if (q === 'rimraf' || mod === 'rimraf' || (mod === '' && (fn === 'rimrafSync' || fn === 'rimraf'))) return [del(call, scope, api, 'rm-rf', argsOf(call.args[0], scope), true)];
  if (q === 'del' || mod === 'del' || (mod === '' && (fn === 'deleteSync' || fn === 'deleteAsync'))) return [del(call, scope, api, 'rm-rf', argsOf(call.args[0], scope), true, option(call, 'cwd'))];
  // exec and spawn only on child_process (RegExp's exec is not one); the other names on anything.
  if (CP_FNS.has(fn) && (CP_MODULES.has(mod) || mod.startsWith('child_process') || (fn !== 'exec' && fn !== 'spawn'))) {
    const opts = call.args.find((a) => a.n === 'dict');
    const cwd = opts?.n === 'dict' ? opts.entries.get('cwd') : undefined;
    if (fn === 'exec' || fn === 'execSync') return [shell(call, scope, api, call.args[0], cwd)];
    const list = call.args[1]?.n === 'list' ? call.args[1].items : [];
    const argv = call.args[0] ? [call.args[0], ...list] : [];
    if (call.args[1] !== undefined && call.args[1].n !== 'list' && call.args[1].n !== 'dict') argv.push(call.args[1]);
    const sh = opts?.n === 'dict' ? truth(opts.entries.get('shell')) : false;
    if ((fn === 'spawn' || fn === 'spawnSync') && sh !== false) {
      const parts = argv.map(literal);
      const text = parts.every((p): p is string => p !== null) ? parts.join(' ') : null;
      return [text !== null ? { kind: 'shell', api, src: srcOf(call, scope), text: { lit: text }, ...(cwd ? { cwd: one(argsOf(cwd, scope)) } : {}) } : computed(call, scope, api, false, 'runs a command built when it runs')];
    }
    return [exec(call, scope, api, argv, cwd)];
  }
  return [];
};

const nodeRef = (n: Node, scope: Scope): Effect[] => {
  if (n.n !== 'member' && !(n.n === 'name' && scope.binds.has(n.v))) return [];
  const q = qualify(n, scope);
  const [mod, fn] = split(q ?? (n.n === 'member' ? `?.${n.name}` : null));
  const fs = has(FS_FNS, fn) && (mod === 'fs' || mod === 'fs.promises' || mod.startsWith('fs-extra'));
  const fse = has(FSE_FNS, fn) && (mod === 'fs-extra' || mod === 'fse');
  const cp = CP_FNS.has(fn) && CP_MODULES.has(mod);
  if (!fs && !fse && !cp && !(mod === 'rimraf') && !(q === 'del.sync')) return [];
  return [computed(n, scope, q ?? fn, !cp, 'is handed on as a function: what it is called with is known only when it runs')];
};

// ------------------------------------------------------------------------------------------ Perl

const PERL_TREE = new Set(['rmtree', 'remove_tree', 'File.Path.rmtree', 'File.Path.remove_tree']);
/** Perl names read as calls without parentheses. */
export const PERL_BARE = new Set(['unlink', 'rmdir', 'rmtree', 'remove_tree', 'system', 'exec', 'readpipe', 'chdir', 'eval', 'open']);

/** `system LIST`, `exec LIST`: one string is a command line for the shell, several an argv. */
function commandOf(call: CallNode, scope: Scope, api: string, args: Node[], cwd?: Node): Effect {
  const only = args.length === 1 ? args[0]! : null;
  if (only !== null && only.n !== 'list') return shell(call, scope, api, only, cwd);
  return exec(call, scope, api, only !== null && only.n === 'list' ? only.items : args, cwd);
}

const perl: Judge = (call, scope) => {
  const q = (qualify(call.fn, scope) ?? `?.${methodName(call) ?? ''}`).replace(/^main\./, '');
  const args = call.args;
  const dollarUnderscore = [computedArg('$_')];
  if (q === 'unlink') return [del(call, scope, q, 'rm', args.length === 0 ? dollarUnderscore : args.flatMap((a) => argsOf(a, scope)))];
  if (q === 'rmdir') return [del(call, scope, q, 'rmdir', args.length === 0 ? dollarUnderscore : argsOf(args[0], scope))];
  if (PERL_TREE.has(q)) return [del(call, scope, q, 'rm-r', args.filter((a) => a.n !== 'num' && a.n !== 'dict').flatMap((a) => argsOf(a, scope)))];
  if (q === 'system' || q === 'exec') return args.length === 0 ? [] : [commandOf(call, scope, q, args)];
  if (q === 'readpipe') return [shell(call, scope, q, args[0])];
  if (q === 'chdir') return [{ kind: 'chdir', src: srcOf(call, scope), dir: args.length === 0 ? computedArg('HOME') : one(argsOf(args[0], scope)) }];
  if (q === 'eval') return args.length === 0 ? [] : code(call, scope, q, args[0]);
  if (q === 'open' && args.length >= 2) {
    const mode = literal(args[1]);
    if (args.length === 2 && mode !== null) {
      const m = /^\s*\|(.*)$|^(.*)\|\s*$/s.exec(mode);
      return m ? [shell(call, scope, 'open', { ...args[1]!, n: 'str', v: (m[1] ?? m[2]!).trim() } as Node)] : [];
    }
    if (mode === '-|' || mode === '|-') return [commandOf(call, scope, 'open', args.slice(2))];
    return mode === null && args.length > 2 ? [computed(call, scope, 'open', false, 'opens a file in a mode known only when it runs')] : [];
  }
  // Path::Tiny and friends: path('x')->remove_tree, ->remove.
  const method = methodName(call);
  const recv = receiver(call);
  if (method === 'remove_tree' || method === 'rmtree' || (method === 'remove' && recv?.n === 'call' && ['path', 'Path.Tiny.path', 'file'].includes(qualify(recv.fn, scope) ?? ''))) {
    const p = recv?.n === 'call' && ['path', 'Path.Tiny.path', 'file', 'dir'].includes(qualify(recv.fn, scope) ?? '') ? literal(recv.args[0]) : null;
    return [del(call, scope, q, method === 'remove' ? 'rm' : 'rm-r', p !== null ? [{ lit: p }] : [computedArg('the object it is called on')])];
  }
  return [];
};

// ------------------------------------------------------------------------------------------ Ruby

const FU: Readonly<Record<string, How>> = {
  rm_rf: 'rm-rf', rm_r: 'rm-r', rmtree: 'rm-rf', remove_dir: 'rm-r', remove_entry: 'rm-r', remove_entry_secure: 'rm-r',
  rm: 'rm', rm_f: 'rm-f', remove: 'rm', safe_unlink: 'rm-f', remove_file: 'rm', rmdir: 'rmdir',
};
/** FileUtils names that mean FileUtils even when called bare (after `include FileUtils`, or unbound). */
const FU_DISTINCT = new Set(['rm_rf', 'rm_r', 'rmtree', 'remove_dir', 'remove_entry', 'remove_entry_secure', 'rm_f', 'safe_unlink', 'remove_file']);
const RUBY_SHELL = new Set(['system', 'exec', 'spawn', 'Kernel.system', 'Kernel.exec', 'Kernel.spawn', 'Process.spawn', 'Process.exec', 'Open3.capture2', 'Open3.capture2e', 'Open3.capture3', 'Open3.popen2', 'Open3.popen2e', 'Open3.popen3', 'Open3.pipeline', 'IO.popen']);
const RUBY_EVAL = new Set(['eval', 'Kernel.eval', 'instance_eval', 'class_eval', 'module_eval']);
/** Ruby names read as calls without parentheses. */
export const RUBY_BARE = new Set([...Object.keys(FU), 'delete', 'unlink', 'system', 'exec', 'spawn', 'chdir', 'eval', 'instance_eval', 'class_eval', 'module_eval', 'popen', 'capture2', 'capture2e', 'capture3', 'popen2', 'popen2e', 'popen3', 'pipeline', 'send', 'public_send', '__send__']);

/** A Pathname.new('x') / Pathname('x') receiver's literal path. */
function pathnameOf(n: Node | null, scope: Scope): string | null {
  if (n?.n !== 'call') return null;
  const f = qualify(n.fn, scope);
  return f === 'Pathname.new' || f === 'Pathname' ? literal(n.args[0]) : null;
}

function rubyCommand(call: CallNode, scope: Scope, api: string): Effect[] {
  const args = [...call.args];
  if (args[0]?.n === 'dict') args.shift();
  const opts = args[args.length - 1]?.n === 'dict' ? args.pop() : undefined;
  const cwd = call.kw.get('chdir') ?? (opts?.n === 'dict' ? opts.entries.get('chdir') : undefined);
  if (args.length === 0) return [computed(call, scope, api, false, 'is given its command in a way that cannot be read')];
  return [commandOf(call, scope, api, args, cwd)];
}

const ruby: Judge = (call, scope) => {
  const q = qualify(call.fn, scope);
  const method = methodName(call);
  const recv = receiver(call);
  const recvQ = recv !== null ? qualify(recv, scope) : null;
  const bare = bareName(call, scope);
  const name = method ?? bare ?? '';
  if (recvQ !== null && /^FileUtils\.(DryRun|NoWrite)$/.test(recvQ)) return [];
  if (name === 'send' || name === 'public_send' || name === '__send__') {
    const sym = literal(call.args[0]);
    const via: CallNode = { ...call, fn: recv !== null && sym !== null ? { n: 'member', obj: recv, name: sym, at: call.at, end: call.end } : { n: 'other', at: call.at, end: call.end }, args: call.args.slice(1) };
    if (sym !== null) return ruby(via, scope);
    return recvQ !== null && ['FileUtils', 'File', 'Dir', 'Kernel'].includes(recvQ) ? [computed(call, scope, `${recvQ}.?`, true, 'calls a method named when it runs')] : [];
  }
  const fileUtils = recvQ === 'FileUtils' || recvQ?.startsWith('FileUtils.') || (bare !== null && (FU_DISTINCT.has(bare) || /\binclude\s+FileUtils\b/.test(scope.code)));
  if (fileUtils && has(FU, name)) {
    if (truth(option(call, 'noop')) === true) return [];
    return [del(call, scope, `FileUtils.${name}`, FU[name]!, call.args.filter((a) => a.n !== 'dict').flatMap((a) => argsOf(a, scope)))];
  }
  if (recvQ === 'File' && (name === 'delete' || name === 'unlink')) return [del(call, scope, `File.${name}`, 'rm', call.args.flatMap((a) => argsOf(a, scope)))];
  if (recvQ === 'Dir' && (name === 'rmdir' || name === 'delete' || name === 'unlink')) return [del(call, scope, `Dir.${name}`, 'rmdir', argsOf(call.args[0], scope))];
  const pn = pathnameOf(recv, scope);
  if (pn !== null && (name === 'rmtree' || name === 'delete' || name === 'unlink' || name === 'rmdir')) return [del(call, scope, `Pathname#${name}`, name === 'rmtree' ? 'rm-r' : name === 'rmdir' ? 'rmdir' : 'rm', [{ lit: pn }])];
  if (recv !== null && (name === 'rm_rf' || name === 'rm_r' || name === 'rmtree')) return [del(call, scope, name, 'rm-rf', call.args.length > 0 ? call.args.flatMap((a) => argsOf(a, scope)) : [computedArg('the object it is called on')])];
  if ((q !== null && RUBY_SHELL.has(q) && (recv !== null || bare !== null)) || (name === 'popen' && recvQ === 'IO')) return rubyCommand(call, scope, q ?? 'IO.popen');
  if (RUBY_EVAL.has(q ?? '') || (method !== null && RUBY_EVAL.has(method))) return code(call, scope, name, call.args[0]);
  if (q === 'Dir.chdir') return [{ kind: 'chdir', src: srcOf(call, scope), dir: call.args.length === 0 ? computedArg('HOME') : one(argsOf(call.args[0], scope)) }];
  return [];
};

const rubyRef = (n: Node, scope: Scope): Effect[] => {
  // method(:rm_rf), FileUtils.method(:rm_rf): a deletion handed on.
  if (n.n === 'call' && (qualify(n.fn, scope) === 'method' || (n.fn.n === 'member' && n.fn.name === 'method')) && has(FU, literal(n.args[0]) ?? '')) return [computed(n, scope, `FileUtils.${literal(n.args[0])}`, true, 'is handed on as a method: what it is called with is known only when it runs')];
  return [];
};

export const CALLS: Readonly<Record<Scope['lang'], Judge>> = { python, node, perl, ruby };
export const REFS: Readonly<Record<Scope['lang'], (n: Node, scope: Scope) => Effect[]>> = { python: pythonRef, node: nodeRef, perl: () => [], ruby: rubyRef };

/** Does a Perl or Ruby name or chain take its arguments without parentheses? */
export function takesBareArgs(lang: Scope['lang'], n: Node): boolean {
  const name = n.n === 'name' ? n.v.replace(/^&/, '').replace(/^.*::/, '') : n.n === 'member' ? n.name : '';
  return lang === 'perl' ? PERL_BARE.has(name) || name === 'remove' : RUBY_BARE.has(name);
}

export { lastOf };
