/**
 * render/kustomize/ runs `kustomize build` safely and writes Flux's generated
 * kustomization.yaml; shared by Kustomizations and HelmRelease post-renderers.
 */
export {
  UnsafePathError,
  checkKustomizationTree,
  isRemote,
  kustomizeBuild,
  referencedPaths,
} from './build.js';
export { GenerateError, generateKustomization } from './generate.js';
export type { GeneratedKustomization } from './generate.js';
export { buildInputSet, type BuildInputSet, type DigestMemo } from './build-inputs.js';
export { KustomizeServer } from './kustomize-server.js';
export { ToolServer, type ToolServerEvents } from './tool-server.js';
export { kustomizationReads } from './kustomization-reads.js';
