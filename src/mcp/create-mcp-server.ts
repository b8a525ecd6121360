/**
 * One MCP server with every tool and resource, made per request: the endpoint is stateless,
 * so any replica answers any call and nothing is kept between them.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerRangeTools } from './range-tools.js';
import { registerReviewTools } from './review-tools.js';
import { registerRulesResource } from './rules-resource.js';
import type { McpDeps } from './types.js';

export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(
    { name: 'fluxlens', version: deps.version },
    {
      instructions:
        'fluxlens reviews Flux GitOps changes as rendered Kubernetes: what a change creates, changes and deletes in the cluster, and what looks dangerous. Read a pull request review with get_review, explain a finding with explain_finding, review a branch before opening a pull request with review_branch and review_status.',
    },
  );
  registerReviewTools(server, deps);
  registerRangeTools(server, deps);
  registerRulesResource(server, deps.rules);
  return server;
}
