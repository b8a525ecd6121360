/**
 * Whether a registry holds one image manifest: a HEAD of `/v2/<path>/manifests/<reference>`
 * (the OCI distribution API) accepting OCI indexes and manifests and Docker's manifest lists
 * and manifests, with a chart pull's connect and response bounds, address policy and
 * credentials (helm/chart/). A registry that answers 401 with a Bearer challenge is asked
 * again with a pull token from the token service it names, which gets its own host's
 * entry of the operator's file or nothing (anonymous, as public images on Docker Hub or
 * ghcr.io are pulled).
 */
import { FluxlensError } from '../../errors.js';
import type { ImageAnswer, ImageQuery } from '../../model/index.js';
import {
  credentialNote,
  describeUrl,
  fetchChartResponse,
  fetchRegistryToken,
  isLoopbackHost,
  parseChallenge,
  type FetchLimits,
} from '../helm/index.js';

const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

/** Docker Hub's images are named `docker.io/...`; its API answers on another host. */
const API_HOSTS: Readonly<Record<string, string>> = { 'docker.io': 'registry-1.docker.io' };

/** distribution's grammar for a repository path, a tag and a digest. */
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::[0-9]{1,5})?$/;

/** Whether a reference is a digest: its manifest never changes, so an answer holds forever. */
export function isDigest(reference: string): boolean {
  return DIGEST.test(reference);
}

/**
 * The manifest's URL, or undefined for a reference the API cannot be asked about. Plain
 * HTTP only to a loopback registry, as for OCI charts; every other registry over https.
 */
export function manifestUrl(query: ImageQuery): URL | undefined {
  const { registry, path, reference } = query;
  if (!HOST.test(registry) || path.length > 255) return undefined;
  if (!path.split('/').every((part) => PATH_COMPONENT.test(part))) return undefined;
  if (!TAG.test(reference) && !isDigest(reference)) return undefined;
  const host = API_HOSTS[registry] ?? registry;
  try {
    const url = new URL(`http://${host}`);
    const scheme = isLoopbackHost(url.hostname) ? 'http' : 'https';
    return new URL(`${scheme}://${host}/v2/${path}/manifests/${reference}`);
  } catch {
    return undefined;
  }
}

export interface Asked {
  answer: ImageAnswer;
  /** The registry gave no answer at all (unreachable, a bound, refused by address policy). */
  unreachable: boolean;
}

/** Asks the registry about one manifest; never throws for anything the network does. */
export async function askManifest(
  query: ImageQuery,
  url: URL,
  limits: FetchLimits,
): Promise<Asked> {
  const what = `image ${query.image}`;
  const head = (authorize?: (hop: URL) => string | undefined) =>
    fetchChartResponse(url, limits, what, {
      method: 'HEAD',
      headers: { accept: MANIFEST_TYPES },
      ...(authorize ? { authorize } : {}),
    });
  let response;
  try {
    response = await head();
  } catch (err) {
    return { answer: unchecked(err), unreachable: true };
  }
  if (response.status === 401) {
    const challenge = parseChallenge(response.headers['www-authenticate']);
    if (challenge?.scheme === 'bearer') {
      try {
        const token = await fetchRegistryToken({ challenge, repository: query.path, what }, limits);
        const bearer = `Bearer ${token.value}`;
        response = await head((hop) => (hop.host === url.host ? bearer : undefined));
      } catch (err) {
        return { answer: unchecked(err), unreachable: false };
      }
    }
  }
  const { status } = response;
  if (status >= 200 && status <= 299) return { answer: { state: 'present' }, unreachable: false };
  if (status === 404)
    return { answer: { state: 'missing', registry: url.host }, unreachable: false };
  const note = credentialNote(response.url, limits.network, response.authorized);
  const reason = `${describeUrl(response.url)} answered HTTP ${status}${note ? ` (${note})` : ''}`;
  return { answer: { state: 'unchecked', reason }, unreachable: false };
}

/**
 * The words of a request that got no answer (or a token service's refusal), without the
 * chart pull's prefix and the image, which the finding names.
 */
function unchecked(err: unknown): ImageAnswer {
  if (!(err instanceof FluxlensError)) throw err;
  const reason = err.message.replace(/^chart (?:unavailable|error): image \S+: /, '');
  return { state: 'unchecked', reason };
}
