// The command lines the benchmark decides: one of each path through the engine (pure classification,
// filesystem probes, and each kind of git probe), so a regression in any of them shows.

export interface BenchLine {
  /** The command text, as an agent would send it. */
  text: string;
  /** What this line exercises, for the reader of the table. */
  why: string;
}

export const LINES: readonly BenchLine[] = [
  { text: 'ls -la', why: 'nothing destructive: classification only' },
  { text: 'rm -rf build', why: 'fs probes; an artifact name, so git check-ignore (not ignored here)' },
  { text: 'rm -rf node_modules', why: 'ignored artifact: git check-ignore, then git ls-files' },
  { text: 'git status', why: 'git, not destructive' },
  { text: 'git clean -fd', why: 'enumerates with git clean -n' },
  { text: 'git reset --hard', why: 'the reset preflight (git rev-parse, git diff-index)' },
  { text: 'cd src && rm -rf build', why: 'compound: cd then delete' },
  {
    text: "git log --oneline -n 50 | grep -v WIP | sed 's/^/- /' | sort | uniq -c | sort -rn | head -n 20 > notes.txt && echo done",
    why: 'long pipeline with a redirect',
  },
  { text: 'bash -c "rm -rf x"', why: 'unwrapping a nested shell' },
  { text: "find . -name '*.o' -delete", why: 'find with -delete' },
];

/** The lines the whole-process comparison runs (one per cost class: no probe, fs probe, git probe). */
export const PROCESS_LINES: readonly string[] = ['git status', 'rm -rf build', 'rm -rf node_modules'];
