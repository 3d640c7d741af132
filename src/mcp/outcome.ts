// What an MCP tool answers (docs/mcp.md): `ok: true` and its fields, or a tool error (`ok: false`,
// sent with `isError`) carrying a reason code (src/policy/reasons.ts) or one of the tool codes.
export type Outcome = ({ ok: true } | { ok: false; code: string; message: string }) & Record<string, unknown>;

export const fail = (code: string, message: string, extra: Record<string, unknown> = {}): Outcome => ({ ok: false, code, message, ...extra });
