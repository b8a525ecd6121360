/**
 * What a release tag must agree with before anything is published: package.json's version,
 * the image tag deploy/ installs, the Flux example's image tag and source tag, and a section
 * of CHANGELOG.md, which becomes the release notes. It reads and never rewrites: a mismatch
 * is fixed in a commit, and that commit is tagged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

/** The image deploy/ runs; the release workflow pushes the same name. */
const IMAGE = 'ghcr.io/fluxlens/fluxlens';

const TAG = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;

const PackageJson = z.object({ version: z.string() });
const Kustomization = z.object({
  images: z.array(z.object({ name: z.string(), newTag: z.string().optional() })).default([]),
});
const FluxKustomization = z.object({
  spec: z.object({
    postBuild: z.object({ substitute: z.record(z.string(), z.string()) }),
  }),
});
const GitRepository = z.object({ spec: z.object({ ref: z.object({ tag: z.string() }) }) });

export interface ReleaseCheck {
  /** The version the tag names, without its v. */
  version: string | undefined;
  /** One line per file that names another version, or none; empty when all agree. */
  problems: string[];
  /** The CHANGELOG.md section of the version, without its heading. */
  notes: string;
}

/** Where each file names the release, and what it says there. */
function namedVersions(root: string): { where: string; says: string | undefined }[] {
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const base = Kustomization.parse(parse(read('deploy/kubernetes/base/kustomization.yaml')));
  const flux = FluxKustomization.parse(parse(read('deploy/flux/fluxlens.yaml')));
  const source = GitRepository.parse(parse(read('deploy/flux/source.yaml')));
  return [
    {
      where: 'package.json version',
      says: PackageJson.parse(JSON.parse(read('package.json'))).version,
    },
    {
      where: `deploy/kubernetes/base/kustomization.yaml newTag of ${IMAGE}`,
      says: base.images.find((image) => image.name === IMAGE)?.newTag,
    },
    {
      where: 'deploy/flux/fluxlens.yaml fluxlens_version',
      says: flux.spec.postBuild.substitute['fluxlens_version'],
    },
    {
      where: 'deploy/flux/source.yaml ref.tag (without its v)',
      says: source.spec.ref.tag.replace(/^v/, ''),
    },
  ];
}

/** The text under `## [VERSION]` up to the next `## ` heading; '' when there is none. */
export function changelogSection(changelog: string, version: string): string {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`));
  if (start < 0) return '';
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trim();
}

export function checkRelease(root: string, tag: string): ReleaseCheck {
  const version = TAG.exec(tag)?.[1];
  if (version === undefined) {
    return { version, problems: [`${tag} is not a release tag (vMAJOR.MINOR.PATCH)`], notes: '' };
  }
  const problems = namedVersions(root)
    .filter(({ says }) => says !== version)
    .map(({ where, says }) => `${where} is ${says ?? 'missing'}, not ${version}`);
  const notes = changelogSection(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version);
  if (notes === '') problems.push(`CHANGELOG.md has no section "## [${version}]"`);
  return { version, problems, notes };
}
