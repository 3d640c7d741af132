// What every command receives: the environment, the working directory, where to write, the exit
// status to set. Its own module so that commands and the program that configures them (cli.ts) do
// not import each other.
import type { Env } from './config.js';

export interface IO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface CommandContext {
  env: Env;
  cwd: string;
  io: IO;
  exitCode: number;
  /** A human at a terminal (stdin and stdout are TTYs): required to leave RESTRICTED mode and to allow
   *  a command (`allow`). */
  interactive: boolean;
}
