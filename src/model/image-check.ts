/**
 * What an image's registry said when the image check (the policy's `checkImages`) asked
 * whether a tag or digest exists: render/ asks, risk/ judges the answers it is given.
 */
export type ImageAnswer =
  | { state: 'present' }
  /** The registry answered that the manifest does not exist (HTTP 404). */
  | { state: 'missing'; registry: string }
  /** No answer to judge by: the registry could not be reached, refused us, or was not asked. */
  | { state: 'unchecked'; reason: string };

/** Answers by the image reference as a container spells it (`ghcr.io/acme/web:1.2.0`). */
export type ImageAnswers = ReadonlyMap<string, ImageAnswer>;

/** One image to ask about, split as the registry API needs it. */
export interface ImageQuery {
  /** As the container spells it; the answer's key. */
  image: string;
  /** `ghcr.io`, `127.0.0.1:5000`; Docker Hub as `docker.io`. */
  registry: string;
  /** The repository inside the registry: `acme/web`, `library/nginx`. */
  path: string;
  /** The digest when there is one (what the runtime pulls), else the tag, else `latest`. */
  reference: string;
}
