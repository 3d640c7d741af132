// The destructive smell: a text test used only where the text cannot be read as commands (an
// unterminated quote, an expansion in program position, `bash -c "$X"`, a sourced file, an internal
// error). It is deliberately broad: it only ever makes a decision more restrictive.
//
// Linear in the text: every pattern matches at a bounded number of places per start (no `.*` between
// two alternatives, no nested quantifiers over the same letters). "A then later B" is two searches.
// The Windows dialects widen it with their own vocabulary (another dialect's verb smells too).
import { isFloorVerb } from './vocabulary.js';

const WORDS: readonly RegExp[] = [
  /(^|[^\w.-])(rm|rmdir|unlink|shred|srm|wipe|trash)($|[^\w.-])/i,
  // cmd and PowerShell: del/erase, rd, Remove-Item (its other aliases are POSIX names above, or `ri`,
  // which under POSIX is Ruby's documentation browser).
  /(^|[^\w.-])(del|erase|rd|remove-item)($|[^\w.-])/i,
  /-(recurse|force)\b/i,
  /(^|\s)-delete\b/,
  /--(recursive|force|no-preserve-root|hard|discard-changes|mirror|delete)\b/,
  // Interpreters' deletion calls (Python, Node, Perl, Ruby: interp/ reads them where it can).
  /(^|[^\w$])(rmtree|removedirs|rmSync|unlinkSync|rmdirSync|rimraf|rimrafSync|emptyDirSync|removeSync|deleteSync|deleteAsync|rm_rf|rm_r|remove_tree|remove_entry|remove_entry_secure|safe_unlink)($|[^\w$])/,
  /\b(os|fs|fse|fsp|shutil|FileUtils|File|Dir)\s*\.\s*(remove|unlink|rmdir|rm|delete|emptyDir)\b/,
  /\.\s*(unlink|rmdir)\s*\(/,
];

/** A program word, then later in the text one of its destructive operations. */
const LATER: readonly [RegExp, RegExp][] = [
  [/\bfind\b/, /-(exec|execdir|ok|okdir)\b/],
  [/\bgit\b/, /\b(clean|reset|restore|checkout|switch|push|stash|branch|rm|worktree)\b/],
];

/** A short-option cluster holding both r (or R) and f: `-rf`, `-fR`, `-vrf`. */
function hasForceRecursiveCluster(text: string): boolean {
  const cluster = /(?:^|\s)-([a-zA-Z]+)(?=\s|$)/g;
  for (let m = cluster.exec(text); m !== null; m = cluster.exec(text)) {
    const letters = m[1]!;
    if (/[rR]/.test(letters) && letters.includes('f')) return true;
  }
  return false;
}

export function smellsDestructive(text: string): boolean {
  if (WORDS.some((p) => p.test(text))) return true;
  for (const [first, then] of LATER) {
    const at = text.search(first);
    if (at >= 0 && then.test(text.slice(at))) return true;
  }
  return hasForceRecursiveCluster(text);
}

/** Windows verbs the POSIX smell does not know, and .NET deletions. */
const WINDOWS_SMELL: readonly RegExp[] = [
  /(^|[^\w.-])(remove-item|ri|rd|rmdir|del|erase|rm)($|[^\w-])/i,
  /(\.|::)\s*delete\s*\(/i,
];

/** Any word of the text that is a destructive verb of some dialect (`C:\bin\rm.exe`, `Remove-Item`). */
function hasFloorWord(text: string): boolean {
  for (const word of text.split(/[\s;&|(){}<>"'`,=@$]+/)) {
    if (word !== '' && isFloorVerb(word, 'powershell')) return true;
  }
  return false;
}

/** The smell widened with PowerShell's vocabulary. Only ever makes a decision stricter. */
export function smellsDestructivePowerShell(text: string): boolean {
  return smellsDestructive(text) || WINDOWS_SMELL.some((p) => p.test(text)) || hasFloorWord(text);
}

/** cmd's smell: the POSIX one, or any word that is a destructive verb of some dialect (`del`, `rd`,
 *  `Remove-Item`, `C:\x\rm.exe`). */
export function smellsDestructiveCmd(text: string): boolean {
  for (const token of text.split(/[^A-Za-z0-9_.-]+/)) {
    if (token !== '' && isFloorVerb(token, 'cmd')) return true;
  }
  return smellsDestructive(text);
}

/** A program named by an expansion somewhere in a shell text (`$cmd x`, `"${RM}" -f y`, `a; $b`):
 *  which program runs is known only then. */
export const DYNAMIC_PROGRAM = /(?:^|[;&|(\n]\s*)["']?\$[{(A-Za-z_0-9@*#?$!-]/;
