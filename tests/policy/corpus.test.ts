// Whole command lines through classify → probe → policy, in the fixture workspace: the reference's
// examples and agent-guard's own corpus. Assert decision and reason code, never wording.
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import type { Case } from '../corpus/types.js';
import { README_TABLE, RULE_TABLE } from '../corpus/reference.js';
import { EXPANSIONS, FUZZ_REGRESSIONS, GIT, INDIRECT, OPTIONS, PATHS, QUOTING, WRAPPERS } from '../corpus/tricky.js';
import { INTERPRETERS } from '../corpus/interp.js';

const fixture = useFixture();

const SETS: Record<string, readonly Case[]> = {
  'reference README "What gets protected"': README_TABLE,
  'reference rule table': RULE_TABLE,
  'quoting, comments, heredocs, continuations': QUOTING,
  'variables and substitutions': EXPANSIONS,
  wrappers: WRAPPERS,
  'indirect execution and stdin-fed lists': INDIRECT,
  'paths: .., symlinks, roots, quarantine, workspace': PATHS,
  git: GIT,
  'options as each program reads them': OPTIONS,
  'regressions found by the fuzz test': FUZZ_REGRESSIONS,
  'interpreter one-liners and stdin': INTERPRETERS,
};

describe.each(Object.entries(SETS))('%s', (_name, cases) => {
  it.each(cases.map((c) => [JSON.stringify(c.cmd) + (c.mode ? ` [${c.mode}]` : '') + (c.cwd ? ` in ${c.cwd}` : '') + (c.env ? ` ${JSON.stringify(c.env)}` : ''), c] as const))('%s', (_l, c) => {
    const env = c.env ? Object.fromEntries(Object.entries(c.env).map(([k, v]) => [k, k === 'AGENT_GUARD_WORKSPACE' && !v.startsWith('/') ? `${fixture().ws}/${v}` : v])) : undefined;
    const r = fixture().decide(c.cmd, { ...(c.mode ? { mode: c.mode } : {}), ...(c.cwd ? { cwd: c.cwd } : {}), ...(env ? { env } : {}) });
    expect({ decision: r.decision, code: r.code }).toEqual({ decision: c.expect, code: c.code });
  });
});
