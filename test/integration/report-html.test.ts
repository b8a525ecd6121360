import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import type { ResourceChange } from '../../src/model/change.js';
import type { ProducerRef } from '../../src/model/render.js';
import type { Finding } from '../../src/model/finding.js';
import { renderHtml } from '../../src/report/html.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE_NAME = '<script>alert(1)</script>';
const HOSTILE_PRODUCER = '<img src=x onerror=alert(2)>';

const apps: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const infra: ProducerRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };
const podinfo: ProducerRef = { kind: 'HelmRelease', namespace: 'podinfo', name: 'podinfo' };
const hostile: ProducerRef = {
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: HOSTILE_PRODUCER,
};

const WEB_DIFF = [
  '--- base',
  '+++ head',
  '@@ -10,7 +10,7 @@',
  '   template:',
  '     spec:',
  '       containers:',
  '-      - image: ghcr.io/acme/web:1.1.0',
  '+      - image: ghcr.io/acme/web:1.2.0',
  '         name: app',
  '         ports:',
  '         - containerPort: 8080',
  '',
].join('\n');

function change(
  fields: Pick<ResourceChange, 'status' | 'kind' | 'name' | 'producer' | 'diff'> &
    Partial<ResourceChange>,
): ResourceChange {
  const namespace = fields.namespace ?? 'apps';
  const manifest = {
    apiVersion: 'v1',
    kind: fields.kind,
    metadata: { name: fields.name, namespace },
  };
  return {
    id: `/${fields.kind}/${namespace}/${fields.name}`,
    contentChanged: true,
    cluster: 'home',
    apiVersion: 'v1',
    namespace,
    fields: [],
    ...(fields.status === 'added' ? {} : { old: manifest }),
    ...(fields.status === 'removed' ? {} : { new: manifest }),
    ...fields,
  };
}

const changes: ResourceChange[] = [
  change({
    status: 'removed',
    kind: 'PersistentVolumeClaim',
    name: 'data',
    producer: apps,
    diff: '@@ -1,2 +0,0 @@\n-apiVersion: v1\n-kind: PersistentVolumeClaim\n',
  }),
  change({
    status: 'changed',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: 'web',
    producer: apps,
    file: 'apps/web/deployment.yaml',
    fields: [{ path: 'spec.template.spec.containers[app].image', change: 'changed' }],
    diff: WEB_DIFF,
  }),
  change({
    status: 'moved',
    contentChanged: false,
    kind: 'ConfigMap',
    namespace: 'podinfo',
    name: 'podinfo-values',
    producer: podinfo,
    previousProducer: infra,
    diff: '',
  }),
  change({
    status: 'added',
    kind: 'Secret',
    name: HOSTILE_NAME,
    producer: hostile,
    diff: '@@ -0,0 +1,3 @@\n+kind: Secret\n+note: <img src=x onerror=alert(4)>\n+line: a\u2028b</script>\n',
  }),
];

const findings: Finding[] = [
  {
    rule: 'image-tag-changed',
    level: 'info',
    cluster: 'home',
    resource: { kind: 'Deployment', namespace: 'apps', name: 'web' },
    message: 'Updates image ghcr.io/acme/web from 1.1.0 to 1.2.0',
  },
  {
    rule: 'pvc-deleted',
    level: 'danger',
    cluster: 'home',
    resource: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'data' },
    producer: apps,
    message: 'Deletes PersistentVolumeClaim apps/data: its volume and data are lost',
    file: 'apps/data/pvc.yaml',
    line: 3,
  },
  {
    rule: 'secret-added',
    level: 'caution',
    cluster: 'home',
    resource: { kind: 'Secret', namespace: 'apps', name: HOSTILE_NAME },
    message: `Adds Secret ${HOSTILE_NAME}</script><script>alert(3)</script>`,
  },
];

const result: AnalysisResult = {
  schemaVersion: 1,
  base: { rev: 'main', sha: '1'.repeat(40) },
  head: { rev: 'HEAD', sha: '2'.repeat(40) },
  verdict: {
    level: 'danger',
    headline: 'Deletes a PersistentVolumeClaim (data loss)',
    routine: false,
    counts: { info: 1, caution: 1, danger: 1 },
  },
  summary: { added: 1, removed: 1, changed: 1, moved: 1, findings: 3 },
  clusters: [
    {
      name: 'home',
      path: 'clusters/home',
      added: 1,
      removed: 1,
      changed: 1,
      moved: 1,
      producers: [],
      namespaces: ['apps', 'podinfo'],
      crds: [],
      images: [],
      errorsIntroduced: [],
      errorsFixed: [],
    },
  ],
  changes,
  findings,
  errors: [],
  timings: { render: 120, diff: 4 },
};

describe('renderHtml as text', () => {
  const html = renderHtml(result);

  it('renders the same result to the same bytes every time', () => {
    expect(renderHtml(structuredClone(result))).toBe(html);
  });

  it('carries no untrusted markup: the page has only its own two script elements', () => {
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\u2028');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('labels resources and producers as Kind/namespace/name, as the other reports do', () => {
    expect(html).toContain('<strong>PersistentVolumeClaim/apps/data</strong>');
    expect(html).toContain('from Kustomization/flux-system/apps');
  });

  it('embeds the page data as JSON that parses back to the untrusted strings', () => {
    const embedded = /<script type="application\/json" id="fluxlens-data">(.*?)<\/script>/s.exec(
      html,
    );
    const data = JSON.parse(embedded?.[1] ?? 'null') as {
      objects: Array<{ label: string; diff: string }>;
    };
    expect(data.objects.map((o) => o.label)).toContain(`Secret/apps/${HOSTILE_NAME}`);
    expect(data.objects[3]?.diff).toContain('a\u2028b</script>');
  });

  it('allows only its own inline style and script in its Content-Security-Policy', () => {
    const csp =
      /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? '';
    const hash = (source: string): string =>
      `'sha256-${createHash('sha256').update(source).digest('base64')}'`;
    const script = /<script>(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    const style = /<style>(.*?)<\/style>/s.exec(html)?.[1] ?? '';
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `script-src ${hash(script)}`,
      `style-src ${hash(style)}`,
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    expect(html).not.toMatch(/<[^>]*\s(src|href)=/);
    expect(html).not.toMatch(/https?:\/\//);
  });
});

async function launch(): Promise<{ browser?: Browser; reason?: string }> {
  if (!existsSync(CHROMIUM)) {
    return { reason: `${CHROMIUM} is missing (apt-get install -y chromium)` };
  }
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    return { browser };
  } catch (error) {
    return { reason: `chromium cannot be launched: ${String(error).split('\n')[0]}` };
  }
}

describe('renderHtml in headless Chromium', () => {
  let launched: { browser?: Browser; reason?: string } = {};
  let dir = '';
  let url = '';
  let context: BrowserContext | undefined;
  const seen = { requests: [] as string[], dialogs: [] as string[], errors: [] as string[] };

  beforeAll(async () => {
    launched = await launch();
    if (launched.reason) console.warn(`report-html: browser tests skipped: ${launched.reason}`);
    dir = mkdtempSync(join(tmpdir(), 'fluxlens-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(result));
    url = pathToFileURL(file).href;
  });

  afterAll(async () => {
    await launched.browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    // Every test's page must stay offline, quiet and free of dialogs.
    expect(seen.requests.filter((r) => !r.startsWith('file:'))).toEqual([]);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    seen.requests = [];
    seen.dialogs = [];
    seen.errors = [];
  });

  async function open(ctx: TestContext): Promise<Page> {
    const browser = launched.browser;
    if (!browser) return ctx.skip(`skipped: ${launched.reason ?? 'no browser'}`);
    context = await browser.newContext();
    // A missing element fails in seconds, not after playwright's 30 s default.
    context.setDefaultTimeout(5_000);
    await context.route('**/*', (route) =>
      route.request().url().startsWith('file:') ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    page.on('request', (request) => seen.requests.push(request.url()));
    page.on('dialog', (dialog) => {
      seen.dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => seen.errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') seen.errors.push(message.text());
    });
    await page.goto(url);
    return page;
  }

  it('shows the verdict, the headline and the findings with danger first', async (ctx) => {
    const page = await open(ctx);
    expect(await page.locator('h1').innerText()).toBe(
      'Danger Deletes a PersistentVolumeClaim (data loss)',
    );
    expect(await page.locator('.findings .level').allInnerTexts()).toEqual([
      'danger',
      'caution',
      'info',
    ]);
    expect(await page.locator('.findings .message').first().innerText()).toContain(
      'Deletes PersistentVolumeClaim apps/data',
    );
  });

  it('opens a producer, selects an object and shows its unified diff', async (ctx) => {
    const page = await open(ctx);
    const producer = page.getByRole('button', { name: /^Kustomization\/flux-system\/apps\b/ });
    const web = page.getByRole('button', { name: /Deployment\/apps\/web/ });
    expect(await producer.getAttribute('aria-expanded')).toBe('false');
    expect(await web.isVisible()).toBe(false);

    await producer.click();
    expect(await producer.getAttribute('aria-expanded')).toBe('true');
    await web.click();
    expect(await web.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('#detail-title').innerText()).toBe('Deployment/apps/web');
    const diff = await page.locator('#diff').innerText();
    expect(diff).toContain('-      - image: ghcr.io/acme/web:1.1.0');
    expect(diff).toContain('+      - image: ghcr.io/acme/web:1.2.0');
    expect(diff).toContain('@@ -10,7 +10,7 @@');
    expect(await page.locator('#detail').innerText()).toContain(
      'spec.template.spec.containers[app].image (changed)',
    );

    await producer.focus();
    await page.keyboard.press('Enter');
    expect(await producer.getAttribute('aria-expanded')).toBe('false');
    expect(await web.isVisible()).toBe(false);
  });

  it('switches the diff to side by side, with base on the left and head on the right', async (ctx) => {
    const page = await open(ctx);
    await page.getByRole('button', { name: /^Kustomization\/flux-system\/apps\b/ }).click();
    await page.getByRole('button', { name: /Deployment\/apps\/web/ }).click();
    const sideBySide = page.getByRole('button', { name: 'Side by side' });
    await sideBySide.click();
    expect(await sideBySide.getAttribute('aria-pressed')).toBe('true');

    expect(await page.locator('.side-base-title').innerText()).toBe('base 111111111111');
    expect(await page.locator('.side-head-title').innerText()).toBe('head 222222222222');
    expect(await page.locator('.side-base.del').allInnerTexts()).toEqual([
      '      - image: ghcr.io/acme/web:1.1.0',
    ]);
    expect(await page.locator('.side-head.add').allInnerTexts()).toEqual([
      '      - image: ghcr.io/acme/web:1.2.0',
    ]);
    expect(await page.locator('.side-base.ctx').first().isVisible()).toBe(true);
    expect(await page.locator('.side-head.ctx').first().innerText()).toBe('  template:');

    await page.getByRole('button', { name: 'Unified' }).click();
    expect(await page.locator('.side-base').count()).toBe(0);
    expect(await page.locator('#diff').innerText()).toContain(
      '+      - image: ghcr.io/acme/web:1.2.0',
    );
  });

  it('says a move without a content change moved, and from where', async (ctx) => {
    const page = await open(ctx);
    await page.getByRole('button', { name: /^HelmRelease\/podinfo\/podinfo/ }).click();
    await page.getByRole('button', { name: /ConfigMap\/podinfo\/podinfo-values/ }).click();
    const detail = await page.locator('#detail').innerText();
    expect(detail).toContain('Kustomization/flux-system/infra');
    expect(detail).toContain('Moved without a content change.');
  });

  it('jumps from a finding to the diff of its object', async (ctx) => {
    const page = await open(ctx);
    await page.locator('.finding-danger').getByRole('button', { name: 'Show diff' }).click();
    const pvc = page.getByRole('button', { name: /PersistentVolumeClaim\/apps\/data/ });
    expect(await pvc.isVisible()).toBe(true);
    expect(await pvc.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('#diff').innerText()).toContain('-kind: PersistentVolumeClaim');
  });

  it('renders a name containing a script tag as text and runs nothing from the data', async (ctx) => {
    const page = await open(ctx);
    await page.getByRole('button', { name: HOSTILE_PRODUCER }).click();
    const object = page.getByRole('button', { name: `Secret/apps/${HOSTILE_NAME}` });
    expect(await object.innerText()).toContain(`Secret/apps/${HOSTILE_NAME}`);
    await object.click();
    expect(await page.locator('#detail-title').innerText()).toBe(`Secret/apps/${HOSTILE_NAME}`);
    expect(await page.locator('#diff').innerText()).toContain(
      '+note: <img src=x onerror=alert(4)>',
    );
    expect(await page.locator('.finding-caution .message').innerText()).toBe(
      `Adds Secret ${HOSTILE_NAME}</script><script>alert(3)</script>`,
    );
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
  });
});
