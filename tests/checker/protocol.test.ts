// The warm checker's pure parts: the request/answer protocol (src/checker/protocol.ts) and the
// verification of its directories (src/checker/place.ts). Nothing here deletes: the directory
// checks make and inspect directories under a temp dir only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLD, frames, MAX_REQUEST, parseDone, parseRequest } from '../../src/checker/protocol.js';
import { checkerBase, ensurePrivateDir, idleMs, isPrivateDir, newCheckerDir, ownerPid, processStart } from '../../src/checker/place.js';

describe('protocol', () => {
  it('parses a request: pid, argc, name, then the real path (which may hold spaces)', () => {
    expect(parseRequest('123 2 rm /usr/bin/rm')).toEqual({ pid: 123, argc: 2, name: 'rm', real: '/usr/bin/rm' });
    expect(parseRequest('9 0 git /opt/my tools/git')).toEqual({ pid: 9, argc: 0, name: 'git', real: '/opt/my tools/git' });
    for (const bad of ['', 'x 1 rm /bin/rm', '0 1 rm /bin/rm', '12 -1 rm /bin/rm', '12 1 rm bin/rm', '12 1 r;m /bin/rm', '12 01 rm /bin/rm', '12 1  rm /bin/rm']) {
      expect(parseRequest(bad), bad).toBeNull();
    }
    expect(parseRequest(`1 1 rm /${'a'.repeat(MAX_REQUEST)}`)).toBeNull();
    expect(parseDone('done 42')).toBe(42);
    expect(parseDone('done 42 ')).toBeNull();
    expect(parseDone('done')).toBeNull();
  });

  it('frames output in order: whole lines, a partial last line, NULs dropped, then the last frame', () => {
    expect(frames([], 'drun')).toBe('drun\n');
    expect(frames([{ fd: 2, text: 'agent-guard: refused\n' }], 'dexit 2')).toBe('eagent-guard: refused\ndexit 2\n');
    expect(frames([{ fd: 1, text: 'a\n\nb' }, { fd: 2, text: 'x\\n %s\t\n' }, { fd: 1, text: 'c\0d\n' }], 'dkeep 1 3')).toBe(
      'oa\no\nOb\nex\\n %s\t\nocd\ndkeep 1 3\n',
    );
    expect(COLD).toBe('c');
  });
});

describe('checker directories', () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ag-checker-place-')));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const uid = process.getuid!();

  it('accepts only a directory of ours, not a symlink, with no group/other bits', () => {
    const ok = path.join(tmp, 'ok');
    expect(ensurePrivateDir(ok, uid)).toBe(true);
    expect((fs.statSync(ok).mode & 0o777).toString(8)).toBe('700');
    const loose = path.join(tmp, 'loose');
    fs.mkdirSync(loose, { mode: 0o755 });
    fs.chmodSync(loose, 0o755);
    expect(ensurePrivateDir(loose, uid)).toBe(false);
    expect((fs.statSync(loose).mode & 0o777).toString(8)).toBe('755'); // not tightened
    const link = path.join(tmp, 'link');
    fs.symlinkSync(ok, link);
    expect(isPrivateDir(link, uid)).toBe(false);
    expect(ensurePrivateDir(link, uid)).toBe(false);
    const file = path.join(tmp, 'file');
    fs.writeFileSync(file, '');
    expect(ensurePrivateDir(file, uid)).toBe(false);
    expect(isPrivateDir(ok, uid + 1)).toBe(false); // another owner
  });

  it('per-user parent: $XDG_RUNTIME_DIR/agent-guard when that is private, else <tmp>/agent-guard-<uid>; a squatted name is not used', () => {
    const xdg = path.join(tmp, 'xdg');
    fs.mkdirSync(xdg, { mode: 0o700 });
    const t1 = path.join(tmp, 't1');
    fs.mkdirSync(t1);
    expect(checkerBase({ XDG_RUNTIME_DIR: xdg }, uid, t1)).toBe(path.join(xdg, 'agent-guard'));
    expect(checkerBase({}, uid, t1)).toBe(path.join(t1, `agent-guard-${uid}`));
    expect(checkerBase({ XDG_RUNTIME_DIR: 'relative' }, uid, t1)).toBe(path.join(t1, `agent-guard-${uid}`));
    // A world-readable XDG_RUNTIME_DIR is not trusted.
    const xdgLoose = path.join(tmp, 'xdg-loose');
    fs.mkdirSync(xdgLoose);
    fs.chmodSync(xdgLoose, 0o755);
    expect(checkerBase({ XDG_RUNTIME_DIR: xdgLoose }, uid, t1)).toBe(path.join(t1, `agent-guard-${uid}`));
    // /tmp fallback squatted: made by someone else first (another owner), a symlink, or loose.
    for (const squat of ['owner', 'symlink', 'loose'] as const) {
      const t = path.join(tmp, `sq-${squat}`);
      fs.mkdirSync(t);
      const name = path.join(t, `agent-guard-${uid}`);
      if (squat === 'symlink') fs.symlinkSync(xdg, name);
      else {
        fs.mkdirSync(name, { mode: 0o700 });
        if (squat === 'owner') fs.chownSync(name, uid + 4242, uid + 4242);
        else fs.chmodSync(name, 0o777);
      }
      expect(checkerBase({}, uid, t), squat).toBeNull();
    }
  });

  it('names a new session directory without creating it; reads owner, idle and process start times', () => {
    const d = newCheckerDir(tmp);
    expect(path.dirname(d)).toBe(tmp);
    expect(path.basename(d)).toMatch(/^[0-9a-f]{16}$/);
    expect(fs.existsSync(d)).toBe(false);
    expect(ownerPid({ AGENT_GUARD_CHECKER_OWNER: '123' })).toBe(123);
    for (const bad of ['', '0', '-1', '12x', '01']) expect(ownerPid({ AGENT_GUARD_CHECKER_OWNER: bad })).toBeNull();
    expect(idleMs({})).toBe(600_000);
    expect(idleMs({ AGENT_GUARD_CHECKER_IDLE: '2' })).toBe(2000);
    expect(idleMs({ AGENT_GUARD_CHECKER_IDLE: 'soon' })).toBe(600_000);
    expect(processStart(process.pid)).toMatch(/^\d+$/);
    expect(processStart(process.pid)).toBe(processStart(process.pid));
    expect(processStart(0)).toBeNull();
    expect(processStart(2 ** 30)).toBeNull();
  });
});
