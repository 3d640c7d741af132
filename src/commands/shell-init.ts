// `agent-guard shell-init bash|zsh`: prints the snippet an rc file evals,
//
//   eval "$(agent-guard shell-init bash)"
//
// which exports the hook environment (AGENT_GUARD_NODE, AGENT_GUARD_BUNDLE, AGENT_GUARD_SHIMS,
// BASH_ENV and ZDOTDIR with the user's previous values kept in AGENT_GUARD_USER_BASH_ENV and
// AGENT_GUARD_USER_ZDOTDIR), names the shell's warm checker (AGENT_GUARD_CHECKER, and
// AGENT_GUARD_CHECKER_OWNER=$$: it ends with the shell), puts the shim directory first on PATH and
// the Node preload first in NODE_OPTIONS and the Python guard first on PYTHONPATH (once, however often
// it is eval'd) and sources the guard
// for the current interactive shell. Absolute paths are baked in.
// The shims of a package or a checkout are (re)written into the per-user data directory first
// (src/layout.ts).
//
// Internal, for install.sh: `shell-init --write-shims DIR [--node PATH] [--template PATH]` renders
// the shims of this bundle into DIR and prints the paths written, one per line.
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { CommandContext } from '../context.js';
import type { Env } from '../config.js';
import { currentLayout, INSTALL_HINT, LayoutError, preloadOrWarn, prepareShims, prependPath, runningBundle, type Layout } from '../layout.js';
import { writeShims } from '../shims/render.js';
import { CHECKER_ENV, checkerBase, newCheckerDir } from '../checker/place.js';
import { withPreload } from '../runtime/node-options.js';
import { pythonGuardOrWarn, withSitecustomize } from '../runtime/python-path.js';

export const SHELLS = ['bash', 'zsh'] as const;
export type InitShell = (typeof SHELLS)[number];

interface ShellInitOptions {
  writeShims?: string;
  node?: string;
  template?: string;
}

export function configureShellInit(program: Command, ctx: CommandContext): void {
  program
    .command('shell-init')
    .description('print the shell code to eval in an rc file: eval "$(agent-guard shell-init bash)" (or zsh)')
    .argument('[shell]', 'bash or zsh')
    .addOption(new Option('--write-shims <dir>', 'internal (install.sh): render the shims of this bundle into <dir>').hideHelp())
    .addOption(new Option('--node <path>', 'internal: the node path baked into the shims (--write-shims)').hideHelp())
    .addOption(new Option('--template <path>', 'internal: the shim template (--write-shims)').hideHelp())
    .action((shell: string | undefined, opts: ShellInitOptions) => {
      ctx.exitCode = runShellInit(shell, opts, ctx);
    });
}

/** A word in single quotes, for sh, bash and zsh alike. */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The snippet for `shell` with the paths of `layout` and `node` baked in, given the environment the
 *  shell exported to `shell-init` (its command substitution). Only what is not in place yet is
 *  emitted, so a second eval in a shell that already runs the guard writes neither BASH_ENV nor
 *  ZDOTDIR nor PATH nor NODE_OPTIONS (the guard itself refuses changes to the first three as
 *  tampering). A `preload` (null: its file is missing) goes first in NODE_OPTIONS. `checkerDir`: a
 *  new warm checker directory for this shell, used only when the shell has none yet (a shell inside
 *  `agent-guard run` keeps the run's). Pure: no file access. */
export function renderSnippet(
  shell: InitShell,
  layout: Pick<Layout, 'bundle' | 'shimDir' | 'guardBash' | 'guardZsh' | 'zdotdir'> & { preload?: string | null; python?: string | null },
  node: string,
  env: Env,
  checkerDir: string | null = null,
): string {
  const lines: string[] = [];
  const set = (name: string, value: string): void => {
    if (env[name] !== value) lines.push(`export ${name}=${sq(value)}`);
  };
  set('AGENT_GUARD_NODE', node);
  set('AGENT_GUARD_BUNDLE', layout.bundle);
  set('AGENT_GUARD_SHIMS', layout.shimDir);
  if (checkerDir !== null && !env[CHECKER_ENV.dir]) {
    lines.push(`export ${CHECKER_ENV.dir}=${sq(checkerDir)}`, `export ${CHECKER_ENV.owner}=$$`);
  }
  // BASH_ENV and ZDOTDIR: the shell's own value (read when the line runs, so an unexported one
  // counts too) is kept in AGENT_GUARD_USER_*, for the hooks to load first.
  const hook = (name: 'BASH_ENV' | 'ZDOTDIR', ours: string): void => {
    const keep = `AGENT_GUARD_USER_${name}`;
    if (env[name] === ours) {
      if (env[keep] === undefined) lines.push(`export ${keep}=''`);
      return;
    }
    // A zsh that started through the wrapper runs the user's rc files with ZDOTDIR set to the
    // user's value and AGENT_GUARD_USER_ZDOTDIR exported; the wrapper puts its ZDOTDIR back itself.
    if (shell === 'zsh' && name === 'ZDOTDIR' && env[keep] !== undefined) return;
    lines.push(`export ${keep}="\${${name}-}"`, `export ${name}=${sq(ours)}`);
  };
  hook('BASH_ENV', layout.guardBash);
  hook('ZDOTDIR', layout.zdotdir);
  // PATH: the shim dir first and nowhere else.
  const newPath = prependPath(env.PATH, layout.shimDir);
  if (newPath !== env.PATH) lines.push(`export PATH=${sq(newPath)}`);
  // NODE_OPTIONS: the Node deletion guard first, the user's options after it.
  if (layout.preload) set('NODE_OPTIONS', withPreload(env.NODE_OPTIONS, layout.preload));
  // PYTHONPATH: the Python deletion guard's sitecustomize first, the user's entries after it.
  if (layout.python) set('PYTHONPATH', withSitecustomize(env.PYTHONPATH, layout.python));
  if (shell === 'bash') {
    // guard.bash chains a DEBUG trap set before it; inside a sourced file bash hides that trap, so
    // it is taken here (the protocol documented in shell/guard.bash). Sourcing twice is a no-op.
    lines.push(`__agent_guard_prev=$(\\builtin trap -p DEBUG)`, `\\builtin . ${sq(layout.guardBash)}`);
  } else {
    lines.push(`\\builtin . ${sq(layout.guardZsh)}`);
  }
  return lines.join('\n') + '\n';
}

export function runShellInit(shell: string | undefined, opts: ShellInitOptions, ctx: CommandContext): number {
  const err = (msg: string): number => {
    ctx.io.stderr(`agent-guard shell-init: ${msg}\n`);
    return 1;
  };
  const node = opts.node ?? process.execPath;
  if (opts.writeShims !== undefined) {
    if (shell !== undefined) return err('--write-shims takes no shell name');
    const bundle = runningBundle();
    if (bundle === null) return err('--write-shims must run from the bundled CLI');
    let template = opts.template;
    if (template === undefined) {
      try {
        template = currentLayout(ctx.env).template;
      } catch (e) {
        return err(`${(e as Error).message}; pass --template`);
      }
    }
    try {
      const written = writeShims(path.resolve(ctx.cwd, opts.writeShims), { node, bundle, templatePath: path.resolve(ctx.cwd, template) });
      ctx.io.stdout(written.map((f) => `${f}\n`).join(''));
      return 0;
    } catch (e) {
      return err((e as Error).message);
    }
  }
  if (opts.node !== undefined || opts.template !== undefined) return err('--node and --template go with --write-shims');
  if (shell === undefined) return err(`which shell? ${SHELLS.join(' or ')}: eval "$(agent-guard shell-init bash)"`);
  if (!(SHELLS as readonly string[]).includes(shell)) return err(`unknown shell ${JSON.stringify(shell)}: ${SHELLS.join(' and ')} are supported`);
  let layout: Layout;
  try {
    layout = currentLayout(ctx.env);
    const { warning } = prepareShims(layout, node);
    if (warning !== null) ctx.io.stderr(`agent-guard shell-init: warning: ${warning}\n`);
  } catch (e) {
    const hint = e instanceof LayoutError ? ` (${INSTALL_HINT})` : '';
    return err(`${(e as Error).message}${hint}`);
  }
  const preload = preloadOrWarn(layout, (w) => ctx.io.stderr(`agent-guard shell-init: warning: ${w}\n`));
  const base = ctx.env[CHECKER_ENV.dir] ? null : checkerBase(ctx.env);
  const python = pythonGuardOrWarn(layout, (w) => ctx.io.stderr(`agent-guard shell-init: warning: ${w}\n`));
  ctx.io.stdout(renderSnippet(shell as InitShell, { ...layout, preload, python }, node, ctx.env, base === null ? null : newCheckerDir(base)));
  return 0;
}
