// What every harness piece shares without loading the engine: the harness names, and Copilot's deny
// answer (printed by the adapter for a refusal and by the fallback the installer writes after the
// hook command, so both say no in the one shape Copilot acts on).

export const HARNESSES = ['claude', 'codex', 'gemini', 'copilot'] as const;
export type Harness = (typeof HARNESSES)[number];

/** Copilot's deny: the documented top-level fields, plus the Claude-style `hookSpecificOutput` newer
 *  releases also read (design notes D4). */
export function copilotDeny(reason: string): Record<string, unknown> {
  return { permissionDecision: 'deny', permissionDecisionReason: reason, hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}
