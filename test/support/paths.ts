/** Where the project and the shared conformance data live, for tests. */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fluxLocalFixtures = resolve(projectRoot, '..', 'shared', 'fixtures', 'flux-local');
export const hasFluxLocalFixtures = existsSync(resolve(fluxLocalFixtures, 'testdata'));
