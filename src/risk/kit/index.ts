/**
 * risk/kit/ is what every rule family is written with: the risk context over both
 * revisions, manifest readers, pod specs, subjects and what a PR introduces or removes.
 */
export {
  type ClusterInput,
  type RevisionView,
  type RiskContext,
  currentProducer,
  producerManifest,
  producerObject,
  rawPair,
  riskContext,
} from './context.js';
export { fromChartCrds, isChartCrdsFile } from './chart-crd.js';
export { type Fact, droppedBy, introduced, introducedBy } from './introduced.js';
export {
  type KnownKind,
  at,
  deepEqual,
  isKind,
  listAt,
  manifestIs,
  objAt,
  strAt,
  strings,
} from './manifest.js';
export { type ContainerView, type PodSpecView, podLabels, podSpecs } from './pod-spec.js';
export { parseQuantity } from './quantity.js';
export { type Fate, PRUNE_ANNOTATION, removalFate } from './removal.js';
export { type Draft, type RuleFamily, type RuleInfo } from './rule.js';
export {
  breakingWords,
  seriesChanged,
  seriesOf,
  seriesOfVersion,
  writtenRepository,
} from './versions.js';
export {
  CLUSTER_KIND,
  type Subject,
  changeSubject,
  describe,
  listSome,
  objectSubject,
  producerSubject,
} from './subject.js';
