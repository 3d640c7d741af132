// The vocabulary floor shared by every dialect: a known destructive verb that a dialect's classifier
// does not read as its own (another dialect's verb, odd casing such as `DEL a.txt` or `RM -rf x` on a
// case-insensitive filesystem, `rm -rf .` under cmd where Git for Windows may provide rm) is
// undeterminable, never silently allowed.
import type { Dialect } from '../dialect.js';
import type { Undeterminable } from './types.js';

/** Destructive verbs of any dialect, lower case. */
const FLOOR_VERBS: ReadonlySet<string> = new Set([
  // POSIX
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'srm',
  'wipe',
  // cmd
  'del',
  'erase',
  'rd',
  // PowerShell (Remove-Item and its aliases; `rm rmdir del erase rd` are above)
  'remove-item',
  'ri',
]);

/** Under POSIX `ri` is Ruby's documentation browser, not an alias of Remove-Item. */
const NOT_A_VERB: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  posix: new Set(['ri']),
  cmd: new Set(),
  powershell: new Set(),
};

/** The program word reduced to what a case-insensitive lookup would find: its last path component
 *  (`/` or `\`), lower case, without a Windows executable suffix. */
export function verbKey(word: string): string {
  const last = word.split(/[\\/]/).pop() ?? word;
  return last.toLowerCase().replace(/\.(exe|com|bat|cmd|ps1)$/, '');
}

/** Is `word`, in program position, a destructive verb of some dialect? The caller asks only for words its
 *  own classifier did not handle as its own vocabulary. */
export function isFloorVerb(word: string, dialect: Dialect): boolean {
  const key = verbKey(word);
  return FLOOR_VERBS.has(key) && !NOT_A_VERB[dialect].has(key);
}

export function floorReason(word: string, dialect: Dialect): Undeterminable {
  return {
    reason: 'foreign-verb',
    detail: `${word} is a destructive verb that the ${dialect} dialect does not read as its own, so its effect is not known`,
  };
}
