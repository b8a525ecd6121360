/** The PR comment says which changed files nothing renders and which clusters bootstrap's convention applies. */
import { describe, expect, it } from 'vitest';
import { parseAnalysisResult } from '../../../src/report/parse-result.js';
import { renderJson } from '../../../src/report/json.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { analysis, clusterSummary } from './analysis-builders.js';

const withFiles = (unread: string[], excluded = 0) =>
  analysis({
    clusters: [clusterSummary({ path: 'clusters/prod', bootstrapAssumed: 'head' })],
    files: {
      read: ['clusters/prod/apps.yaml'],
      excluded: Array.from({ length: excluded }, (_, i) => ({
        path: `docs/page-${i}.md`,
        pattern: 'docs/',
        from: '.sourceignore',
      })),
      unread,
    },
  });

describe('the files section of the PR comment', () => {
  it('lists the changed files read by nothing, and folds those an ignore rule leaves out', () => {
    const markdown = renderMarkdown(withFiles(['README.md', 'terraform/main.tf'], 1));
    expect(markdown).toContain(
      '#### Read by nothing fluxlens renders\n\n- `README.md`\n- `terraform/main.tf`\n',
    );
    expect(markdown).toContain(
      '<details><summary>1 changed file left out by ignore rules</summary>\n\n- `docs/page-0.md`: `docs/` (.sourceignore)\n',
    );
  });

  it('names the producers that did not render as what may read those files', () => {
    const result = withFiles(['tenants/apps.yaml']);
    const producer = (name: string) => ({
      kind: 'Kustomization' as const,
      namespace: 'flux-system',
      name,
    });
    result.files!.unrendered = [
      ...Array.from({ length: 6 }, (_, i) => ({
        producer: producer(`app-${i}`),
        reason: 'source not found',
      })),
      {
        producer: producer('tenants'),
        reason: `source OCIRepository/flux-system/flux-system is not mapped ${'x'.repeat(300)}`,
      },
    ];
    const markdown = renderMarkdown(result);
    expect(markdown).toContain(
      '- `tenants/apps.yaml`\n\n7 producers did not render, so what they read is unknown and may include these files:\n\n- `Kustomization/flux-system/app-0`: source not found\n',
    );
    expect(markdown).toContain('- … and 2 more\n');
    expect(markdown).not.toContain('tenants`: source');
    expect(parseAnalysisResult(renderJson(result))).toEqual(result);
  });

  it('names the cluster whose folder nothing applies, and on which side', () => {
    expect(renderMarkdown(withFiles([]))).toContain(
      'Nothing in the repository applies `clusters/prod` (at head): it is rendered as `flux bootstrap` applies it, by the Kustomization `flux-system/flux-system`.',
    );
  });

  it('stays within its share of the comment, saying how many files it leaves out', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `generated/file-${i}.yaml`);
    const markdown = renderMarkdown(withFiles(many, 3000), { maxChars: 20_000 });
    expect(markdown.length).toBeLessThanOrEqual(20_000);
    const listed = markdown.match(/^- `generated\/file-\d+\.yaml`$/gm) ?? [];
    expect(listed.length).toBeGreaterThan(0);
    expect(markdown).toContain(`- … and ${5000 - listed.length} more files\n`);
  });

  it('says nothing of files in a result stored before they were accounted for', () => {
    const stored = analysis({ clusters: [clusterSummary()] });
    expect(renderMarkdown(stored)).not.toContain('Read by nothing');
  });

  it('keeps the accounting in the JSON, valid against the schema', () => {
    const result = withFiles(['README.md'], 2);
    expect(parseAnalysisResult(renderJson(result)).files).toEqual(result.files);
  });
});
