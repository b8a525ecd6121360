/** Every tool answers through here: text content, or an error a caller can read. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LogSink } from '../logger.js';
import { boundedText } from './bounded-text.js';
import { Refusal } from './refusal.js';

export async function answer(
  logger: LogSink,
  tool: string,
  work: () => Promise<string>,
): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: boundedText(await work()) }] };
  } catch (err) {
    if (err instanceof Refusal) {
      logger.info({ tool, reason: err.message }, 'MCP tool call refused');
      return { isError: true, content: [{ type: 'text', text: err.message }] };
    }
    logger.error({ err, tool }, 'MCP tool call failed');
    return { isError: true, content: [{ type: 'text', text: 'internal error' }] };
  }
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
