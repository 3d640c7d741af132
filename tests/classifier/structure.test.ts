// The code's structure, checked: no import cycle anywhere in src/ (type-only and lazy imports
// count: a cycle through a type is still a knot in the map), the layering docs/architecture.md draws
// (which folder never imports which), no source file over 600 lines, and the name lists shared by
// the dialects do not drift from the POSIX reader's tables.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WRAPPERS } from '../../src/classifier/names.js';
import { WRAPPERS as PEELED } from '../../src/classifier/posix/unwrap.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of a file (static, type-only, re-exports and lazy `import()`), as src-relative paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2])!.replace(/\.js$/, '.ts');
    out.push(path.relative(SRC, path.resolve(path.dirname(file), spec)));
  }
  return out;
}

/** Strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      scc.push(w);
      if (w === v) break;
    }
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

describe('structure of src/', () => {
  const files = sources(SRC);
  const graph = new Map(files.map((f) => [path.relative(SRC, f), importsOf(f)]));

  it('reads the import graph (a sanity check of the reader)', () => {
    expect(graph.get('classifier/index.ts')).toEqual(expect.arrayContaining(['classifier/posix/walk.ts', 'classifier/cmd/walk.ts', 'classifier/powershell/walk.ts']));
    expect(cycles(new Map([['a', ['b']], ['b', ['a']], ['c', ['c']], ['d', ['a']]]))).toEqual([['a', 'b'], ['c']]);
  });

  it('has no import cycle (the commands take their context from context.ts, not from cli.ts)', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle inside the classifier, and the classifier imports only the dialect names from outside it', () => {
    const inClassifier = [...graph].filter(([f]) => f.startsWith('classifier/'));
    const outside = new Set(inClassifier.flatMap(([, deps]) => deps.filter((d) => !d.startsWith('classifier/'))));
    expect([...outside]).toEqual(['dialect.ts']);
    expect(cycles(new Map(inClassifier))).toEqual([]);
  });

  it('keeps every source file under 600 lines', () => {
    const long = files.map((f) => [path.relative(SRC, f), fs.readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 600);
    expect(long).toEqual([]);
  });

  /** [the importing files (a folder or file prefix), the prefixes they never import]. */
  const LAYERS: [string, string[]][] = [
    // The pure layers and the read-only probe stay below everything that acts.
    ['policy/', ['engine.ts', 'enforce/', 'recovery/', 'workspace.ts', 'commands/', 'shims/', 'shell-hooks/', 'harness/']],
    ['probe/', ['policy/', 'engine.ts', 'enforce/', 'recovery/', 'commands/', 'shims/', 'shell-hooks/', 'harness/', 'checker/']],
    ['workspace.ts', ['engine.ts', 'enforce/', 'recovery/', 'commands/', 'shims/']],
    // recovery/ holds the primitives: it never reaches up to the decision or its entry points.
    ['recovery/', ['engine.ts', 'enforce/', 'grants/', 'commands/', 'shims/', 'shell-hooks/', 'harness/', 'mcp/', 'runtime/', 'checker/']],
    ['engine.ts', ['enforce/', 'recovery/', 'commands/', 'grants/']],
    // The enforcement wing serves the entry points and knows none of them.
    ['enforce/', ['commands/', 'shims/', 'shell-hooks/', 'harness/', 'mcp/', 'runtime/', 'checker/', 'overwrite/']],
    // Entry points reach compensation through enforce/, never the primitives.
    ['shims/', ['recovery/', 'commands/', 'shell-hooks/', 'harness/']],
    ['shell-hooks/', ['recovery/', 'commands/', 'shims/', 'harness/']],
    ['harness/', ['recovery/', 'commands/', 'shims/', 'shell-hooks/']],
    ['runtime/', ['recovery/', 'commands/', 'shims/', 'shell-hooks/', 'harness/']],
    ['overwrite/', ['recovery/', 'commands/', 'shell-hooks/', 'harness/']],
  ];

  it('names only folders and files that exist (a rename cannot make a layer rule vacuous)', () => {
    const names = [...new Set(LAYERS.flatMap(([from, never]) => [from, ...never]))];
    expect(names.filter((n) => ![...graph.keys()].some((f) => f.startsWith(n)))).toEqual([]);
  });

  it.each(LAYERS)('%s never imports %j', (from, never) => {
    const crossing = [...graph].flatMap(([f, deps]) => (f.startsWith(from) ? deps.filter((d) => never.some((n) => d.startsWith(n))).map((d) => `${f} -> ${d}`) : []));
    expect(crossing).toEqual([]);
  });

  it('only the CLI, its bundle entry and the MCP tools import the commands (and commands each other)', () => {
    const importers = new Set([...graph].flatMap(([f, deps]) => (deps.some((d) => d.startsWith('commands/')) ? [f.split('/')[0]!] : [])));
    expect([...importers].sort()).toEqual(['bin.ts', 'cli.ts', 'commands', 'mcp']);
  });
});

describe('shared name lists', () => {
  it('the wrappers the Windows readers name are the ones the POSIX reader peels', () => {
    expect([...PEELED].sort()).toEqual([...WRAPPERS].sort());
  });
});
