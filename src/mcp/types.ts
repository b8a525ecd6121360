/** What the MCP server reads and asks for, given by server/; everything else it cannot reach. */
import type { LogSink } from '../logger.js';
import type {
  EnqueueOutcome,
  JobState,
  RangeRef,
  RenderRef,
  RepositoryRef,
  ResultStore,
} from '../queue/index.js';

/** One rule of the rule registry, as the rules resource and explain_finding show it. */
export interface RuleReference {
  id: string;
  level: string;
  family: string;
  description: string;
}

export interface McpDeps {
  /** The stored, redacted results: the same the API serves. */
  results: Pick<ResultStore, 'get' | 'getRange' | 'list'>;
  /**
   * Throws a Refusal unless the repository may be read or reviewed: in the allowlist and
   * covered by an installation of the App.
   */
  checkRepository(repository: RepositoryRef): Promise<void>;
  /** Queues a review of a range through the API's path and limits (a Refusal past them). */
  reviewRange(range: RangeRef): Promise<EnqueueOutcome>;
  /** Queues a render of one entry at one revision, likewise. */
  renderEntry(render: RenderRef): Promise<EnqueueOutcome>;
  jobState(jobId: string): Promise<JobState | undefined>;
  /** The PR comment's Markdown of a result JSON (report/'s, injected). */
  renderMarkdown?: (resultJson: string) => string;
  rules: readonly RuleReference[];
  logger: LogSink;
  /** The server's version, for the MCP handshake. */
  version: string;
}
