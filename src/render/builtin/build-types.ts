/**
 * What one Kustomization build is given and gives back: the build's context (tools,
 * settings, keying, the cluster's variables), its input (one Kustomization in one source)
 * and its outcome. The builder and the keys of reuse/ both read them.
 */
import type { ToolRunner } from '../../tool-runner.js';
import type { RenderSettings } from '../settings.js';
import type { FluxKustomization } from '../flux/index.js';
import type { KustomizeServer } from '../kustomize/index.js';
import type {
  ProducerRef,
  RenderedObject,
  RenderErrorTags,
  SecretDerived,
} from '../../model/index.js';
import type { KustomizeKeying } from './reuse/index.js';
import type { VariableLookups } from './post-build-substitution.js';

export interface BuildContext extends VariableLookups {
  runner: ToolRunner;
  settings: RenderSettings;
  /** Absent: no key is made, every build runs kustomize and every producer builds. */
  keying?: KustomizeKeying | undefined;
  /** A fresh folder path for one build's private copy. */
  scratchDir: () => string;
  /** Files of the reviewed revision whose content the repository lacks (see materialize). */
  lacking: ReadonlySet<string>;
  /** Builds through one kustomize-server process; absent: a kustomize process per build. */
  kustomizeServer?: KustomizeServer | undefined;
}

export interface BuildInput {
  ks: FluxKustomization;
  /** Where the Kustomization itself holds text derived from a Secret (its parent's doing). */
  secret?: SecretDerived | undefined;
  ref: ProducerRef;
  sourceRoot: string;
  /** Prefix for file attribution: '' for the reviewed repository, 'SOURCE:' otherwise. */
  filePrefix: string;
  /** The source's spec.ignore, which shapes what its artifact holds. */
  sourceIgnore?: string | undefined;
  /** Normalised path inside the source ('.' for the root). */
  path: string;
}

/** `assumed`: what the build took as given of sources only the cluster holds (see Producer). */
export type BuildOutcome = { objects: RenderedObject[]; assumed?: string[] } | BuildFailure;

export type BuildFailure = { error: string; file?: string } & RenderErrorTags;
