// The rm family: rm, rmdir, unlink, shred. GNU and BSD option sets, read with the shared option
// reader (options.ts); an option outside them makes the effect unknown (fail closed) rather than
// guessed. `readRm` gives the same reading of a concrete argv to the shim.
import type { TargetSpec, Undeterminable, Word } from './types.js';
import { dynamicReason, isUndeterminable, targetOf } from './kit.js';
import { OptionReader, type OptionSpec } from './options.js';

export const FS_DELETERS: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred']);

/** The options of each program (GNU permutes options and operands; long options abbreviate). */
export const RM_SPECS: Readonly<Record<string, OptionSpec>> = {
  // GNU rm plus BSD rm's -P (overwrite), -W (undelete whiteouts), -x (one file system).
  rm: {
    shortFlags: 'fiIrRdvPWx',
    longFlags: ['force', 'one-file-system', 'no-preserve-root', 'recursive', 'dir', 'verbose'],
    longOptional: ['interactive', 'preserve-root'],
    permute: true,
    abbreviations: true,
  },
  rmdir: { shortFlags: 'pv', longFlags: ['ignore-fail-on-non-empty', 'parents', 'verbose'], permute: true, abbreviations: true },
  unlink: { permute: true, abbreviations: true },
  shred: {
    shortFlags: 'fuvxz',
    shortValues: 'ns',
    longFlags: ['force', 'remove', 'verbose', 'exact', 'zero'],
    longValues: ['iterations', 'random-source', 'size'],
    permute: true,
    abbreviations: true,
  },
};

const RECURSIVE_SHORT = 'rR';

export interface FsDeleteFacts {
  recursive: boolean;
  dryRun: boolean;
  noTargets: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
}

export function classifyFsDelete(program: string, args: Word[], cwd: string | null): FsDeleteFacts {
  const res: FsDeleteFacts = { recursive: false, dryRun: false, noTargets: false, targets: [], undeterminable: null };
  const operands: Word[] = [];
  let parents = false;
  const r = new OptionReader(
    args.map((w) => w.value),
    RM_SPECS[program]!,
  );
  while (!r.done) {
    const at = args[r.index];
    if (r.atWordStart && at?.dynamic) {
      // An expansion may turn into options as well as operands: the whole call is unknown.
      res.undeterminable ??= dynamicReason(at);
      r.skip();
      continue;
    }
    const item = r.next();
    if (item === null) break;
    if (item.kind === 'operand') {
      operands.push(args[item.word]!);
      continue;
    }
    if (item.kind === 'end') continue;
    if (item.kind === 'long') {
      if (item.status === 'unknown' && (item.typed === 'help' || item.typed === 'version')) {
        // Before the first operand every rm prints and exits (BSD rm rejects it: nothing either).
        // After one, GNU rm still only prints, but BSD rm (and GNU under POSIXLY_CORRECT) stops
        // reading options at the operand and deletes it: judged as the delete it may be.
        if (operands.length === 0) res.dryRun = true;
        continue;
      }
      if (item.status === 'ambiguous') {
        res.undeterminable ??= { reason: 'unknown-option', detail: `${args[item.word]!.value} is ambiguous for ${program}` };
        continue;
      }
      if (item.status === 'unknown') {
        res.undeterminable ??= { reason: 'unknown-option', detail: `${program} option ${args[item.word]!.value} is not one agent-guard knows the effect of` };
        continue;
      }
      // `--recursive=x` makes getopt refuse the call; read as the option, the stricter reading.
      if (item.name === 'recursive' && program === 'rm') res.recursive = true;
      if (item.name === 'parents') parents = true;
      continue;
    }
    if (!item.known) {
      res.undeterminable ??= { reason: 'unknown-option', detail: `${program} option -${item.name} is not one agent-guard knows the effect of` };
      continue;
    }
    if (program === 'rm' && RECURSIVE_SHORT.includes(item.name)) res.recursive = true;
    if (program === 'rmdir' && item.name === 'p') parents = true;
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

/** A concrete rm argv read option by option (for the shim): which words are options (and `--`),
 *  which are operands, and the flags that change what rm does with them. */
export interface RmArgs {
  /** Indexes (0-based into args) of option words and of `--`. */
  options: number[];
  operands: { i: number; value: string }[];
  recursive: boolean;
  dir: boolean;
  /** -i/-I/--interactive (other than `=never`), unless a later -f/--force overrides it. */
  interactive: boolean;
  verbose: boolean;
  /** An option rm does not know, an ambiguous one, or --help/--version: rm then does not delete
   *  as the other facts say (the real rm reports it). */
  unknown: boolean;
}

export function readRm(args: readonly string[]): RmArgs {
  const out: RmArgs = { options: [], operands: [], recursive: false, dir: false, interactive: false, verbose: false, unknown: false };
  const r = new OptionReader(args, RM_SPECS.rm!);
  for (let item = r.next(); item !== null; item = r.next()) {
    if (item.kind === 'operand') {
      out.operands.push({ i: item.word, value: item.value });
      continue;
    }
    if (out.options[out.options.length - 1] !== item.word) out.options.push(item.word);
    if (item.kind === 'end') continue;
    if (item.kind === 'long') {
      if (item.status === 'unknown' || item.status === 'ambiguous') out.unknown = true;
      else if (item.name === 'recursive') out.recursive = true;
      else if (item.name === 'dir') out.dir = true;
      else if (item.name === 'verbose') out.verbose = true;
      else if (item.name === 'force') out.interactive = false;
      else if (item.name === 'interactive') out.interactive = item.value !== 'never' && item.value !== 'no' && item.value !== 'none';
      continue;
    }
    if (!item.known) out.unknown = true;
    else if (RECURSIVE_SHORT.includes(item.name)) out.recursive = true;
    else if (item.name === 'd') out.dir = true;
    else if (item.name === 'v') out.verbose = true;
    else if (item.name === 'i' || item.name === 'I') out.interactive = true;
    else if (item.name === 'f') out.interactive = false; // the last of -f / -i wins
  }
  return out;
}
