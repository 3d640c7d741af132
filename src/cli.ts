// The CLI: builds the commander program from src/commands/*, returns an exit code. process.exit is
// called in one place only (src/bin.ts).
import { Command, CommanderError } from 'commander';
import { configureCheck } from './commands/check.js';
import { configureRestore } from './commands/restore.js';
import { configureMode } from './commands/mode.js';
import { configureAllow } from './commands/allow.js';
import { configureDelete } from './commands/delete.js';
import { configureStatus } from './commands/status.js';
import { configureGc } from './commands/gc.js';
import { configureShellInit } from './commands/shell-init.js';
import { configureRun } from './commands/run.js';
import { configureDoctor } from './commands/doctor.js';
import { configureHookInstall } from './commands/hook-install.js';
import { configureUninstall } from './commands/uninstall.js';
import { configureCompletion } from './commands/completion.js';
import { configureMcp } from './commands/mcp.js';
import type { Env } from './config.js';
import type { CommandContext, IO } from './context.js';
import { VERSION } from './version.js';

export { VERSION };

export type { CommandContext, IO } from './context.js';

/** The commander program, every command configured against `ctx` (completion walks it too). */
export function createProgram(ctx: CommandContext): Command {
  const io = ctx.io;
  const program = new Command('agent-guard')
    .description('makes the destructive shell actions of AI coding agents reversible by default')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
  configureCheck(program, ctx);
  configureRestore(program, ctx);
  configureMode(program, ctx);
  configureAllow(program, ctx);
  configureDelete(program, ctx);
  configureStatus(program, ctx);
  configureGc(program, ctx);
  configureShellInit(program, ctx);
  configureRun(program, ctx);
  configureDoctor(program, ctx);
  configureHookInstall(program, ctx);
  configureUninstall(program, ctx);
  configureCompletion(program, ctx);
  configureMcp(program, ctx, VERSION);
  return program;
}

export function main(argv: readonly string[], env: Env, io: IO, cwd: string, interactive = false): number {
  const ctx: CommandContext = { env, cwd, io, exitCode: 0, interactive };
  const program = createProgram(ctx);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 1;
    throw err;
  }
  return ctx.exitCode;
}
