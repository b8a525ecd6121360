// The CLI as one bundle, packages included: with tsc's output, Node spends most of the
// start-up of `fluxlens render`/`diff` resolving ~300 modules of ours and the packages' module
// graphs, not compiling them. bin/fluxlens.js loads dist/cli/index.js (tsc's dist/src/ when it
// is absent); serve and the worker (workers/) stay on tsc's output. src/cli/main.ts imports
// each command dynamically, so each is a chunk of its own: --version and --help load no
// package, render and diff not the Action's Octokit. Built from src/ (isolatedModules makes a
// file-by-file compile exact), so it does not depend on what tsc emitted.
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { defineConfig } from 'rolldown';

/**
 * Packages that find files next to themselves at run time, which a bundle moves away from
 * them; they load from node_modules as they would without the bundle.
 */
const EXTERNAL = [
  // Reads its own package.json through __dirname (CLIENT SETINFO lib-ver), and __dirname
  // again for showFriendlyErrorStack.
  'ioredis',
  // msgpackr's (BullMQ's) native decoder: a prebuilt .node file looked up from __dirname.
  'msgpackr-extract',
];

/**
 * Folders of files our modules read beside themselves at run time (`new URL(..., import.meta.url)`).
 * Every chunk sits at the top of dist/cli/, so each folder is emitted there under its own name;
 * package.json's build copies them beside tsc's output.
 */
const RUNTIME_FOLDERS = ['src/queue/lua'];

/** Our own modules, as rolldown names them (absolute paths). */
const SOURCES = fileURLToPath(new URL('src/', import.meta.url));

/** @type {import('rolldown').Plugin} */
const runtimeFiles = {
  name: 'runtime-files',
  buildStart() {
    for (const folder of RUNTIME_FOLDERS) {
      const url = new URL(`${folder}/`, import.meta.url);
      for (const file of readdirSync(url)) {
        const source = readFileSync(new URL(file, url));
        this.emitFile({ type: 'asset', fileName: `${basename(folder)}/${file}`, source });
      }
    }
  },
};

/**
 * Node's built-in modules as `process.getBuiltinModule` gives them, not through `import`: an
 * import makes Node build the module's ESM namespace, which reads every export, and node:http's
 * lazy WebSocket and fetch exports then load undici (~35 ms of each render or diff, which use
 * neither), node:fs's streams load readline. Each import of a builtin at the top of a chunk
 * becomes a const that reads the same values before the chunk's code runs; no chunk imports
 * another that imports it back, so none reads them before they are set.
 */
/** @type {import('rolldown').Plugin} */
const builtinsWithoutNamespaces = {
  name: 'builtins-without-namespaces',
  renderChunk(code) {
    const rewritten = code.replace(
      /^import (?:([\w$]+)(?:, )?)?(?:\{ ([^}]*) \})? from "(node:[\w/]+)";$/gm,
      (_, name, names, id) => {
        const module = `globalThis.process.getBuiltinModule(${JSON.stringify(id)})`;
        const bindings = names?.replaceAll(' as ', ': ');
        if (name === undefined) return `const { ${bindings} } = ${module};`;
        return `const ${name} = ${module};${bindings ? ` const { ${bindings} } = ${name};` : ''}`;
      },
    );
    return { code: rewritten, map: null };
  },
};

export default defineConfig({
  input: { index: 'src/cli/index.ts' },
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
  transform: { target: 'node24' },
  // Deep imports too: BullMQ requires ioredis/built/utils.
  external: EXTERNAL.map((name) => new RegExp(`^${name}(/|$)`)),
  plugins: [runtimeFiles, builtinsWithoutNamespaces],
  treeshake: {
    // Our modules only declare on load (nothing registers itself, patches or listens), so one
    // whose exports a chunk does not use is left out with its imports: the Action's sticky
    // comment comes through review/index.ts without the review processor's BullMQ and Redis.
    moduleSideEffects: (id, external) => external || !id.startsWith(SOURCES),
  },
  onLog(level, log, handler) {
    // Bottleneck evals `require` only to reach Redis for its clustering datastore; the
    // GitHub client paces with local Bottleneck groups.
    if (log.code === 'EVAL' && log.id?.includes('/node_modules/bottleneck/')) return;
    handler(level, log);
  },
  output: {
    dir: 'dist/cli',
    format: 'esm',
    sourcemap: true,
    cleanDir: true,
    // Without it, two functions or classes of one name in different modules get renamed
    // (`Foo$1`), and libraries that read `constructor.name` would see the new name.
    keepNames: true,
  },
});
