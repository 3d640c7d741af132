// The one git reader of the three dialects: git's words in, Ops out. git reads its own argv the
// same whatever shell started it, so only the words' spelling differs per dialect (the walker hands
// literal Words). On top of git.ts's option reading it follows what makes git run other text:
// `-c key=value` configuration that runs commands, a subcommand known only when the line runs, and
// aliases (`git -c alias.x=…`, or looked up with `resolveGitAlias`): an alias is expanded and read
// again as git, a `!` alias is shell text, which git runs with `sh -c` on every platform.
import type { Dialect } from '../dialect.js';
import type { ClassifyOptions, Op, Word } from './types.js';
import { classifyGit } from './git.js';
import { clip, indirectOp, MAX_DEPTH, opaqueOp, placedOp, type OpPlace } from './kit.js';
import { scan } from './posix/scan.js';
import { tokenize } from './posix/tokenize.js';
import { decodeWord } from './posix/words.js';

export interface GitSite {
  dialect: Dialect;
  opts: ClassifyOptions;
  depth: number;
  /** Where the op runs (its cwd is git's before `-C`) and the wrappers around it. */
  at: OpPlace;
  /** The op's argv, as the dialect shows it. */
  argv: string[];
  /** The command as written, for an opaque op. */
  text: string;
  /** Names set in git's environment on the line (Windows dialects: upper case). */
  envNames: readonly string[];
  /** The dialect's destructive smell. */
  smells: (text: string) => boolean;
  /** The POSIX reader's judgement of shell text: its first effective op, or null. */
  judgeShell: (text: string, cwd: string | null, depth: number) => string | null;
}

const GIT_CONFIG_ENV = /^GIT_CONFIG/;

/** The ops of `git ARGS` (args: the words after the program). */
export function gitOps(args: Word[], site: GitSite): Op[] {
  const { at, argv, text } = site;
  const cwd = at.cwd;
  const g = classifyGit(args, cwd, site.envNames);
  if (g.noop) return [];
  // `-c core.pager=…`, `-c alias.x=!…`, `-c core.sshCommand=…`: configuration that runs commands.
  const configs = g.facts.globals.filter((_, i, a) => a[i - 1] === '-c');
  const runs = configs.find((c) => site.smells(c.slice(c.indexOf('=') + 1)));
  if (runs !== undefined) {
    // Judged as text: whether git runs it here depends on the key, which is not modelled.
    return [shellOp(runs, true, `git runs configured text (${clip(runs)})`, site, cwd)];
  }
  if (g.dynamicSubcommand) {
    if (!site.smells(text)) return [];
    return [opaqueOp('git', text, g.undeterminable ?? { reason: 'dynamic-program', detail: 'the git subcommand is known only when the command runs' }, at, argv)];
  }
  if (g.aliasCandidate !== undefined) return aliasOps(args, g.aliasCandidate, g.facts.globals, g.facts.dir, configs, site);
  if (g.kind === null) return [];
  const op = placedOp('git', g.kind, argv, at);
  Object.assign(op, { git: g.facts, dryRun: g.dryRun, noTargets: g.noTargets, recursive: g.recursive, targets: g.targets, undeterminable: g.undeterminable });
  return [op];
}

function aliasOps(args: Word[], name: string, globals: string[], dir: string | null, configs: string[], site: GitSite): Op[] {
  const { at, argv, text } = site;
  if (globals.includes('--config-env') || site.envNames.some((n) => GIT_CONFIG_ENV.test(n))) {
    return [opaqueOp('git', text, { reason: 'git-environment', detail: `git ${name} may be an alias defined in the environment` }, at, argv)];
  }
  // An alias set on the line itself (`git -c alias.x=clean x`) needs no lookup; the last one wins.
  const key = `alias.${name}=`.toLowerCase();
  const onLine = configs.filter((c) => c.toLowerCase().startsWith(key)).pop();
  const expansion = onLine !== undefined ? onLine.slice(onLine.indexOf('=') + 1) : (site.opts.resolveGitAlias?.(name, at.cwd, globals) ?? null);
  if (expansion === null) return [];
  const restIndex = args.findIndex((w) => !w.dynamic && w.value === name);
  const rest = args.slice(restIndex + 1);
  if (expansion.startsWith('!')) {
    const shell = [expansion.slice(1), ...rest.map((w) => w.display)].join(' ');
    return maybeShellOp(shell, rest.some((w) => w.dynamic), site, dir);
  }
  // git splits an alias into words with shell-like quoting: read with the POSIX word reader.
  const aliasScan = scan(expansion);
  const aliasWords = (tokenize(aliasScan.text)[0]?.words ?? []).map((raw) => decodeWord(raw, { scan: aliasScan, values: new Map(), home: site.opts.home }));
  const expanded = [...args.slice(0, restIndex), ...aliasWords, ...rest];
  const depth = site.depth + 1;
  if (depth > MAX_DEPTH) {
    const shown = ['git', ...expanded.map((w) => w.display)].join(' ');
    return site.smells(shown) ? [opaqueOp('?', shown, { reason: 'depth-limit', detail: 'nested deeper than agent-guard follows' }, at)] : [];
  }
  return gitOps(expanded, { ...site, depth });
}

/** A `!` alias or a `-c` value: shell text git hands to `sh -c`. */
function maybeShellOp(shell: string, dynamic: boolean, site: GitSite, cwd: string | null): Op[] {
  const deep = dynamic || site.depth >= MAX_DEPTH;
  const hit = deep ? (site.smells(shell) ? shell : null) : site.judgeShell(shell, cwd, site.depth + 1);
  if (hit === null) return [];
  return [shellOp(shell, deep, `git runs shell text that is read only when it runs (${clip(hit)})`, site, cwd)];
}

function shellOp(shell: string, dynamic: boolean, detail: string, site: GitSite, cwd: string | null): Op {
  const at = site.at;
  const op = indirectOp('git', shell, 'indirect-shell', detail, { cwd, cdBefore: at.cdBefore, createBefore: at.createBefore, wrappers: at.wrappers }, site.argv);
  // The shell hooks re-read a POSIX op's text when it holds no expansion (docs/shell-hooks.md).
  if (site.dialect === 'posix') op.innerDynamic = dynamic;
  return op;
}
