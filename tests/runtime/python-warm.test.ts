// The Python guard asks the session's warm checker when there is one (the PATH shims' FIFO slots,
// `<pid> rt <json>`: src/checker/protocol.ts), and `agent-guard runtime-delete` (a Node start)
// otherwise (docs/interpreters.md, "Python"). Real python3, the built bundle, in the read-only
// sandbox: the node the guard would start is a wrapper that logs each start, so a decision served
// warm leaves no line.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { BASE_PATH, NODE, PYTHON, records } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-python-warm');
const pyIt: typeof itSandboxed = PYTHON ? itSandboxed : (name) => it.skip(`${name} (python3 not installed)`, () => {});
const LIB = path.resolve(import.meta.dirname, '../checker/fixtures/lib.sh');

describeSandboxed('Python guard: decisions from the warm checker', () => {
  pyIt('served warm (no Node start): a quarantined remove and a refusal; with no checker, runtime-delete decides the same way', () => {
    const rw = area.rw();
    const ws = path.join(rw, 'ws');
    const home = path.join(rw, 'home');
    const runtime = path.join(rw, 'run');
    fs.mkdirSync(ws, { recursive: true });
    fs.mkdirSync(home);
    fs.mkdirSync(runtime, { mode: 0o700 });
    fs.mkdirSync(path.join(ws, '.git')); // a workspace root marker (no git needed for plain files)
    for (const f of ['a.txt', 'b.txt']) fs.writeFileSync(path.join(ws, f), `${f}\n`);
    const log = path.join(rw, 'node.log');
    const logNode = path.join(rw, 'lognode.sh');
    fs.writeFileSync(logNode, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${NODE}' "$@"\n`, { mode: 0o755 });
    const py = (code: string): string => `AGENT_GUARD_NODE='${logNode}' '${PYTHON}' -c '${code}'`;
    const inner = [
      'rm -f .warm-up', // a cold shim call starts the session's checker
      `. '${LIB}'; wait_server >/dev/null || exit 9`,
      `${py('import os; os.remove("a.txt"); print(os.path.exists("a.txt"))')}; echo "warm=$?"`,
      `${py('import os; os.remove("/etc/hostname")')} 2> refused.err; echo "refused=$?"`,
      `AGENT_GUARD_CHECKER= ${py('import os; os.remove("b.txt")')}; echo "cold=$?"`,
    ].join('\n');
    const env = { HOME: home, PATH: BASE_PATH, XDG_RUNTIME_DIR: runtime, TMPDIR: home, AGENT_GUARD_SESSION: 'py-warm' };
    const r = runSandboxed(rw, ['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), NODE, BIN, 'run', '--', 'sh', '-c', inner], { cwd: ws, timeoutMs: 120_000 });
    expect([r.exitCode, r.stdout], r.stderr).toEqual([0, 'False\nwarm=0\nrefused=1\ncold=0\n']);
    expect(fs.readFileSync(path.join(ws, 'refused.err'), 'utf8')).toMatch(/PermissionError.*BLOCK_OUT_OF_WORKSPACE/s);
    // One Node start for the three decisions: the one without a checker.
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toEqual([`${BIN} runtime-delete`]);
    const starts = records(path.join(ws, '.agent-trash', 'manifest.jsonl')).filter((x) => x.kind === 'tx-start');
    expect(starts.map((s) => s.command)).toEqual(['python3 -c: os.remove("a.txt")', 'python3 -c: os.remove("b.txt")']);
    expect(fs.existsSync(path.join(ws, 'a.txt')) || fs.existsSync(path.join(ws, 'b.txt'))).toBe(false);
  }, 180_000);
});
