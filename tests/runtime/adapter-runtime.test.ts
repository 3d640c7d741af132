// A harness hook under `agent-guard run` leaves a Python or Node program's own deletion calls to the
// runtime guard (docs/interpreters.md): the hook relocating the target first made the program's call
// fail on a missing path (`os.remove` raised FileNotFoundError, exit 1), where unguarded it succeeds.
// What the runtime guard does not see is still decided by the hook: a deletion out of the workspace,
// and a Perl one-liner (no runtime guard). Real python3 and node, in the read-only sandbox.
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { batch, guarded, NODE, put, PYTHON, transactions, tree, world as makeWorld } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-adapter-runtime');
const pyIt: typeof itSandboxed = PYTHON ? itSandboxed : (name) => it.skip(`${name} (python3 not installed)`, () => {});

const payload = (cwd: string, command: string): string =>
  JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'x' }, tool_use_id: 'toolu_1' });

/** The hook on the payload, then (when it lets it run) the command itself, as Claude Code does. */
const HOOK_THEN_RUN = `o=$(printf '%s' "$P" | "$AG_NODE" "$AG_BIN" hook claude 2>/dev/null); h=$?; case $o in *'"deny"'*) h=deny ;; esac; echo "hook=$h"; [ "$h" = 0 ] || exit 0; sh -c "$C"; echo "cmd=$?"`;

describeSandboxed('harness hook under run: interpreter deletions are left to the runtime guard', () => {
  pyIt('python3 os.remove / shutil.rmtree and node unlinkSync run as unguarded and are quarantined once, by the runtime guard; out of the workspace and Perl are still the hook’s', () => {
    const w = makeWorld(area.rw());
    put(w.ws, { 'notes.txt': 'n\n', 'build/out.txt': 'o\n', 'data.txt': 'd\n', 'perl.txt': 'p\n' });
    const before = tree(w.ws);
    const commands = [
      `${PYTHON} -c "import os; os.remove('notes.txt')"`,
      `${PYTHON} -c "import shutil; shutil.rmtree('build')"`,
      `node -e "require('fs').unlinkSync('data.txt')"`,
      `${PYTHON} -c "import os; os.remove('/etc/hostname')"`,
      `perl -e 'unlink "perl.txt"'`,
    ];
    const res = batch(
      w,
      commands.map((c) => ({ argv: guarded('sh', '-c', HOOK_THEN_RUN), env: { P: payload(w.ws, c), C: c, AG_NODE: NODE, AG_BIN: BIN } })),
    );
    expect(res.map((r) => r.stdout.trim())).toEqual(['hook=0\ncmd=0', 'hook=0\ncmd=0', 'hook=0\ncmd=0', 'hook=deny', 'hook=0\ncmd=0']);
    // One transaction per deletion: the runtime guard's (python3/node), the hook's for Perl.
    const starts = transactions(w).map((s) => String(s.command));
    expect(starts).toHaveLength(4);
    expect(starts.slice(0, 3)).toEqual([expect.stringMatching(/^python3 -c: os\.remove/), expect.stringMatching(/^python3 -c: shutil\.rmtree/), expect.stringMatching(/^node -e: /)]);
    expect(starts[3]).toContain('perl');
    const back = batch(w, transactions(w).map((s) => ({ argv: [NODE, BIN, 'restore', s.txid] })));
    for (const r of back) expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(w.ws)).toEqual(before);
    expect(path.isAbsolute(w.ws)).toBe(true);
  }, 240_000);
});
