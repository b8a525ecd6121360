/**
 * Builds one Flux Kustomization as kustomize-controller does: merge the spec into the
 * kustomization file (in a private copy of the source), run kustomize, then per object
 * post-build substitution, owner labels and commonMetadata, each attributed to the file
 * and line kustomize read it from.
 */
import { rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { classify, errorMessage } from '../../errors.js';
import type { FluxKustomization } from '../flux/index.js';
import {
  generateKustomization,
  GenerateError,
  checkKustomizationTree,
  kustomizeBuild,
  UnsafePathError,
  type BuildInputSet,
  type GeneratedKustomization,
} from '../kustomize/index.js';
import { reuse, reuseOrBuild } from '../cache/index.js';
import {
  buildSpec,
  recordedReads,
  type BuildReadsRecord,
  buildKey,
  producerKey,
  readBuildInputs,
  type KeyedOutcome,
  withInputKey,
} from './reuse/index.js';
import {
  type Manifest,
  type ProducerRef,
  type RenderedObject,
  objectMeta,
  producerKey as producerRefKey,
  stringifyManifest,
} from '../../model/index.js';
import { lackingInput, lackingMessage } from './lacking-input.js';
import { sourceLineFinder, type SourceLineFinder } from './source-line-finder.js';
import {
  postBuildSubstitution,
  substituteObject,
  substitutionInputs,
} from './post-build-substitution.js';
import type { BuildContext, BuildFailure, BuildInput, BuildOutcome } from './build-types.js';
import { SubstitutionError } from './substitute.js';
import { copyTree, linkPaths, replaceFile } from '../workspace/index.js';
import { parseDocuments, parseFileDocuments } from '../../yaml/index.js';

const ORIGIN = 'config.kubernetes.io/origin';
export const OWNER_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
export const OWNER_NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';

export async function buildKustomization(
  ctx: BuildContext,
  input: BuildInput,
): Promise<KeyedOutcome<BuildOutcome>> {
  const carried = await carriedBuild(ctx, input);
  if (carried !== undefined) return carried;
  const copy = ctx.scratchDir();
  let key: string | undefined;
  try {
    // Flux's generator only reads the folder, so the source itself serves, for the key too.
    const generated = await generateKustomization(
      join(input.sourceRoot, input.path),
      input.path,
      input.ks,
    );
    const written = writtenKustomization(generated);
    const keying = ctx.keying;
    const inputs = await readBuildInputs(keying, input, written);
    const reads = { root: input.sourceRoot, path: input.path, whole: generated.generated, inputs };
    const lacking = input.filePrefix === '' ? lackingInput(ctx.lacking, reads) : undefined;
    if (lacking !== undefined) return { error: lackingMessage(lacking), file: lacking };
    const build =
      keying && inputs && buildKey(keying, ctx.settings, input, generated, written, inputs);
    key =
      build !== undefined
        ? producerKey(build, substitutionInputs(ctx, input), input, generated)
        : undefined;
    const record = readsRecord(ctx, input);
    if (record && build !== undefined && inputs?.direct === true)
      record.set(producerRefKey(input.ref), recordedReads(input, build, generated, inputs));
    const outcome = await reuseOrBuild<BuildOutcome>(
      keying ?? {},
      key,
      (kept) => kept,
      () => buildAndPostBuild(ctx, input, { generated, written, build, inputs, copy }),
    );
    return withInputKey(outcome, key);
  } catch (err) {
    // A cancelled review is not this Kustomization's failure: the whole render stops.
    if (classify(err) === 'cancelled') throw err;
    const outcome = failure(err, copy, input);
    // A timeout may pass: the other revision's render tries again.
    const transient = classify(err) === 'transient';
    ctx.keying?.memo?.note(transient ? undefined : key, outcome, 'rendered');
    return withInputKey(outcome, transient ? undefined : key);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/**
 * Where this build's reads are recorded: only builds of the reviewed repository, which git
 * can tell changes of, and only where the revision's files are all there.
 */
function readsRecord(ctx: BuildContext, input: BuildInput): BuildReadsRecord | undefined {
  return input.filePrefix === '' && ctx.lacking.size === 0 ? ctx.keying?.reads?.record : undefined;
}

/**
 * The outcome kept for this producer when the last render's record shows its build reads
 * what it read then (reuse/carried-builds.ts): the build's key is taken from the record, the
 * producer's key made as always, and its outcome reused; undefined: key it from its files.
 */
async function carriedBuild(
  ctx: BuildContext,
  input: BuildInput,
): Promise<KeyedOutcome<BuildOutcome> | undefined> {
  const keying = ctx.keying;
  const record = readsRecord(ctx, input);
  const carried = keying?.reads?.carried;
  if (keying === undefined || record === undefined || carried === undefined) return undefined;
  const producer = producerRefKey(input.ref);
  const reads = carried.unchanged(producer, buildSpec(input));
  if (reads === undefined) return undefined;
  const key = producerKey(reads.build, substitutionInputs(ctx, input), input, reads);
  const outcome = await reuse<BuildOutcome>(keying, key, (kept) => kept);
  if (outcome === undefined) return undefined;
  carried.taken += 1;
  record.set(producer, reads);
  return withInputKey(outcome, key);
}

/** kustomize's output for the build, from the render cache or from kustomize, post-built. */
async function buildAndPostBuild(
  ctx: BuildContext,
  input: BuildInput,
  build: {
    generated: GeneratedKustomization;
    written: Record<string, unknown>;
    build: string | undefined;
    inputs: BuildInputSet | undefined;
    copy: string;
  },
): Promise<{ objects: RenderedObject[]; assumed?: string[] }> {
  const { generated, written, inputs, copy } = build;
  const store = ctx.keying?.store;
  const key = build.build;
  const cached = key !== undefined ? await store?.get(key) : undefined;
  if (cached !== undefined) {
    // The same inputs built before: only what follows kustomize runs again.
    const lineOf = sourceLineFinder(input.sourceRoot);
    return await postBuild(ctx, input, cached, generated.fluxWantsOrigin, lineOf);
  }
  await privateCopy(input.sourceRoot, copy, inputs);
  const dir = join(copy, input.path);
  await replaceFile(join(dir, generated.fileName), stringifyManifest(written));
  await checkKustomizationTree(copy, dir, ctx.settings.allowRemoteBases);
  const output = await kustomizeBuild(ctx.runner, dir, {
    ...ctx.settings,
    timeoutMs: ctx.settings.toolTimeoutMs,
    server: ctx.kustomizeServer,
  });
  if (key !== undefined) await store?.put(key, output);
  const lineOf = sourceLineFinder(copy);
  return await postBuild(ctx, input, output, generated.fluxWantsOrigin, lineOf);
}

/**
 * The build's own copy of its source: only what it reads, where that is known and no
 * symlink is on the way (a link would need its target copied too), else all of it.
 */
async function privateCopy(
  root: string,
  copy: string,
  inputs: BuildInputSet | undefined,
): Promise<void> {
  if (inputs?.direct !== true) return copyTree(root, copy, { mode: 'link' });
  const files = inputs.files.filter(([, digest]) => digest !== 'missing').map(([path]) => path);
  await linkPaths(root, copy, { files, dirs: inputs.dirs });
}

/** A failed build as its producer's error, in Flux's words where Flux has some. */
function failure(err: unknown, copy: string, input: BuildInput): BuildFailure {
  if (err instanceof GenerateError || err instanceof UnsafePathError) {
    return {
      error: err.message,
      ...(err.file ? { file: input.filePrefix + err.file } : {}),
      ...(err.code === 'remote-base-refused' ? { code: err.code } : {}),
    };
  }
  if (err instanceof SubstitutionError) {
    return { error: err.fluxWorded ? err.message : `post build failed: ${err.message}` };
  }
  return { error: `kustomize build failed: ${withoutScratch(errorMessage(err), copy, input)}` };
}

/** The kustomization Flux writes: the generated one, asking kustomize for origins. */
function writtenKustomization(generated: GeneratedKustomization): Record<string, unknown> {
  const written = { ...generated.content };
  if (!generated.fluxWantsOrigin) {
    const meta = Array.isArray(written['buildMetadata'])
      ? (written['buildMetadata'] as unknown[])
      : [];
    written['buildMetadata'] = [...meta, 'originAnnotations'];
  }
  return written;
}

async function postBuild(
  ctx: BuildContext,
  input: BuildInput,
  output: string,
  keepOrigin: boolean,
  lineOf: SourceLineFinder,
): Promise<{ objects: RenderedObject[]; assumed?: string[] }> {
  const parsed = parseDocuments(output);
  if (parsed.error) throw new Error(`unreadable kustomize output: ${parsed.error}`);
  const substitution = postBuildSubstitution(ctx, input);
  const read = parsed.documents.map(({ manifest }) => {
    const meta = objectMeta(manifest);
    const named = Boolean(meta.name && meta.kind && meta.apiVersion);
    const file = named ? takeOrigin(manifest, input.path, keepOrigin) : undefined;
    // Before substitution: the source file holds the name as kustomize read it. Every file
    // is asked for at once: each is a read the thread pool may be slow to answer.
    const line = file ? lineOf(file, meta.kind, meta.name) : undefined;
    return { manifest, meta, named, file, line };
  });
  const objects: RenderedObject[] = [];
  for (const { manifest, meta, named, file, line: lineFound } of read) {
    if (!named) {
      throw new SubstitutionError(
        `failed to decode Kubernetes apiVersion, kind and name from: ${meta.kind || 'object'}`,
      );
    }
    const line = await lineFound;
    const { manifest: out, secret } = substitution
      ? substituteObject(substitution, manifest, meta)
      : { manifest, secret: undefined };
    setOwnerLabels(out, input.ref);
    applyCommonMetadata(out, input.ks);
    const object = attributed(input, out, file, line);
    if (secret !== undefined) object.secret = secret;
    objects.push(object);
  }
  const assumed = substitution?.assumed ?? [];
  return assumed.length > 0 ? { objects, assumed } : { objects };
}

function attributed(
  input: BuildInput,
  manifest: Manifest,
  file: string | undefined,
  line: number | undefined,
): RenderedObject {
  if (!file) return { producer: input.ref, manifest };
  const object: RenderedObject = { producer: input.ref, file: input.filePrefix + file, manifest };
  if (line !== undefined) object.line = line;
  return object;
}

/** Tool messages name files in the private copy; show them as source paths instead. */
function withoutScratch(message: string, copy: string, input: BuildInput): string {
  return message
    .split(`${copy}/`)
    .join(input.filePrefix)
    .split(copy)
    .join(input.filePrefix || '.');
}

/** Reads kustomize's origin annotation into a source-relative file and removes it unless Flux keeps it. */
function takeOrigin(manifest: Manifest, path: string, keep: boolean): string | undefined {
  const metadata = manifest['metadata'] as Record<string, unknown>;
  const annotations = metadata['annotations'] as Record<string, unknown> | undefined;
  const origin = annotations?.[ORIGIN];
  if (!annotations || typeof origin !== 'string') return undefined;
  if (!keep) {
    delete annotations[ORIGIN];
    if (Object.keys(annotations).length === 0) delete metadata['annotations'];
  }
  const parsed = parseFileDocuments(origin).documents[0]?.manifest;
  const originPath = parsed?.['path'];
  if (typeof originPath !== 'string' || parsed?.['repo'] !== undefined) return undefined;
  const file = posix.normalize(posix.join(path, originPath));
  return file.startsWith('../') ? undefined : file;
}

function setOwnerLabels(manifest: Manifest, ref: ProducerRef): void {
  const labels = ensureMap(manifest, 'labels');
  labels[OWNER_NAME_LABEL] = ref.name;
  labels[OWNER_NAMESPACE_LABEL] = ref.namespace;
}

function applyCommonMetadata(manifest: Manifest, ks: FluxKustomization): void {
  const common = ks.spec.commonMetadata;
  if (!common) return;
  if (common.labels) Object.assign(ensureMap(manifest, 'labels'), common.labels);
  if (common.annotations) Object.assign(ensureMap(manifest, 'annotations'), common.annotations);
}

function ensureMap(manifest: Manifest, field: 'labels' | 'annotations'): Record<string, unknown> {
  const metadata = manifest['metadata'] as Record<string, unknown>;
  const existing = metadata[field];
  if (existing && typeof existing === 'object' && !Array.isArray(existing))
    return existing as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  metadata[field] = created;
  return created;
}
