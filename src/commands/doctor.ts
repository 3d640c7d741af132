// `agent-guard doctor [--json]`: is this process guarded, and if not, what to fix. Each check is
// ok, info, warn or fail, with a detail and a one-line fix (docs/install.md lists them). Reads only: it
// creates, renders and writes nothing. Exit 0 when no check fails, 1 otherwise.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { loadConfig, sessionVars, type Env } from '../config.js';
import { discoverWorkspace } from '../workspace.js';
import { findReal, isShimDir } from '../probe/realbin.js';
import { HARNESSES, userDir, wiredHarnesses, type Wired } from '../harness/install.js';
import { codexHookHash, codexHookKey, readHookStates, trustStatus, type TrustStatus } from '../harness/codex-trust.js';
import { geminiFolderTrust } from '../harness/gemini-trust.js';
import { currentLayout, hasMarker, INSTALL_HINT, KIND_NAME, sameFile, shimFiles, type Layout } from '../layout.js';
import { SHIM_NAMES, type ShimName } from '../shims/render.js';
import { toolManagersOnPath } from '../shell-hooks/toolmanagers.js';
import { partChecks } from './agent-parts.js';
import { parseNodeOptions, requiredFiles } from '../runtime/node-options.js';
import { hasSitecustomizeFirst } from '../runtime/python-path.js';

/** `info`: something to know that needs no fix (a harness that is not installed has no hook). */
export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail';

export interface Check {
  /** Stable id: node.version, bundle, shims.dir, shim.<name>, path.shims-first, real.<name>,
   *  hook.bash-env, hook.zdotdir, hook.env, node.preload, python.sitecustomize, toolmanager.<name>, harness.<name>,
   *  harness.codex.trust, harness.gemini.trust, mcp.<name>, instructions.<name>, quarantine.writable,
   *  quarantine.ignored. */
  id: string;
  status: CheckStatus;
  detail: string;
  /** One line; null when the check is ok (for info: what to run if you want it). */
  fix: string | null;
}

export interface DoctorReport {
  version: 1;
  ok: boolean;
  checks: Check[];
}

/** The oldest Node the bundle supports (package.json engines). */
export const MIN_NODE: readonly [number, number] = [20, 16];

/** Real programs that every system has: not finding one means PATH is broken (fail). The others
 *  (git, shred, truncate, rsync) may simply not be installed (warn). */
const REQUIRED_REAL: ReadonlySet<ShimName> = new Set<ShimName>(['rm', 'rmdir', 'unlink', 'find', 'mv', 'cp']);

interface DoctorOptions {
  json?: boolean;
}

export function configureDoctor(program: Command, ctx: CommandContext): void {
  program
    .command('doctor')
    .description('check that this process is guarded: node, shims first on PATH, real binaries, hooks, the quarantine')
    .option('--json', 'print the result as one JSON object')
    .action((opts: DoctorOptions) => {
      ctx.exitCode = runDoctor(opts, ctx);
    });
}

export interface DoctorInputs {
  env: Env;
  cwd: string;
  /** The node running the checks (process.execPath). */
  node: string;
  nodeVersion: string;
  /** The installation; an Error when none was found. */
  layout: Layout | Error;
  /** The Node preload is loaded in this process (globalThis[Symbol.for('agent-guard.node-preload')]). */
  preloadLoaded?: boolean;
}

const check = (id: string, status: CheckStatus, detail: string, fix: string | null = null): Check => ({ id, status, detail, fix: status === 'ok' ? null : fix });

function reinstallFix(layout: Layout): string {
  return layout.userShims
    ? `run 'agent-guard run -- true' (or 'agent-guard shell-init bash >/dev/null') once: it renders this user's shims into ${layout.shimDir}`
    : `re-run install.sh --prefix ${layout.root} (or, when you can write ${layout.shimDir}, run 'agent-guard run -- true' once: it renders the shims for the current node)`;
}

export function nodeCheck(version: string): Check {
  const [maj = 0, min = 0] = version.replace(/^v/, '').split('.').map((n) => Number(n));
  const good = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1]);
  return check(
    'node.version',
    good ? 'ok' : 'fail',
    `node ${version}${good ? '' : `, older than ${MIN_NODE.join('.')}`}`,
    `install Node ${MIN_NODE.join('.')} or newer, then reinstall agent-guard with it (npm i -g agent-guard, or install.sh)`,
  );
}

function shimChecks(layout: Layout, node: string): Check[] {
  const out: Check[] = [];
  const dirOk = fs.existsSync(layout.shimDir) && hasMarker(layout.shimDir);
  // Where the shims are, and why there: a package or a checkout is never written to.
  const whose = layout.userShims ? `this user's shims of the ${KIND_NAME[layout.kind]} ${layout.root}` : `the shims of the installation ${layout.root}`;
  out.push(
    check(
      'shims.dir',
      dirOk ? 'ok' : 'fail',
      dirOk ? `${layout.shimDir} (marked; ${whose})` : fs.existsSync(layout.shimDir) ? `${layout.shimDir} has no .agent-guard-shims marker (${whose})` : `${layout.shimDir} does not exist (${whose})`,
      reinstallFix(layout),
    ),
  );
  for (const s of shimFiles(layout, node)) {
    const detail = {
      ok: `${s.file}`,
      missing: `${s.file} is missing`,
      'not-executable': `${s.file} is not executable`,
      stale: `${s.file} was not rendered from ${layout.template} for node ${node} and bundle ${layout.bundle}${s.node && !sameFile(s.node, node) ? ` (it runs ${s.node}${fs.existsSync(s.node) ? '' : ', which does not exist: the shim refuses every checked call'})` : ''}`,
    }[s.state];
    out.push(check(`shim.${s.name}`, s.state === 'ok' ? 'ok' : 'fail', detail, reinstallFix(layout)));
  }
  return out;
}

function pathCheck(layout: Layout, env: Env): Check {
  const entries = (env.PATH ?? '').split(':');
  const at = entries.findIndex((e) => e === layout.shimDir || (e.startsWith('/') && sameFile(e, layout.shimDir)));
  const fix = `eval "$(agent-guard shell-init bash)" in your rc file (or zsh), or start the agent with 'agent-guard run -- <command>'`;
  if (at === 0) return check('path.shims-first', 'ok', `${layout.shimDir} is the first PATH entry`);
  if (at < 0) return check('path.shims-first', 'fail', `${layout.shimDir} is not on PATH`, fix);
  return check('path.shims-first', 'fail', `${layout.shimDir} is PATH entry ${at + 1}; ${JSON.stringify(entries[0] ?? '')} comes first`, fix);
}

function realChecks(env: Env): Check[] {
  return SHIM_NAMES.map((name) => {
    const real = findReal(name, env.PATH);
    if (real !== null) return check(`real.${name}`, 'ok', real);
    const shimOnly = (env.PATH ?? '').split(':').some((d) => d.startsWith('/') && isShimDir(d) && fs.existsSync(path.join(d, name)));
    return check(
      `real.${name}`,
      REQUIRED_REAL.has(name) ? 'fail' : 'warn',
      `no real ${name} on PATH outside shim directories${shimOnly ? ' (only a shim)' : ''}: the shim answers "not found" (exit 127)`,
      `put the directory of the real ${name} (e.g. /usr/bin) on PATH after the shim directory${REQUIRED_REAL.has(name) ? '' : `, or install ${name}`}`,
    );
  });
}

/** The Python guard (docs/interpreters.md): its sitecustomize.py beside the bundle, and its directory
 *  first on PYTHONPATH. A warning, as for the Node preload. */
export function pythonCheck(layout: Layout, env: Env): Check {
  const id = 'python.sitecustomize';
  const file = path.join(layout.python, 'sitecustomize.py');
  let present = false;
  try {
    present = fs.statSync(file).isFile();
  } catch {
    present = false;
  }
  if (!present) return check(id, 'warn', `${file} is missing: Python programs delete unguarded`, layout.kind === 'install' ? reinstallFix(layout) : `run 'npm run build' in ${layout.root}`);
  if (!hasSitecustomizeFirst(env.PYTHONPATH, layout.python)) {
    const fix = `eval "$(agent-guard shell-init bash)" in your rc file (or zsh), or start the agent with 'agent-guard run -- <command>'`;
    return check(id, 'warn', `PYTHONPATH does not start with ${layout.python}: Python programs' own deletions (shutil.rmtree, os.remove) are not guarded`, fix);
  }
  return check(id, 'ok', `PYTHONPATH starts with ${layout.python}`);
}

/** A shell hook is loaded through one variable (BASH_ENV, ZDOTDIR) that must name our file. */
function hookVarCheck(id: string, name: string, value: string, ours: string, unset: string, fix: string): { check: Check; ours: boolean } {
  const isOurs = value !== '' && sameFile(value, ours);
  if (isOurs) return { check: check(id, 'ok', `${name}=${value}`), ours: true };
  return { check: check(id, 'warn', value === '' ? `${name} is not set: ${unset}` : `${name}=${value} is not ${ours}`, fix), ours: false };
}

function hookChecks(layout: Layout, env: Env): Check[] {
  const out: Check[] = [];
  const bash = hookVarCheck('hook.bash-env', 'BASH_ENV', env.BASH_ENV ?? '', layout.guardBash, 'bash -c and bash scripts run without the bash hook (the shims still apply)', `eval "$(agent-guard shell-init bash)" in your rc file, or start the agent with 'agent-guard run -- <command>'`);
  const zsh = hookVarCheck('hook.zdotdir', 'ZDOTDIR', env.ZDOTDIR ?? '', layout.zdotdir, 'zsh runs without the zsh hook (the shims still apply)', `eval "$(agent-guard shell-init zsh)" in your .zshrc (or bash), or start the agent with 'agent-guard run -- <command>'`);
  out.push(bash.check, zsh.check);
  // The hooks call "$AGENT_GUARD_NODE" "$AGENT_GUARD_BUNDLE": broken values make them refuse.
  if (bash.ours || zsh.ours) {
    const problems: string[] = [];
    const vars = sessionVars(env);
    const nodeVar = vars.node ?? '';
    let nodeOk = false;
    try {
      nodeOk = path.isAbsolute(nodeVar) && fs.statSync(nodeVar).isFile();
      fs.accessSync(nodeVar, fs.constants.X_OK);
    } catch {
      nodeOk = false;
    }
    if (!nodeOk) problems.push(`AGENT_GUARD_NODE=${JSON.stringify(nodeVar)} is not an executable file`);
    const bundleVar = vars.bundle ?? '';
    if (!(bundleVar !== '' && sameFile(bundleVar, layout.bundle))) problems.push(`AGENT_GUARD_BUNDLE=${JSON.stringify(bundleVar)} is not ${layout.bundle}`);
    const shimsVar = vars.shims;
    if (shimsVar === undefined) problems.push('AGENT_GUARD_SHIMS is not set');
    else if (shimsVar !== '' && !sameFile(shimsVar, layout.shimDir)) problems.push(`AGENT_GUARD_SHIMS=${JSON.stringify(shimsVar)} is not ${layout.shimDir}`);
    out.push(
      problems.length === 0
        ? check('hook.env', 'ok', `AGENT_GUARD_NODE, AGENT_GUARD_BUNDLE and AGENT_GUARD_SHIMS match this installation`)
        : check('hook.env', 'fail', problems.join('; '), `eval "$(agent-guard shell-init bash)" again (or zsh), or start the agent with 'agent-guard run -- <command>'`),
    );
  } else {
    out.push(check('hook.env', 'ok', 'no hook of this installation is set up: nothing to check'));
  }
  return out;
}

/** The Node preload (docs/interpreters.md): its file beside the bundle, and NODE_OPTIONS loading it.
 *  A warning, not a failure: without it Node programs' own deletions go unguarded, the shims and
 *  hooks still apply. `loaded`: this very process has it loaded (switched off, as in every
 *  agent-guard process). */
export function preloadCheck(layout: Layout, env: Env, loaded: boolean): Check {
  const id = 'node.preload';
  let present = false;
  try {
    present = fs.statSync(layout.preload).isFile();
  } catch {
    present = false;
  }
  if (!present) return check(id, 'warn', `${layout.preload} is missing: Node programs delete unguarded`, layout.kind === 'install' ? reinstallFix(layout) : `run 'npm run build' in ${layout.root}`);
  const words = parseNodeOptions(env.NODE_OPTIONS ?? '');
  const fix = `eval "$(agent-guard shell-init bash)" in your rc file (or zsh), or start the agent with 'agent-guard run -- <command>'`;
  if (words === null) return check(id, 'warn', `NODE_OPTIONS=${JSON.stringify(env.NODE_OPTIONS)} is not valid for Node (an unterminated quote)`, fix);
  const ours = requiredFiles(words).some((f) => f === layout.preload || (path.isAbsolute(f) && sameFile(f, layout.preload)));
  if (!ours) return check(id, 'warn', `NODE_OPTIONS does not --require ${layout.preload}: Node programs' own deletions (fs.rmSync, rimraf) are not guarded`, fix);
  return check(id, 'ok', `NODE_OPTIONS requires ${layout.preload}${loaded ? ' (loaded in this process)' : ''}`);
}

/** Where a harness shows that it is installed: its program on PATH, or its settings directory (its
 *  user directory, or for those with project settings, in the working directory). */
const HARNESS_SIGNS: Record<(typeof HARNESSES)[number], { bin: string; project: string | null }> = {
  claude: { bin: 'claude', project: '.claude' },
  codex: { bin: 'codex', project: '.codex' },
  gemini: { bin: 'gemini', project: '.gemini' },
  copilot: { bin: 'copilot', project: null },
};

/** Codex runs a user or project hook only while its hash matches the `trusted_hash` stored for its
 *  position in config.toml (src/harness/codex-trust.ts). */
function codexTrustCheck(w: Wired[], codexDir: string): Check {
  const file = path.join(codexDir, 'config.toml');
  const fix = 'start codex and choose "Trust all and continue" when it lists the hook (or trust it in its hooks view)';
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return check('harness.codex.trust', 'warn', `${file} could not be read: the hook's trust state is unknown`, fix);
  }
  const states = readHookStates(text);
  if (states === null) return check('harness.codex.trust', 'warn', `${file} could not be read as TOML: the hook's trust state is unknown`, fix);
  const says: Record<TrustStatus, string> = {
    trusted: 'trusted',
    untrusted: 'not trusted yet: Codex does not run it',
    modified: 'changed since it was trusted (another path or position): Codex does not run it',
    disabled: 'disabled in Codex (enabled = false): Codex does not run it',
    unknown: 'its trust state cannot be told (an entry agent-guard did not write)',
  };
  const found: TrustStatus[] = [];
  const parts: string[] = [];
  for (const x of w) {
    for (const e of x.entries) {
      const status = trustStatus(codexHookHash(e.matcher, e.entry), states.get(codexHookKey(x.file, e.group, e.index)));
      found.push(status);
      parts.push(`${x.file} [${e.group}][${e.index}]: ${says[status]}`);
    }
  }
  return check('harness.codex.trust', found.every((f) => f === 'trusted') ? 'ok' : 'warn', `${parts.join('; ')} (${file})`, fix);
}

/** With folder trust on, Gemini CLI runs no settings hook in a folder it does not trust. */
function geminiTrustCheck(env: Env, geminiDir: string, cwd: string): Check {
  const t = geminiFolderTrust(env, geminiDir, cwd);
  const fix = `trust ${cwd} in Gemini CLI (it asks when it starts there), or turn folder trust off`;
  if (t.trusted === true) return check('harness.gemini.trust', 'ok', `Gemini trusts ${cwd} (${t.source})`);
  if (t.trusted === false) return check('harness.gemini.trust', 'warn', `Gemini does not trust ${cwd} (${t.source}): with folder trust on, no hook runs here`, fix);
  if (t.enabled === true) return check('harness.gemini.trust', 'warn', `folder trust is on and ${cwd} is not trusted yet (${t.source}): until it is, no hook runs here`, fix);
  return check('harness.gemini.trust', 'info', `${cwd}: no trust rule (${t.source}); if folder trust is on, Gemini asks when it starts here and runs no hook until the folder is trusted`, fix);
}

/** Which harnesses have agent-guard's hook in their settings (user, or the project in cwd). Never a
 *  failure (a harness without hooks is covered by `run` and the shims): a harness that is installed
 *  without the hook is a warning, one that is not installed is information. Where a wired harness
 *  runs it only once trusted (Codex's hook trust, Gemini's folder trust), what can be told is said. */
function harnessHookChecks(env: Env, cwd: string): Check[] {
  const home = env.HOME;
  if (!home) return [];
  const ictx = { home: path.resolve(home), projectDir: path.resolve(cwd), command: '', env };
  const wired = wiredHarnesses(ictx);
  return HARNESSES.flatMap((h) => {
    const w = wired.filter((x) => x.harness === h);
    if (w.length > 0) {
      const out = [check(`harness.${h}`, 'ok', w.map((x) => `${x.scope}: ${x.file}`).join('; '))];
      if (h === 'codex') out.push(codexTrustCheck(w, userDir('codex', ictx)));
      if (h === 'gemini') out.push(geminiTrustCheck(env, userDir('gemini', ictx), ictx.projectDir));
      return out;
    }
    const fix = `agent-guard hook install ${h} [--user]`;
    const sign = HARNESS_SIGNS[h];
    const bin = findReal(sign.bin, env.PATH);
    const dirs = [userDir(h, ictx), ...(sign.project ? [path.join(ictx.projectDir, sign.project)] : [])];
    const dir = dirs.find((d) => fs.existsSync(d));
    if (bin === null && dir === undefined) return [check(`harness.${h}`, 'info', `not installed (no ${sign.bin} on PATH, no ${dirs.join(' or ')}): no hook needed`, fix)];
    return [check(`harness.${h}`, 'warn', `installed (${bin ?? dir}), but no agent-guard hook in its settings`, fix)];
  });
}

/** The nearest existing ancestor of p (p itself included). */
/** Tool managers on PATH (pyenv, rbenv, nodenv, goenv) whose shims the bash hook would refuse. */
function toolManagerChecks(env: Env): Check[] {
  return toolManagersOnPath(env.PATH ?? '').map((f) => {
    const refused = f.lines.filter((l) => l.refusal !== null);
    if (refused.length === 0) return check(`toolmanager.${f.manager}`, 'ok', `${f.shims}: its shims run under the hooks (${f.lines.length} builtin load${f.lines.length === 1 ? '' : 's'} checked)`);
    const first = refused[0]!;
    return check(
      `toolmanager.${f.manager}`,
      'fail',
      `${f.shims}: ${first.file} runs \`${first.text}\`, which the bash hook refuses (${first.refusal})`,
      `take ${f.shims} off PATH inside guarded shells, or report this line as an agent-guard bug`,
    );
  });
}

function nearestExisting(p: string): string {
  let dir = p;
  for (;;) {
    try {
      fs.lstatSync(dir);
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return dir;
      dir = parent;
    }
  }
}

function quarantineChecks(env: Env, cwd: string): Check[] {
  const out: Check[] = [];
  const config = loadConfig(env, cwd);
  const ws = discoverWorkspace(config);
  const q = ws.quarantine;
  const warn = ws.warnings.length > 0 ? ` (${ws.warnings.join('; ')})` : '';
  const base = nearestExisting(q);
  let writable = false;
  let why = '';
  try {
    if (!fs.statSync(base).isDirectory()) why = `${base} is not a directory`;
    else {
      fs.accessSync(base, fs.constants.W_OK | fs.constants.X_OK);
      writable = true;
    }
  } catch (err) {
    why = `${base}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
  out.push(
    check(
      'quarantine.writable',
      writable ? 'ok' : 'fail',
      writable ? `${q}${base === q ? '' : ` (not created yet; ${base} is writable)`}${warn}` : `${q} cannot be written: ${why}${warn}`,
      'make the workspace writable, or set AGENT_GUARD_TRASH to a writable directory outside it',
    ),
  );

  // Kept out of git: an ignore rule, or (a .git directory at the workspace root) the
  // .git/info/exclude line the quarantine adds when it is first created.
  const inside = q === ws.root || q.startsWith(ws.root.endsWith('/') ? ws.root : `${ws.root}/`);
  const dotGit = path.join(ws.root, '.git');
  let gitKind: 'dir' | 'file' | 'none' = 'none';
  try {
    gitKind = fs.lstatSync(dotGit).isDirectory() ? 'dir' : 'file';
  } catch {
    gitKind = 'none';
  }
  if (!inside || gitKind === 'none') {
    out.push(check('quarantine.ignored', 'ok', !inside ? `${q} is outside the workspace ${ws.root}` : `${ws.root} is not the root of a git work tree: nothing to ignore`));
    return out;
  }
  const git = findReal('git', env.PATH);
  const rel = path.relative(ws.root, q).split(path.sep).join('/');
  const rule = `/${rel}/`;
  if (git === null) {
    out.push(check('quarantine.ignored', 'warn', `no real git on PATH to ask whether ${rel}/ is ignored`, `add ${rule} to .gitignore or .git/info/exclude`));
    return out;
  }
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  Object.assign(childEnv, { LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' });
  const r = process.getBuiltinModule('node:child_process').spawnSync(git, ['check-ignore', '-q', '--', `${rel}/`], { cwd: ws.root, env: childEnv, stdio: 'ignore', timeout: 15_000 });
  if (r.status === 0) {
    out.push(check('quarantine.ignored', 'ok', `${rel}/ is ignored by git`));
  } else if (r.status === 1 && gitKind === 'dir') {
    out.push(check('quarantine.ignored', 'ok', `${rel}/ is not ignored yet: the line ${rule} goes to ${path.join(dotGit, 'info', 'exclude')} when the quarantine is first used`));
  } else if (r.status === 1) {
    out.push(
      check('quarantine.ignored', 'warn', `${rel}/ is not ignored, and ${dotGit} is a file (a linked worktree or submodule): no exclude line is added`, `add ${rule} to .gitignore`),
    );
  } else {
    out.push(check('quarantine.ignored', 'warn', `git check-ignore failed (status ${r.status ?? r.signal})`, `add ${rule} to .gitignore or .git/info/exclude`));
  }
  return out;
}

/** Every check, in a fixed order. */
export function doctorChecks(inp: DoctorInputs): Check[] {
  const checks: Check[] = [nodeCheck(inp.nodeVersion)];
  const layout = inp.layout;
  if (layout instanceof Error) {
    const fix = INSTALL_HINT;
    checks.push(check('bundle', 'fail', layout.message, fix));
    const skipped = 'not checked: no installation found';
    for (const id of ['shims.dir', ...SHIM_NAMES.map((n) => `shim.${n}`), 'path.shims-first']) checks.push(check(id, 'fail', skipped, fix));
    checks.push(...realChecks(inp.env));
    for (const id of ['hook.bash-env', 'hook.zdotdir', 'hook.env', 'node.preload', 'python.sitecustomize']) checks.push(check(id, 'warn', skipped, fix));
  } else {
    checks.push(check('bundle', 'ok', `${layout.bundle} (${KIND_NAME[layout.kind]} ${layout.root})`));
    checks.push(...shimChecks(layout, inp.node), pathCheck(layout, inp.env), ...realChecks(inp.env), ...hookChecks(layout, inp.env));
    checks.push(preloadCheck(layout, inp.env, inp.preloadLoaded === true), pythonCheck(layout, inp.env));
  }
  checks.push(...toolManagerChecks(inp.env));
  const harnessRows = harnessHookChecks(inp.env, inp.cwd);
  checks.push(...harnessRows);
  // The MCP server and the instructions, per harness (agent-parts.ts): info where the hook row is.
  checks.push(...partChecks(inp.env, inp.cwd, (h) => harnessRows.find((c) => c.id === `harness.${h}`)?.status !== 'info'));
  checks.push(...quarantineChecks(inp.env, inp.cwd));
  return checks;
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', info: 'info', warn: 'WARN', fail: 'FAIL' };

export function runDoctor(opts: DoctorOptions, ctx: CommandContext): number {
  let layout: Layout | Error;
  try {
    layout = currentLayout(ctx.env);
  } catch (err) {
    layout = err as Error;
  }
  const preloadLoaded = (globalThis as unknown as Record<symbol, unknown>)[Symbol.for('agent-guard.node-preload')] !== undefined;
  const checks = doctorChecks({ env: ctx.env, cwd: ctx.cwd, node: process.execPath, nodeVersion: process.version, layout, preloadLoaded });
  const ok = checks.every((c) => c.status !== 'fail');
  if (opts.json) {
    const report: DoctorReport = { version: 1, ok, checks };
    ctx.io.stdout(JSON.stringify(report) + '\n');
  } else {
    const width = Math.max(...checks.map((c) => c.id.length));
    const lines: string[] = [];
    for (const c of checks) {
      lines.push(`${MARK[c.status]}  ${c.id.padEnd(width)}  ${c.detail}`);
      if (c.fix !== null) lines.push(`${' '.repeat(6 + width)}  fix: ${c.fix}`);
    }
    const fails = checks.filter((c) => c.status === 'fail').length;
    const warns = checks.filter((c) => c.status === 'warn').length;
    lines.push('', ok ? `guarded${warns > 0 ? ` (${warns} warning${warns === 1 ? '' : 's'})` : ''}` : `not guarded: ${fails} check${fails === 1 ? '' : 's'} failed`);
    ctx.io.stdout(lines.join('\n') + '\n');
  }
  return ok ? 0 : 1;
}
