// The checker side of the PATH shims (shims/shim.sh, docs/shims.md): the shell has expanded the
// command, so the argv is concrete. The same policy decides; a SAFE decision is compensated here;
// then a directive tells the shim what to exec so that what is left on disk (outside the
// quarantine), the output and the exit status are what the real tool would have produced:
//   run            exec the real tool with the original argv
//   keep I1 I2 …   exec it with only those arguments (1-based), e.g. rm without the operands that
//                  were quarantined (so `rm file` without -f does not fail on the moved file)
//   exit N         exit N (what the tool would have printed has been printed)
// A refusal prints the reason and the fix on stderr and is `exit 2` (BLOCK) or `exit 3` (ASK).
import { blockWith, type Directive, type ShimContext } from './directive.js';
import { shimFind } from './find-checker.js';
import { shimGit } from './git-checker.js';
import { shimRm, shimRmdir, shimShred, shimUnlink } from './rm-checker.js';
import { shimOverwrite } from '../overwrite/shims.js';

export { formatDirective, type Directive, type ShimContext, type ShimIO } from './directive.js';

type Checker = (real: string, args: readonly string[], ctx: ShimContext) => Directive;

/** The checker of each program that has a shim (src/shims/render.ts SHIM_NAMES). */
const CHECKERS: Readonly<Record<string, Checker>> = {
  rm: shimRm,
  unlink: shimUnlink,
  rmdir: shimRmdir,
  shred: shimShred,
  git: shimGit,
  find: shimFind,
  // What they would overwrite or delete is kept first (src/overwrite/, docs/overwrites.md).
  mv: (real, args, ctx) => shimOverwrite('mv', real, args, ctx),
  cp: (real, args, ctx) => shimOverwrite('cp', real, args, ctx),
  truncate: (real, args, ctx) => shimOverwrite('truncate', real, args, ctx),
  rsync: (real, args, ctx) => shimOverwrite('rsync', real, args, ctx),
};

/** The shim's entry: decide, compensate, and say what to exec. */
export function shim(name: string, real: string, args: readonly string[], ctx: ShimContext): Directive {
  const argv = [name, ...args];
  // Arguments reach Node decoded as UTF-8: bytes that are not UTF-8 cannot be checked exactly.
  if (args.some((a) => a.includes('\uFFFD'))) {
    return blockWith(ctx, argv, 'BLOCK_UNDETERMINABLE_EFFECT', 'an argument is not valid UTF-8 and cannot be checked exactly; use `agent-guard delete` with a pattern for such names');
  }
  const checker = Object.hasOwn(CHECKERS, name) ? CHECKERS[name]! : null;
  return checker ? checker(real, args, ctx) : blockWith(ctx, argv, 'BLOCK_INTERNAL_ERROR', `no shim logic for ${JSON.stringify(name)}`);
}
