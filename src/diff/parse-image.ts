/**
 * Container image references as the container runtime reads them (distribution's
 * reference grammar): Docker Hub short names, registries with ports, tags and digests.
 */

export interface ImageRef {
  /** Registry and path, Docker Hub spelled out: `docker.io/library/nginx`. */
  repository: string;
  tag?: string;
  digest?: string;
  /** What to show for the version: `tag@digest`, the digest, the tag, or `latest`. */
  reference: string;
}

const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** The first path component is a registry when it has a dot, a port, an upper-case letter or is localhost. */
function isRegistry(component: string): boolean {
  return (
    component.includes('.') ||
    component.includes(':') ||
    component === 'localhost' ||
    component !== component.toLowerCase()
  );
}

export function parseImage(image: string): ImageRef {
  let rest = image.trim();
  let digest: string | undefined;
  let tag: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  let registry = DOCKER_HUB;
  let path = rest;
  if (slash >= 0 && isRegistry(first)) {
    registry = DOCKER_HUB_ALIASES.has(first) ? DOCKER_HUB : first;
    path = rest.slice(slash + 1);
  }
  if (registry === DOCKER_HUB && !path.includes('/')) path = `library/${path}`;
  const reference =
    tag !== undefined && digest !== undefined ? `${tag}@${digest}` : (digest ?? tag ?? 'latest');
  const out: ImageRef = { repository: `${registry}/${path}`, reference };
  if (tag !== undefined) out.tag = tag;
  if (digest !== undefined) out.digest = digest;
  return out;
}
