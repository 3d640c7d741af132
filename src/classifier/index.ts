// The classifier's front door: a command line (or a concrete argv) in, facts out — one Op per
// operation of the vocabulary. It decides nothing and touches nothing. Each dialect has a reader
// in its own folder (lexer / vocabulary / walker): posix/, cmd/, powershell/; they share the kit
// (kit.ts, names.ts, options.ts, gitops.ts) and the program readers (rm.ts, git.ts, find.ts). The
// policy never sees the dialect. Layout: docs/classifier.md, docs/dialects.md.
import type { Dialect } from '../dialect.js';
import { classifyPosix } from './posix/walk.js';
import { classifyCmd } from './cmd/walk.js';
import { classifyPowerShell } from './powershell/walk.js';
import { smellsDestructive, smellsDestructivePowerShell } from './smell.js';
import type { ArgvInput, Classification, ClassifyOptions } from './types.js';

export type {
  ArgvInput,
  Classification,
  ClassifyOptions,
  GitFacts,
  Op,
  OpKind,
  TargetSpec,
  Undeterminable,
  UndeterminableReason,
} from './types.js';
export { DYNAMIC_PROGRAM, smellsDestructive } from './smell.js';
export { quoteArgv } from './posix/tokenize.js';
export { readShellArgs } from './shells.js';
// The option knowledge the shims need for a concrete argv.
export { readRm, RM_SPECS, type RmArgs } from './rm.js';
export { gitSubcommandIndex, GIT_GLOBAL_OPTIONS } from './git.js';
export { OptionReader, type OptionSpec, type OptionItem } from './options.js';

/** A POSIX command line, or a concrete argv (`classify({ argv, cwd })`: what a PATH shim receives;
 *  its words go to the program readers as they are, and each target carries its argv index). */
export function classify(input: string | ArgvInput, opts: ClassifyOptions): Classification {
  return classifyPosix(input, opts);
}

/** The front end for a dialect: POSIX shell, cmd.exe or PowerShell. Each turns its own spelling into
 *  the same facts. */
export function classifyDialect(dialect: Dialect, text: string, opts: ClassifyOptions): Classification {
  if (dialect === 'cmd') return classifyCmd(text, opts);
  if (dialect === 'powershell') return classifyPowerShell(text, opts);
  return classifyPosix(text, opts);
}

/** The destructive smell for a dialect's text: the shared one, widened with the Windows dialects'
 *  vocabulary (another dialect's verb in the text smells too). Used where the text could not be read.
 *  `null` (no usable dialect): the widest. */
export function smellsDestructiveIn(dialect: Dialect | null, text: string): boolean {
  if (dialect === 'posix') return smellsDestructive(text);
  return smellsDestructivePowerShell(text);
}
