/**
 * A finding's stable id: what an acknowledgement names, so that the same finding on a
 * later head is recognised. Findings carry no id of their own, so it is derived from what
 * the finding says (rule, cluster, resource, message), hashed; a finding whose message
 * changes is a new finding, to be acknowledged again.
 */
import { createHash } from 'node:crypto';
import type { Finding } from './finding.js';
import { resourceLabel } from './resource-label.js';

export function findingId(finding: Pick<Finding, 'rule' | 'cluster' | 'resource' | 'message'>) {
  const parts = [finding.rule, finding.cluster, resourceLabel(finding.resource), finding.message];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
}
