/**
 * Part of the flux family: the flags Flux's controllers run with. They are read from the
 * controllers' Deployments wherever those are rendered (the flux-system folder and its
 * patches), so a pull request that edits them is judged like any other object. Some flags
 * are the multi-tenancy lockdown, and dropping one of them opens every tenant at once.
 */
import { type Manifest, objectMeta } from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleInfo,
  changeSubject,
  describe,
  listAt,
  listSome,
  manifestIs,
  podSpecs,
  rawPair,
  strings,
} from '../kit/index.js';

export const FLUX_CONTROLLER_RULES: readonly RuleInfo[] = [
  {
    id: 'flux-controller-lockdown-removed',
    level: 'danger',
    description:
      "A Flux controller that stops running with a multi-tenancy lockdown flag (`--no-cross-namespace-refs`, `--no-remote-bases`, `--default-service-account`) or starts allowing kubeConfigs' exec or insecure TLS.",
    headline: 'Lifts a multi-tenancy lockdown of {resource}',
  },
  {
    id: 'flux-controller-args-changed',
    level: 'caution',
    description:
      "Other changes to the flags of Flux's source, kustomize, helm, notification and image controllers.",
    headline: "Changes the flags of Flux's {resource}",
  },
];

const CONTROLLERS = new Set([
  'source-controller',
  'kustomize-controller',
  'helm-controller',
  'notification-controller',
  'image-reflector-controller',
  'image-automation-controller',
  'source-watcher',
]);

/** A Flux controller's Deployment, by name or by the component label Flux's manifests set. */
function fluxController(manifest: Manifest | undefined): string | undefined {
  if (!manifest || !manifestIs(manifest, 'Deployment')) return undefined;
  const meta = objectMeta(manifest);
  const component = meta.labels['app.kubernetes.io/component'] ?? '';
  if (CONTROLLERS.has(meta.name)) return meta.name;
  return CONTROLLERS.has(component) ? component : undefined;
}

/**
 * A controller's flags, `--name` to its value (`true` for a bare flag), from every
 * container's args. `--name value` is read as well as `--name=value`.
 */
function controllerFlags(manifest: Manifest | undefined): Map<string, string> {
  const flags = new Map<string, string>();
  if (!manifest) return flags;
  for (const { container } of podSpecs(manifest).flatMap((spec) => spec.containers)) {
    const args = strings(listAt(container, 'args'));
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] ?? '';
      if (!arg.startsWith('-')) continue;
      const eq = arg.indexOf('=');
      if (eq >= 0) flags.set(arg.slice(0, eq), arg.slice(eq + 1));
      else if (args[i + 1] !== undefined && !args[i + 1]?.startsWith('-'))
        flags.set(arg, args[++i] ?? '');
      else flags.set(arg, 'true');
    }
  }
  return flags;
}

/**
 * What a Flux object without serviceAccountName applies as, by the controller's Deployment
 * at head: its `--default-service-account`, or (`own`) the controller's own account when it
 * runs without one; undefined when the Deployment is not rendered, so it is not known.
 */
export function defaultServiceAccount(
  ctx: RiskContext,
  controller: 'kustomize-controller' | 'helm-controller',
): { account: string } | 'own' | undefined {
  let rendered = false;
  for (const list of ctx.head.objects.values()) {
    for (const { manifest } of list) {
      if (fluxController(manifest) !== controller) continue;
      rendered = true;
      const account = controllerFlags(manifest).get('--default-service-account');
      if (account) return { account };
    }
  }
  return rendered ? 'own' : undefined;
}

const isOn = (value: string | undefined) => value !== undefined && value !== 'false';
const isSet = (value: string | undefined) => value !== undefined && value !== '';

/** A lockdown flag: when it counts as lifted, and what lifting it opens. */
interface Lockdown {
  lifted(before: string | undefined, after: string | undefined): boolean;
  opens: string;
}

const LOCKDOWN: Record<string, Lockdown> = {
  '--no-cross-namespace-refs': {
    lifted: (before, after) => isOn(before) && !isOn(after),
    opens:
      'Flux objects may again refer to sources and objects in other namespaces, so one tenant can use what another owns',
  },
  '--no-remote-bases': {
    lifted: (before, after) => isOn(before) && !isOn(after),
    opens:
      'kustomizations may again pull remote bases from outside their source, content nobody reviewed',
  },
  '--default-service-account': {
    lifted: (before, after) => isSet(before) && !isSet(after),
    opens:
      "Kustomizations and HelmReleases without serviceAccountName apply as the controller's own service account, cluster-admin in a default install",
  },
  '--insecure-kubeconfig-exec': {
    lifted: (before, after) => !isOn(before) && isOn(after),
    opens: "a kubeConfig may run commands inside the controller's pod",
  },
  '--insecure-kubeconfig-tls': {
    lifted: (before, after) => !isOn(before) && isOn(after),
    opens: "a kubeConfig may skip verifying the remote cluster's certificate",
  },
};

function flagText(flag: string, value: string | undefined): string {
  return value === undefined ? flag : value === 'true' ? flag : `${flag}=${value}`;
}

/** `--concurrent=8 (was --concurrent=4)`, `--requeue-dependency=5s added`, `--log-level=debug removed`. */
function flagChange(flag: string, before: string | undefined, after: string | undefined): string {
  if (before === undefined) return `${flagText(flag, after)} added`;
  if (after === undefined) return `${flagText(flag, before)} removed`;
  return `${flagText(flag, after)} (was ${flagText(flag, before)})`;
}

export function controllerArgs(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' && change.status !== 'moved') continue;
    const { base, head } = rawPair(ctx, change);
    const controller = fluxController(head);
    if (!controller || !fluxController(base)) continue;
    const before = controllerFlags(base);
    const after = controllerFlags(head);
    const subject = changeSubject(change);
    const what = describe(subject.resource);
    const others: string[] = [];
    for (const flag of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const [was, is] = [before.get(flag), after.get(flag)];
      if (was === is) continue;
      const lockdown = LOCKDOWN[flag];
      if (lockdown?.lifted(was, is)) {
        drafts.push({
          rule: 'flux-controller-lockdown-removed',
          subject,
          message: `${what}: ${controller} runs ${is === undefined ? `without ${flagText(flag, was)}` : `with ${flagText(flag, is)}`}: ${lockdown.opens}.`,
        });
      } else others.push(flagChange(flag, was, is));
    }
    if (others.length === 0) continue;
    drafts.push({
      rule: 'flux-controller-args-changed',
      subject,
      message: `${what}: ${controller} runs with other flags, ${listSome(others, 5)}: they change how Flux reconciles everything it manages in the cluster.`,
    });
  }
  return drafts;
}
