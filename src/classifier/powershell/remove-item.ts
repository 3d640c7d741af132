// Remove-Item's parameters (and the location cmdlets'): PowerShell's parameter lookup narrowed to
// what agent-guard reads exactly, `classifyRemoveItem` (the facts of one Remove-Item call) and
// `locationDest` (where cd/Set-Location/Push-Location go).
import type { TargetSpec, Undeterminable } from '../types.js';
import { isUndeterminable } from '../kit.js';
import { windowsTarget } from '../winpath.js';
import { dynamicWordReason, elements, hasWildcard, isProviderPath, literalPWord, paramDisplay, type PWord, type Tok } from './words.js';

export const SET_LOCATION = new Set(['cd', 'chdir', 'set-location', 'sl']);
export const PUSH_LOCATION = new Set(['pushd', 'push-location']);
export const POP_LOCATION = new Set(['popd', 'pop-location']);

type ParamClass =
  | 'path'
  | 'literalpath'
  | 'filter'
  | 'include'
  | 'exclude'
  | 'recurse'
  | 'force'
  | 'credential'
  | 'whatif'
  | 'confirm'
  | 'stream'
  | 'passthru'
  | 'stackname'
  | 'benign-switch'
  | 'benign-value';

interface ParamDef {
  name: string;
  cls: ParamClass;
  value: boolean;
}

const COMMON: readonly ParamDef[] = [
  { name: 'Verbose', cls: 'benign-switch', value: false },
  { name: 'Debug', cls: 'benign-switch', value: false },
  { name: 'ErrorAction', cls: 'benign-value', value: true },
  { name: 'WarningAction', cls: 'benign-value', value: true },
  { name: 'InformationAction', cls: 'benign-value', value: true },
  { name: 'ErrorVariable', cls: 'benign-value', value: true },
  { name: 'WarningVariable', cls: 'benign-value', value: true },
  { name: 'InformationVariable', cls: 'benign-value', value: true },
  { name: 'OutVariable', cls: 'benign-value', value: true },
  { name: 'OutBuffer', cls: 'benign-value', value: true },
  { name: 'PipelineVariable', cls: 'benign-value', value: true },
  { name: 'ProgressAction', cls: 'benign-value', value: true },
];
const COMMON_ALIASES: Readonly<Record<string, string>> = {
  vb: 'Verbose', db: 'Debug', ea: 'ErrorAction', wa: 'WarningAction', infa: 'InformationAction', ev: 'ErrorVariable',
  wv: 'WarningVariable', iv: 'InformationVariable', ov: 'OutVariable', ob: 'OutBuffer', pv: 'PipelineVariable', proga: 'ProgressAction',
};

const REMOVE_ITEM_PARAMS: readonly ParamDef[] = [
  { name: 'Path', cls: 'path', value: true },
  { name: 'LiteralPath', cls: 'literalpath', value: true },
  { name: 'Filter', cls: 'filter', value: true },
  { name: 'Include', cls: 'include', value: true },
  { name: 'Exclude', cls: 'exclude', value: true },
  { name: 'Recurse', cls: 'recurse', value: false },
  { name: 'Force', cls: 'force', value: false },
  { name: 'Credential', cls: 'credential', value: true },
  { name: 'WhatIf', cls: 'whatif', value: false },
  { name: 'Confirm', cls: 'confirm', value: false },
  { name: 'Stream', cls: 'stream', value: true },
  ...COMMON,
];
const REMOVE_ITEM_ALIASES: Readonly<Record<string, string>> = { ...COMMON_ALIASES, pspath: 'LiteralPath', lp: 'LiteralPath', cf: 'Confirm', wi: 'WhatIf' };

const LOCATION_PARAMS: readonly ParamDef[] = [
  { name: 'Path', cls: 'path', value: true },
  { name: 'LiteralPath', cls: 'literalpath', value: true },
  { name: 'PassThru', cls: 'passthru', value: false },
  { name: 'StackName', cls: 'stackname', value: true },
  ...COMMON,
];
const LOCATION_ALIASES: Readonly<Record<string, string>> = { ...COMMON_ALIASES, pspath: 'LiteralPath', lp: 'LiteralPath' };

/** A dry-run switch must be spelled out: misreading one would let a real deletion through. */
const SPELLED_OUT: ReadonlySet<string> = new Set(['whatif']);

type Resolved = { def: ParamDef } | { unknown: string };

/** PowerShell's parameter lookup, narrowed: an exact name or alias, or a prefix that is unambiguous by effect. */
function resolveParam(typed: string, defs: readonly ParamDef[], aliases: Readonly<Record<string, string>>): Resolved {
  const n = typed.toLowerCase();
  const exact = defs.find((d) => d.name.toLowerCase() === n);
  if (exact) return { def: exact };
  const aliased = aliases[n];
  if (aliased !== undefined) {
    if (SPELLED_OUT.has(aliased.toLowerCase())) return { unknown: `-${typed} stands for -${aliased}, which agent-guard reads only spelled out` };
    const d = defs.find((x) => x.name === aliased);
    if (d) return { def: d };
  }
  const candidates = n === '' ? [] : defs.filter((d) => d.name.toLowerCase().startsWith(n));
  if (candidates.length === 0) return { unknown: `-${typed} is not a parameter agent-guard knows` };
  const spelled = candidates.find((d) => SPELLED_OUT.has(d.name.toLowerCase()));
  if (spelled) return { unknown: `-${typed} may abbreviate -${spelled.name}, which agent-guard reads only spelled out` };
  const classes = new Set(candidates.map((d) => d.cls));
  if (classes.size > 1) return { unknown: `-${typed} is ambiguous (${candidates.map((d) => '-' + d.name).join(', ')})` };
  return { def: candidates[0]! };
}

/** The value of a switch given as `-Switch:VALUE`. */
function switchValue(name: string, w: PWord | null): boolean | Undeterminable {
  if (w === null) return { reason: 'unknown-option', detail: `-${name}: has no value` };
  const d = w.display.toLowerCase();
  if (d === '$true') return true;
  if (d === '$false' || d === '$null') return false;
  if (/^\d{1,15}$/.test(d)) return Number(d) !== 0;
  if (w.dynamic) return dynamicWordReason(w);
  return { reason: 'unknown-option', detail: `-${name}:${w.display} is not a switch value agent-guard reads` };
}

interface RemoveFacts {
  recursive: boolean;
  dryRun: boolean;
  noTargets: boolean;
  targets: TargetSpec[];
  undeterminable: Undeterminable | null;
}

export function classifyRemoveItem(toks: Tok[], piped: boolean, cwd: string | null, home: string | null): RemoveFacts {
  const res: RemoveFacts = { recursive: false, dryRun: false, noTargets: false, targets: [], undeterminable: null };
  const unknown = (detail: string): void => {
    res.undeterminable ??= { reason: 'unknown-option', detail };
  };
  const paths: PWord[] = [];
  let pathParams = 0;
  let positionals = 0;
  let endOfParams = false;
  for (let k = 0; k < toks.length; k++) {
    const tok = toks[k]!;
    if (tok.t === 'eop') {
      endOfParams = true;
      continue;
    }
    if (tok.t === 'word' || endOfParams) {
      const w = tok.t === 'word' ? tok.w : literalPWord(paramDisplay(tok));
      positionals++;
      if (positionals > 1) unknown(`Remove-Item takes one positional argument; ${w.display} makes the call an error or something agent-guard does not read`);
      paths.push(...elements(w));
      continue;
    }
    if (tok.name === '?') {
      res.dryRun = true; // `-?` shows help
      continue;
    }
    const r = resolveParam(tok.name, REMOVE_ITEM_PARAMS, REMOVE_ITEM_ALIASES);
    if ('unknown' in r) {
      unknown(`Remove-Item ${r.unknown}`);
      continue;
    }
    const def = r.def;
    if (def.value) {
      let v = tok.value;
      if (!tok.colon) {
        const next = toks[k + 1];
        if (next?.t === 'word') {
          v = next.w;
          k++;
        }
      }
      if (v === null) {
        unknown(`Remove-Item -${def.name} has no value`);
        continue;
      }
      switch (def.cls) {
        case 'path':
          pathParams++;
          paths.push(...elements(v));
          break;
        case 'literalpath':
          unknown('-LiteralPath names items with escaping rules agent-guard does not read');
          break;
        case 'filter':
          unknown('-Filter selects items by a provider pattern evaluated only when it runs');
          break;
        case 'include':
          unknown('-Include selects items by a pattern evaluated only when it runs');
          break;
        case 'exclude':
          unknown('-Exclude selects items by a pattern evaluated only when it runs');
          break;
        case 'credential':
          unknown('-Credential: what the provider does with it is not known');
          break;
        case 'stream':
          unknown('-Stream removes an alternate data stream, not the item');
          break;
        default:
          break; // common parameters: no effect on what is removed
      }
      continue;
    }
    const on = tok.colon ? switchValue(def.name, tok.value) : true;
    if (typeof on !== 'boolean') {
      if (def.cls === 'recurse' || def.cls === 'whatif' || def.cls === 'confirm') res.undeterminable ??= on;
      continue;
    }
    if (def.cls === 'recurse') res.recursive = on;
    else if (def.cls === 'whatif') res.dryRun = on;
    else if (def.cls === 'confirm' && on) unknown('-Confirm asks before each removal: what is removed depends on the answers');
  }
  if (pathParams + (positionals > 0 ? 1 : 0) > 1) unknown('Remove-Item is given its -Path more than once, which is an error');
  for (const w of paths) {
    if (w.dynamic) {
      res.undeterminable ??= dynamicWordReason(w);
      continue;
    }
    if (w.value === '') continue; // PowerShell refuses an empty path
    if (isProviderPath(w.value)) {
      unknown(`${w.display} is on a PowerShell drive or provider agent-guard does not place`);
      continue;
    }
    const t = windowsTarget(w.value, cwd, { tilde: true, home, glob: hasWildcard(w.value) });
    if (isUndeterminable(t)) {
      res.undeterminable ??= t;
      continue;
    }
    t.raw = w.value; // quotes removed, as the POSIX reader shows an operand
    res.targets.push(t);
  }
  if (piped) {
    // The items come from the pipeline: which ones is known only when it runs.
    res.undeterminable = { reason: 'stdin-fed', detail: 'Remove-Item removes the items the pipeline feeds it, known only when it runs' };
  }
  res.noTargets = res.targets.length === 0 && res.undeterminable === null;
  return res;
}

/** Where a location cmdlet goes: a path, or null when it cannot be known. */
export function locationDest(name: string, toks: Tok[], cwd: string | null, home: string | null): string | null {
  if (POP_LOCATION.has(name)) return null;
  let target: PWord | null = null;
  let literal = false;
  let count = 0;
  for (let k = 0; k < toks.length; k++) {
    const tok = toks[k]!;
    if (tok.t === 'eop') continue;
    if (tok.t === 'word') {
      target = tok.w;
      count++;
      continue;
    }
    const r = resolveParam(tok.name, LOCATION_PARAMS, LOCATION_ALIASES);
    if ('unknown' in r) return null;
    if (!r.def.value) continue;
    let v = tok.value;
    if (!tok.colon && toks[k + 1]?.t === 'word') {
      v = (toks[k + 1] as { t: 'word'; w: PWord }).w;
      k++;
    }
    if (r.def.cls === 'path' || r.def.cls === 'literalpath') {
      target = v;
      literal = r.def.cls === 'literalpath';
      count++;
    }
  }
  if (count > 1) return null;
  if (target === null) return PUSH_LOCATION.has(name) ? cwd : home; // PowerShell 7: `cd` alone goes home
  if (target.dynamic || target.list !== null) return null;
  const v = target.value;
  if (v === '-' || v === '+' || isProviderPath(v) || (!literal && hasWildcard(v))) return null;
  const t = windowsTarget(v === '' ? '.' : v, cwd, { tilde: true, home, glob: false });
  if (isUndeterminable(t) || t.foreign !== undefined || t.path === null) return null;
  return t.path;
}

