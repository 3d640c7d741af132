// The entry of dist/agent-guard-mcp.cjs: the MCP server and the SDK, bundled apart from the CLI.
// `agent-guard mcp` (src/commands/mcp.ts) loads this file beside the running bundle.
export { runMcp, type McpOptions } from './server.js';
