/**
 * forges/ is the seam between fluxlens and the forges it reviews on: one ForgeWriter and
 * ForgeClient interface (PR facts, git credential, status or check, sticky comment,
 * reaction), and Gitea/Forgejo's implementation of it; github/ implements it for GitHub.
 * It must not render, judge, format reports, parse webhooks or read process.env.
 */
export type * from './types.js';
export * from './gitea/index.js';
