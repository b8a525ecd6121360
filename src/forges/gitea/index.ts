/** Gitea and Forgejo behind the forge seam: one client, since they share the v1 API it uses. */
export { createGiteaClient, forgeVersion } from './create-gitea-client.js';
export type { ForgeVersion, GiteaClient } from './create-gitea-client.js';
