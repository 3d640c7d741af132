// The conformance cases (command + cwd + workspace state) and what each entry point must make of
// them. Run by posix.test.ts (every entry point), shims.test.ts (with the PATH shims first on PATH)
// and dialects.test.ts (cmd and PowerShell text); the machinery is in conformance.ts.
import { HARNESSES } from '../../src/harness/adapter.js';
import { SHELLS } from '../../src/commands/shell-init.js';

export type Outcome = { kind: 'run' } | { kind: 'ask' | 'block'; code: string };

/** What a workspace holds: every path (outside .git and the quarantine) with its content (`<dir>`
 *  for a directory), plus the git state the cases touch (`git:branches`, `git:stash`). */
export type State = Record<string, string>;

/** What the command does through the shims (sh -c): `moved` are the entries one transaction
 *  quarantines (relative to the workspace); `changes` is the state afterwards against before (null:
 *  gone); `snapshot` / `refs` what the transaction records besides entries (a stash snapshot; the
 *  dropped branch refs and the number of dropped stash entries). After `restore <txid>` the state is
 *  the one before, plus `restored` (what the line itself created and the restore brought back).
 *  No effect: nothing changes and no transaction is made. */
export interface Effect {
  moved: string[];
  changes: Record<string, string | null>;
  snapshot?: true;
  refs?: { refs: string[]; stashes: number };
  restored?: State;
}

export interface Case {
  cmd: string;
  /** What check --json says, as an outcome. */
  expect: Outcome;
  /** Refused as text with a code the text leaves to the shims (BLOCK_UNDETERMINABLE_EFFECT,
   *  BLOCK_WILDCARD: targets unknown as text; a line shape, ASK COMPOUND_*: the shims see the
   *  concrete cwd and disk): with the shims active the text entry points defer it (outcome run,
   *  nothing done) and this is the shims' outcome on the concrete argv. Without it, the text entry
   *  points give `expect` with the shims active too (a SAFE decision is deferred as well, so
   *  nothing is compensated twice). */
  shims?: Outcome;
  /** Workspace state the case needs, made after the common world (in the workspace): git argvs. */
  setup?: string[][];
  /** Through the shims. */
  effect?: Effect;
  /** The text's dialect (DIALECT_CASES): given to check as --dialect, to the adapters in the payload. */
  dialect?: string;
}

export const run: Outcome = { kind: 'run' };
export const block = (code: string): Outcome => ({ kind: 'block', code });
export const ask = (code: string): Outcome => ({ kind: 'ask', code });
export const show = (o: Outcome): string => `${o.kind}${'code' in o ? ` ${o.code}` : ''}`;

/** The state changes when `paths` (and everything under them) leave the workspace. */
export function gone(...paths: string[]): Record<string, string | null> {
  const all: Record<string, string> = { 'build': '<dir>', 'build/a.o': 'o', 'src': '<dir>', 'src/build': '<dir>', 'src/main.c': 'c', 'x.o': 'o', 'untracked.txt': 'u\n', 'f': '' };
  const out: Record<string, string | null> = {};
  for (const p of paths) for (const k of Object.keys(all)) if (k === p || k.startsWith(`${p}/`)) out[k] = null;
  return out;
}
const relocates = (...paths: string[]): Effect => ({ moved: paths, changes: gone(...paths) });

export const CASES: Case[] = [
  { cmd: 'ls -la', expect: run },
  { cmd: 'rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf /', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { cmd: 'rm -rf .git', expect: block('BLOCK_PROTECTED_PATH') },
  { cmd: 'cd src && rm -rf build', expect: ask('COMPOUND_CWD_DELETE'), shims: run, effect: relocates('src/build') },
  { cmd: 'git push --force origin main', expect: block('BLOCK_FORCE_PUSH') },
  { cmd: 'git clean -fd', expect: run, effect: relocates('build', 'src', 'untracked.txt', 'x.o') },
  { cmd: 'git reset --hard', expect: run, effect: { moved: [], changes: { 'tracked.txt': 't\n' }, snapshot: true } },
  // Unknown as text; concrete for the shims (D is unset: rm -rf "" removes nothing, as rm does).
  { cmd: 'rm -rf "$D"', expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run },
  { cmd: 'rm -rf *.o', expect: block('BLOCK_WILDCARD'), shims: run, effect: relocates('x.o') },

  // git clean with pathspecs, and the forms it refuses (-ff would remove nested repositories, -e
  // exclusions are not mirrored: rule 11a). A refusal by flag is one the argv cannot change, so the
  // text entry points refuse it themselves with the shims active too (and the git shim would as well).
  { cmd: 'git clean -f -- build', expect: run, effect: relocates('build') },
  { cmd: 'git clean -fdx src', expect: run, effect: relocates('src') },
  { cmd: 'git clean -ffd', expect: block('BLOCK_UNDETERMINABLE_EFFECT') }, // refused by flag (rule 11a): not left to the shims
  { cmd: 'git clean -n', expect: run },
  { cmd: 'git clean -fd -e keep', expect: block('BLOCK_UNDETERMINABLE_EFFECT') }, // refused by flag (rule 11a): not left to the shims

  // find: -delete is planned and relocated by the find shim; -exec rm reaches the rm shim with
  // the concrete matches (find runs it by name, through PATH).
  { cmd: "find . -name '*.o' -delete", expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('x.o', 'build/a.o') },
  { cmd: 'find build -type f -exec rm {} +', expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('build/a.o') },
  { cmd: "find . -name '*.o'", expect: run },

  // xargs: the list comes from stdin, so only the rm shim knows the targets.
  { cmd: "printf 'x.o\\n' | xargs rm", expect: block('BLOCK_UNDETERMINABLE_EFFECT'), shims: run, effect: relocates('x.o') },
  { cmd: 'ls | xargs echo', expect: run },

  // Sublists: bash and zsh read these the same; every entry point decides the rm in them.
  { cmd: 'true && rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'false || rm -rf build', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf build; ls', expect: run, effect: relocates('build') },
  { cmd: '{ rm -rf build; }', expect: run, effect: relocates('build') },
  { cmd: '(rm -rf build)', expect: run, effect: relocates('build') },
  { cmd: 'rm -rf build &', expect: run, effect: relocates('build') },

  // Protected places and line shapes.
  { cmd: 'rm -rf ~', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { cmd: 'rm -rf ../outside', expect: block('BLOCK_OUT_OF_WORKSPACE') },
  { cmd: 'git checkout -- .', expect: run, effect: { moved: [], changes: { 'tracked.txt': 't\n' }, snapshot: true } },
  // The shims see `touch f` (no shim) and then `rm f`: the rm shim quarantines the f just made.
  { cmd: 'touch f && rm f', expect: ask('COMPOUND_CREATE_DELETE'), shims: run, effect: { moved: ['f'], changes: {}, restored: { f: '' } } },

  // Ref deletions: allowed by the policy; the git shim records the dropped refs first.
  {
    cmd: 'git stash drop',
    expect: run,
    setup: [['stash', '-q']],
    effect: { moved: [], changes: { 'git:stash': '' }, refs: { refs: [], stashes: 1 } },
  },
  {
    cmd: 'git branch -D feature',
    expect: run,
    setup: [['branch', 'feature']],
    effect: { moved: [], changes: { 'git:branches': 'refs/heads/main' }, refs: { refs: ['refs/heads/feature'], stashes: 0 } },
  },
];

/** cmd and PowerShell text (docs/dialects.md): the same effects, spelled in another dialect. */
export const DIALECT_CASES: Case[] = [
  { dialect: 'cmd', cmd: 'rd /s /q build', expect: run, effect: relocates('build') },
  { dialect: 'cmd', cmd: 'del /q untracked.txt', expect: run, effect: relocates('untracked.txt') },
  { dialect: 'cmd', cmd: 'rd /s /q C:\\', expect: block('BLOCK_PROTECTED_ANCESTOR') },
  { dialect: 'cmd', cmd: 'del /s /q build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'cmd', cmd: 'cd src & rd /s /q build', expect: ask('COMPOUND_CWD_DELETE') },
  { dialect: 'cmd', cmd: 'rm -rf build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Remove-Item -Recurse -Force build', expect: run, effect: relocates('build') },
  { dialect: 'powershell', cmd: 'Remove-Item -wi build', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Get-ChildItem *.o | Remove-Item', expect: block('BLOCK_UNDETERMINABLE_EFFECT') },
  { dialect: 'powershell', cmd: 'Remove-Item \\\\srv\\share\\x', expect: block('BLOCK_OUT_OF_WORKSPACE') },
  { dialect: 'pwsh', cmd: 'New-Item f; Remove-Item untracked.txt', expect: ask('COMPOUND_CREATE_DELETE') },
  { dialect: 'fish', cmd: 'ls', expect: block('BLOCK_DIALECT_UNKNOWN') },
];

/** Every entry point that decides a command. */
export const ENTRY_POINTS = ['check', ...SHELLS.map((s) => `hook-shell ${s}`), ...HARNESSES.map((h) => `hook ${h}`)] as const;
/** The entry points that read cmd and PowerShell text: the shell hooks read only POSIX text. */
export const TEXT_ENTRY_POINTS = ENTRY_POINTS.filter((e) => !e.startsWith('hook-shell'));
