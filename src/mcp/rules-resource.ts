/** The rules reference as an MCP resource: every rule of the registry, in one table. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RuleReference } from './types.js';

export const RULES_URI = 'fluxlens://rules';

export function registerRulesResource(server: McpServer, rules: readonly RuleReference[]): void {
  server.registerResource(
    'rules',
    RULES_URI,
    {
      title: 'fluxlens risk rules',
      description:
        'Every rule fluxlens judges a change by: id, default level, family, what it flags.',
      mimeType: 'text/markdown',
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: rulesTable(rules) }],
    }),
  );
}

function rulesTable(rules: readonly RuleReference[]): string {
  const rows = rules.map(
    (rule) =>
      `| \`${rule.id}\` | ${rule.level} | ${rule.family} | ${rule.description.replaceAll('|', '\\|')} |`,
  );
  return [
    '# fluxlens risk rules',
    '',
    'Levels: danger (likely breaks something or loses data), caution (a person should look), info (worth knowing). A repository policy may change a level.',
    '',
    '| Rule | Level | Family | What it flags |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
