/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ProxyOptions } from 'vite';

// The app-server (Rust) serves the product API under /api and the built-in
// identity service under /auth. In development Vite proxies both to it.
const backend = process.env.PORTAL_DEV_BACKEND ?? 'http://127.0.0.1:8080';

const proxy: Record<string, ProxyOptions> = {
  '/api/': { target: backend },
  '/auth/': { target: backend },
};

// How the code is split into files. Left alone, the bundler makes a file of every set of modules that the
// same routes share: the first route loaded 8 files and the signed-in dashboard 34. Over HTTP/1.1 (six
// connections, a round trip each) the count costs more on a slow network than the bytes, so:
// - `app` (`$initial`): every module the entry imports statically goes into the entry's file. The entry
//   needs them all before anything renders, and every lazy route loads after it.
// - `signed-in`: what the signed-in layout and the dashboard import that no public page (landing, sign-in,
//   tester, not found, nor what they load later) does. Every signed-in page renders inside the layout, and
//   the dashboard is where signing in leads, so none of it is loaded for nothing.
// - `shell`: what the layout and the dashboard import that public pages use too (cards, links, lists, the
//   modal, the alert, icons): one file instead of a dozen, which the sign-in page loads nearly all of anyway.
// Everything else is split as before. MUI's package-level barrels (`@mui/material/styles`, ...) re-export
// modules the app does not use from them; the bundler drops those when it shakes the tree, so a module
// reached only through such a barrel is not counted as imported. The groups do not pull their modules'
// dependencies in with them (`includeDependenciesRecursively`): a dependency another group does not hold
// is one public pages use, which stays where it was.
const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));
const SIGNED_IN = [
  source('features/layout/AppLayout.tsx'),
  source('features/dashboard/DashboardPage.tsx'),
];
const PUBLIC = [
  'features/landing/LandingPage.tsx',
  'features/auth/SignInPage.tsx',
  'features/tester/TesterPage.tsx',
  'features/notFound/NotFoundPage.tsx',
  'features/auth/client.ts',
].map(source);
const BARREL = /node_modules\/@mui\/(material|system|utils)\/(styles\/|utils\/)?index\.m?js$/;
// A feature's public file (`src/features/<feature>/index.ts`) is a barrel of the project's own: an importer
// is counted as reaching only the modules whose exports it names, as the bundler keeps only those.
const PUBLIC_FILE = /\/src\/features\/[^/]+\/index\.ts$/;

/** `{ a, type B, c as d }` as the names it takes from the module (`a`, `B`, `c`). */
const namesIn = (list: string) =>
  list
    .split(',')
    .map(
      (part) =>
        part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]
          ?.trim() ?? '',
    )
    .filter(Boolean);

/** The names `importer` imports from the public file `file`. */
function namesImported(importer: string, file: string): Set<string> {
  const names = new Set<string>();
  const text = readFileSync(importer, 'utf8');
  for (const [, list = '', specifier = ''] of text.matchAll(
    /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g,
  )) {
    if (resolve(dirname(importer), specifier, 'index.ts') !== file) continue;
    for (const name of namesIn(list)) names.add(name);
  }
  return names;
}

/** The modules of the public file `file` that export one of `names` (paths without extension). */
function modulesExporting(file: string, names: Set<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const modules: string[] = [];
  for (const [, list = '', specifier = ''] of text.matchAll(
    /export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g,
  )) {
    if (namesIn(list).some((name) => names.has(name))) {
      modules.push(resolve(dirname(file), specifier));
    }
  }
  return modules;
}

interface ModuleGraph {
  getModuleInfo(id: string): {
    importedIds: readonly string[];
    dynamicallyImportedIds: readonly string[];
  } | null;
}

/** The modules `roots` import, directly or not: statically, or (`dynamic`) in any way. */
function reachedFrom(graph: ModuleGraph, roots: string[], dynamic = false): Set<string> {
  const reached = new Set<string>();
  const pending = [...roots];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (reached.has(id)) continue;
    reached.add(id);
    const info = BARREL.test(id) ? null : graph.getModuleInfo(id);
    if (!info) continue;
    for (const imported of info.importedIds) {
      if (!PUBLIC_FILE.test(imported)) {
        pending.push(imported);
        continue;
      }
      // Through a feature's public file: only the modules behind the names this module imports.
      const wanted = modulesExporting(imported, namesImported(id, imported));
      const behind = graph.getModuleInfo(imported)?.importedIds ?? [];
      pending.push(
        ...behind.filter((module) => wanted.some((base) => module.startsWith(`${base}.`))),
      );
    }
    if (dynamic) pending.push(...info.dynamicallyImportedIds);
  }
  return reached;
}

let signedInGroups: { graph: ModuleGraph; group: (id: string) => string | null } | undefined;
function signedInGroup(id: string, graph: ModuleGraph): string | null {
  if (signedInGroups?.graph !== graph) {
    const publicPages = reachedFrom(graph, PUBLIC, true);
    const modules = reachedFrom(graph, SIGNED_IN);
    for (const module of SIGNED_IN) modules.delete(module);
    signedInGroups = {
      graph,
      group: (module) =>
        modules.has(module) ? (publicPages.has(module) ? 'shell' : 'signed-in') : null,
    };
  }
  return signedInGroups.group(id);
}

// React Router's package exports name its development build for every condition a bundler resolves with
// (`import`, `module`, `default`): `vite build` would ship its development checks and warnings
// (`ENABLE_DEV_WARNINGS`). The production build sits next to it with the same API; `vite build` takes it.
// Tests and the dev server keep the development build and its warnings.
const routerDist = fileURLToPath(
  new URL('./node_modules/react-router/dist/production/', import.meta.url),
);
const productionRouter = [
  { find: /^react-router$/, replacement: `${routerDist}index.mjs` },
  { find: /^react-router\/dom$/, replacement: `${routerDist}dom-export.mjs` },
];

export default defineConfig(({ command }) => ({
  plugins: [react()],
  resolve: { alias: command === 'build' ? productionRouter : [] },
  server: { proxy },
  preview: { proxy },
  build: {
    outDir: 'dist',
    sourcemap: true,
    // dist/.vite/manifest.json: which chunks each route loads (make bench measures them).
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'app', tags: ['$initial'] },
            { name: signedInGroup, includeDependenciesRecursively: false },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/testing/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // Component tests drive whole pages (MUI, the store, msw); on a busy two-core machine one can take
    // several seconds, so the default 5 s limit fails them for load, not for a fault.
    testTimeout: 30_000,
  },
}));
