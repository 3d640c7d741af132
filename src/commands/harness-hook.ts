// `agent-guard hook claude|codex|gemini|copilot`: a harness's pre-tool hook (payload on stdin,
// answer on stdout/stderr and in the exit status: src/harness/adapter.ts). Parsed without
// commander: it runs before every shell command an agent issues.
import fs from 'node:fs';
import type { Env } from '../config.js';
import { HARNESSES, refuseInput, runHarnessHook, type Harness } from '../harness/adapter.js';
import type { IO } from '../context.js';

export function runHookCommand(argv: readonly string[], env: Env, cwd: string, io: IO): number {
  const h = argv[0];
  if (!(HARNESSES as readonly string[]).includes(h ?? '') || argv.length !== 1) {
    io.stderr(`agent-guard hook: usage: agent-guard hook ${HARNESSES.join('|')} (the payload on stdin)\n`);
    // Exit 2: a misconfigured hook must refuse, not let the command through.
    return 2;
  }
  let raw: string;
  try {
    raw = fs.readFileSync(0, 'utf8');
  } catch (err) {
    const a = refuseInput(h as Harness, `the hook input could not be read (${(err as Error).message})`);
    if (a.stdout) io.stdout(a.stdout);
    io.stderr(a.stderr);
    return a.exitCode;
  }
  const a = runHarnessHook(h as Harness, raw, env, cwd);
  if (a.stdout) io.stdout(a.stdout);
  if (a.stderr) io.stderr(a.stderr);
  return a.exitCode;
}
