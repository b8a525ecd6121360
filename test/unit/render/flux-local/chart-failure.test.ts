/** Which failed flux-local HelmRelease runs mean "chart unavailable" rather than a defect. */
import { describe, expect, it } from 'vitest';
import { chartFailureTags } from '../../../../src/render/flux-local/chart-failure.js';

/** The command line flux-local quotes before helm's own error. */
const RUN =
  "flux-local: Command 'helm template a flux-system-charts/app --namespace default " +
  "--repository-cache /tmp/tmp5eb7xtik --skip-tests --version 1.0.0' failed with return code 1\n";

describe('a failed flux-local chart run', () => {
  it.each([
    [
      'an HTTP repository whose index could not be fetched',
      "Error: no cached repo found. (try 'helm repo update'): open /tmp/tmp5eb7xtik/flux-system-closed-index.yaml: no such file or directory",
    ],
    [
      'a registry refusing the connection',
      'Error: failed to perform "FetchReference" on source: Get "https://127.0.0.1:9/v2/charts/app/manifests/1.0.0": dial tcp 127.0.0.1:9: connect: connection refused',
    ],
    [
      'a registry host that does not resolve',
      'Error: failed to do request: Head "https://charts.invalid/v2/app/manifests/1.0.0": dial tcp: lookup charts.invalid: no such host',
    ],
    [
      'a registry asking for credentials',
      'Error: failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token: 401 Unauthorized',
    ],
    [
      'a registry that times out',
      'Error: Get "https://registry.example.com/v2/": net/http: TLS handshake timeout',
    ],
  ])('is unavailability for a remote chart: %s', (_case, helmError) => {
    expect(chartFailureTags(RUN + helmError, true)).toEqual({ code: 'chart-unavailable' });
  });

  it.each([
    [
      'a version missing from a reachable index',
      'Error: chart "app" version "9.9.9" not found in https://charts.example.com repository',
    ],
    [
      'a template that fails',
      'Error: template: app/templates/deployment.yaml:12:4: executing "app/templates/deployment.yaml" at <fail "image.tag is required">: error calling fail: image.tag is required',
    ],
  ])('stays a content error: %s', (_case, helmError) => {
    expect(chartFailureTags(RUN + helmError, true)).toEqual({});
  });

  it('is a content error for a chart in the repository, whatever the message', () => {
    expect(chartFailureTags(`${RUN}Error: dial tcp: connection refused`, false)).toEqual({});
  });
});
