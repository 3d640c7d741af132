// Relocation as a user who is not root (setpriv to nobody inside the sandbox): permissions decide
// what can move, and the decision names the side that refused.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { listing } from '../helpers/tree.mjs';
import { world as makeWorld, type World } from '../helpers/world.js';
import { copyForNobody, nodeForNobody, NOBODY } from '../helpers/nobody.js';

const area = useSandboxArea('ag-nonroot');

/** The bundle and (when nobody cannot run the one in use) node, copied where nobody can reach them
 *  (nobody may not be able to read the checkout: a 0700 home). */
function tools(): { node: string; bin: string } {
  const dir = path.join(area.rw(), 'tools');
  return { node: nodeForNobody(dir), bin: copyForNobody(BIN, dir, 0o755) };
}

/** A workspace owned by nobody (a git repo), in an area nobody can reach. */
function world(name: string): World {
  fs.chmodSync(area.rw(), 0o755);
  const w = makeWorld(path.join(area.rw(), name));
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, w.home]);
  return w;
}

function asNobody(ws: string, home: string, script: string, env: Record<string, string> = {}): { exitCode: number; json: any; stderr: string } {
  const { node, bin } = tools();
  const r = runSandboxed(area.rw(), ['sh', '-c', script, 'sh', node, bin, String(NOBODY)], { cwd: ws, env: { HOME: home, GIT_CONFIG_NOSYSTEM: '1', ...env } });
  let json: any = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  return { exitCode: r.exitCode, json, stderr: r.stderr };
}

const AS_NOBODY = 'setpriv --reuid "$3" --regid "$3" --clear-groups --';

describeSandboxed('relocation as a user who is not root', () => {
  itSandboxed('a target whose directory the user may not change: COMPENSATION_FAILED (not a storage failure), the target stays', () => {
    const w = world('eacces');
    fs.mkdirSync(path.join(w.ws, 'locked'));
    fs.writeFileSync(path.join(w.ws, 'locked', 'f.txt'), 'keep\n');
    fs.chmodSync(path.join(w.ws, 'locked'), 0o755); // owned by root: nobody cannot remove f.txt
    const r = asNobody(w.ws, w.home, `${AS_NOBODY} "$1" "$2" check --enforce --json -- "rm -f locked/f.txt"`);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json).toMatchObject({ decision: 'BLOCK', code: 'COMPENSATION_FAILED' });
    expect(fs.readFileSync(path.join(w.ws, 'locked', 'f.txt'), 'utf8')).toBe('keep\n');
  });

  itSandboxed('a read-only quarantine is the storage failure (RELOCATE_FAILED_STORAGE)', () => {
    const w = world('rotrash');
    fs.writeFileSync(path.join(w.ws, 'mine.txt'), 'mine\n');
    spawnSync('chown', [`${NOBODY}:${NOBODY}`, path.join(w.ws, 'mine.txt')]);
    const trash = path.join(w.home, 'trash');
    fs.mkdirSync(trash, { mode: 0o555 });
    const r = asNobody(w.ws, w.home, `${AS_NOBODY} "$1" "$2" check --enforce --json -- "rm -f mine.txt"`, { AGENT_GUARD_TRASH: trash });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json).toMatchObject({ decision: 'BLOCK', code: 'RELOCATE_FAILED_STORAGE' });
    expect(fs.readFileSync(path.join(w.ws, 'mine.txt'), 'utf8')).toBe('mine\n');
  });

  itSandboxed('across filesystems, a tree with a read-only (0555) directory is copied whole; removing the source fails as rm would, and the complete copy is reported under its txid', () => {
    const w = world('exdev');
    const tree = path.join(w.ws, 'tree');
    fs.mkdirSync(path.join(tree, 'ro'), { recursive: true });
    fs.writeFileSync(path.join(tree, 'top.txt'), 'top\n');
    fs.writeFileSync(path.join(tree, 'ro', 'inner.txt'), 'inner\n');
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, tree]);
    fs.chmodSync(path.join(tree, 'ro'), 0o555);
    const before = listing(tree, w.ws);
    const trash = path.join(w.home, 'trashfs');
    fs.mkdirSync(trash);
    const r = asNobody(w.ws, w.home, `mount -t tmpfs -o size=4m,mode=0777 agent-guard-nonroot "${trash}" || exit 99; ${AS_NOBODY} "$1" "$2" check --enforce --json -- "rm -rf tree"; echo "rc=$?" >&2; find "${trash}" -path '*/tree*' | sort >&2`, { AGENT_GUARD_TRASH: trash });
    // Like `rm -rf tree` by this user: ro/inner.txt cannot be unlinked, so the command is refused...
    expect(r.exitCode, r.stderr).toBe(0); // the sandboxed shell's own status
    expect(r.stderr).toContain('rc=2');
    expect(r.json).toMatchObject({ decision: 'BLOCK', code: 'COMPENSATION_FAILED' });
    // ...but the whole tree, read-only directory included, reached the quarantine first (verified
    // copy), and it is reported, so the BLOCK names a restorable txid.
    expect(r.json.compensations[0].moved).toMatchObject([{ via: 'copy' }]);
    const copied = r.stderr.split('\n').filter((l) => l.startsWith(trash)).map((l) => path.relative(path.join(trash, r.json.compensations[0].txid), l));
    expect(copied).toEqual(['tree', 'tree/ro', 'tree/ro/inner.txt', 'tree/top.txt']);
    // What rm could not remove is still at the origin, unchanged.
    expect(fs.readFileSync(path.join(tree, 'ro', 'inner.txt'), 'utf8')).toBe('inner\n');
    expect(before.length).toBe(4);
  });
});
