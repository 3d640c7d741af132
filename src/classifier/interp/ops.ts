// Effects as facts: each deletion becomes the fs-delete op `rm` would give for the same targets (so
// it gets rm's decision: `shutil.rmtree("src")` is RELOCATE_TREE), a computed one an undeterminable
// op; a command handed to a shell (or an argv started without one, quoted back) is read as POSIX
// text, as `sh -c` is; code that cannot be read counts when it smells destructive.
import { classifyFsDelete } from '../rm.js';
import { clip, indirectOp, literalWord, opaqueOp, placedOp, type OpPlace } from '../kit.js';
import { joinRaw, normalizeAbs } from '../paths.js';
import { smellsDestructive } from '../smell.js';
import type { Op } from '../types.js';
import type { Arg, Effect, How } from './effects.js';

export interface InterpSite {
  /** The interpreter as named (`python3`). */
  program: string;
  /** Its code, for the smell of what cannot be read. */
  code: string;
  /** The shell builds part of the code (an expansion in it): what it finds is computed. */
  dynamic: boolean;
  /** Where the interpreter runs and what the line did before it. */
  at: OpPlace;
  /** The first effective op of POSIX text run in `cwd`, described; null when it has none. */
  judgeShell(text: string, cwd: string | null): string | null;
}

const RM_FORM: Readonly<Record<How, [string, string[]]>> = {
  rm: ['rm', []],
  'rm-f': ['rm', ['-f']],
  'rm-r': ['rm', ['-r']],
  'rm-rf': ['rm', ['-rf']],
  rmdir: ['rmdir', []],
  'rmdir-p': ['rmdir', ['-p']],
};

const isLit = (a: Arg): a is { lit: string } => 'lit' in a;
const quote = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

function dirOf(a: Arg | undefined, cwd: string | null): string | null {
  if (a === undefined) return cwd;
  if (!isLit(a)) return null;
  if (a.lit.startsWith('/')) return normalizeAbs(a.lit);
  return cwd === null ? null : normalizeAbs(joinRaw(cwd, a.lit));
}

export function interpreterOps(effects: readonly Effect[], site: InterpSite): Op[] {
  const ops: Op[] = [];
  const { program } = site;
  let cwd = site.at.cwd;
  let cdBefore = site.at.cdBefore;
  const place = (dir: string | null): OpPlace => ({ cwd: dir, cdBefore, createBefore: site.at.createBefore, wrappers: site.at.wrappers });
  const shellOp = (api: string, src: string, inner: string, dynamic: boolean, what: string, dir: string | null): void => {
    const op = indirectOp(program, inner, 'indirect-shell', `${api} hands ${what} to a shell`, place(dir), [program, src]);
    op.innerDynamic = dynamic;
    ops.push(op);
  };
  const smells = (): boolean => smellsDestructive(site.code);
  for (const e of effects) {
    switch (e.kind) {
      case 'delete': {
        const dir = e.cwd === undefined ? cwd : dirOf(e.cwd, cwd);
        const [rm, flags] = RM_FORM[e.how];
        const lits = e.targets.filter(isLit).map((a) => a.lit);
        const f = classifyFsDelete(rm, [...flags, '--', ...lits].map((v) => literalWord(v)), dir);
        const op = placedOp(program, 'fs-delete', [program, e.src], place(dir));
        Object.assign(op, { recursive: f.recursive, dryRun: f.dryRun, noTargets: f.noTargets, targets: f.targets, undeterminable: f.undeterminable });
        const comp = e.targets.find((a) => !isLit(a));
        const pattern = e.glob ? lits.find((l) => /[*?[{]/.test(l)) : undefined;
        if (comp !== undefined) op.undeterminable = { reason: 'computed', detail: `${e.api} deletes ${(comp as { computed: string }).computed}, known only when ${program} runs` };
        else if (pattern !== undefined) op.undeterminable = { reason: 'computed', detail: `${e.api} expands the pattern ${clip(pattern)} when ${program} runs` };
        else if (site.dynamic) op.undeterminable = { reason: 'variable', detail: `${program}'s code holds a shell expansion: what ${e.api} deletes is known only when it runs` };
        else if (e.cwd !== undefined && dir === null) op.undeterminable = { reason: 'unknown-cwd', detail: `${e.api} runs in a directory known only when ${program} runs` };
        ops.push(op);
        break;
      }
      case 'shell': {
        const dir = e.cwd === undefined ? cwd : dirOf(e.cwd, cwd);
        if (isLit(e.text)) {
          const found = site.judgeShell(e.text.lit, dir);
          if (found !== null) shellOp(e.api, e.src, e.text.lit, site.dynamic, `${clip(e.text.lit)} (${clip(found)})`, dir);
        } else shellOp(e.api, e.src, e.src, true, `a command built when ${program} runs`, dir);
        break;
      }
      case 'exec': {
        const dir = e.cwd === undefined ? cwd : dirOf(e.cwd, cwd);
        if (e.argv.length === 0 || !isLit(e.argv[0]!)) {
          // (a program named when it runs: what it does is not known)
          shellOp(e.api, e.src, e.src, true, `a command built when ${program} runs`, dir);
          break;
        }
        // The argv as POSIX text (each computed word a variable no one knows), read as `sh -c` reads it.
        let n = 0;
        const text = e.argv.map((a) => (isLit(a) ? quote(a.lit) : `"$__agent_guard_computed_${++n}"`)).join(' ');
        const found = site.judgeShell(text, dir);
        if (found !== null) shellOp(e.api, e.src, text, n > 0 || site.dynamic, `the command ${clip(text)} (${clip(found)})`, dir);
        break;
      }
      case 'chdir':
        cwd = dirOf(e.dir, cwd);
        cdBefore = true;
        break;
      case 'computed':
        if (e.deletes) {
          const op = placedOp(program, 'fs-delete', [program, e.src], place(cwd));
          op.undeterminable = { reason: 'computed', detail: `${e.api} ${e.why}` };
          ops.push(op);
        } else shellOp(e.api, e.src, e.src, true, `what ${e.src} ${e.why}`, cwd);
        break;
      case 'code':
        break;
      case 'unreadable':
        if (smells()) ops.push(opaqueOp(program, site.code, { reason: 'unbalanced', detail: `${program}'s code cannot be read (${e.why}) and may delete` }, place(cwd), [program, clip(site.code)]));
        break;
    }
  }
  return ops;
}
