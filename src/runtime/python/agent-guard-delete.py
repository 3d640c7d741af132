# agent-guard's Python deletion guard, second half: sitecustomize.py (beside this file) reads it on a
# program's first wrapped deletion call. docs/interpreters.md, "Python".
#
# One decision per call, the one src/runtime/delete.ts makes for Node (runtimeDelete):
# 1. The checks that read a few stats and no policy: the rule of src/runtime/churn.ts
#    (passThrough), mirrored here so that a program's own churn starts no process — nothing there, a
#    type the real call refuses, the package managers' territory, the process's own new entries. The
#    real call runs. tests/runtime/python-churn.test.ts keeps the two copies in step.
# 2. Anything else is asked of the session's warm checker when there is one (the shims' FIFO slots),
#    else of `agent-guard runtime-delete` (one Node process per decision); either
#    decides it as `rm [-r] -- PATH`, with the same engine, policy and records as every other entry
#    point, and quarantines it for RELOCATE. Its verdict is carried out: real, the real call runs;
#    done, the call returns as the real one would have; refuse, PermissionError (EPERM) with the
#    reason, which names the program.
# Fail closed: an error in the guard refuses the call (BLOCK_INTERNAL_ERROR); nothing is deleted.
# The file is not a module on sys.path (its name is no identifier): nothing can import it by chance.
import errno
import os
import stat
import sys
import _thread

G = None  # the guard's state (sitecustomize's _agent_guard), set once this file has run

#: At most this many entries below a directory are looked at to find a tree the process made itself.
OWN_TREE_LIMIT = 5000

REAL = ('real',)
DONE = ('done',)


# ---------------------------------------------------------------- shutil and pathlib, as they load

def find_spec(name, path, target):
    """The finder sitecustomize leaves first on sys.meta_path, for shutil and pathlib: the spec the
    other finders give, with the module's execution followed by its patch."""
    spec = None
    for finder in list(sys.meta_path):
        find = getattr(finder, 'find_spec', None)
        if finder is G or find is None:
            continue
        spec = find(name, path, target)
        if spec is not None:
            break
    if spec is None or spec.loader is None or not hasattr(spec.loader, 'exec_module'):
        return spec
    real_exec = spec.loader.exec_module

    def exec_module(module):
        real_exec(module)
        patch(name, module)
    if type(spec.loader).__name__ == 'SourceFileLoader':
        spec.loader.exec_module = exec_module  # a loader made for this module alone
    else:
        spec.loader = Loader(spec.loader, exec_module)  # one another module may share (a zip's)
    return spec


class Loader(object):
    def __init__(self, inner, exec_module):
        self._inner = inner
        self.exec_module = exec_module

    def create_module(self, spec):
        create = getattr(self._inner, 'create_module', None)
        return create(spec) if create is not None else None

    def __getattr__(self, name):
        return getattr(self._inner, name)


def patch_loaded():
    """Patches shutil and pathlib where they were loaded before sitecustomize ran."""
    for name in ('shutil', 'pathlib'):
        if name in sys.modules:
            patch(name, sys.modules[name])


def patch(name, module):
    if name == 'shutil':
        wrap(module, 'rmtree', 'shutil.rmtree', lambda wrapper, real: lambda *a, **k: rmtree(wrapper, real, a, k))
    else:
        wrap(module.Path, 'unlink', 'pathlib.Path.unlink', lambda wrapper, real: lambda self, *a, **k: path_unlink(real, self, a, k))
    PATCHED.add(name)
    if len(PATCHED) == 2 and G in sys.meta_path:
        sys.meta_path.remove(G)  # nothing left to patch


PATCHED = set()


def wrap(owner, attr, api, make):
    real = getattr(owner, attr)
    if getattr(real, '__wrapped__', None) is not None and G.real.get(api) is real.__wrapped__:
        return  # ours already (a reload)
    G.real[api] = real

    def wrapper(*args, **kwargs):
        if not G.active or _thread.get_ident() in G.busy:
            return real(*args, **kwargs)
        return call(*args, **kwargs)
    call = make(wrapper, real)
    for k in ('__module__', '__name__', '__qualname__', '__doc__'):
        setattr(wrapper, k, getattr(real, k, None))
    wrapper.__dict__.update(getattr(real, '__dict__', {}))  # rmtree.avoids_symlink_attacks
    wrapper.__wrapped__ = real
    setattr(owner, attr, wrapper)


# ---------------------------------------------------------------- the wrapped calls

def remove(api, real, args, kwargs):
    """os.remove and os.unlink: (path, *, dir_fd=None)."""
    if not G.active or _thread.get_ident() in G.busy:
        return real(*args, **kwargs)
    if len(args) > 1 or (len(args) == 1) == ('path' in kwargs) or any(k not in ('path', 'dir_fd') for k in kwargs):
        return real(*args, **kwargs)  # its own TypeError
    path = args[0] if args else kwargs['path']
    v = decide(api, 'unlink', path, kwargs.get('dir_fd'))
    if v is REAL:
        return real(*args, **kwargs)
    if v is DONE:
        return None
    raise v[1]


def rmtree(wrapper, real, args, kwargs):
    """shutil.rmtree, decided once for the whole tree; its own unlink and rmdir calls go through."""
    bound = bind(real, args, kwargs)
    if bound is None or 'path' not in bound:
        return through(real, args, kwargs)
    path = bound['path']
    v = decide('shutil.rmtree', 'rm-r', path, bound.get('dir_fd'))
    if v is REAL:
        return through(real, args, kwargs)
    if v is DONE:
        return None
    err = v[1]
    # A refusal is an error of the call, handled as the real rmtree handles its errors.
    if bound.get('ignore_errors'):
        return None
    if bound.get('onexc') is not None:
        bound['onexc'](wrapper, path, err)
        return None
    if bound.get('onerror') is not None:
        try:
            raise err
        except PermissionError:
            bound['onerror'](wrapper, path, sys.exc_info())
        return None
    raise err


def path_unlink(real, self, args, kwargs):
    """pathlib.Path.unlink(missing_ok=False)."""
    if bind(real, (self,) + tuple(args), kwargs) is None:
        return real(self, *args, **kwargs)
    v = decide('pathlib.Path.unlink', 'unlink', self, None)
    if v is REAL:
        return through(real, (self,) + tuple(args), kwargs)
    if v is DONE:
        return None
    raise v[1]


def bind(fn, args, kwargs):
    """The arguments by name, as the Python function `fn` takes them; None when it would refuse them
    (it raises its own TypeError then)."""
    code = getattr(fn, '__code__', None)
    if code is None:
        return None
    positional = code.co_varnames[:code.co_argcount]
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if len(args) > len(positional):
        return None
    bound = dict(zip(positional, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            return None
        bound[k] = v
    return bound


def through(real, args, kwargs):
    """The real call, with this thread's wrapped calls going straight through meanwhile."""
    tid = _thread.get_ident()
    mine = tid not in G.busy
    G.busy.add(tid)
    try:
        return real(*args, **kwargs)
    finally:
        if mine:
            G.busy.discard(tid)


# ---------------------------------------------------------------- the decision

def decide(api, kind, path, dir_fd):
    """REAL, DONE or ('refuse', PermissionError). Never raises but KeyboardInterrupt and the like."""
    tid = _thread.get_ident()
    mine = tid not in G.busy
    G.busy.add(tid)
    try:
        return _decide(api, kind, path, dir_fd)
    except Exception as e:
        return refusal(api, path, 'BLOCK', 'BLOCK_INTERNAL_ERROR', 'the guard failed (%s: %s); nothing was deleted' % (type(e).__name__, e))
    finally:
        if mine:
            G.busy.discard(tid)


def _decide(api, kind, path, dir_fd):
    try:
        p = os.fspath(path)
    except TypeError:
        return REAL  # not a path: the real call says so
    if dir_fd is not None and not isinstance(dir_fd, int):
        return REAL
    if not p or (b'\0' if isinstance(p, bytes) else '\0') in p:
        return REAL
    try:
        st = os.lstat(p) if dir_fd is None else os.lstat(p, dir_fd=dir_fd)
    except (OSError, ValueError, NotImplementedError):
        return REAL  # nothing there, or nothing the real call can reach: its own error
    text = as_text(p)
    if text is None:
        return refusal(api, path, 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT', 'the path is not valid UTF-8 and cannot be checked exactly')
    if kind == 'rm-r' and not stat.S_ISDIR(st.st_mode):
        return REAL  # rmtree of a file or a symlink removes nothing: it raises (or calls onerror)
    cwd = os.getcwd()
    if dir_fd is not None and not text.startswith('/'):
        try:
            base = os.readlink('/proc/self/fd/%d' % dir_fd)
        except OSError:
            base = ''
        if not base.startswith('/') or base.endswith(' (deleted)'):
            return refusal(api, path, 'BLOCK', 'BLOCK_UNDETERMINABLE_EFFECT', 'the directory of dir_fd=%d cannot be named' % dir_fd)
        text = base.rstrip('/') + '/' + text
    if pass_through(kind, text, cwd, os.environ, G.started_at * 1000) is not None:
        return REAL
    return ask(api, kind, path, text, cwd)


def as_text(p):
    """The path as UTF-8 text; None when its bytes are not UTF-8 (a str from surrogateescape)."""
    try:
        if isinstance(p, bytes):
            return p.decode('utf-8')
        p.encode('utf-8')
        return p
    except UnicodeError:
        return None


def ask(api, kind, path, text, cwd):
    """The verdict of `agent-guard runtime-delete`, run by the node run and shell-init export."""
    node = os.environ.get('AGENT_GUARD_NODE', '')
    if not os.path.isabs(node):
        raise RuntimeError('AGENT_GUARD_NODE names no node to ask agent-guard with (this Python was not started under agent-guard run or shell-init)')
    bundle = os.path.join(os.path.dirname(G.dir), 'agent-guard.cjs')
    import json
    request = {'runtime': 'python', 'program': program(), 'api': api, 'kind': kind, 'path': text, 'cwd': cwd, 'startedAt': G.started_at * 1000}
    v = warm(request, json)
    if v is None:
        import subprocess
        env = dict(os.environ)
        request['env'] = env
        # The checker is the guard: no Node preload (nor a CA bundle to parse) in it.
        env = dict(env, NODE_OPTIONS='', NODE_EXTRA_CA_CERTS='')
        r = subprocess.run([node, bundle, 'runtime-delete'], input=json.dumps(request).encode('utf-8', 'surrogatepass'), stdout=subprocess.PIPE, env=env)
        if r.returncode != 0:
            raise RuntimeError('agent-guard runtime-delete failed (exit %s)' % r.returncode)
        v = json.loads(r.stdout.decode('utf-8'))
    action = v.get('action')
    if action == 'real':
        return REAL
    if action == 'done':
        return DONE
    if action == 'refuse':
        return refused(path, v['message'], v['decision'], v['code'])
    raise RuntimeError('agent-guard runtime-delete gave no verdict')


def warm(request, json):
    """The verdict of the session's warm checker (AGENT_GUARD_CHECKER, the one the PATH shims use:
    docs/shims.md, "Warm path"), as `<pid> rt <json>` on a slot's FIFOs; None when there is none to
    ask, no slot is free, the request is too long, or it answers `c` or ends (then the caller asks
    `agent-guard runtime-delete`). The checker reads this process's environment from /proc (as the
    process started) and decides exactly as runtime-delete does."""
    d = os.environ.get('AGENT_GUARD_CHECKER', '')
    if not d.startswith('/') or '\n' in d:
        return None
    line = ('%d rt %s\n' % (os.getpid(), json.dumps(request, separators=(',', ':')))).encode('utf-8', 'surrogatepass')
    if len(line) > 4000:
        return None
    uid = os.getuid()
    try:
        for p in (os.path.dirname(d), d):
            st = os.lstat(p)
            if st.st_uid != uid or not stat.S_ISDIR(st.st_mode):
                return None
    except OSError:
        return None
    slot = None
    for i in range(16):
        try:
            if not stat.S_ISFIFO(os.stat('%s/s%d.q' % (d, i)).st_mode):
                return None
            fd = os.open('%s/s%d.lock' % (d, i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError:
            return None
        try:
            os.write(fd, b'%d\n' % os.getpid())
        finally:
            os.close(fd)
        slot = i
        break
    if slot is None:
        return None
    rfd = qfd = -1
    try:
        # The answer FIFO read-write first, then read-only through /proc, and the read-write end
        # closed: no open blocks, and a dead checker gives an end-of-file (as the shim does).
        afd = os.open('%s/s%d.a' % (d, slot), os.O_RDWR)
        try:
            rfd = os.open('/proc/self/fd/%d' % afd, os.O_RDONLY)
        finally:
            os.close(afd)
        qfd = os.open('%s/s%d.q' % (d, slot), os.O_RDWR)
        os.write(qfd, line)
        buf = b''
        verdict = None
        while True:
            nl = buf.find(b'\n')
            if nl < 0:
                chunk = os.read(rfd, 65536)
                if not chunk:
                    return None
                buf += chunk
                continue
            frame, buf = buf[:nl], buf[nl + 1:]
            tag = frame[:1]
            if tag in (b'e', b'E'):
                os.write(2, frame[1:] + (b'\n' if tag == b'e' else b''))
            elif tag == b'o':
                verdict = frame[1:]
            elif tag == b'd':
                break
            else:
                return None
        return json.loads(verdict.decode('utf-8')) if verdict else None
    except (OSError, ValueError):
        return None
    finally:
        if qfd >= 0:
            try:
                os.write(qfd, b'done %d\n' % os.getpid())
            except OSError:
                pass
            os.close(qfd)
        if rfd >= 0:
            os.close(rfd)


def refusal(api, path, decision, code, why):
    import json
    shown = as_text(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) else None
    if shown is None:
        shown = repr(path)
    message = 'agent-guard refused %s(%s) in %s: %s %s: %s' % (api, json.dumps(shown), program(), decision, code, why)
    return refused(path, message, decision, code)


def refused(path, message, decision, code):
    """('refuse', PermissionError): errno EPERM, the message (also written to stderr), the path."""
    try:
        sys.stderr.write(message + '\n')
        sys.stderr.flush()
    except Exception:
        try:
            os.write(2, (message + '\n').encode('utf-8', 'replace'))
        except OSError:
            pass
    err = PermissionError(errno.EPERM, message, path)
    err.agent_guard = {'decision': decision, 'code': code}
    return ('refuse', err)


_program = None


def program():
    """The program, as refusals and records name it: `python3 -c`, `python3 -m pip`,
    `python3 script.py`, `python3`."""
    global _program
    if _program is None:
        _program = program_of(getattr(sys, 'orig_argv', None), sys.argv, sys.executable)
    return _program


def program_of(orig_argv, argv, executable):
    if not orig_argv:
        exe = os.path.basename(executable or '') or 'python'
        first = argv[0] if argv else ''
        if first == '-c':
            return exe + ' -c'
        return exe + ' ' + first if first not in ('', '-') else exe
    exe = os.path.basename(orig_argv[0]) or 'python'
    i = 1
    while i < len(orig_argv):
        a = orig_argv[i]
        if a == '--':
            i += 1
            break
        if a == '-' or not a.startswith('-'):
            break
        if a.startswith('--'):
            i += 2 if a == '--check-hash-based-pycs' else 1
            continue
        for j in range(1, len(a)):
            c = a[j]
            if c in 'cm':
                value = a[j + 1:] or (orig_argv[i + 1] if i + 1 < len(orig_argv) else '')
                return exe + ' -c' if c == 'c' else exe + ' -m ' + value
            if c in 'WX':
                if j + 1 == len(a):
                    i += 1  # its value is the next word
                break
        i += 1
    if i < len(orig_argv) and orig_argv[i] != '-':
        return exe + ' ' + orig_argv[i]
    return exe


# ---------------------------------------------------------------- the rule (churn.ts, mirrored)

def join_cwd(cwd, p):
    """The path as the kernel walks it from cwd (no `..` folded)."""
    return p if p.startswith('/') else (cwd + p if cwd.endswith('/') else cwd + '/' + p)


def lstat(p):
    try:
        return os.lstat(p)
    except (OSError, ValueError):
        return None


def pass_through(kind, path, cwd, env, started_at):
    """Why the real call can run as it is, or None when the policy must decide: churn.ts
    passThrough, for a request of `kind` (rm, rm-r, unlink, rmdir, rmdir-r) by a process that
    started at `started_at` (ms since the epoch; None: unknown)."""
    if kind == 'rmdir':
        return 'empty-dir'
    a = join_cwd(cwd, path)
    st = lstat(a)
    if st is None:
        return 'missing'
    isdir = stat.S_ISDIR(st.st_mode)
    if kind in ('rm', 'unlink') and isdir:
        return 'type'
    if kind == 'rmdir-r' and not isdir:
        return 'type'
    trimmed = a.rstrip('/')
    if trimmed != a:
        t = lstat(trimmed)
        if t is not None and stat.S_ISLNK(t.st_mode):
            return None
    physical = physical_entry(a)
    if physical is None:
        return None
    territory = territory_of(physical, env)
    if territory is not None:
        return territory
    if started_at is not None and born_after(a, st, started_at):
        return 'own'
    return None


def physical_entry(a):
    """The physical path of the entry `a` names (its directory resolved, its own name kept), or None
    when the directory cannot be resolved or the name is `.` or `..`."""
    trimmed = a.rstrip('/')
    base = trimmed.rsplit('/', 1)[-1]
    if trimmed == '' or base in ('.', '..'):
        return None
    try:
        d = realpath(os.path.dirname(trimmed) or '.')
    except OSError:
        return None
    return '/' + base if d == '/' else d + '/' + base


def realpath(p):
    if sys.version_info >= (3, 10):
        return os.path.realpath(p, strict=True)
    if not os.path.exists(p):
        raise FileNotFoundError(errno.ENOENT, 'no such directory', p)
    return os.path.realpath(p)


def package_caches(env):
    """The package managers' caches and stores the environment places (absolute paths only): npm,
    yarn, pnpm, bun, node-gyp (as churn.ts lists them), pip and uv."""
    def absolute(v):
        return v if v and v.startswith('/') else None
    home = absolute(env.get('HOME'))

    def in_home(*rel):
        return [os.path.join(home, r) for r in rel] if home else []

    def first(set_, *fallback):
        return [set_] if set_ else in_home(*fallback)
    xdg = absolute(env.get('XDG_CACHE_HOME'))

    def cache(set_, name):
        return [set_] if set_ else [os.path.join(xdg, name)] if xdg else in_home('.cache/' + name)
    npm = env.get('npm_config_cache')
    store = env.get('npm_config_store_dir')
    return (
        first(absolute(npm if npm is not None else env.get('NPM_CONFIG_CACHE')), '.npm')
        + first(absolute(env.get('YARN_CACHE_FOLDER')), '.cache/yarn')
        + first(absolute(env.get('YARN_GLOBAL_FOLDER')), '.yarn/berry')
        + first(absolute(store if store is not None else env.get('NPM_CONFIG_STORE_DIR')), '.local/share/pnpm/store', '.pnpm-store', '.cache/pnpm')
        + first(absolute(env.get('BUN_INSTALL_CACHE_DIR')), '.bun/install/cache')
        + in_home('.cache/node-gyp', '.node-gyp')
        + cache(absolute(env.get('PIP_CACHE_DIR')), 'pip')
        + cache(absolute(env.get('UV_CACHE_DIR')), 'uv')
    )


_real_caches = {}


def territory_of(physical, env):
    """Below a node_modules, site-packages or dist-packages directory, or inside a package manager's
    cache (never the directory itself)."""
    parts = physical.split('/')[:-1]
    if 'node_modules' in parts:
        return 'node_modules'
    if 'site-packages' in parts or 'dist-packages' in parts:
        return 'site-packages'
    for d in package_caches(env):
        real = _real_caches.get(d)
        if real is None:
            try:
                real = realpath(d)
            except OSError:
                continue  # not there (yet): nothing of it to delete
            _real_caches[d] = real
        if physical.startswith(real if real.endswith('/') else real + '/'):
            return 'package-cache'
    return None


def born_after(a, st, started_at):
    """Was every entry of the tree at `a` born after `started_at` (ms)? A tree of more than
    OWN_TREE_LIMIT entries, an unreadable directory, or a filesystem without birth times: no."""
    read = birth_reader()
    b = read(a)
    if b is None or not b[0] * 1000 > started_at:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return True
    stack = [a]
    seen = 0
    while stack:
        d = stack.pop()
        try:
            names = os.listdir(d)
        except OSError:
            return False
        for n in names:
            seen += 1
            if seen > OWN_TREE_LIMIT:
                return False
            p = d + '/' + n
            b = read(p)
            if b is None or not b[0] * 1000 > started_at:
                return False
            if stat.S_ISDIR(b[1]):
                stack.append(p)
    return True


_birth = None


def birth_reader():
    """A function giving (birth time in s, st_mode) of an entry without following a symlink, or None
    where the system does not know it: st_birthtime where stat has it (macOS, BSD), else statx
    (Linux, through ctypes: Python's os.stat does not read birth times there)."""
    global _birth
    if _birth is None:
        _birth = _statx_reader() if sys.platform.startswith('linux') else _stat_reader
    return _birth


def _stat_reader(p):
    st = lstat(p)
    b = getattr(st, 'st_birthtime', None) if st is not None else None
    return (b, st.st_mode) if b else None


def _statx_reader():
    try:
        import ctypes
        import struct
        libc = ctypes.CDLL(None, use_errno=True)
        AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_BTIME = -100, 0x100, 0x800
        fn = getattr(libc, 'statx', None)
        if fn is not None:
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]
            fn.restype = ctypes.c_int

            def call(path, buf):
                return fn(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BTIME, buf)
        else:
            nr = {'x86_64': 332, 'aarch64': 291}.get(os.uname().machine)  # glibc < 2.28, musl < 1.2.5
            if nr is None:
                return lambda p: None
            syscall = libc.syscall
            syscall.restype = ctypes.c_long

            def call(path, buf):
                return syscall(ctypes.c_long(nr), ctypes.c_int(AT_FDCWD), ctypes.c_char_p(path), ctypes.c_int(AT_SYMLINK_NOFOLLOW), ctypes.c_uint(STATX_BTIME), buf)
    except Exception:
        return lambda p: None

    def read(p):
        # struct statx: stx_mask (u32) at 0, stx_mode (u16) at 28, stx_btime {tv_sec s64, tv_nsec u32} at 80.
        buf = ctypes.create_string_buffer(256)
        if call(os.fsencode(p), buf) != 0:
            return None
        if not struct.unpack_from('=I', buf, 0)[0] & STATX_BTIME:
            return None
        sec, nsec = struct.unpack_from('=qI', buf, 80)
        return (sec + nsec / 1e9, struct.unpack_from('=H', buf, 28)[0])
    return read
