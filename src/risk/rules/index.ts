/**
 * risk/rules/ has one file per rule family; risk/registry.ts lists them. A rule reads a
 * cluster's changes and both renders and says what is dangerous; it never edits them.
 */
export { accessControl } from './access-control.js';
export { availability } from './availability.js';
export { breadth } from './breadth.js';
export { dataLoss } from './data-loss.js';
export { exposure } from './exposure.js';
export { flux } from './flux.js';
export { imageQueries } from './image-existence.js';
export { immutable } from './immutable.js';
export { podPrivilege } from './pod-privilege.js';
export { secrets } from './secrets.js';
export { supplyChain } from './supply-chain.js';
