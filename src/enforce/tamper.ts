// Text that would switch the guard off (BLOCK_GUARD_TAMPERING): the guard's own traps, startup files
// and shim tag, builtins loaded past the shims, and guarded names bound to paths in the shell's command
// hash table (docs/shell-hooks.md). Pure text checks.

/** The programs with a shim (src/shims/render.ts). */
export const SHIMMED = new Set(['rm', 'rmdir', 'unlink', 'shred', 'git', 'find']);

/** Programs that are guarded or that the guard relies on: a builtin of one of these names (bash's
 *  `enable -f LIB NAME`, `enable NAME`) would take it past the shims or break the hook itself. A
 *  loadable builtin of another name (pyenv/rbenv/nodenv's `realpath`) is no concern of the guard. */
export const GUARDED_BUILTINS = new Set([...SHIMMED, 'srm', 'wipe', 'xargs', 'parallel', 'mv', 'cp', 'truncate', 'rsync', 'enable', 'builtin', 'command', 'trap', 'shopt', 'set', 'unset', 'local', 'return', 'exit', 'kill', 'printf', 'eval', 'source', '.', 'declare', 'typeset', 'history', 'hash', 'type', 'exec', 'bash', 'sh', 'zsh', 'env', 'sudo', 'node']);

/** The guard's own machinery: its shim loop tag, its traps, its startup files. */
const TAMPER = /AGENT_GUARD_SHIM_PID|AGENT_GUARD_CHECKER\w*=|\bunset\s+(-v\s+)?AGENT_GUARD_CHECKER|\btrap\s+(?!-[pl]\b)[^;&|\n]*\bDEBUG\b|\bTRAPDEBUG\s*\(|\bunfunction\s+TRAPDEBUG|\bunset\s+(-f\s+)?(TRAPDEBUG|__agent_guard\w*)|\bshopt\s+-u\s+extdebug|\bset\s+\+T\b|\b(unset|export)\s+(BASH_ENV|ZDOTDIR)\b|\b(BASH_ENV|ZDOTDIR)=/;

/** The words after each call of builtin `name` in the text, up to the end of its simple command. */
function callWords(text: string, name: string): string[][] {
  return [...text.matchAll(new RegExp(`(?:^|[\\s;&|(\`{])${name}\\s+([^;&|\\n)\`]*)`, 'g'))].map((m) => m[1]!.trim().split(/\s+/).filter((w) => w !== ''));
}

/** How many words a redirection starting at word `w` takes: 0 (none), 1 (its target attached),
 *  2 (the target is the next word). */
function redirectionWords(w: string): number {
  if (!/^(\d?[<>]|&>)/.test(w)) return 0;
  return /^(\d?[<>][>&]?|&>)$/.test(w) ? 2 : 1;
}

/** Builtins loaded past the shims: bash's `enable [-f LIB] NAME…` of a guarded name, zsh's
 *  `zmodload zsh/files` (rm, rmdir, mv… as builtins) unless `-F` picks only harmless features. */
function loadsGuardedBuiltin(text: string): string | null {
  for (const words of callWords(text, 'enable')) {
    let names: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!.replace(/^['"]|['"]$/g, '');
      if (w === '--') {
        names = names.concat(words.slice(i + 1));
        break;
      }
      if (/^-[a-zA-Z]*f$/.test(w)) {
        i++; // the library
        continue;
      }
      if (w.startsWith('-')) continue; // -n, -a, -p, -s, -d
      const redirection = redirectionWords(w);
      if (redirection > 0) {
        i += redirection - 1; // (and its target)
        continue;
      }
      names.push(w);
    }
    const hit = names.map((n) => n.replace(/^['"]|['"]$/g, '')).find((n) => GUARDED_BUILTINS.has(n) || /[^A-Za-z0-9_-]/.test(n));
    if (hit !== undefined) return `enable loads or enables a builtin ${hit}, which no shim would see`;
  }
  for (const words of callWords(text, 'zmodload')) {
    if (!words.includes('zsh/files')) continue;
    const features = words.filter((w) => /^[+-]?b:/.test(w));
    const partial = words.some((w) => /^-[a-zA-Z]*F/.test(w));
    const risky = !partial || features.length === 0 || features.some((f) => /^\+?b:(zf_)?(rm|rmdir|mv|ln|chmod|chown)$/.test(f));
    if (risky) return 'zmodload zsh/files makes rm a builtin, which no shim would see';
  }
  return null;
}

/** A name that binding to a path would take past the shims: a guarded one, or one the text does not
 *  spell out (a variable, a quote, a glob: fail closed). */
const bindable = (name: string): boolean => GUARDED_BUILTINS.has(name) || !/^[A-Za-z0-9_.+-]+$/.test(name);

/** The shell's command hash table: a name bound to a path there runs that path without a PATH lookup,
 *  so past the shims (tested: each of these deleted a directory for good under `agent-guard run`).
 *  bash: `hash -p PATH NAME`, `BASH_CMDS[NAME]=PATH` (and any other write of BASH_CMDS: `declare`,
 *  `printf -v`, `read`, a nameref; reading it as `$BASH_CMDS`/`${BASH_CMDS[…]}` is fine). zsh:
 *  `hash NAME=PATH` (not `hash -d`, named directories), `commands[NAME]=PATH`, `commands=(NAME PATH…)`. */
function bindsPastShims(text: string): string | null {
  for (const words of callWords(text, 'hash')) {
    let bindsPath = false; // bash -p PATH
    let namedDirs = false; // zsh -d
    const names: string[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (w === '--') {
        names.push(...words.slice(i + 1));
        break;
      }
      const redirection = redirectionWords(w);
      if (redirection > 0) {
        i += redirection - 1; // (and its target)
        continue;
      }
      if (/^-[A-Za-z]+$/.test(w)) {
        if (w.includes('d')) namedDirs = true;
        if (w.includes('p')) {
          bindsPath = true;
          if (w.endsWith('p')) i++; // the path
        }
        continue;
      }
      names.push(w);
    }
    for (const n of names) {
      const eq = n.indexOf('=');
      const name = (eq > 0 ? n.slice(0, eq) : n).replace(/^['"]|['"]$/g, '');
      if ((bindsPath || (eq > 0 && !namedDirs)) && bindable(name)) return `hash binds ${name} to a path, which the shell then runs past the shims`;
    }
  }
  if (/\bBASH_CMDS\b/.test(text.replace(/\$\{[#!]?BASH_CMDS\b|\$BASH_CMDS\b/g, ''))) return 'BASH_CMDS binds names to paths, which the shell then runs past the shims';
  for (const m of text.matchAll(/(?:^|[\s;&|(`{])commands\[([^\]]*)\]\+?=/g)) {
    const name = m[1]!.trim().replace(/^['"]|['"]$/g, '');
    if (bindable(name)) return `commands[${name}]= binds ${name} to a path, which zsh then runs past the shims`;
  }
  // (a bash array of that name is common: only a guarded name in it counts)
  for (const m of text.matchAll(/(?:^|[\s;&|(`{])commands\+?=\(([^)]*)\)/g)) {
    const name = m[1]!.trim().split(/\s+/).map((w) => w.replace(/^\[|\]=.*$|^['"]|['"]$/g, '')).find((w) => GUARDED_BUILTINS.has(w));
    if (name !== undefined) return `commands=(…) binds ${name} to a path, which zsh then runs past the shims`;
  }
  return null;
}

/** POSIXLY_CORRECT exported (or set as a variable of its own, which `set -a` or a later `export`
 *  would export): every bash started from then on runs in POSIX mode and reads no BASH_ENV, so
 *  no hook. As one command's prefix (`POSIXLY_CORRECT=1 ls`) it is that command's business (a
 *  nested bash in POSIX mode is decided as unhooked: text.ts readsHook). */
const POSIX_EXPORT = /(?:^|[\s;&|(`{])(?:export|declare\s+-\w*x\w*|typeset\s+-\w*x\w*)\s+(?:[^;&|\n)`]*\s)?POSIXLY_CORRECT\b|(?:^|[;&|(`{\n]\s*)POSIXLY_CORRECT=[^\s;&|)`]*\s*(?:$|[;&|)`}\n])/;

/** Why a text turns the guard off, or null. */
export function tampering(text: string): string | null {
  if (TAMPER.test(text)) return 'the line changes what agent-guard relies on (its traps, startup files or shim tag)';
  if (POSIX_EXPORT.test(text)) return 'POSIXLY_CORRECT in the environment makes every bash start without its hook (no BASH_ENV in POSIX mode)';
  return loadsGuardedBuiltin(text) ?? bindsPastShims(text);
}
