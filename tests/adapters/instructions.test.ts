// `hook install <harness> --instructions` (src/harness/instructions.ts, docs/mcp.md): agent-guard's
// marked block in each harness's instruction file — pure file operations in a temp HOME and project.
// Per harness and scope: create, idempotence, append after the user's text and take it out again
// byte for byte, replace an older block in place, damaged markers refused.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installInstructions, instructionsPath, instructionsWired, removeInstructions } from '../../src/harness/instructions.js';
import type { PartsContext, Scope } from '../../src/harness/mcp-config.js';
import type { Harness } from '../../src/harness/answers.js';
import { BEGIN_MARK, END_MARK, instructionsBlock } from '../../src/mcp/text.js';

let root: string;
let ctx: PartsContext;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ag-instr-'));
  mkdirSync(join(root, 'home'));
  mkdirSync(join(root, 'proj'));
  ctx = { home: join(root, 'home'), projectDir: join(root, 'proj'), env: {} };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const put = (file: string, text: string): string => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return text;
};
const read = (file: string): string => readFileSync(file, 'utf8');

const CASES: { h: Harness; scope: Scope; rel: string }[] = [
  { h: 'claude', scope: 'project', rel: 'proj/CLAUDE.md' },
  { h: 'claude', scope: 'user', rel: 'home/.claude/CLAUDE.md' },
  { h: 'codex', scope: 'project', rel: 'proj/AGENTS.md' },
  { h: 'codex', scope: 'user', rel: 'home/.codex/AGENTS.md' },
  { h: 'gemini', scope: 'project', rel: 'proj/GEMINI.md' },
  { h: 'gemini', scope: 'user', rel: 'home/.gemini/GEMINI.md' },
  { h: 'copilot', scope: 'project', rel: 'proj/.github/copilot-instructions.md' },
  { h: 'copilot', scope: 'user', rel: 'home/.copilot/copilot-instructions.md' },
];

const USER_TEXT = '# Project notes\n\nUse pnpm.\n\n- tests: `pnpm test`\n';

describe.each(CASES)('$h --$scope: $rel', ({ h, scope, rel }) => {
  const file = () => join(root, rel);

  it('creates the file with the block; a second install writes nothing; remove empties it', () => {
    expect(instructionsPath(h, scope, ctx)).toBe(file());
    expect(instructionsWired(h, scope, ctx)).toBe(false);
    expect(installInstructions(h, scope, ctx)).toEqual({ file: file(), changed: true, backup: null });
    expect(read(file())).toBe(instructionsBlock(h) + '\n');
    expect(instructionsWired(h, scope, ctx)).toBe(true);
    const before = statSync(file());
    expect(installInstructions(h, scope, ctx).changed).toBe(false);
    expect(statSync(file()).mtimeMs).toBe(before.mtimeMs);
    expect(removeInstructions(h, scope, ctx).changed).toBe(true);
    expect(read(file())).toBe('');
    expect(removeInstructions(h, scope, ctx).changed).toBe(false);
  });

  it("appends after the user's text, backs it up, and remove gives the text back byte for byte", () => {
    put(file(), USER_TEXT);
    const r = installInstructions(h, scope, ctx);
    expect(read(r.backup!)).toBe(USER_TEXT);
    expect(read(file())).toBe(`${USER_TEXT}\n${instructionsBlock(h)}\n`);
    removeInstructions(h, scope, ctx);
    expect(read(file())).toBe(USER_TEXT);
  });
});

describe('the block', () => {
  const file = () => join(root, 'proj/AGENTS.md');

  it('says what the brief asks in a few lines: quarantine and restore, safe_delete / delete, refusals and grants, no interpreter work-arounds', () => {
    const b = instructionsBlock('codex');
    expect(b.split('\n').length).toBeLessThanOrEqual(12);
    for (const needle of ['quarantine', 'agent-guard restore', 'safe_delete', 'agent-guard delete', 'BLOCK', 'ASK', 'agent-guard allow', 'request_permission', 'python -c']) expect(b).toContain(needle);
  });

  it('an older block in the middle is replaced in place; the text around it stays; remove joins it up again', () => {
    const old = `# Top\n\n${BEGIN_MARK} old -->\nold words\n${END_MARK}\n\n## Later\nmore\n`;
    put(file(), old);
    installInstructions('codex', 'project', ctx);
    expect(read(file())).toBe(`# Top\n\n${instructionsBlock('codex')}\n\n## Later\nmore\n`);
    removeInstructions('codex', 'project', ctx);
    expect(read(file())).toBe('# Top\n\n## Later\nmore\n');
  });

  it('a block at the top goes with the blank line after it; CRLF files keep CRLF', () => {
    put(file(), `${instructionsBlock('codex')}\n\n# Rest\n`);
    removeInstructions('codex', 'project', ctx);
    expect(read(file())).toBe('# Rest\n');
    put(file(), 'A\r\nB\r\n');
    installInstructions('codex', 'project', ctx);
    expect(read(file())).toBe(`A\r\nB\r\n\r\n${instructionsBlock('codex').replace(/\n/g, '\r\n')}\r\n`);
    removeInstructions('codex', 'project', ctx);
    expect(read(file())).toBe('A\r\nB\r\n');
  });

  it('damaged markers are refused, nothing written', () => {
    for (const bad of [`${BEGIN_MARK} -->\nno end\n`, `text\n${END_MARK}\n`, `${END_MARK}\n${BEGIN_MARK} -->\n`, `${BEGIN_MARK} -->\n${END_MARK}\n${BEGIN_MARK} -->\n${END_MARK}\n`]) {
      put(file(), bad);
      expect(() => installInstructions('codex', 'project', ctx)).toThrow(/damaged.*nothing changed/);
      expect(() => removeInstructions('codex', 'project', ctx)).toThrow(/nothing changed/);
      expect(read(file())).toBe(bad);
      expect(instructionsWired('codex', 'project', ctx)).toBe(null);
    }
  });
});
