/**
 * The CLI's help text. The README's synopsis of each command is checked against it by a
 * test, so the two cannot drift.
 */
export const USAGE = `Usage: fluxlens <command> [options]
       fluxlens --version   print the version (also -V)

Commands:
  diff      Compare a pull request's head with its base as rendered objects, with risks
  render    Render a Flux repository into the objects Flux would apply
  serve     Run the GitHub App webhook server (without Redis, it also runs the reviews)
  worker    Run a review worker that takes jobs from Redis (FLUXLENS_REDIS_URL)
  action    Review the pull request of a GitHub Actions run (the step of action.yml)

fluxlens diff [--repo DIR] [--base REV] [--head REV] [--path ENTRY]...
              [--format markdown|json|text|html] [--output FILE]
              [--fail-on info|caution|danger|never] [--engine builtin|flux-local]
  --repo DIR              git repository (default: current folder)
  --base REV              compare with the merge-base of REV and the head (default: the
                          upstream default branch: origin/HEAD's target, else origin/main,
                          origin/master, main, master)
  --head REV              the pull request's head (default: HEAD)
  --path ENTRY            a cluster's entry folder, repeatable (default: the clusters in the
                          base's .fluxlens.yaml, else the root)
  --format FORMAT         markdown (default), json, text (coloured on a terminal) or html
  --output FILE           write the report to FILE instead of standard output
  --fail-on LEVEL         exit 1 when a finding reaches LEVEL: info, caution, danger or never
                          (default: failOn in the base's .fluxlens.yaml, else danger)
  Also: --engine, --source, --repo-url, --lenient-substitution, --allow-remote-bases,
  --enable-exec-plugins, --skip-helm, --offline, --skip-crds, --kube-version,
  --api-versions, --is-upgrade, --no-cache, --retry-unavailable-charts, as for render
  (both revisions render the same way).

fluxlens render --repo DIR [--rev REV] [--path ENTRY] [--engine builtin|flux-local]
                [--source NAME=DIR]... [--output yaml|json]
  --repo DIR              repository folder (default: current folder)
  --rev REV               render this git revision's tree instead of the files on disk
  --path ENTRY            entry folder inside the repository (default: the root)
  --engine NAME           builtin (default) or flux-local
  --source NAME=DIR       use DIR for the Flux source NAME (also NAMESPACE/NAME)
  --repo-url URL          this repository's URL, to recognise GitRepositories that point at it
  --output FORMAT         yaml (default) or json
  --lenient-substitution  undefined substitution variables become empty (Flux before 2.9)
  --allow-remote-bases    let kustomize fetch remote resources
  --enable-exec-plugins   let kustomize run exec plugins
  --skip-helm             do not inflate HelmReleases (they stay plain objects)
  --offline               charts only from the chart cache and the repository itself
  --skip-crds             leave chart CRDs out whatever the release's CRD policy
  --kube-version VER      .Capabilities.KubeVersion for charts (default: helm's)
  --api-versions GV       add to .Capabilities.APIVersions (repeatable)
  --is-upgrade            render HelmReleases as upgrades of existing releases
  --no-cache              run every build again instead of reusing results kept in the
                          render cache (FLUXLENS_CACHE_DIR/renders)
  --retry-unavailable-charts
                          fetch charts again that failed within
                          FLUXLENS_CHART_UNAVAILABLE_TTL_SECONDS instead of reporting the
                          remembered failure
  -h, --help              show this help

fluxlens serve | fluxlens worker
  Configured by FLUXLENS_* environment variables (see the README); both stop on SIGTERM,
  letting running reviews finish within FLUXLENS_SHUTDOWN_GRACE_SECONDS.

fluxlens action
  In a GitHub Actions job of a pull_request or pull_request_target event: diff's analysis
  of the event's head against its merge-base with the event's base, the Markdown report
  appended to the job summary, the sticky comment upserted, the step's outputs written.
  Configured by the runner's GITHUB_* variables and the inputs action.yml passes as
  INPUT_TOKEN, INPUT_COMMENT_AUTHOR, INPUT_WORKING_DIRECTORY, INPUT_PATHS, INPUT_FAIL_ON,
  INPUT_ENGINE and INPUT_COMMENT.

Exit codes: render: 0 rendered (failed producers are listed in the output), 1 an
unexpected failure, 2 usage or setup error. diff: 0 done, 1 a finding reaches --fail-on,
2 usage, setup or other error. action: as diff (a comment the token may not write is a
warning, not an error). serve, worker: 0 stopped, 1 an unexpected failure, 2 invalid
configuration.
`;

/**
 * One command's help: its section of USAGE (from the line that starts `fluxlens COMMAND`
 * to the next blank line before another command) and the exit codes, so `fluxlens diff
 * --help` is about diff. The whole text stays one string, which the README is checked
 * against.
 */
export function usageOf(command: 'diff' | 'render' | 'serve' | 'worker' | 'action'): string {
  const sections = USAGE.split('\n\n');
  const names = (section: string) =>
    (section.split('\n')[0] ?? '').split(' | ').map((part) => part.split(' ')[1]);
  const own = sections.find((s) => s.startsWith('fluxlens ') && names(s).includes(command));
  const exits = sections.find((s) => s.startsWith('Exit codes:'));
  return `Usage: fluxlens ${command} [options]\n\n${own ?? ''}\n\n${exits ?? ''}`;
}
