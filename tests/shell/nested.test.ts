// A nested bash or zsh typed in a guarded shell: left to its own hook only when it loads one
// (src/enforce/text.ts readsHook). Decided in process, on inner texts known only when they run, so
// nothing is compensated and nothing runs; the real shells under `agent-guard run`:
// guarded-run.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkText } from '../../src/enforce/text.js';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'ag-nested-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

const env: Record<string, string> = { HOME: cwd, PATH: `${path.join(cwd, 'shims')}:/usr/bin:/bin` };
const inner = `'x=$y; $x -rf keep'`;
const decide = (text: string, extra: Record<string, string> = {}) =>
  checkText({ text, cwd, shims: true, dialect: 'posix', hooked: true }, { ...env, ...extra }, { tamper: true });

describe('a nested shell reads its hook, or is decided as one without', () => {
  it.each([
    `bash -c ${inner}`,
    `bash -ec ${inner}`,
    `bash -l -c ${inner}`,
    `bash --norc -c ${inner}`,
    `bash -o errexit -c ${inner}`,
    `zsh -c ${inner}`,
    `zsh -xc ${inner}`,
    `zsh -d -c ${inner}`,
  ])('hooked, its own hook will see each command: %s', (t) => expect(decide(t).action).toBe('run'));

  it.each([
    `bash --posix -c ${inner}`,
    `bash -o posix -c ${inner}`,
    `bash -oc posix ${inner}`,
    `bash -p -c ${inner}`,
    `bash -pc ${inner}`,
    `bash -o privileged -c ${inner}`,
    `bash -i -c ${inner}`,
    `POSIXLY_CORRECT=1 bash -c ${inner}`,
    `env POSIXLY_CORRECT=y bash -c ${inner}`,
    `zsh -f -c ${inner}`,
    `zsh -fc ${inner}`,
    `zsh --no-rcs -c ${inner}`,
    `zsh -o no_rcs -c ${inner}`,
    `zsh -o NO_RCS -c ${inner}`,
    `zsh --no_rcs -c ${inner}`,
    `zsh +o rcs -c ${inner}`,
    `zsh --emulate sh -c ${inner}`,
  ])('without its hook, a text known only when it runs is refused: %s', (t) => {
    const v = decide(t);
    expect(v.action === 'refuse' ? v.code : v.action).toBe('BLOCK_UNDETERMINABLE_EFFECT');
  });

  it('POSIXLY_CORRECT in the environment: no bash reads BASH_ENV', () => {
    const v = decide(`bash -c ${inner}`, { POSIXLY_CORRECT: '1' });
    expect(v.action === 'refuse' ? v.code : v.action).toBe('BLOCK_UNDETERMINABLE_EFFECT');
  });
});
