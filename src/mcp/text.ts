// What agents are told (docs/mcp.md): the MCP server's `instructions` (clients may add them to the
// model's context) and the block `hook install <harness> --instructions` writes into the harness's
// instruction file. Short, and the same facts in both.

export const SERVER_INSTRUCTIONS = [
  'agent-guard makes deletions in this project restorable: what rm, git clean and the like delete is moved to a quarantine first.',
  'To delete files, use safe_delete (paths or patterns; it returns a txid); restore_list, restore_show and restore bring things back.',
  'Before a command that may delete or overwrite, explain tells what agent-guard will do with it.',
  'A BLOCK refusal is final: do what its explanation says. An ASK needs a human: request_permission records a request the user grants with `agent-guard allow <id>`; then run the same command unchanged.',
  'Never work around a refusal through an interpreter (python -c, node -e, perl, a script).',
].join(' ');

/** The lines between the markers. */
export function instructionsBody(): string {
  return [
    '## agent-guard',
    '',
    'Shell commands in this project are checked by agent-guard.',
    '',
    '- Deletions are quarantined, not lost: what `rm`, `git clean` and the like remove is moved to `.agent-trash/` first, and git overwrites are snapshotted. `agent-guard restore list` shows them; `agent-guard restore <txid>` brings them back.',
    '- To delete, prefer the `safe_delete` tool of the agent-guard MCP server, or `agent-guard delete PATH...`: it expands patterns itself and quarantines each path.',
    '- A refusal names a reason code. BLOCK: the command will not run; do what the explanation says instead. ASK: a human must authorize this one run; ask the user to type the `agent-guard allow <id>` it names (or use the `request_permission` tool), then run the same command unchanged.',
    '- Never work around a refusal through an interpreter or a script (`python -c`, `node -e`, `perl`, `find -exec`). To know beforehand what a command would do: the `explain` tool, or `agent-guard check -- "<command>"`.',
  ].join('\n');
}

export const BEGIN_MARK = '<!-- agent-guard:begin';
export const END_MARK = '<!-- agent-guard:end -->';

/** The whole block, markers included (no trailing newline). */
export function instructionsBlock(harness: string): string {
  return [`${BEGIN_MARK} (agent-guard hook install ${harness} --instructions; --remove takes it out) -->`, instructionsBody(), END_MARK].join('\n');
}
