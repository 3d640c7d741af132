// The installed version of a harness, read from the files of its installation: no process is started
// (running `claude --version` would start a 400 MB binary, and a harness's own code has no place in an
// install step). Used by `hook install` to write only what the installed release reads.
import fs from 'node:fs';
import path from 'node:path';
import { findReal } from '../probe/realbin.js';

/** The oldest Claude Code release known to read a command hook's `onFailure: "block"` (verified in
 *  the 2.1.332 binary: "'block': the failure counts as exit code 2"). Older releases are not known
 *  to read it, so it is not written for them. */
export const CLAUDE_ON_FAILURE_SINCE: readonly [number, number, number] = [2, 1, 332];

export type Version = readonly [number, number, number];

export function parseVersion(s: string): Version | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(s.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

export function atLeast(v: Version, min: Version): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i]! > min[i]!;
  return true;
}

/** Claude Code's version from the `claude` found on PATH: the native installer keeps each release as
 *  `…/claude/versions/<version>` (the launcher links there); an npm install has the package.json of
 *  `@anthropic-ai/claude-code` (or its platform package) at or above the binary. Null when unknown. */
export function claudeVersion(envPath: string | undefined): { version: Version; from: string } | null {
  const bin = findReal('claude', envPath);
  if (bin === null) return null;
  let real: string;
  try {
    real = fs.realpathSync(bin);
  } catch {
    return null;
  }
  const named = /\/versions\/(\d+\.\d+\.\d+)$/.exec(real);
  if (named) {
    const v = parseVersion(named[1]!);
    if (v) return { version: v, from: real };
  }
  let dir = path.dirname(real);
  for (let i = 0; i < 4; i++) {
    const file = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (typeof pkg.name === 'string' && pkg.name.startsWith('@anthropic-ai/claude-code') && typeof pkg.version === 'string') {
        const v = parseVersion(pkg.version);
        return v ? { version: v, from: file } : null;
      }
    } catch {
      /* no package.json here */
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}
