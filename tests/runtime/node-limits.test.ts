// What the Node deletion guard does not see, as docs/limitations.md and docs/interpreters.md say,
// each checked to be so (in the sandbox, under `agent-guard run`): a child started without
// NODE_OPTIONS, process.binding('fs'), /bin/rm by its path from child_process, a program that
// switches the preload off, overwrites; and the rule's own edges: a file another process made while
// the program ran, a file below node_modules. Beside them, what is seen: rm by name from
// child_process (the rm shim).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { batch, guarded, nodeE, put, transactions, tree, world } from '../helpers/runtime.js';
import { describeSandboxed, itSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-node-limits');

describeSandboxed('Node deletion guard: the limits, as documented', () => {
  itSandboxed('unseen: a child without NODE_OPTIONS, process.binding, /bin/rm by path, the preload switched off, overwrites, a file born while the program ran, node_modules; seen: rm by name', () => {
    const w = world(area.rw());
    put(w.ws, {
      'l1/f.txt': '1\n',
      'l2.txt': '2\n',
      'l3/f.txt': '3\n',
      'l4/f.txt': '4\n',
      'l5/f.txt': '5\n',
      'l6.txt': 'six\n',
      'node_modules/pkg/patched.js': 'patched by hand\n',
    });
    const abs = (p: string): string => JSON.stringify(path.join(w.ws, p));
    const res = batch(w, [
      // A program that starts node with NODE_OPTIONS cleared: the child is unguarded.
      { argv: guarded(...nodeE(`require('child_process').execFileSync(process.execPath, ['-e', "require('fs').rmSync('l1', {recursive: true})"], {env: {...process.env, NODE_OPTIONS: ''}})`)) },
      // The fs binding under the public functions.
      { argv: guarded(...nodeE(`process.binding('fs').unlink(${abs('l2.txt')})`)) },
      // /bin/rm by its path: past the rm shim, and the preload sees only Node's own calls.
      { argv: guarded(...nodeE(`require('child_process').execFileSync('/bin/rm', ['-rf', 'l3'])`)) },
      // rm by name: the rm shim on PATH quarantines it.
      { argv: guarded(...nodeE(`require('child_process').execFileSync('rm', ['-rf', 'l4'])`)) },
      // A program that switches the preload off (as agent-guard's own processes do).
      { argv: guarded(...nodeE(`globalThis[Symbol.for('agent-guard.node-preload')].active = false; require('fs').rmSync('l5', {recursive: true})`)) },
      // Overwrites are not deletions: no copy is kept.
      { argv: guarded(...nodeE(`require('fs').writeFileSync('l6.txt', '')`)) },
      // A file another process makes while the program runs counts as the program's own.
      { argv: guarded(...nodeE(`require('child_process').execFileSync('sh', ['-c', 'echo late > late.txt']); require('fs').unlinkSync('late.txt')`)) },
      // Below node_modules: the package manager's, deleted as it is.
      { argv: guarded(...nodeE(`require('fs').unlinkSync('node_modules/pkg/patched.js')`)) },
    ]);
    for (const r of res) expect(r.stderr).toBe('');
    expect(res.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(tree(w.ws)).toEqual({ 'l6.txt': '', 'node_modules/': 'dir', 'node_modules/pkg/': 'dir' });
    // Only the rm shim kept anything.
    expect(transactions(w).map((t) => t.command)).toEqual(['rm -rf l4']);
    expect(fs.readdirSync(path.join(w.ws, '.agent-trash', transactions(w)[0].txid))).toEqual(['l4']);
  }, 120_000);
});
