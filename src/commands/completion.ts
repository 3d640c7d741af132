// `agent-guard completion bash|zsh`: prints a completion script for the shell, generated from the
// commander program itself (its visible commands, options and arguments), so it cannot drift from
// the CLI (docs/completion.md). Only the values of a few arguments and options come from a table
// (VALUE_HINTS), and the test checks that each of its keys names a command, option or argument of
// the program.
import { Argument, type Command, type Option } from 'commander';
import type { CommandContext } from '../context.js';
import { HARNESSES } from '../harness/install.js';
import { DIALECT_ALIASES } from '../dialect.js';
import { SHELLS } from './shell-init.js';

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

/** Values of arguments (`<command path>|#<n>`, 1-based) and options (`<command path>|<long flag>`)
 *  that commander does not know as choices. `@programs`: programs on PATH (the command `run` starts).
 *  commander's implicit `help [command]` completes the names of its siblings. */
export const VALUE_HINTS: Readonly<Record<string, readonly string[]>> = {
  'check|--dialect': [...new Set(DIALECT_ALIASES.values())],
  'check|--mode': ['normal', 'restricted'],
  'restore|#1': ['list', 'show'],
  'mode|#1': ['restrict', 'normal'],
  'shell-init|#1': SHELLS,
  'run|#1': ['@programs'],
  'hook install|#1': HARNESSES,
};

/** One option as completion sees it. */
export interface OptSpec {
  flags: string[];
  takesValue: boolean;
  description: string;
  values: readonly string[] | null;
}

/** One positional argument. */
export interface ArgSpec {
  name: string;
  variadic: boolean;
  required: boolean;
  values: readonly string[] | null;
}

/** A command of the program (the root has an empty path). */
export interface CmdSpec {
  path: string[];
  name: string;
  description: string;
  options: OptSpec[];
  args: ArgSpec[];
  /** Everything after the first argument belongs to it (run). */
  passThrough: boolean;
  subcommands: CmdSpec[];
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

/** The command tree as `--help` shows it: visible commands and options only. */
export function commandSpec(cmd: Command, parents: string[] = []): CmdSpec {
  const help = cmd.createHelp();
  const path = parents;
  const key = path.join(' ');
  const options = help.visibleOptions(cmd).map((o: Option): OptSpec => {
    const flags = [o.short, o.long].filter((f): f is string => typeof f === 'string');
    const hinted = o.long ? VALUE_HINTS[`${key}|${o.long}`] : undefined;
    return { flags, takesValue: o.required || o.optional, description: firstLine(o.description), values: o.argChoices ?? hinted ?? null };
  });
  const args = cmd.registeredArguments.map((a, i): ArgSpec => ({
    name: a.name(),
    variadic: a.variadic,
    required: a.required,
    values: a.argChoices ?? VALUE_HINTS[`${key}|#${i + 1}`] ?? null,
  }));
  const visible = help.visibleCommands(cmd);
  const subcommands = visible.map((c) => commandSpec(c, [...path, c.name()]));
  // commander's implicit `help [command]`: its argument is a sibling command.
  for (const sub of subcommands) {
    const arg = sub.args[0];
    if (sub.name === 'help' && sub.subcommands.length === 0 && sub.args.length === 1 && arg !== undefined && arg.values === null) {
      arg.values = subcommands.filter((c) => c !== sub).map((c) => c.name);
    }
  }
  return {
    path,
    name: cmd.name(),
    description: firstLine(cmd.description()),
    options,
    args,
    // commander keeps it private; `run` sets it (everything after the command name is the command's).
    passThrough: (cmd as unknown as { _passThroughOptions?: boolean })._passThroughOptions === true,
    subcommands,
  };
}

function walk(spec: CmdSpec, fn: (c: CmdSpec) => void): void {
  fn(spec);
  for (const s of spec.subcommands) walk(s, fn);
}

/** A word in single quotes for bash and zsh. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The values of an option or argument in a script: words, or the programs on PATH. */
function expand(values: readonly string[]): { words: string[]; programs: boolean } {
  return { words: values.filter((v) => v !== '@programs'), programs: values.includes('@programs') };
}

export function bashCompletion(root: CmdSpec): string {
  const specCases: string[] = [];
  const valueCases: string[] = [];
  walk(root, (c) => {
    const key = c.path.join(' ');
    const opts = c.options.flatMap((o) => o.flags);
    const valopts = c.options.filter((o) => o.takesValue).flatMap((o) => o.flags);
    specCases.push(
      `    ${sq(key)}) subs=${sq(c.subcommands.map((s) => s.name).join(' '))} opts=${sq(opts.join(' '))} valopts=${sq(valopts.join(' '))} pass=${c.passThrough ? 1 : "''"} nargs=${c.args.length} lastvar=${c.args.at(-1)?.variadic ? 1 : "''"} ;;`,
    );
    const pushValues = (pattern: string, values: readonly string[] | null): void => {
      if (values === null) return;
      const { words, programs } = expand(values);
      valueCases.push(`    ${pattern}) vals=${sq(words.join(' '))} progs=${programs ? 1 : "''"} ;;`);
    };
    for (const o of c.options) if (o.takesValue) pushValues(o.flags.map((f) => sq(`${key}|${f}`)).join(' | '), o.values);
    c.args.forEach((a, i) => pushValues(sq(`${key}|#${i + 1}`), a.values));
  });
  return `# bash completion for agent-guard, generated from the program by \`agent-guard completion bash\`.
# Load it from ~/.bashrc:  eval "$(agent-guard completion bash)"
# or save it as ~/.local/share/bash-completion/completions/agent-guard (docs/completion.md).

# Sets subs, opts, valopts, pass, nargs and lastvar for the command path $1.
_agent_guard_spec() {
  subs='' opts='' valopts='' pass='' nargs=0 lastvar=''
  case $1 in
${specCases.join('\n')}
  esac
}

# Sets vals (words) and progs (1: program names) for "<command path>|<option or #n>" in $1.
_agent_guard_values() {
  vals='' progs=''
  case $1 in
${valueCases.join('\n')}
  esac
}

_agent_guard() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd='' w i skip='' dd='' npos=0
  local subs opts valopts pass nargs lastvar vals progs
  _agent_guard_spec ''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $skip ]]; then skip=''; continue; fi
    if [[ -n $pass && $npos -ge 1 ]]; then
      # Everything after the command name of run belongs to that command.
      COMPREPLY=()
      return 0
    fi
    if [[ -z $dd && $w == -- ]]; then dd=1; continue; fi
    if [[ -z $dd && $w == -?* ]]; then
      [[ " $valopts " == *" $w "* ]] && skip=1
      continue
    fi
    if [[ $npos -eq 0 && " $subs " == *" $w "* ]]; then
      cmd=\${cmd:+$cmd }$w
      _agent_guard_spec "$cmd"
      dd=''
      continue
    fi
    npos=$((npos + 1))
  done
  COMPREPLY=()
  if [[ -n $skip ]]; then
    _agent_guard_values "$cmd|\${COMP_WORDS[COMP_CWORD-1]}"
  elif [[ -n $pass && $npos -ge 1 ]]; then
    return 0
  elif [[ -z $dd && $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    return 0
  elif [[ $npos -eq 0 && -n $subs ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
    return 0
  else
    local n=$((npos + 1))
    [[ -n $lastvar && $n -gt $nargs ]] && n=$nargs
    _agent_guard_values "$cmd|#$n"
  fi
  if [[ -n $progs ]]; then
    mapfile -t COMPREPLY < <(compgen -c -- "$cur")
  elif [[ -n $vals ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$vals" -- "$cur")
  fi
  return 0
}

complete -o default -F _agent_guard agent-guard
`;
}

/** Text for single quotes in zsh: an _arguments optspec's [description] (`]` escaped), or a
 *  message or _describe name (`:` escaped). */
const zq = (s: string): string => s.replace(/'/g, `'\\''`);
const zbracket = (s: string): string => zq(s.replace(/\\/g, '\\\\').replace(/\]/g, '\\]'));
const zcolon = (s: string): string => zq(s.replace(/\\/g, '\\\\').replace(/:/g, '\\:'));

/** The zsh function of a command: `_agent_guard` for the program, `_agent_guard__<cmd>[__<sub>]`. */
const zshName = (c: CmdSpec): string => `_agent_guard${c.path.map((p) => `__${p.replace(/-/g, '_')}`).join('')}`;

function zshFunction(c: CmdSpec): string {
  const name = zshName(c);
  const action = (values: readonly string[] | null): string => {
    if (values === null) return '_files';
    const { words, programs } = expand(values);
    if (programs) return '_command_names -e';
    return `(${words.map((w) => w.replace(/([\\() ])/g, '\\$1')).join(' ')})`;
  };
  const specs: string[] = [];
  for (const o of c.options) {
    const value = o.takesValue ? `:${zcolon(o.flags.at(-1)!.replace(/^-+/, ''))}:${action(o.values)}` : '';
    const body = `[${zbracket(o.description)}]${value}`;
    if (o.flags.length > 1) specs.push(`'(${o.flags.join(' ')})'{${o.flags.join(',')}}'${body}'`);
    else specs.push(`'${o.flags[0]}${body}'`);
  }
  if (c.subcommands.length > 0) {
    specs.push("'1: :->cmd'", "'*:: :->arg'");
    const entries = c.subcommands.map((s) => `        '${zcolon(s.name)}:${zq(s.description)}'`);
    const dispatch = c.subcommands.map((s) => `        ${s.name}) ${zshName(s)} && ret=0 ;;`);
    return [
      `${name}() {`,
      '  local curcontext=$curcontext state line ret=1',
      '  local -a cmds',
      `  _arguments -C -S -s : \\\n    ${specs.join(' \\\n    ')} && ret=0`,
      '  case $state in',
      '    cmd)',
      `      cmds=(\n${entries.join('\n')}\n      )`,
      "      _describe -t commands 'agent-guard command' cmds && ret=0",
      '      ;;',
      '    arg)',
      "      curcontext=${curcontext%:*:*}:agent-guard-$line[1]:",
      '      case $line[1] in',
      ...dispatch,
      '      esac',
      '      ;;',
      '  esac',
      '  return ret',
      '}',
    ].join('\n');
  }
  c.args.forEach((a, i) => {
    const act = action(a.values);
    // run: the first word is a program, the rest its arguments, completed as that program's.
    if (c.passThrough && i === 0) specs.push(`'(-)1:${zcolon(a.name)}:${act}'`, "'*::arguments:_normal'");
    else if (a.variadic) specs.push(`'*:${zcolon(a.name)}:${act}'`);
    else specs.push(`'${i + 1}:${a.required ? '' : ':'}${zcolon(a.name)}:${act}'`);
  });
  return `${name}() {\n  _arguments -S -s : \\\n    ${specs.join(' \\\n    ')}\n}`;
}

export function zshCompletion(root: CmdSpec): string {
  const fns: string[] = [];
  walk(root, (c) => fns.push(zshFunction(c)));
  return `#compdef agent-guard
# zsh completion for agent-guard, generated from the program by \`agent-guard completion zsh\`.
# Load it from ~/.zshrc, after compinit:  eval "$(agent-guard completion zsh)"
# or save it as _agent_guard in a directory of $fpath (docs/completion.md).

${fns.join('\n\n')}

if [[ $funcstack[1] == _agent_guard ]]; then
  _agent_guard "$@"
else
  compdef _agent_guard agent-guard
fi
`;
}

export function configureCompletion(program: Command, ctx: CommandContext): void {
  program
    .command('completion')
    .description('print a completion script for bash or zsh: eval "$(agent-guard completion bash)" in ~/.bashrc (or zsh, in ~/.zshrc)')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(COMPLETION_SHELLS))
    .action((shell: (typeof COMPLETION_SHELLS)[number]) => {
      const spec = commandSpec(program);
      ctx.io.stdout(shell === 'bash' ? bashCompletion(spec) : zshCompletion(spec));
      ctx.exitCode = 0;
    });
}
