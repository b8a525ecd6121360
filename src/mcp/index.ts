/**
 * mcp/ is fluxlens for MCP clients: one read-only MCP server whose tools and resources read
 * the reviews the service stores and ask for reviews through the service's own queue path.
 * It must not render, call GitHub, read the environment or know HTTP: server/ gives it
 * what it reads and asks through McpDeps, and carries it over HTTP.
 */
export { createMcpServer } from './create-mcp-server.js';
export { Refusal } from './refusal.js';
export type { McpDeps, RuleReference } from './types.js';
