/**
 * Pod privilege: what pods may do to the node they run on. Applies to every object with
 * a pod template (custom resources included, see podSpecs), and to all of its containers
 * (init and ephemeral too).
 */
import type { Manifest } from '../../model/index.js';
import {
  type ContainerView,
  type Draft,
  type Fact,
  type PodSpecView,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  describe,
  droppedBy,
  introducedBy,
  listAt,
  podSpecs,
  rawPair,
  strAt,
  strings,
} from '../kit/index.js';

interface PrivilegeFact extends Fact {
  rule: string;
  /** What the pods can do, completing "<resource>: ...". */
  what: string;
}

const DANGEROUS_CAPABILITIES = new Set(['SYS_ADMIN', 'NET_ADMIN', 'ALL']);

const HOST_NAMESPACES: Record<string, string> = {
  hostNetwork: "its pods use the node's network stack (hostNetwork)",
  hostPID: 'its pods see and signal every process on the node (hostPID)',
  hostIPC: "its pods share the node's IPC namespace (hostIPC)",
};

function capabilityName(value: string): string {
  return value.toUpperCase().replace(/^CAP_/, '');
}

function podFacts(view: PodSpecView): PrivilegeFact[] {
  const { where, note, spec } = view;
  const facts: PrivilegeFact[] = [];
  for (const [field, what] of Object.entries(HOST_NAMESPACES)) {
    if (spec[field] === true) {
      facts.push({ key: `host:${where}:${field}`, rule: 'host-namespace', what: `${what}${note}` });
    }
  }
  for (const volume of listAt(spec, 'volumes')) {
    const path = strAt(volume, 'hostPath', 'path');
    if (path === undefined) continue;
    const name = strAt(volume, 'name') ?? '';
    facts.push({
      key: `hostPath:${where}:${name}:${path}`,
      rule: 'host-path-volume',
      what: `its pods mount ${path} from the node's filesystem (hostPath volume ${name})${note}`,
    });
  }
  return facts;
}

function containerFacts({ key, label, container }: ContainerView): PrivilegeFact[] {
  const facts: PrivilegeFact[] = [];
  const security = at(container, 'securityContext');
  if (at(security, 'privileged') === true) {
    facts.push({
      key: `privileged:${key}`,
      rule: 'privileged-container',
      what: `${label} runs privileged, with full access to the node's devices and kernel`,
    });
  }
  for (const cap of strings(at(security, 'capabilities', 'add')).map(capabilityName)) {
    const dangerous = DANGEROUS_CAPABILITIES.has(cap);
    facts.push({
      key: `cap:${key}:${cap}`,
      rule: dangerous ? 'capability-added-dangerous' : 'capability-added',
      what: `${label} gains Linux capability ${cap}${dangerous ? ', enough to take over the node or its network' : ''}`,
    });
  }
  if (at(security, 'allowPrivilegeEscalation') === true) {
    facts.push({
      key: `escalation:${key}`,
      rule: 'privilege-escalation-allowed',
      what: `${label} may gain more privileges than its parent process (allowPrivilegeEscalation: true)`,
    });
  }
  return facts;
}

function privilegeFacts(manifest: Manifest): PrivilegeFact[] {
  return podSpecs(manifest).flatMap((view) => [
    ...podFacts(view),
    ...view.containers.flatMap(containerFacts),
  ]);
}

/** Containers that must run as non-root, by the container's setting or else the pod's. */
function nonRootFacts(manifest: Manifest): Fact[] {
  return podSpecs(manifest).flatMap(({ spec, containers }) => {
    const podLevel = at(spec, 'securityContext', 'runAsNonRoot');
    return containers
      .filter(
        ({ container }) => (at(container, 'securityContext', 'runAsNonRoot') ?? podLevel) === true,
      )
      .map(({ key }) => ({ key }));
  });
}

function containerLabels(manifest: Manifest | undefined): Map<string, string> {
  const views = manifest ? podSpecs(manifest) : [];
  return new Map(views.flatMap((v) => v.containers.map((c) => [c.key, c.label] as const)));
}

function check(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status === 'removed') continue;
    const subject = changeSubject(change);
    const what = describe(subject.resource);
    for (const fact of introducedBy(ctx, change, privilegeFacts)) {
      drafts.push({ rule: fact.rule, subject, message: `${what}: ${fact.what}.` });
    }
    const atHead = containerLabels(rawPair(ctx, change).head);
    for (const fact of droppedBy(ctx, change, nonRootFacts)) {
      const label = atHead.get(fact.key);
      if (!label) continue;
      drafts.push({
        rule: 'run-as-non-root-dropped',
        subject,
        message: `${what}: ${label} is no longer required to run as a non-root user, so its image may run as root.`,
      });
    }
  }
  return drafts;
}

export const podPrivilege: RuleFamily = {
  name: 'pod-privilege',
  label: 'privilege',
  rules: [
    {
      id: 'privileged-container',
      level: 'danger',
      description: 'A container (init and ephemeral included) that runs privileged.',
      headline: 'Runs a privileged container in {resource}',
    },
    {
      id: 'host-namespace',
      level: 'danger',
      description: "Pods that share the node's network, PID or IPC namespace.",
      headline: "Gives {resource} the node's namespaces",
    },
    {
      id: 'host-path-volume',
      level: 'danger',
      description: "Pods that mount a path from the node's filesystem (hostPath).",
      headline: 'Mounts a node path into {resource}',
    },
    {
      id: 'capability-added-dangerous',
      level: 'danger',
      description: 'A container that adds capability SYS_ADMIN, NET_ADMIN or ALL.',
      headline: 'Gives {resource} a powerful Linux capability',
    },
    {
      id: 'capability-added',
      level: 'caution',
      description: 'A container that adds any other Linux capability.',
      headline: 'Gives {resource} a Linux capability',
    },
    {
      id: 'privilege-escalation-allowed',
      level: 'caution',
      description: 'A container with allowPrivilegeEscalation: true.',
      headline: 'Allows privilege escalation in {resource}',
    },
    {
      id: 'run-as-non-root-dropped',
      level: 'caution',
      description:
        'A container that had to run as non-root (its own or the pod setting) and no longer does.',
      headline: 'Lets {resource} run as root',
    },
  ],
  check,
};
