// The rm family: rm, rmdir, unlink, shred. GNU and BSD option sets; an option outside them makes the
// effect unknown (fail closed) rather than guessed.
import type { TargetSpec, Undeterminable } from './types.js';
import type { Word } from './words.js';
import { followsLink, joinRaw, normalizeAbs } from './paths.js';

export const FS_DELETERS: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred']);

interface Spec {
  shortFlag: string;
  shortArg: string;
  longFlag: readonly string[];
  longArg: readonly string[];
  recursiveShort: string;
  recursiveLong: readonly string[];
}

const SPECS: Record<string, Spec> = {
  // GNU rm plus BSD rm's -P (overwrite), -W (undelete whiteouts), -x (one file system).
  rm: {
    shortFlag: 'fiIrRdvPWx',
    shortArg: '',
    longFlag: ['force', 'interactive', 'one-file-system', 'no-preserve-root', 'preserve-root', 'recursive', 'dir', 'verbose'],
    longArg: [],
    recursiveShort: 'rR',
    recursiveLong: ['recursive'],
  },
  rmdir: { shortFlag: 'pv', shortArg: '', longFlag: ['ignore-fail-on-non-empty', 'parents', 'verbose'], longArg: [], recursiveShort: '', recursiveLong: [] },
  unlink: { shortFlag: '', shortArg: '', longFlag: [], longArg: [], recursiveShort: '', recursiveLong: [] },
  shred: {
    shortFlag: 'fuvxz',
    shortArg: 'ns',
    longFlag: ['force', 'remove', 'verbose', 'exact', 'zero'],
    longArg: ['iterations', 'random-source', 'size'],
    recursiveShort: '',
    recursiveLong: [],
  },
};

export interface FsDeleteFacts {
  recursive: boolean;
  dryRun: boolean;
  noTargets: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
}

export function dynamicReason(w: Word): Undeterminable {
  return w.subs.length > 0
    ? { reason: 'substitution', detail: `${w.display} is produced by a command substitution` }
    : { reason: 'variable', detail: `${w.display} depends on a value that is not known before the command runs` };
}

/** A path operand as a target; an Undeterminable when it cannot be placed. */
export function targetOf(w: Word, cwd: string | null): TargetSpec | Undeterminable {
  if (w.dynamic) return dynamicReason(w);
  const v = w.value;
  if (!v.startsWith('/') && cwd === null) {
    return { reason: 'unknown-cwd', detail: `${w.display} is relative to a directory that is not known before the command runs` };
  }
  const joined = joinRaw(cwd ?? '/', v);
  return { raw: w.display, path: normalizeAbs(joined), joined, glob: w.glob, followsLink: followsLink(v) };
}

export function isUndeterminable(x: TargetSpec | Undeterminable): x is Undeterminable {
  return 'reason' in x;
}

export function classifyFsDelete(program: string, args: Word[], cwd: string | null): FsDeleteFacts {
  const spec = SPECS[program]!;
  const res: FsDeleteFacts = { recursive: false, dryRun: false, noTargets: false, targets: [], undeterminable: null };
  const operands: Word[] = [];
  let parents = false;
  let endOfOptions = false;
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!;
    if (w.dynamic) {
      // An expansion may turn into options as well as operands: the whole call is unknown.
      res.undeterminable ??= dynamicReason(w);
      continue;
    }
    const v = w.value;
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      operands.push(w);
      continue;
    }
    if (v === '--') {
      endOfOptions = true;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq < 0 ? v.slice(2) : v.slice(2, eq);
      if (name === 'help' || name === 'version') {
        // Before the first operand every rm prints and exits (BSD rm rejects it: nothing either).
        // After one, GNU rm still only prints, but BSD rm (and GNU under POSIXLY_CORRECT) stops
        // reading options at the operand and deletes it: judged as the delete it may be.
        if (operands.length === 0) res.dryRun = true;
        continue;
      }
      if (spec.recursiveLong.includes(name)) res.recursive = true;
      if (name === 'parents') parents = true;
      if (spec.longArg.includes(name)) {
        if (eq < 0) k++;
        continue;
      }
      // GNU accepts unambiguous abbreviations of long options (`--recur`).
      const matches = [...spec.longFlag, ...spec.longArg].filter((o) => o.startsWith(name));
      if (spec.longFlag.includes(name) || (matches.length > 0 && eq < 0)) {
        if (matches.some((m) => spec.recursiveLong.includes(m)) && matches.length === 1) res.recursive = true;
        if (matches.length === 1 && matches[0] === 'parents') parents = true;
        if (matches.length === 1 && spec.longArg.includes(matches[0]!)) k++;
        if (matches.length > 1 && !spec.longFlag.includes(name)) {
          res.undeterminable ??= { reason: 'unknown-option', detail: `${v} is ambiguous for ${program}` };
        }
        continue;
      }
      res.undeterminable ??= { reason: 'unknown-option', detail: `${program} option ${v} is not one agent-guard knows the effect of` };
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const o = v[j]!;
      if (spec.shortArg.includes(o)) {
        if (j === v.length - 1) k++;
        break;
      }
      if (!spec.shortFlag.includes(o)) {
        res.undeterminable ??= { reason: 'unknown-option', detail: `${program} option -${o} is not one agent-guard knows the effect of` };
        continue;
      }
      if (spec.recursiveShort.includes(o)) res.recursive = true;
      if (program === 'rmdir' && o === 'p') parents = true;
    }
  }
  let effective = 0;
  for (const w of operands) {
    if (!w.dynamic && w.value === '') continue; // `rm ""` fails on its own and removes nothing
    if (program === 'shred' && w.value === '-') continue; // shred's `-` is standard output
    const t = targetOf(w, cwd);
    if (isUndeterminable(t)) {
      res.undeterminable ??= t;
      continue;
    }
    res.targets.push(t);
    effective++;
    if (parents && t.path && !w.glob) {
      // `rmdir -p a/b/c` also removes a/b and a.
      const parts = w.value.replace(/\/+$/, '').split('/');
      for (let n = parts.length - 1; n > 0; n--) {
        const prefix = parts.slice(0, n).join('/');
        if (prefix === '' || prefix === '.' || prefix === '..') continue;
        const p = targetOf({ ...w, value: prefix, display: prefix }, cwd);
        if (!isUndeterminable(p)) res.targets.push(p);
      }
    }
  }
  res.noTargets = effective === 0 && res.undeterminable === null;
  return res;
}
