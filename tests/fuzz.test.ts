// Fuzzing the classifier and the decision engine: thousands of generated, mutated and pathological
// command lines, each checked for a valid, self-consistent result, plus metamorphic invariants that
// relate the decisions of related lines. Nothing here executes a command: lines are only classified
// and decided (without the stub GitRunner the engine runs read-only git queries).
//
// Deterministic: FUZZ_SEED (decimal or 0x-hex) picks the seed, FUZZ_COUNT about how many generated
// lines are decided in all (default 20,000; the pathological set is fixed). A failure is shrunk to a
// small input that still fails the same way and reported with the seed, once per kind of problem.
//
// Exceptions: every input goes through decide (an exception from a line without a destructive smell
// escapes it; with one it becomes BLOCK_INTERNAL_ERROR, which is reported too), and a quarter of
// the inputs, the pathological ones and every shrink also go through classify directly.
// Hangs: the per-test timeout is the only guard, and vitest cannot interrupt synchronous code, so a
// hang shows as a test that never ends (a quadratic blow-up as a slow one, see "probe work").
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { classify } from '../src/classifier/index.js';
import { decide, type CheckResult } from '../src/engine.js';
import type { Decision } from '../src/policy/reasons.js';
import { DECISIONS, errText, validate } from './helpers/fuzz-check.js';
import type { GitRunner } from '../src/probe/git.js';
import type { Config } from '../src/config.js';
import type { Mode } from '../src/policy/rules.js';
import { makeFixture, type Fixture } from './helpers/fixture.js';
import {
  backslashQuote,
  destructiveSimple,
  doubleQuote,
  endState,
  envInt,
  Grammar,
  hasRmWord,
  mutate,
  pathological,
  Rng,
  SEED_CORPUS,
  singleQuote,
  weirdName,
  ansiQuote,
} from './helpers/fuzz-gen.js';

const SEED = envInt('FUZZ_SEED', 0x5eed_ca11) >>> 0;
const COUNT = envInt('FUZZ_COUNT', 20_000);
const SEED_LABEL = `seed=0x${SEED.toString(16)}`;
/** Share of COUNT per generator (the metamorphic ones decide several lines per generated input:
 *  6a two, 6b nine, 6e up to ten, 6f three), so that about COUNT lines are decided in all. */
const SHARE = { grammar: 0.285, mutation: 0.29, suffix: 0.05, wrappers: 0.015, spelling: 0.0075, outside: 0.05, unterminated: 0.05, depth: 0.01, layout: 0.025, realGit: 0.015 };
const n = (k: keyof typeof SHARE): number => Math.max(1, Math.round(COUNT * SHARE[k]));
/** How many failures per test are shrunk and shown. */
const SHOW = 8;
const TIMEOUT = 120_000;


const stubGit: GitRunner = {
  run: () => ({ ok: false, status: 128, stdout: Buffer.alloc(0), stderr: 'stub' }),
};

let fx: Fixture;
let configs: { label: string; config: Config }[];
let wsConfig: Config;
let srcConfig: Config;

beforeAll(() => {
  fx = makeFixture();
  wsConfig = fx.config();
  srcConfig = fx.config(path.join(fx.ws, 'src'));
  configs = [
    { label: 'ws', config: wsConfig },
    { label: 'ws', config: wsConfig },
    { label: 'ws/src', config: srcConfig },
    { label: 'ws/nogit', config: fx.config(path.join(fx.ws, 'nogit')) },
    { label: 'home', config: fx.config(fx.home) },
  ];
});

afterAll(() => {
  fx.checkCanary();
  fx.cleanup();
});

// ---------------------------------------------------------------------------------------------
// Running one input and checking its result

interface RunOptions {
  config?: Config;
  mode?: Mode;
  /** Use the real git (read-only queries) instead of the stub. */
  realGit?: boolean;
  /** Also call classify directly (decide catches some exceptions). */
  classify?: boolean;
}

interface Run {
  result: CheckResult | null;
  /** Everything wrong with this input's result; empty when it is valid. */
  problems: string[];
}


/** Lines decided, over the whole file. */
let decided = 0;

function run(command: string, opts: RunOptions = {}): Run {
  decided++;
  const config = opts.config ?? wsConfig;
  const problems: string[] = [];
  if (opts.classify !== false) {
    try {
      const c = classify(command, { cwd: config.cwd, home: config.home, cdpath: config.cdpath });
      if (!Array.isArray(c.ops) || typeof c.commandCount !== 'number' || typeof c.unbalanced !== 'boolean') problems.push('invalid: classification shape');
      else c.ops.forEach((o, i) => {
        if (o.index !== i) problems.push(`invalid: op ${i} has index ${o.index}`);
      });
    } catch (e) {
      problems.push(`classify-threw: ${errText(e)}`);
    }
  }
  let result: CheckResult | null = null;
  try {
    result = decide({ command, config, ...(opts.mode ? { mode: opts.mode } : {}), ...(opts.realGit ? {} : { git: stubGit }) });
  } catch (e) {
    problems.push(`decide-threw: ${errText(e)}`);
  }
  if (result) validate(result, problems);
  return { result, problems };
}

/** The decision of a line (stub git, workspace root), or the problem that prevented one. */
function decisionOf(command: string, config: Config = wsConfig): Decision | string {
  const r = run(command, { config, classify: false });
  if (r.problems.length > 0 || !r.result) return r.problems[0] ?? 'no result';
  return r.result.decision;
}

// ---------------------------------------------------------------------------------------------
// Collecting, shrinking and reporting failures

/** A property: null when the input passes, else a problem whose text up to the first ':' is its kind. */
type Property = (input: string) => string | null;

const kindOf = (problem: string): string => problem.split(':')[0]!;

/** Shrinks `input` while `prop` still fails with the same kind of problem: greedy removal of ever
 *  smaller chunks, then collapsing runs of one character; at most `budget` property evaluations. */
function shrink(input: string, prop: Property, kind: string, budget: number): string {
  let best = input;
  let calls = 0;
  const fails = (s: string): boolean => {
    calls++;
    const p = prop(s);
    return p !== null && kindOf(p) === kind;
  };
  for (let chunk = Math.max(1, best.length >> 1); chunk >= 1 && calls < budget; chunk = chunk === 1 ? 0 : Math.max(1, chunk >> 1)) {
    for (let at = 0; at < best.length && calls < budget; ) {
      const cand = best.slice(0, at) + best.slice(at + chunk);
      if (fails(cand)) best = cand;
      else at += chunk;
    }
  }
  for (let i = 0; i < best.length && calls < budget; i++) {
    const cand = best.slice(0, i) + best.slice(i).replace(/^(.)\1+/s, '$1');
    if (cand !== best && fails(cand)) best = cand;
  }
  return best;
}

const show = (s: string): string => {
  const j = JSON.stringify(s);
  return j.length > 400 ? `${j.slice(0, 300)}…${j.slice(-80)} (${s.length} chars)` : j;
};

interface CheckOptions {
  /** The property used to shrink a failing input (bound to that input's options); null: no shrinking. */
  shrinkWith?: ((original: string) => Property) | null;
  /** Property evaluations per shrink. */
  budget?: number;
}

/** Runs a property over inputs and asserts that none fails. The assertion message holds, per kind
 *  of problem, how many inputs failed and the smallest (shrunk) one. */
function check(name: string, inputs: Iterable<string>, prop: Property, opts: CheckOptions = {}): void {
  const failures: { input: string; problem: string }[] = [];
  let ran = 0;
  let failed = 0;
  const before = decided;
  for (const input of inputs) {
    ran++;
    const p = prop(input);
    if (p === null) continue;
    failed++;
    if (failures.length < 5000) failures.push({ input, problem: p });
  }
  stats.set(name, { inputs: ran, lines: decided - before });
  const byKind = new Map<string, { input: string; problem: string }[]>();
  for (const f of failures) byKind.set(kindOf(f.problem), [...(byKind.get(kindOf(f.problem)) ?? []), f]);
  const report: string[] = [];
  for (const [kind, fs] of byKind) {
    if (report.length >= SHOW) break;
    const smallest = fs.reduce((a, b) => (b.input.length < a.input.length ? b : a));
    let input = smallest.input;
    let problem = smallest.problem;
    const shrinkWith = opts.shrinkWith === undefined ? () => prop : opts.shrinkWith;
    if (shrinkWith) {
      const p = shrinkWith(smallest.input);
      input = shrink(smallest.input, p, kind, opts.budget ?? 400);
      problem = p(input) ?? problem;
    }
    report.push(`[${name} ${SEED_LABEL}] ${fs.length}× ${kind}; smallest: ${show(input)} → ${problem}${input !== smallest.input ? ` (shrunk from ${show(smallest.input)})` : ''}`);
  }
  expect(report, `${failed} of ${ran} inputs failed`).toEqual([]);
}

/** Per property: generated inputs, and lines decided for them (shrinking not counted). */
const stats = new Map<string, { inputs: number; lines: number }>();

/** The validity property under fixed options. */
const validUnder =
  (opts: RunOptions): Property =>
  (input) => {
    const p = run(input, opts).problems[0];
    return p === undefined ? null : `${p} [cwd ${labelOf(opts.config)}, ${opts.mode ?? 'NORMAL'}${opts.realGit ? ', real git' : ''}]`;
  };

const labelOf = (c: Config | undefined): string => configs.find((x) => x.config === c)?.label ?? 'ws';

// ---------------------------------------------------------------------------------------------
// Inputs

function* grammarLines(rng: Rng, count: number): Generator<string> {
  const g = new Grammar(rng);
  for (let i = 0; i < count; i++) yield g.line(rng.range(0, 3));
}

function* mutatedLines(rng: Rng, count: number): Generator<string> {
  const g = new Grammar(rng);
  for (let i = 0; i < count; i++) {
    const base = rng.chance(0.6) ? rng.pick(SEED_CORPUS) : g.line(rng.range(0, 2));
    yield mutate(rng, base);
  }
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Options that vary the working directory and the mode, derived from the input (deterministic);
 *  every fourth input is also classified directly. */
function varied(input: string): RunOptions {
  const h = hash(input);
  return { config: configs[h % configs.length]!.config, mode: (h >>> 8) % 5 === 0 ? 'RESTRICTED' : 'NORMAL', classify: (h >>> 16) % 4 === 0 };
}

const validity: Property = (input) => validUnder(varied(input))(input);
const validityShrink = (original: string): Property => validUnder({ ...varied(original), classify: true });

// ---------------------------------------------------------------------------------------------

describe(`fuzz (${SEED_LABEL}, FUZZ_COUNT=${COUNT})`, () => {
  const root = new Rng(SEED);

  it(`grammar: ${n('grammar')} generated lines give valid results [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    check('grammar', grammarLines(root.fork(1), n('grammar')), validity, { shrinkWith: validityShrink });
  });

  it(`mutation: ${n('mutation')} mutated corpus lines give valid results [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    check('mutation', mutatedLines(root.fork(2), n('mutation')), validity, { shrinkWith: validityShrink });
  });

  describe('pathological inputs complete with a valid result', () => {
    for (const p of pathological()) {
      const what = p.expect === 'block' ? ', BLOCK' : p.expect === 'not-allow' ? ', not ALLOW' : '';
      it(`${p.name} (${p.text.length} chars${what})`, { timeout: TIMEOUT }, () => {
        const r = run(p.text, { classify: true });
        const problems = [...r.problems];
        const d = r.result?.decision;
        if (d !== undefined && p.expect === 'block' && d !== 'BLOCK') problems.push(`not-blocked: ${d}`);
        if (d !== undefined && p.expect === 'not-allow' && d === 'ALLOW') problems.push('allowed: the line runs a destructive command');
        expect(problems.map((x) => x.slice(0, 300))).toEqual([]);
      });
    }
  });

  it(`real git: ${n('realGit')} lines decided without the stub give valid results [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(3);
    const g = new Grammar(rng);
    const inputs: string[] = [];
    for (let i = 0; i < n('realGit'); i++) {
      const k = rng.int(3);
      inputs.push(k === 0 ? g.git(1) : k === 1 ? destructiveSimple(rng) : g.line(1));
    }
    const real = (input: string): RunOptions => ({ ...varied(input), realGit: true, classify: false });
    check('real git', inputs, (input) => validUnder(real(input))(input), { shrinkWith: (o) => validUnder(real(o)), budget: 60 });
  });

  // 6a. Appending `; rm -rf /` or `\nrm -rf /` to a line L. Where the appended command is live code
  // (not swallowed into a comment, a heredoc body, a continued line or an escaped `;`, and not a
  // syntax error such as `;;` that makes bash reject the line), the line is BLOCK (rule 2c, or
  // rule 2 when it is nested); where L leaves a quote or a substitution open, the line is
  // unbalanced and smells destructive, so it is BLOCK as well.
  it(`6a: L + "; rm -rf /" and L + "\\nrm -rf /" are BLOCK unless the suffix is swallowed [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(4);
    const half = Math.ceil(n('suffix') / 2);
    const lines = [...grammarLines(rng, half), ...mutatedLines(rng, n('suffix') - half)];
    const prop: Property = (L) => {
      const e = endState(L);
      for (const suffix of ['; rm -rf /', '\nrm -rf /']) {
        const nl = suffix.startsWith('\n');
        let live: boolean;
        if (e.unterminated) live = true;
        else if (e.inHeredocBody) live = false;
        // A newline ends a comment and a delimiter line; it starts a pending heredoc's body, and
        // after a backslash it is a continuation.
        else if (nl) live = !e.heredocPending && !e.trailingBackslash;
        // `; rm -rf /` lands in a comment, in a delimiter line (which stops being one), after an
        // escaping backslash, or right after `;`, `&`, `|`, `(` or a newline, where `;` is a syntax
        // error and bash runs nothing.
        else live = !e.inComment && !e.onDelimiterLine && !e.trailingBackslash && e.lastTop === 'w';
        if (!live) continue;
        const d = decisionOf(L + suffix);
        if (d !== 'BLOCK') {
          const kind = d === 'ALLOW' ? 'allowed' : DECISIONS.includes(d as Decision) ? 'not-blocked' : 'broken';
          return `${kind}: L + ${JSON.stringify(suffix)} is ${d}${e.unterminated ? ' (L is unterminated)' : ''}`;
        }
      }
      return null;
    };
    check('6a suffix', lines, prop, { budget: 300 });
  });

  // 6b. Wrappers run the wrapped program unchanged (same directory, same arguments), so wrapping a
  // destructive command never makes it ALLOW. Only wrappers that keep the directory and the
  // program are used (not env -C, sudo -i, command -v).
  const WRAPPERS = ['sudo', 'env', 'nice', 'nohup', 'command', 'time', 'timeout 5'];
  const MORE_WRAPPERS = [...WRAPPERS, 'sudo -u root', 'sudo -E', 'sudo --', 'env -i', 'env -u X', 'env NAME=v', 'env --', 'nice -n 5', 'timeout -s KILL 5', 'stdbuf -oL', 'command -p', 'exec', 'time -p'];
  const wrapperProp: Property = (D) => {
    const base = decisionOf(D);
    if (base === 'ALLOW' || !DECISIONS.includes(base as Decision)) return null;
    const r = new Rng(hash(D));
    const chains = [...WRAPPERS.map((w) => [w]), r.some(MORE_WRAPPERS, r.range(2, 6))];
    for (const chain of chains) {
      const line = chain.join(' ') + ' ' + D;
      const d = decisionOf(line);
      if (d === 'ALLOW') return `allowed: ${JSON.stringify(line)} is ALLOW though ${JSON.stringify(D)} is ${base}`;
    }
    return null;
  };
  it(`6b: wrapping a non-ALLOW destructive command never makes it ALLOW [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(5);
    const bases = Array.from({ length: n('wrappers') }, () => destructiveSimple(rng));
    check('6b wrappers', bases, wrapperProp, { budget: 100 });
  });

  const DEPTH_TARGETS = ['rm -rf /', 'rm -rf build', 'git clean -fdx', 'bash -c "rm -rf build"'];
  it(`6b': ${n('depth')} chains of 1–40 wrappers never make a destructive command ALLOW [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(7);
    const inputs: string[] = [];
    for (let i = 0; i < n('depth'); i++) inputs.push(Array.from({ length: rng.range(1, 40) }, () => rng.pick(WRAPPERS)).join(' ') + ' ' + rng.pick(DEPTH_TARGETS));
    check("6b' wrapper depth", inputs, (line) => {
      const D = DEPTH_TARGETS.find((t) => line.endsWith(' ' + t));
      if (D === undefined) return null;
      const prefix = line.slice(0, line.length - D.length - 1);
      if (!/^((sudo|env|nice|nohup|command|time|timeout 5)( |$))+$/.test(prefix)) return null;
      const d = decisionOf(line);
      return d === 'ALLOW' ? `allowed: ${prefix.split(/ (?!5)/).length} wrappers in front of ${D}` : null;
    }, { budget: 200 });
  });

  // 6e. Spelling the program differently (quotes, a backslash, brace expansion with an empty
  // alternative, a pattern that matches only /bin/rm), or a git subcommand through an alias set
  // with `git -c alias.NAME=…` on the same line, runs the same thing: never ALLOW.
  it(`6e: respelling the program word (or aliasing the git subcommand) never makes a destructive command ALLOW [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(8);
    const bases = Array.from({ length: n('spelling') }, () => destructiveSimple(rng));
    const prop: Property = (D) => {
      const m = /^([a-z]+)( .*)?$/s.exec(D);
      if (!m) return null;
      const prog = m[1]!;
      const rest = m[2] ?? '';
      const base = decisionOf(D);
      if (base === 'ALLOW' || !DECISIONS.includes(base as Decision)) return null;
      // (the first ALLOW is reported, so the rarer spellings come first: each kind shows somewhere)
      const variants: [string, string][] = [];
      // git: the subcommand through an alias defined on the same command line
      const sub = prog === 'git' ? /^ (clean|reset|restore|checkout|switch|push)( .*)?$/s.exec(rest) : null;
      if (sub) variants.push(['git -c alias', `git -c alias.zz=${sub[1]} zz${sub[2] ?? ''}`], ['git -c alias', `git -c alias.zz=${singleQuote(`!git ${sub[1]}${sub[2] ?? ''}`)} zz`]);
      if (prog === 'rm') variants.push(['pattern', '/bin/r[m]' + rest]);
      for (const sp of [`{${prog},}`, `{,${prog}}`]) variants.push(['brace expansion', sp + rest]);
      for (const sp of [`\\${prog}`, `'${prog}'`, `"${prog}"`, `${prog}''`, `${prog.slice(0, 1)}""${prog.slice(1)}`, ...(prog === 'rm' ? ['/bin/rm'] : [])]) variants.push(['quoting', sp + rest]);
      for (const [how, line] of variants) {
        const d = decisionOf(line);
        if (d === 'ALLOW') return `allowed (${how}): ${JSON.stringify(line)} is ALLOW though ${JSON.stringify(D)} is ${base}`;
      }
      return null;
    };
    check('6e spelling', bases, prop, { budget: 100 });
  });

  // 6c. rm -rf of a literal path outside the fixture workspace is BLOCK (rules 2c, 4 or 5), or —
  // in a scratch zone — relocated into that zone's quarantine (rule 8b).
  it(`6c: rm -rf <literal path outside the workspace> is BLOCK [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(9);
    const inputs: { line: string; cwd: Config }[] = [];
    const within = (p: string, dir: string): boolean => p === dir || p.startsWith(dir + '/');
    while (inputs.length < n('outside')) {
      const cwd = rng.chance(0.7) ? wsConfig : srcConfig;
      const k = rng.int(8);
      let tilde = ''; // kept outside the quotes, so that the shell expands it
      let literal: string;
      if (k === 0) {
        literal = rng.pick([fx.outside, fx.canary, path.join(fx.home, 'other'), fx.root, fx.home, path.join(fx.root, 'home'), '/', '/etc', '/usr/share/doc', '/var/tmp/x', '/opt/x', '/home', '//', '/./etc/', '/tmp', '/srv/']);
      } else if (k === 1) {
        literal = `/tmp/ag-fuzz-${weirdName(rng)}`;
      } else if (k === 2) {
        tilde = rng.pick(['~', '~/']);
        literal = tilde === '~' ? '' : rng.pick(['other', 'other/x', weirdName(rng), '.', '..', 'ws/../other']);
      } else if (k === 3) {
        literal = rng.pick(['../outside', '../../outside/x', '..', '../..', '../other-' + weirdName(rng), '../' + weirdName(rng), '../../../' + weirdName(rng)]);
      } else if (k === 4) {
        literal = rng.pick(['link-out/', 'link-out/canary.txt', 'link-out/x/y', 'link-out/.']);
      } else if (k === 5) {
        literal = path.join(fx.outside, weirdName(rng));
      } else if (k === 6) {
        literal = fx.ws + '/../' + rng.pick(['outside', 'home', 'other', weirdName(rng)]);
      } else {
        literal = rng.pick(['/usr', '/var', '/etc', '/opt', '/data', fx.root]) + '/' + weirdName(rng) + rng.pick(['', '/', '/x']);
      }
      // NUL cannot be part of a path; `link-out/…` reaches the outside directory only from ws.
      if (literal.includes('\0')) continue;
      const viaLink = literal.startsWith('link-out/');
      if (viaLink && (cwd !== wsConfig || literal.includes('..'))) continue;
      const expanded = tilde === '' ? literal : tilde === '~' ? fx.home : `${fx.home}/${literal}`;
      if (!viaLink && within(path.posix.resolve(cwd.cwd, expanded), fx.ws)) continue;
      const quoted = literal === '' ? '' : rng.pick([singleQuote, doubleQuote, ansiQuote, backslashQuote])(literal);
      const flags = rng.pick(['-rf', '-rf', '-rf', '-fr', '-r -f', '-rf --', '--recursive --force', '-Rf']);
      const prog = rng.pick(['rm', 'rm', 'rm', '/bin/rm', '\\rm']);
      inputs.push({ line: `${prog} ${flags} ${tilde}${quoted}`, cwd });
    }
    const cwdOf = new Map(inputs.map((i) => [i.line, i.cwd] as const));
    // The fixture lives in /tmp: a path there is in a scratch zone (docs/zones.md) and may be
    // relocated into that zone's quarantine instead — an independent reading of the zones: strictly
    // inside /tmp or /var/tmp, neither in nor holding the fixture's HOME (its cache directory, below
    // agent-guard's own part of it, is a zone again).
    const zones = ['/tmp', '/var/tmp'].map((p) => fs.realpathSync(p));
    const cache = path.join(fx.home, '.cache');
    const scratch = (p: string | null): boolean =>
      p !== null &&
      ((zones.some((z) => p.startsWith(z + '/')) && !within(p, fx.home) && !within(fx.home, p)) || (p.startsWith(cache + '/') && !within(p, path.join(cache, 'agent-guard'))));
    check('6c outside', inputs.map((i) => i.line), (line) => {
      const cwd = cwdOf.get(line) ?? wsConfig;
      const d = decisionOf(line, cwd);
      if (d === 'BLOCK') return null;
      const r = run(line, { config: cwd, classify: false }).result;
      // (an unquoted word may split off a second operand, inside the workspace)
      if (r?.code === 'RELOCATE_SCRATCH' && r.ops.every((o) => o.targets.every((t) => scratch(t.physical) || (t.physical !== null && within(t.physical, fx.ws) && t.physical !== fx.ws)))) return null;
      return `not-blocked: ${d} [cwd ${labelOf(cwd)}]`;
    }, { shrinkWith: null });
  });

  // 6d. A line with an unterminated quote (or substitution) and the word rm is BLOCK: the engine
  // cannot read it and it smells destructive (rule 2, reason `unbalanced`).
  it(`6d: an unterminated quote plus the word rm is BLOCK [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(10);
    const g = new Grammar(rng);
    const inputs: string[] = [];
    const openers = [' "', " '", ' `', " $'", ' $(', ' ${', ' "$(', ' <(', "'", '"', ' "${'];
    for (let guard = 0; inputs.length < n('unterminated') && guard < n('unterminated') * 20; guard++) {
      let line: string;
      const k = rng.int(3);
      if (k === 0) line = g.line(rng.range(0, 2)) + rng.pick(['; ', ' ', ' && ', '\n']) + rng.pick(['echo', 'ls', 'rm -rf', 'bash -c']) + rng.pick(openers) + rng.pick(['rm -rf build', 'x rm y', 'rm', 'cd / && rm -rf *', 'hello']);
      else if (k === 1) line = rng.pick(['echo', 'rm -rf', 'git clean -fdx', 'cat']) + rng.pick(openers) + rng.pick(['rm -rf build', 'rm', '$(rm)', 'x\nrm -rf y', 'a b c rm']);
      else line = mutate(rng, rng.pick(SEED_CORPUS));
      if (endState(line).unterminated && hasRmWord(line)) inputs.push(line);
    }
    check('6d unterminated', inputs, (line) => {
      if (!endState(line).unterminated || !hasRmWord(line)) return null;
      const d = decisionOf(line);
      return d === 'BLOCK' ? null : `${d === 'ALLOW' ? 'allowed' : 'not-blocked'}: ${d}`;
    });
  });

  // 6f. Layout that the shell removes before it parses: a backslash-newline in place of a top-level
  // blank, or a comment appended to a line that ends at top level. Same line, same decision.
  it(`6f: a line continuation or a trailing comment does not change the decision [${SEED_LABEL}]`, { timeout: TIMEOUT }, () => {
    const rng = root.fork(11);
    const half = Math.ceil(n('layout') / 2);
    const atTop = (prefix: string): boolean => {
      const e = endState(prefix);
      return !e.unterminated && !e.inComment && !e.trailingBackslash && !e.heredocPending && !e.inHeredocBody && !e.onDelimiterLine;
    };
    // Half the lines get a destructive command on a line of its own, so that a change in how the
    // lines before it are read shows in the decision.
    // A quarter start with a heredoc whose operator is followed by a blank.
    const lines = [...grammarLines(rng, half), ...mutatedLines(rng, n('layout') - half)].map((L, i) => {
      const withHeredoc = i % 4 === 0 ? `${rng.pick(['cat', 'bash', 'tee f'])} <<${rng.pick(['', '-'])} ${rng.pick(['EOF', "'EOF'", 'E\\OF'])}\n${rng.pick(['x', '$(date)', 'rm -rf y'])}\n${rng.pick(['EOF', '\tEOF'])}\n${L}` : L;
      return i % 2 === 0 && atTop(withHeredoc) ? `${withHeredoc}\nrm -rf build` : withHeredoc;
    });
    const outcome = (line: string): string => {
      const r = run(line, { classify: false });
      return r.result && r.problems.length === 0 ? `${r.result.decision} ${r.result.code}` : (r.problems[0] ?? 'no result');
    };
    const prop: Property = (L) => {
      const base = outcome(L);
      // the blank to replace: chosen from the line itself, so that shrinking stays deterministic
      // (every other line: a blank right after a heredoc operator, where one exists)
      const blanks: number[] = [];
      for (let j = 1; j < L.length - 1; j++) if (L[j] === ' ' && atTop(L.slice(0, j))) blanks.push(j);
      const afterHeredoc = blanks.filter((j) => /<<-?$/.test(L.slice(0, j)));
      const pool = afterHeredoc.length > 0 && hash(L) % 2 === 0 ? afterHeredoc : blanks;
      if (pool.length > 0) {
        const j = pool[hash(L) % pool.length]!;
        const c = L.slice(0, j) + ' \\\n' + L.slice(j + 1);
        const d = outcome(c);
        if (d !== base) return `${d.startsWith('ALLOW') ? 'allowed' : 'changed'}: with a continuation ${JSON.stringify(c)} is ${d}, without ${base}`;
      }
      if (atTop(L)) {
        const c = L + ' # comment';
        const d = outcome(c);
        if (d !== base) return `${d.startsWith('ALLOW') ? 'allowed' : 'changed'}: with a comment ${JSON.stringify(c)} is ${d}, without ${base}`;
      }
      return null;
    };
    check('6f layout', lines, prop, { budget: 300 });
  });

  // realpathLoose walks up one failing realpath per missing level: after a chain of relative cd's
  // every target sits one level deeper, so the work per op grows with the op's index.
  it('the probe work per op does not grow with the number of earlier cd commands', () => {
    const spy = vi.spyOn(fs.realpathSync, 'native');
    const calls = (pairs: number): number => {
      spy.mockClear();
      run(Array.from({ length: pairs }, (_, i) => `cd d${i}\nrm -rf b${i}`).join('\n'), { classify: false });
      return spy.mock.calls.length;
    };
    try {
      const small = calls(40);
      const large = calls(80);
      // Linear work doubles; the quadratic walk quadruples (minus the fixed per-line cost).
      expect(large / small, `realpath calls: ${small} for 40 cd/rm pairs, ${large} for 80`).toBeLessThan(2.6);
    } finally {
      spy.mockRestore();
    }
  });

  // Found by this fuzzer: the smallest inputs, each with what it must be.
  describe('minimal cases found by fuzzing', () => {
    // (Also found: a target 15,000 directories deep overflows the stack, see the pathological
    // inputs "r''m of a 15,000-level path" and "rm -rf of a 15,000-level path".)
    const cases: { cmd: string; why: string; expect: 'not-allow' | 'valid' }[] = [
      { cmd: 'sudo '.repeat(33) + 'rm -rf /', why: 'unwrap() peels at most 32 wrappers; the 33rd is taken as the program', expect: 'not-allow' },
      { cmd: '{rm,-rf,/}', why: 'brace expansion in program position: bash runs rm -rf /', expect: 'not-allow' },
      { cmd: '{rm,} -rf /', why: '{rm,} expands to rm', expect: 'not-allow' },
      { cmd: 'rm{,} -rf /', why: 'expands to rm rm -rf /', expect: 'not-allow' },
      { cmd: '/bin/r[m] -rf /', why: 'a pattern in program position matches /bin/rm', expect: 'not-allow' },
      { cmd: 'git {clean,-fdx}', why: 'brace expansion after git: git clean -fdx', expect: 'not-allow' },
      { cmd: 'echo \\;\nrm -rf /', why: 'an escaped ; at the end of a line is taken as a separator, so the newline is dropped', expect: 'not-allow' },
      { cmd: 'echo \\&\nrm -rf /', why: 'the same with an escaped &', expect: 'not-allow' },
      { cmd: 'cat <<\\\nEOF\nEOF\nrm -rf /', why: 'a line continuation before a heredoc delimiter becomes part of the delimiter, so the rest of the line is read as the body', expect: 'not-allow' },
      { cmd: 'cat <<E\\\nOF\n$(rm -rf /)\nEOF', why: 'the same inside the delimiter word: bash runs the substitution in the body', expect: 'not-allow' },
      { cmd: 'git -c alias.x=clean x -fdx', why: 'an alias set with -c on the line itself is not looked up (only `git config --get` without the line\'s -c)', expect: 'not-allow' },
      { cmd: "git -c alias.x='!rm -rf /' x", why: 'the same with a shell alias', expect: 'not-allow' },
      { cmd: 'r\0m -rf /', why: 'a shell reading the line from a stream drops NUL bytes', expect: 'not-allow' },
    ];
    for (const c of cases) {
      it(`${show(c.cmd.length > 60 ? c.cmd.slice(0, 24) + '…' + c.cmd.slice(-16) : c.cmd)} is ${c.expect === 'valid' ? 'decided without an internal error' : 'not ALLOW'} (${c.why})`, () => {
        const r = run(c.cmd, { classify: true });
        expect(r.problems.map((p) => p.slice(0, 200))).toEqual([]);
        if (c.expect === 'not-allow') expect(r.result?.decision).not.toBe('ALLOW');
      });
    }
  });

  it('ran the planned number of inputs', () => {
    const inputs = [...stats.values()].reduce((a, b) => a + b.inputs, 0);
    const lines = [...stats.values()].reduce((a, b) => a + b.lines, 0);
    const per = [...stats].map(([k, v]) => `${k}: ${v.inputs} inputs, ${v.lines} lines`).join('; ');
    console.log(`[fuzz ${SEED_LABEL}] ${per}. Total: ${inputs} generated inputs, ${lines} generated lines decided; ${decided} decisions in all (pathological, shrinking and minimal cases included)`);
    expect(lines).toBeGreaterThanOrEqual(Math.min(COUNT, 20_000) * 0.9);
  });
});
