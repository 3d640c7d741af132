// `agent-guard check [--json] [--enforce] [--dialect D] [--cwd DIR] [--mode M] -- "<command>"`
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { internalError, type CheckResult } from '../engine.js';
import { quoteArgv, smellsDestructiveIn } from '../classifier/index.js';
import { EXIT, exitForDecision } from '../exit-codes.js';
import { GuardError } from '../errors.js';
import type { Mode } from '../policy/rules.js';
import type { CommandContext } from '../context.js';
import { decideLine, enforce } from '../enforce/index.js';
import { chooseDialect, type Dialect } from '../dialect.js';
import { grantNext, settleCheck } from '../grants/settle.js';

export interface CheckOptions {
  json?: boolean;
  enforce?: boolean;
  dialect?: string;
  cwd?: string;
  mode?: string;
}

/** One argument is command text; several are an argv, quoted back into text exactly in the dialect's
 *  own quoting. cmd has no way to quote a `"` (or a `%`, which expands even inside quotes): such an
 *  argv is refused as bad input rather than turned into different text. */
export function commandText(args: readonly string[], dialect: Dialect = 'posix'): string {
  if (args.length === 1) return args[0]!;
  if (dialect === 'powershell') return args.map((a) => (/^[\w@%+=:,./\\-]+$/.test(a) ? a : `'${a.replace(/'/g, "''")}'`)).join(' ');
  if (dialect === 'cmd') {
    return args
      .map((a) => {
        if (/["%!\r\n]/.test(a)) throw new GuardError('USAGE', `the argument ${JSON.stringify(a)} cannot be quoted for cmd; give the command as one text argument`);
        return /^[\w@+=:,./\\-]+$/.test(a) ? a : `"${a}"`;
      })
      .join(' ');
  }
  return quoteArgv(args);
}

function parseMode(v: string | undefined): Mode {
  if (v === undefined) return 'NORMAL';
  const m = v.toUpperCase();
  if (m !== 'NORMAL' && m !== 'RESTRICTED') throw new GuardError('USAGE', `--mode must be normal or restricted, not ${JSON.stringify(v)}`);
  return m;
}

function render(r: CheckResult): string {
  const lines = [`${r.decision} ${r.code}: ${r.explanation}`];
  r.ops.forEach((o, i) => {
    const mark = i === r.decidingOp ? '*' : ' ';
    lines.push(`${mark} op ${i + 1}: ${[...o.wrappers, ...o.argv].join(' ')} -> ${o.decision} ${o.code} (rule ${o.rule}): ${o.detail}`);
  });
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  if (r.grant) lines.push(`grant ${r.grant.id}: ${grantNext(r.grant.allow)}`);
  return lines.join('\n') + '\n';
}

export function configureCheck(program: Command, ctx: CommandContext): void {
  program
    .command('check')
    .description('decide what a shell command would do to your data (advisory unless --enforce)')
    .argument('[command...]', 'the command line as one argument, or an argv after --')
    .option('--json', 'print the decision as one JSON object')
    .option('--enforce', 'make the exit code the contract: 0 proceed, 2 blocked, 3 ask, 1 error')
    .option('--dialect <name>', 'shell dialect of the command: posix, cmd or powershell (default: AGENT_GUARD_DIALECT or posix)')
    .option('--cwd <dir>', 'directory the command runs in (default: the current directory)')
    .option('--mode <mode>', 'session mode: normal or restricted', undefined)
    .action((args: string[], opts: CheckOptions) => {
      ctx.exitCode = runCheck(args, opts, ctx);
    });
}

/** The `check` argv without commander, for the hot path (every destructive command pays one check).
 *  Returns null for anything it does not fully understand (`--help`, an unknown option, a missing
 *  value): the caller then hands the argv to the full commander CLI, which reports errors. */
export function parseCheckFast(argv: readonly string[]): { args: string[]; opts: CheckOptions } | null {
  if (argv[0] !== 'check') return null;
  const opts: CheckOptions = {};
  const args: string[] = [];
  const valued: Record<string, 'dialect' | 'cwd' | 'mode'> = { '--dialect': 'dialect', '--cwd': 'cwd', '--mode': 'mode' };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (a === '--json') opts.json = true;
    else if (a === '--enforce') opts.enforce = true;
    else if (valued[a] !== undefined) {
      const v = argv[i + 1];
      if (v === undefined) return null;
      opts[valued[a]!] = v;
      i++;
    } else if (a.startsWith('--') && a.includes('=') && valued[a.slice(0, a.indexOf('='))] !== undefined) {
      opts[valued[a.slice(0, a.indexOf('='))]!] = a.slice(a.indexOf('=') + 1);
    } else if (a.startsWith('-') && a !== '-') return null;
    else args.push(a);
  }
  return { args, opts };
}

export function runCheck(args: string[], opts: CheckOptions, ctx: CommandContext): number {
  const cwd = path.resolve(ctx.cwd, opts.cwd ?? '.');
  const config = loadConfig(ctx.env, cwd);
  // An argv is quoted in the dialect it will be read in (an unusable selector is decided below).
  const chosen = chooseDialect(opts.dialect, config.dialect);
  let text = '';
  const out = (r: CheckResult): void => {
    if (opts.json) ctx.io.stdout(JSON.stringify(r) + '\n');
    else if (opts.enforce) ctx.io.stderr(render(r));
    else ctx.io.stdout(render(r));
  };
  try {
    if (args.length === 0) throw new GuardError('USAGE', 'check needs a command: agent-guard check -- "<command>"');
    text = commandText(args, chosen.ok ? chosen.dialect : 'posix');
    const mode = parseMode(opts.mode);
    if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new GuardError('BAD_CWD', `--cwd ${cwd} is not a directory`);
    let r = decideLine({ text, config, mode, ...(opts.dialect !== undefined ? { dialect: opts.dialect } : {}) });
    // An ASK under --enforce: a one-time grant for exactly this line runs it; else the refusal names one.
    if (opts.enforce) r = r.decision === 'ASK' ? settleCheck(r, text, config) : enforce(r, text, config);
    out(r);
    return opts.enforce ? exitForDecision(r.decision) : EXIT.OK;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (opts.enforce && smellsDestructiveIn(chosen.ok ? chosen.dialect : null, text || args.join(' '))) {
      // Fail closed: a line that may be destructive never gets through on an error.
      out(internalError({ cwd: ctx.cwd }, 'NORMAL', opts.dialect ?? 'posix', err));
      return EXIT.BLOCK;
    }
    ctx.io.stderr(`agent-guard check: ${message}\n`);
    return EXIT.ERROR;
  }
}
