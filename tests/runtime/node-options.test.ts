// NODE_OPTIONS with the Node preload (src/runtime/node-options.ts) as `run` and `shell-init` write
// it: first, the user's options kept, once however often it is applied; Node itself must read the
// result as meant (checked by starting node with it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardEnv } from '../../src/commands/run.js';
import { renderSnippet } from '../../src/commands/shell-init.js';
import { hasPreload, parseNodeOptions, PRELOAD_NAME, quoteNodeOption, requiredFiles, withPreload } from '../../src/runtime/node-options.js';

const P = '/opt/agent guard/lib/agent-guard-preload.cjs';

describe('NODE_OPTIONS', () => {
  it('is parsed as node_options.cc parses it', () => {
    expect(parseNodeOptions('')).toEqual([]);
    expect(parseNodeOptions('--max-old-space-size=100  -r x')).toEqual(['--max-old-space-size=100', '-r', 'x']);
    expect(parseNodeOptions('--require "/a b/c.cjs" --x')).toEqual(['--require', '/a b/c.cjs', '--x']);
    expect(parseNodeOptions('--require="/a \\"b\\"\\\\c"')).toEqual(['--require=/a "b"\\c']);
    expect(parseNodeOptions('a\\b')).toEqual(['a\\b']); // a backslash escapes only inside quotes
    expect(parseNodeOptions('"unterminated')).toBeNull();
    expect(parseNodeOptions('"x\\')).toBeNull();
    expect(requiredFiles(['-r', 'a', '--require', 'b', '--require=c', '--inspect'])).toEqual(['a', 'b', 'c']);
  });

  it('gets the preload first, keeps the user options after it, and is idempotent', () => {
    const once = withPreload(undefined, P);
    expect(once).toBe(`--require ${quoteNodeOption(P)}`);
    expect(parseNodeOptions(once)).toEqual(['--require', P]);
    expect(withPreload(once, P)).toBe(once);
    const user = '--max-old-space-size=4096 --require "/u/my hook.cjs"';
    const mixed = withPreload(user, P);
    expect(parseNodeOptions(mixed)).toEqual(['--require', P, '--max-old-space-size=4096', '--require', '/u/my hook.cjs']);
    expect(withPreload(mixed, P)).toBe(mixed);
    expect(hasPreload(mixed, P)).toBe(true);
    expect(hasPreload(user, P)).toBe(false);
    // Wherever the user put it, it is there: left as it is.
    const later = `--inspect=0 -r ${quoteNodeOption(P)}`;
    expect(withPreload(later, P)).toBe(later);
    // Another installation's preload is replaced, the rest kept.
    const other = `--require=/old/lib/${PRELOAD_NAME} -r /u/x.cjs --trace-warnings`;
    expect(parseNodeOptions(withPreload(other, P))).toEqual(['--require', P, '-r', '/u/x.cjs', '--trace-warnings']);
  });

  it('run puts it into the environment of the command; without a preload file NODE_OPTIONS is left alone', () => {
    const layout = { bundle: '/i/lib/agent-guard.cjs', shimDir: '/i/shims', guardBash: '/i/shell/guard.bash', zdotdir: '/i/shell/zsh' };
    const env = guardEnv({ PATH: '/usr/bin', NODE_OPTIONS: '--no-warnings' }, { ...layout, preload: P }, '/usr/bin/node', 's');
    expect(parseNodeOptions(env.NODE_OPTIONS!)).toEqual(['--require', P, '--no-warnings']);
    expect(guardEnv({ PATH: '/usr/bin', NODE_OPTIONS: '--no-warnings' }, { ...layout, preload: null }, '/usr/bin/node', 's').NODE_OPTIONS).toBe('--no-warnings');
    // run inside run: unchanged.
    expect(guardEnv(env, { ...layout, preload: P }, '/usr/bin/node', 's').NODE_OPTIONS).toBe(env.NODE_OPTIONS);
  });

  it('shell-init exports it once: a second eval in a guarded shell writes nothing', () => {
    const layout = { bundle: '/i/lib/agent-guard.cjs', shimDir: '/i/shims', guardBash: '/i/shell/guard.bash', guardZsh: '/i/shell/guard.zsh', zdotdir: '/i/shell/zsh', preload: P };
    const first = renderSnippet('bash', layout, '/usr/bin/node', { PATH: '/usr/bin', NODE_OPTIONS: '--no-warnings' });
    const line = first.split('\n').find((l) => l.startsWith('export NODE_OPTIONS='));
    expect(line).toBe(`export NODE_OPTIONS='--require "${P}" --no-warnings'`);
    const again = renderSnippet('bash', layout, '/usr/bin/node', { PATH: '/i/shims:/usr/bin', NODE_OPTIONS: `--require "${P}" --no-warnings` });
    expect(again).not.toMatch(/NODE_OPTIONS/);
    expect(renderSnippet('zsh', { ...layout, preload: null }, '/usr/bin/node', { PATH: '/usr/bin' })).not.toMatch(/NODE_OPTIONS/);
  });

  it('Node reads the value as meant: the preload runs first, then the user\'s, with spaces in the path', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ag nodeopts '));
    try {
      const a = path.join(dir, PRELOAD_NAME);
      const b = path.join(dir, 'user "hook".cjs');
      fs.writeFileSync(a, 'globalThis.order = ["agent-guard"];\n');
      fs.writeFileSync(b, 'globalThis.order.push("user");\n');
      const value = withPreload(`--require ${quoteNodeOption(b)}`, a);
      const r = spawnSync(process.execPath, ['-e', 'console.log(globalThis.order.join(","))'], { env: { ...process.env, NODE_OPTIONS: value }, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('agent-guard,user\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
