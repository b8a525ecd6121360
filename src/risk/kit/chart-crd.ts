/**
 * CRDs from a chart's crds/ folder: helm-controller creates them before the helm action,
 * outside the release, so helm never deletes them and, under the default upgrade.crds
 * (Create), never updates one that exists. The renderer keeps the chart path of every
 * object it inflates (`charts/web/crds/x.yaml`, `HelmRepository/ns/repo:web/crds/x.yaml`).
 */
import type { ProducerRef } from '../../model/index.js';
import { isKind } from './manifest.js';

/** A chart path in a crds/ folder, never under templates/ (where a chart may keep CRDs too). */
export function isChartCrdsFile(file: string | undefined): boolean {
  if (file === undefined) return false;
  const segments = file.slice(file.lastIndexOf(':') + 1).split('/');
  const crds = segments.indexOf('crds');
  return crds >= 0 && crds < segments.length - 1 && !segments.includes('templates');
}

export interface Placement {
  apiVersion: string;
  kind: string;
  producer: ProducerRef;
  file?: string | undefined;
}

/** Whether a change or object is a CRD its HelmRelease applies from the chart's crds/ folder. */
export function fromChartCrds(subject: Placement): boolean {
  return (
    subject.producer.kind === 'HelmRelease' &&
    isKind(subject, 'CustomResourceDefinition') &&
    isChartCrdsFile(subject.file)
  );
}
