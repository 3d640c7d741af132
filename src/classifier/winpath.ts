// Windows path operands (cmd and PowerShell dialects), read for a POSIX host: `\` is a separator, a
// drive root is a protected ancestor, and a drive-absolute or UNC path names nothing inside a POSIX
// workspace. Pure string work, like paths.ts.
import type { TargetSpec, Undeterminable } from './types.js';
import { followsLink, joinRaw, normalizeAbs } from './paths.js';

export interface WindowsTargetOptions {
  /** Expand a leading `~` to `home` (PowerShell's FileSystem provider does; cmd does not). */
  tilde: boolean;
  home: string | null;
  /** The operand is a pattern the program expands itself (`del *.o`, `Remove-Item *.log`). */
  glob: boolean;
}

/** A Windows-spelled operand as a target, or why it cannot be placed. `raw` is kept as written. */
export function windowsTarget(raw: string, cwd: string | null, opts: WindowsTargetOptions): TargetSpec | Undeterminable {
  let v = raw.replace(/\\/g, '/');
  const base = { raw, glob: opts.glob };
  // UNC and device paths: \\server\share\…, \\?\C:\…, \\.\pipe\…
  if (/^\/\/[^/]/.test(v) || v === '//') {
    const p = '//' + v.replace(/^\/+/, '').replace(/\/+$/, '');
    return { ...base, path: p, joined: p, followsLink: false, foreign: 'unc' };
  }
  const drive = /^([A-Za-z]):(.*)$/.exec(v);
  if (drive) {
    const letter = drive[1]!.toUpperCase();
    const rest = drive[2]!;
    const folded = normalizeAbs('/' + rest);
    if (folded === '/') {
      // `C:`, `C:\`, `C:\.`, `C:\..`, `C:\a\..`: the drive's root (`C:` alone is that drive's current
      // directory, which may be its root; the stricter reading wins).
      return { ...base, path: `${letter}:/`, joined: `${letter}:/`, followsLink: false, foreign: 'drive-root' };
    }
    const p = `${letter}:${folded}`;
    return { ...base, path: p, joined: `${letter}:${rest.startsWith('/') ? rest : '/' + rest}`, followsLink: false, foreign: 'drive-path' };
  }
  if (opts.tilde && (v === '~' || v.startsWith('~/'))) {
    if (opts.home === null) return { reason: 'variable', detail: `${raw} depends on the home directory, which is not known` };
    v = opts.home + v.slice(1);
  }
  if (!v.startsWith('/') && cwd === null) {
    return { reason: 'unknown-cwd', detail: `${raw} is relative to a directory that is not known before the command runs` };
  }
  // `\x` (root-relative on the current drive) reads as `/x` here: on a POSIX host that is the path the
  // program would reach, and a top-level name is a protected root either way.
  const joined = joinRaw(cwd ?? '/', v);
  return { ...base, path: normalizeAbs(joined), joined, followsLink: followsLink(v) };
}
