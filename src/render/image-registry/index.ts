/**
 * render/image-registry/ asks image registries whether the tags and digests a review
 * brings in exist (the policy's opt-in image check), within the chart fetch's bounds and
 * credentials, and keeps the registries' positive answers. It must not judge the answers.
 */
export { checkImages, type ImageCheckSettings } from './check-images.js';
