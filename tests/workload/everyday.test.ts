// The everyday-agent workload (issue 14's acceptance): commands an agent runs all day, each on twin
// copies of one workspace — unguarded, and under `agent-guard run` — sent as the harnesses send
// them (`bash -c`, Claude Code's `bash -c -l` with its shell snapshot and `eval`, Gemini CLI's
// subshell with an EXIT trap). Every command must end as it does unguarded: the same exit status,
// stdout, tree and git state (the quarantine aside). All of it runs in the read-only sandbox.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { expect } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { describeSandboxed, itSandboxed, runSandboxed, useSandboxArea } from '../helpers/sandbox.js';

const area = useSandboxArea('ag-workload');
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The commands (a few create their own precondition first, as the situation an agent meets). */
export const EVERYDAY: readonly { cmd: string; setup?: string; harness?: true }[] = [
  { cmd: 'ls -la src' },
  { cmd: 'cat README.md' },
  { cmd: 'git status --short' },
  { cmd: 'git diff --stat' },
  { cmd: 'git log --oneline -3' },
  { cmd: 'grep -rn TODO src || true' },
  { cmd: 'wc -l src/*.ts' },
  { cmd: 'rm -rf build', harness: true },
  { cmd: 'rm -rf dist node_modules' },
  { cmd: 'rm -rf build/ dist/' },
  { cmd: 'rm -rf ./build' },
  { cmd: 'rm app.log' },
  { cmd: 'rm -f app.log missing.log' },
  { cmd: 'rm -rf sub/out' },
  { cmd: 'cd sub && rm -rf out', harness: true },
  { cmd: '(cd sub && rm -rf out)' },
  { cmd: 'cd "$HOME/ws" && rm -rf build' },
  { cmd: 'cd sub && git clean -fd', harness: true },
  { cmd: 'cd src && rm -f new.ts' },
  { cmd: 'cd src && git reset --hard HEAD', harness: true },
  { cmd: 'cd sub && rm -f ../app.log' },
  { cmd: `echo '{"q":1}' > req.json && python3 -c 'import json; print(json.load(open("req.json")))' && rm req.json` },
  { cmd: 'echo start > run.log; rm -rf dist', harness: true },
  { cmd: 'git diff > "$TMPDIR/p.diff" && git checkout -- . && git apply "$TMPDIR/p.diff"' },
  { cmd: 'T=$(mktemp -d); echo x > "$T/f"; rm -rf "$T"', harness: true },
  { cmd: 'mkdir -p "$TMPDIR/scratch" && touch "$TMPDIR/scratch/a" && rm -rf "$TMPDIR/scratch"' },
  { cmd: 'rm -rf ~/.cache/demo-tool', setup: 'mkdir -p ~/.cache/demo-tool && echo c > ~/.cache/demo-tool/c' },
  { cmd: 'rm -f .git/index.lock', setup: 'touch .git/index.lock' },
  { cmd: "python3 -c 'print(1)'" },
  { cmd: "node -e 'console.log(1)'" },
  { cmd: 'for f in objs/*.o; do rm "$f"; done', harness: true },
  { cmd: "find objs -name '*.o' -delete", harness: true },
  { cmd: "find objs -name '*.o' -exec rm {} \\;" },
  { cmd: "find . -name '*.o' -not -path './.git/*' | xargs rm -f" },
  { cmd: 'git stash && git stash pop', harness: true },
  { cmd: 'git stash list' },
  { cmd: 'git checkout -- src/a.ts' },
  { cmd: 'git restore src/a.ts' },
  { cmd: 'git add -A && git commit -qm wip' },
  { cmd: 'git branch tmp && git branch -D tmp' },
  { cmd: 'git clean -n' },
  { cmd: 'git clean -fd' },
  { cmd: 'git clean -fdx', harness: true },
  { cmd: 'git reset --hard' },
  { cmd: 'git checkout -q -b feature && git checkout -q main' },
  { cmd: 'mkdir -p out2 && touch out2/a && rm -rf out2' },
  { cmd: 'touch f && rm f' },
  { cmd: 'cp README.md R2.md && rm R2.md' },
  { cmd: 'mv src/new.ts src/new2.ts' },
  { cmd: 'rmdir emptydir', setup: 'mkdir emptydir' },
  { cmd: 'unlink app.log' },
  { cmd: 'make clean', harness: true },
  { cmd: 'sh -c "rm -rf build"' },
  { cmd: "bash -c 'rm -rf build'" },
  { cmd: 'eval "rm -rf build"', harness: true },
  { cmd: 'x=rm; $x -rf build', harness: true },
  { cmd: 'rm -rf "$(pwd)/build"' },
  { cmd: 'rm -rf tmp/*' },
  { cmd: 'ls | grep src' },
  { cmd: "sed -i 's/one/two/' README.md" },
  { cmd: 'echo hi > out.txt && cat out.txt' },
  { cmd: 'npm run clean --silent' },
  { cmd: 'rm -f -- -weird', setup: 'touch -- -weird' },
];

/** Claude Code 2.1.332's Bash tool command (its `buildExecCommand`, read from the package): the
 *  shell snapshot sourced, extglob off, the command through `eval` with stdin from /dev/null, the cwd
 *  written back; spawned as `<shell> -c -l STRING`. */
export function claudeArgv(cmd: string, snapshot: string, cwdFile: string): string[] {
  const s = [`source ${quote([snapshot])} 2>/dev/null || true`, '\\builtin shopt -u extglob 2>/dev/null || true', `eval ${quote([cmd])} < /dev/null`, `pwd -P >| ${quote([cwdFile])}`].join(' && ');
  return ['bash', '-c', '-l', s];
}

/** Gemini CLI 0.61.0's run_shell_command (`wrapCommandForBackgroundPIDs` and
 *  `ensurePromptvarsDisabled`, read from @google/gemini-cli-core): `bash -c STRING`. */
export function geminiArgv(cmd: string, pidFile: string): string[] {
  const wrapped = `_bgpids_file=${quote([pidFile])}\n(\n  trap 'jobs -p > "$_bgpids_file"' EXIT\n${cmd.trim()}\n)\n__code=$?\nexit $__code`;
  return ['bash', '-c', `shopt -u promptvars nullglob extglob nocaseglob dotglob; ${wrapped}`];
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: path.dirname(cwd) } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

function template(root: string): string {
  const home = path.join(root, 'template-home');
  const ws = path.join(home, 'ws');
  const w = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  };
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n');
  w('.gitignore', 'build/\ndist/\nnode_modules/\n*.log\nout/\n');
  w('README.md', 'one\ntwo\n');
  w('package.json', '{"name":"demo","version":"1.0.0","scripts":{"clean":"rm -rf build dist"}}\n');
  w('Makefile', 'clean:\n\trm -rf build dist\n');
  w('src/a.ts', 'export const a = 1; // TODO\n');
  w('src/b.ts', 'export const b = 2;\n');
  w('sub/keep.txt', 'keep\n');
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'init');
  // Work in progress and the usual untracked and ignored content.
  w('src/a.ts', 'export const a = 10; // TODO changed\n');
  w('src/new.ts', 'export const n = 3;\n');
  w('sub/out/x.o', 'o');
  w('build/app.js', 'built');
  w('build/notes.md', 'written by hand');
  w('dist/index.js', 'dist');
  w('node_modules/pkg/index.js', 'module');
  w('app.log', 'log');
  w('tmp/scratch.txt', 'scratch');
  for (let i = 1; i <= 20; i++) w(`objs/${i}.o`, `object ${i}`);
  return ws;
}

const harnessedCount = (): number => EVERYDAY.filter((c) => c.harness).length;

describeSandboxed('everyday agent commands end under agent-guard run as they do unguarded', () => {
  itSandboxed(
    'as bash -c, as Claude Code sends them, and as Gemini CLI sends them',
    () => {
      const root = area.rw();
      const ws = template(root);
      const snapDir = path.join(root, 'snapshots');
      fs.mkdirSync(snapDir);
      const cases: { id: string; cmd: string; argv?: string[]; setup?: string }[] = [];
      EVERYDAY.forEach(({ harness: _, ...c }, i) => cases.push({ id: `b${i}`, ...c }));
      expect(harnessedCount()).toBeGreaterThanOrEqual(12);
      // Each harness: the commands that delete or overwrite, plus a few that only read.
      const harnessed = EVERYDAY.filter((c) => c.harness);
      harnessed.forEach(({ harness: _, ...c }, i) => cases.push({ id: `c${i}`, ...c, argv: claudeArgv(c.cmd, '@SNAPSHOT@', path.join(root, `claude-${i}-cwd`)) }));
      harnessed.forEach(({ harness: _, ...c }, i) => cases.push({ id: `g${i}`, ...c, argv: geminiArgv(c.cmd, path.join(root, `gemini-${i}.pids`)) }));
      const planFile = path.join(root, 'plan.json');
      const outFile = path.join(root, 'out.json');
      fs.writeFileSync(planFile, JSON.stringify({ root, template: ws, node: process.execPath, bin: BIN, path: SYSTEM_PATH, snapshots: snapDir, cases }));
      const r = runSandboxed(root, [process.execPath, path.join(import.meta.dirname, 'fixtures', 'driver.mjs'), planFile, outFile], { timeoutMs: 600_000, env: { PATH: SYSTEM_PATH } });
      expect(r.exitCode, r.stderr).toBe(0);
      const results = JSON.parse(fs.readFileSync(outFile, 'utf8')) as any[];
      const differ = results.filter((x) => {
        const p = { ...x.plain, stderr: undefined, quarantine: undefined };
        const g = { ...x.guarded, stderr: undefined, quarantine: undefined };
        return JSON.stringify(p) !== JSON.stringify(g);
      });
      const report = differ.map((x) => ({ id: x.id, cmd: x.cmd, plain: { status: x.plain.status, stderr: x.plain.stderr.slice(0, 300) }, guarded: { status: x.guarded.status, stderr: x.guarded.stderr.slice(0, 600) } }));
      expect(report).toEqual([]);
      // The deleting commands really were compensated: the quarantine exists where they deleted.
      expect(results.find((x) => x.cmd === 'rm app.log')?.guarded.quarantine).toBe(true);
      expect(results.find((x) => x.cmd === 'git clean -fd')?.guarded.quarantine).toBe(true);
    },
    900_000,
  );
});
