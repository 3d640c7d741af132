// NODE_OPTIONS with the Node preload in it (docs/interpreters.md): `run`, `shell-init` and `doctor`
// read and write it as Node parses it — words separated by spaces; double quotes group, and inside
// them a backslash escapes the next character.
import path from 'node:path';

/** The preload's file name, beside the bundle (dist/ of a checkout, lib/ of an installation). */
export const PRELOAD_NAME = 'agent-guard-preload.cjs';

/** The words Node reads from a NODE_OPTIONS value (as node_options.cc does: an empty `""` is no word);
 *  null when Node would reject it (an unterminated quote, a backslash ending the value in quotes). */
export function parseNodeOptions(value: string): string[] | null {
  const out: string[] = [];
  let quoted = false;
  let fresh = true;
  for (let i = 0; i < value.length; i++) {
    let c = value[i]!;
    if (c === '\\' && quoted) {
      if (i + 1 === value.length) return null;
      c = value[++i]!;
    } else if (c === ' ' && !quoted) {
      fresh = true;
      continue;
    } else if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (fresh) {
      out.push(c);
      fresh = false;
    } else out[out.length - 1] += c;
  }
  return quoted ? null : out;
}

/** One word as NODE_OPTIONS spells it. */
export function quoteNodeOption(word: string): string {
  return word === '' || /[ "\\]/.test(word) ? `"${word.replace(/[\\"]/g, '\\$&')}"` : word;
}

/** The files a NODE_OPTIONS value preloads with `--require`/`-r`, in order. */
export function requiredFiles(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if ((w === '--require' || w === '-r') && i + 1 < words.length) out.push(words[++i]!);
    else if (w.startsWith('--require=')) out.push(w.slice('--require='.length));
  }
  return out;
}

/** Does the value preload exactly `preload`? */
export function hasPreload(value: string | undefined, preload: string): boolean {
  const words = parseNodeOptions(value ?? '');
  return words !== null && requiredFiles(words).includes(preload);
}

/** NODE_OPTIONS with `--require <preload>` first and the user's options kept after it. Idempotent:
 *  a value that already preloads it is returned as it is. Another agent-guard preload (another
 *  installation's) is taken out. */
export function withPreload(value: string | undefined, preload: string): string {
  const current = value ?? '';
  const ours = `--require ${quoteNodeOption(preload)}`;
  const words = parseNodeOptions(current);
  if (words === null) return current === '' ? ours : `${ours} ${current}`; // Node rejects it either way
  if (requiredFiles(words).includes(preload)) return current;
  const kept: string[] = [];
  let removed = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const file = (w === '--require' || w === '-r') && i + 1 < words.length ? words[i + 1]! : w.startsWith('--require=') ? w.slice('--require='.length) : null;
    if (file !== null && path.basename(file) === PRELOAD_NAME) {
      removed = true;
      if (!w.startsWith('--require=')) i++;
      continue;
    }
    kept.push(w);
  }
  const rest = removed ? kept.map(quoteNodeOption).join(' ') : current.trim();
  return rest === '' ? ours : `${ours} ${rest}`;
}
