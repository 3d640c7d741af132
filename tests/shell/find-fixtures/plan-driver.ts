// The destructive half of tests/shell/find.test.ts, run INSIDE the sandbox (it runs the real
// `find … -delete` and moves files), bundled into the test's writable area: `node plan-driver.mjs '<json>'`, json
// {real, cases: [{argsA, cwdA, argsB, cwdB, trash}]}. For each case: the real find -delete on A,
// output and status recorded; then on B: planFindDelete, every `relocate` entry moved to
// <trash>/<index> (renameSync, standing in for the quarantine), and the real find run again with
// rerunArgs only when the plan says so. Prints one JSON array of reports on stdout; paths as hex.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { planFindDelete } from '../../../src/shell/find.js';

interface Case {
  argsA: string[];
  cwdA: string;
  argsB: string[];
  cwdB: string;
  trash: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as { real: string; cases: Case[] };
const hex = (b: Buffer): string => b.toString('hex');

function runReal(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(spec.real, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const reports = spec.cases.map((c) => {
  const real = runReal(c.argsA, c.cwdA);
  const plan = planFindDelete(c.argsB, { real: spec.real, cwd: c.cwdB });
  if (!plan.ok) return { real, plan, rerun: null };
  fs.mkdirSync(c.trash, { recursive: true });
  plan.relocate.forEach((p, i) => {
    const from = p[0] === 0x2f ? p : Buffer.concat([Buffer.from(c.cwdB), Buffer.from('/'), p]);
    fs.renameSync(from, path.join(c.trash, String(i)));
  });
  const rerun = plan.rerun ? runReal(plan.rerunArgs, c.cwdB) : null;
  return { real, plan: { ...plan, matches: plan.matches.map(hex), relocate: plan.relocate.map(hex) }, rerun };
});
process.stdout.write(JSON.stringify(reports));
