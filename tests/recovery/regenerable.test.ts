// Rule 13 (ALLOW_REGENERABLE) relocates too (issue 11, item 2): a git-ignored artifact directory may
// hold a file someone wrote, and on the quarantine's filesystem one rename keeps it restorable. The
// decision stays ALLOW with its code; the transaction is marked regenerable (gc purges those first);
// only what would need a copy across filesystems is deleted directly. Every entry point that
// compensates, through the built CLI and the real shims, in the read-only sandbox.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';
import { BIN } from '../helpers/cli.js';
import { writeShims } from '../../src/shims/render.js';

const area = useSandboxArea('ag-regen');
const TEMPLATE = fileURLToPath(new URL('../../shims/shim.sh', import.meta.url));
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const AG = `"${process.execPath}" "${BIN}"`;

/** A workspace whose git-ignored build/ (an artifact name) holds a generated file and one written by
 *  hand. */
const SETUP = "mkdir -p src build/gen && echo a > src/a.ts && printf 'build/\\n' > .gitignore && echo out > build/gen/out.js && echo 'my notes' > build/NOTES.md && git add -A && git commit -qm init";

function world(name: string): { home: string; ws: string } {
  const home = path.join(area.rw(), name);
  const ws = path.join(home, 'ws');
  fs.mkdirSync(ws, { recursive: true });
  const r = spawnSync('sh', ['-c', `git init -q -b main && ${SETUP}`], { cwd: ws, env: { ...process.env, HOME: home, ...GIT_ENV }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return { home, ws };
}

let shimDir = '';
function shims(): string {
  if (!shimDir) {
    shimDir = path.join(area.rw(), 'shims');
    writeShims(shimDir, { node: process.execPath, bundle: BIN, templatePath: TEMPLATE });
  }
  return shimDir;
}

const read = (p: string): string | null => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null);

/** Runs the steps, each `[label, world, shell command, extra env]`, in one sandbox; each step's
 *  stdout, stderr and status land next to its world as `<label>.out|err|status`. */
function steps(list: [string, { home: string; ws: string }, string, Record<string, string>?][]): (label: string) => { status: string; out: string; err: string; home: string } {
  let script = 'set -u\n';
  const homes = new Map<string, string>();
  for (const [label, w, cmd, env] of list) {
    homes.set(label, w.home);
    const exports = Object.entries(env ?? {}).map(([k, v]) => `${k}='${v}'; export ${k}; `).join('');
    script += `( cd '${w.ws}' && HOME='${w.home}' && export HOME && ${exports}{ ${cmd} ; } > '../${label}.out' 2> '../${label}.err'; echo $? > '../${label}.status' )\n`;
  }
  const r = runSandboxed(area.rw(), ['sh', '-c', script], { env: { PATH: `${shims()}:${SYSTEM_PATH}`, AGENT_GUARD_SESSION: 'regen-test', ...GIT_ENV }, timeoutMs: 120_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return (label) => {
    const home = homes.get(label)!;
    return { status: (read(path.join(home, `${label}.status`)) ?? '').trim(), out: read(path.join(home, `${label}.out`)) ?? '', err: read(path.join(home, `${label}.err`)) ?? '', home };
  };
}

/** The transactions of a world as restore list shows them. */
const listed = (out: string): { txid: string; regenerable?: boolean; items: { origin: string }[] }[] => JSON.parse(out).transactions;

describeSandboxed('ALLOW_REGENERABLE relocates what one rename can move', () => {
  itSandboxed('check --enforce, the rm shim, find -delete through the shim and the hook: ALLOW kept, the tree restorable, the transaction regenerable', () => {
    const enforced = world('enforce');
    const rmShim = world('rm-shim');
    const findShim = world('find-shim');
    const hook = world('hook');
    const off = world('off');
    const get = steps([
      ['check', enforced, `PATH='${SYSTEM_PATH}'; ${AG} check --enforce --json -- rm -rf build && rm -rf build`],
      ['check-list', enforced, `${AG} restore list --json`],
      ['rm', rmShim, 'rm -rf build'],
      ['rm-list', rmShim, `${AG} restore list --json`],
      ['find', findShim, 'find build -delete'],
      ['find-list', findShim, `${AG} restore list --json`],
      ['hook', hook, `PATH='${SYSTEM_PATH}'; ${AG} hook-shell --shell bash --cwd "$PWD" -- 'rm -rf build' && rm -rf build`],
      ['hook-list', hook, `${AG} restore list --json`],
      ['hook-block', hook, `${AG} hook-shell --shell bash --cwd "$PWD" -- 'rm -rf /'`],
      ['off', off, `PATH='${SYSTEM_PATH}'; ${AG} check --enforce --json -- rm -rf build && rm -rf build`, { AGENT_GUARD_ALLOW_REGENERABLE: '0' }],
      ['off-list', off, `${AG} restore list --json`],
    ]);
    // check --enforce: the decision word and code stay; the compensation is a relocation marked regenerable.
    const c = get('check');
    expect(c.status, c.err).toBe('0');
    const json = JSON.parse(c.out);
    expect(json).toMatchObject({ decision: 'ALLOW', code: 'ALLOW_REGENERABLE' });
    expect(json.compensations).toEqual([expect.objectContaining({ strategy: 'relocate', policyCode: 'ALLOW_REGENERABLE', regenerable: true, status: 'done', direct: [] })]);
    for (const [label, w] of [['check', enforced], ['rm', rmShim], ['find', findShim], ['hook', hook]] as const) {
      expect({ label, status: get(label).status, build: fs.existsSync(path.join(w.ws, 'build')) }).toEqual({ label, status: '0', build: false });
      const txs = listed(get(`${label}-list`).out);
      expect({ label, txs: txs.map((t) => ({ regenerable: t.regenerable === true, items: t.items.map((i) => path.relative(w.ws, i.origin)) })) }).toEqual({ label, txs: [{ regenerable: true, items: ['build'] }] });
      const manifest = fs.readFileSync(path.join(w.ws, '.agent-trash/manifest.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
      expect(manifest.find((r) => r.kind === 'tx-start')).toMatchObject({ regenerable: true });
    }
    // (a refusal still refuses: the hook's early return is for an ALLOW only)
    expect(get('hook-block').status).toBe('2');
    // AGENT_GUARD_ALLOW_REGENERABLE=0: no regenerable shortcut at all (RELOCATE_TREE, an ordinary transaction).
    expect(JSON.parse(get('off').out)).toMatchObject({ decision: 'ALLOW', code: 'RELOCATE_TREE' });
    expect(listed(get('off-list').out).map((t) => t.regenerable ?? false)).toEqual([false]);
    // The hand-written file comes back.
    const restored = steps([['restore', rmShim, `${AG} restore "$(${AG} restore list --json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).transactions[0].txid)')"`]]);
    expect(restored('restore').status, restored('restore').err).toBe('0');
    expect(read(path.join(rmShim.ws, 'build/NOTES.md'))).toBe('my notes\n');
    expect(read(path.join(rmShim.ws, 'build/gen/out.js'))).toBe('out\n');
  });

  itSandboxed('a quarantine on another filesystem: the artifact is deleted directly (a copy of node_modules is not worth it), by every entry point', () => {
    const enforced = world('xdev-enforce');
    const rmShim = world('xdev-rm');
    const findShim = world('xdev-find');
    // The sandbox's /dev/shm is a private tmpfs: another filesystem than the workspace's.
    const trash = (name: string): Record<string, string> => ({ AGENT_GUARD_TRASH: `/dev/shm/${name}-trash` });
    const get = steps([
      ['check', enforced, `PATH='${SYSTEM_PATH}'; ${AG} check --enforce --json -- rm -rf build; ls build > ../after-check; rm -rf build`, trash('a')],
      ['rm', rmShim, 'rm -rf build; ls -A /dev/shm/b-trash 2>/dev/null | grep -c "^20" ', trash('b')],
      ['find', findShim, 'find build -delete; ls -A /dev/shm/c-trash 2>/dev/null | grep -c "^20"', trash('c')],
    ]);
    const json = JSON.parse(get('check').out.split('\n')[0]!);
    expect(json).toMatchObject({ decision: 'ALLOW', code: 'ALLOW_REGENERABLE' });
    expect(json.compensations).toEqual([expect.objectContaining({ strategy: 'relocate', regenerable: true, status: 'direct', txid: null, direct: [path.join(enforced.ws, 'build')] })]);
    // check left build for the command to delete; nothing was copied.
    expect(read(path.join(enforced.home, 'after-check'))).toBe('NOTES.md\ngen\n');
    for (const [label, w] of [['rm', rmShim], ['find', findShim]] as const) {
      expect({ label, out: get(label).out.trim(), err: get(label).err, build: fs.existsSync(path.join(w.ws, 'build')) }).toEqual({ label, out: '0', err: '', build: false });
    }
  });
});
