# agent-guard's Python deletion guard (docs/interpreters.md, "Python"). `agent-guard run` and
# `shell-init` put this file's directory first on PYTHONPATH, so every Python that runs `site`
# imports it as its sitecustomize. It wraps os.remove and os.unlink, and leaves a finder that
# wraps shutil.rmtree and pathlib.Path.unlink when a program imports them; everything else is in
# agent-guard-delete.py beside it, read on the first such call or import. Then the sitecustomize
# this file shadows (the next one on sys.path) runs, as Python would have run it.
#
# Every Python start pays for this file (at most 1.1x a plain start, `npm run bench`): it imports
# nothing a plain start has not imported, and its bytecode and the second half's are cached beside
# them (where the directory is writable); where they are not, each start compiles this small file.
# PYTHONPATH reaches every Python on PATH: the file stays Python 2 parseable; before 3.6 it only
# chains.
import sys


def _agent_guard_install(os, here):
    from time import time
    # The guard's state (`import _agent_guard`; `.active = False` switches it off), and the finder
    # that patches shutil and pathlib as they load.
    g = sys.modules['_agent_guard'] = type(sys)('_agent_guard')
    g.dir, g.started_at, g.active, g.busy, g.real, g.impl = here, time(), True, set(), {}, None

    loader = sys.modules['_frozen_importlib_external'].SourceFileLoader
    impl = os.path.join(here, 'agent-guard-delete.py')

    def load():
        if g.impl is None:
            m = type(sys)('_agent_guard_delete')
            m.__file__ = impl
            exec(loader(m.__name__, impl).get_code(m.__name__), m.__dict__)
            m.G = g
            g.impl = m
        return g.impl

    def find_spec(name, path=None, target=None):
        return load().find_spec(name, path, target) if name in ('shutil', 'pathlib') else None
    g.load, g.find_spec = load, find_spec

    def wrap(name):
        real = g.real['os.' + name] = getattr(os, name)

        def call(*args, **kwargs):
            return load().remove('os.' + name, real, args, kwargs)
        for k in ('__module__', '__name__', '__qualname__', '__doc__'):
            setattr(call, k, getattr(real, k))
        call.__wrapped__ = real
        setattr(os, name, call)
        # shutil's rmtree is its fd-based one only when os.unlink is in os.supports_dir_fd.
        if real in os.supports_dir_fd:
            os.supports_dir_fd.add(call)
    wrap('remove')
    wrap('unlink')
    sys.meta_path.insert(0, g)
    if 'shutil' in sys.modules or 'pathlib' in sys.modules:
        load().patch_loaded()
    # The bytecode of both files, written once into this installation's own directory, also under
    # PYTHONDONTWRITEBYTECODE (which keeps the user's trees clean): without it, every start compiles.
    for name, path in (('sitecustomize', __file__), ('_agent_guard_delete', impl)):
        if not os.path.exists(sys.modules['_frozen_importlib_external'].cache_from_source(path)) and os.access(here, os.W_OK):
            keep, sys.dont_write_bytecode = sys.dont_write_bytecode, False
            try:
                loader(name, path).get_code(name)
            finally:
                sys.dont_write_bytecode = keep


def _agent_guard():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.version_info >= (3, 6) and '_agent_guard' not in sys.modules:
        try:
            _agent_guard_install(os, here)
        except Exception as e:
            sys.stderr.write('agent-guard: the Python guard could not wrap the deletion calls (%r): this program deletes unguarded\n' % (e,))
    # The next sitecustomize on sys.path (this one's directory, and another installation's, left out).
    after = [p for p in sys.path if os.path.abspath(p or '.') != here and os.path.basename(os.path.abspath(p or '.')) != 'agent-guard-python']
    if sys.version_info[0] < 3:
        import imp
        try:
            found = imp.find_module('sitecustomize', after)
        except ImportError:
            return
        imp.load_module('sitecustomize', *found)
        return
    spec = sys.modules['_frozen_importlib_external'].PathFinder.find_spec('sitecustomize', after)
    if spec is not None and spec.loader is not None and spec.origin != __file__:
        # As an import runs it: in sys.modules while it runs and after (this import then ends with it).
        module = sys.modules['sitecustomize'] = sys.modules['_frozen_importlib'].module_from_spec(spec)
        spec.loader.exec_module(module)


try:
    _agent_guard()
finally:
    del _agent_guard, _agent_guard_install
