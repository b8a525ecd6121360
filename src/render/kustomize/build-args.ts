/**
 * How one `kustomize build` runs, the same whether a kustomize process or kustomize-server
 * runs it: its arguments and its bounds.
 */

export interface KustomizeRunOptions {
  allowRemoteBases: boolean;
  enableExecPlugins: boolean;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** The arguments of `kustomize build` for a folder, as kustomize-controller builds it. */
export function kustomizeBuildArgs(dir: string, enableExecPlugins: boolean): string[] {
  const args = ['build', dir, '--load-restrictor', 'LoadRestrictionsNone'];
  if (enableExecPlugins) args.push('--enable-alpha-plugins', '--enable-exec');
  return args;
}
