// Wrappers asked for their help or version (issue 11 item 8): the decision (in-process, in the
// fixture) and what the real programs do with the same line (in the read-only sandbox, one run for
// every case): a line decided ALLOW_NOOP must leave its target in place under dash, bash and zsh,
// and `xargs --show-limits rm` — which GNU xargs documents as still running the command — must not
// be ALLOW_NOOP, because it really deletes.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const fixture = useFixture();
const area = useSandboxArea('ag-queries');

/** Lines that only print; `victim` is the target they name. sudo and busybox are not installed
 *  here, so only the classifier side covers them (tests/corpus/tricky.ts). */
const NOOP = [
  'env --help rm -rf victim',
  'env --version rm -rf victim',
  'env -i --help rm -rf victim',
  'nice --version rm -rf victim',
  'nice -n 5 --help rm -rf victim',
  'nohup --help rm -rf victim',
  'time --version rm -rf victim',
  'time --help rm -rf victim',
  'stdbuf --help rm -rf victim',
  'stdbuf -o0 --version rm -rf victim',
  'timeout --help rm -rf victim',
  'setsid -V rm -rf victim',
  'setsid --help rm -rf victim',
  'ionice -h rm -rf victim',
  'taskset --version rm -rf victim',
  'chrt -V rm -rf victim',
  'flock --help rm -rf victim',
  'unshare -h rm -rf victim',
  'command --help rm -rf victim',
  'builtin --help rm -rf victim',
  'exec --help rm -rf victim',
  'xargs --help rm -rf victim',
  'xargs --version rm -rf victim',
  'rm --help victim',
  'RM --version -rf victim',
];
/** Lines that delete the victim for real: never ALLOW_NOOP. */
const DELETES = ['printf "victim\\n" | xargs --show-limits rm -rf', 'POSIXLY_CORRECT=1 rm -rf victim --help'];

describe('decisions', () => {
  it.each(NOOP)('%s -> ALLOW_NOOP', (cmd) => {
    expect(fixture().decide(cmd).code).toBe('ALLOW_NOOP');
  });
  it.each(DELETES)('%s -> not ALLOW_NOOP', (cmd) => {
    expect(fixture().decide(cmd).decision).not.toBe('ALLOW');
  });
});

const SHELLS = ['dash', 'bash', 'zsh'].filter((s) => spawnSync('sh', ['-c', `command -v ${s}`]).status === 0);

describeSandboxed('the real programs', () => {
  itSandboxed('an ALLOW_NOOP line leaves its target; xargs --show-limits deletes it', () => {
    const dir = path.join(area.rw(), 'work');
    fs.mkdirSync(dir);
    // Each case gets a fresh victim; the line prints `<shell> <survived|deleted> <line>`.
    const lines: string[] = [];
    for (const sh of SHELLS) {
      [...NOOP, ...DELETES].forEach((cmd, i) => {
        const q = cmd.replace(/'/g, `'\\''`);
        lines.push(`mkdir -p victim && echo v > victim/f; ${sh} -c '${q}' >/dev/null 2>&1 </dev/null; if [ -f victim/f ]; then s=survived; else s=deleted; fi; echo "${sh} $s ${i}"`);
      });
    }
    const r = runSandboxed(area.rw(), ['sh', '-c', lines.join('\n')], { cwd: dir, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const all = [...NOOP, ...DELETES];
    const got = r.stdout.trim().split('\n').map((l) => l.replace(/ (\d+)$/, (_m, i: string) => ` ${all[Number(i)]}`));
    const want = SHELLS.flatMap((sh) => [...NOOP.map((c) => `${sh} survived ${c}`), ...DELETES.map((c) => `${sh} deleted ${c}`)]);
    expect(got).toEqual(want);
  });
});
