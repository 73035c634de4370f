// After `vite build`: renders pages ahead of time into dist/prerendered/<page>.html (the landing page as
// index.html, the sign-in page as signin.html, the dashboard's signed-in shell as dashboard.html), each being
// dist/index.html with the page's markup in #root. The server sends such a file for its path instead of the
// bare index.html, so the page paints before its JavaScript arrives; the bundle then takes a public page over,
// or replaces the shell with the signed-in page (src/main.tsx). dist/prerendered/
// script-hashes.txt lists the hashes of their inline scripts, which the server's CSP allows.
//
//   node scripts/prerender.mjs

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';

// Browsers that know it hold the first paint until the whole page is parsed: a half-parsed page painted
// early (the sign-in card centred while only its logo has arrived) would shift when the rest comes.
const renderBlocking = '<link rel="expect" href="#prerendered-end" blocking="render" />';
const rootEnd = '<template id="prerendered-end"></template>';
// Until the bundle has taken the page over (src/main.tsx removes data-prerendered), its buttons do nothing:
// they say so by not taking clicks rather than by swallowing them.
const inertButtons = '<style>#root[data-prerendered] button{pointer-events:none}</style>';

/**
 * The script at the end of a prerendered page that asks for the page's code (the entry and the modules
 * of its route, in the order Vite listed them) once the page has painted, instead of from the head: the
 * page needs none of it to paint, and the first paint then never waits for, nor shares the connection
 * with, the code (on a slow network the browser would otherwise fetch ~200 KB of modules while it still
 * receives the page). The frame callback runs before the first paint and its timeout after it; a page
 * opened in a background tab paints no frames, so it asks at once.
 */
function codeLoader(files) {
  const list = JSON.stringify(files.map(({ href, preload }) => (preload ? href : [href])));
  return (
    `(function(){var done=false;function load(){if(done)return;done=true;` +
    `${list}.forEach(function(f){var e;if(typeof f==="string"){e=document.createElement("link");` +
    `e.rel="modulepreload";e.href=f}else{e=document.createElement("script");e.type="module";` +
    `e.src=f[0]}e.crossOrigin="";document.head.appendChild(e)})}` +
    `if(document.visibilityState==="hidden")load();` +
    `else requestAnimationFrame(function(){setTimeout(load,0)})})()`
  );
}

/**
 * The pages built ahead of time: the request path, the file the server looks for, the modules of its
 * routes, and how main.tsx treats it (`signedOut`: a public page it takes over; `shell`: the signed-in
 * layout around the outline of a page, which it replaces with the page).
 */
const PAGES = [
  {
    path: '/',
    file: 'index.html',
    modules: ['src/features/landing/LandingPage.tsx'],
    kind: 'signedOut',
  },
  {
    path: '/signin',
    file: 'signin.html',
    modules: ['src/features/auth/SignInPage.tsx'],
    kind: 'signedOut',
  },
  {
    path: '/dashboard',
    file: 'dashboard.html',
    modules: ['src/features/layout/AppLayout.tsx', 'src/features/dashboard/DashboardPage.tsx'],
    kind: 'shell',
  },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const work = mkdtempSync(join(tmpdir(), 'portal-prerender-'));
try {
  // The same sources built for Node: asset URLs (the hero image) come out as in the browser bundle.
  await build({
    root,
    logLevel: 'warn',
    build: {
      ssr: 'src/prerender.tsx',
      outDir: work,
      emptyOutDir: true,
      manifest: false,
      sourcemap: false,
      copyPublicDir: false,
      // Never as data: URLs: the browser bundle has the logo as a file too (index.html links it as the icon).
      assetsInlineLimit: 0,
    },
    // Bundle the dependencies too: several MUI packages are ES modules Node cannot load on its own.
    ssr: { noExternal: true },
  });
  const { renderPage, signedOutShellScript } = await import(
    pathToFileURL(join(work, 'prerender.js')).href
  );
  const shell = readFileSync(join(dist, 'index.html'), 'utf8');
  // The bundle takes a page over once its route's code is here: that code is fetched with the entry's.
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
  const closure = (key, into = new Set()) => {
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in dist/.vite/manifest.json`);
    if (into.has(chunk.file)) return into;
    into.add(chunk.file);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const [entryKey] = Object.entries(manifest).find(([, chunk]) => chunk.isEntry) ?? [];
  const entryFiles = closure(entryKey);
  const preloads = (modules) =>
    [...new Set(modules.flatMap((module) => [...closure(module)]))]
      .filter((file) => !entryFiles.has(file))
      .map((file) => ({ href: `/${file}`, preload: true }));
  const emptyRoot = '<div id="root"></div>';
  if (!shell.includes(emptyRoot)) throw new Error(`dist/index.html has no ${emptyRoot}`);
  // The entry script and its preloads leave the head: the page's code is asked for once the page has
  // painted (see codeLoader).
  const entryScripts = [];
  const shellWithoutCode = shell.replace(
    /\s*<(?:script type="module" crossorigin src|link rel="modulepreload" crossorigin href)="([^"]+)"[^>]*>(?:<\/script>)?/g,
    (tag, href) => {
      entryScripts.push({ href, preload: tag.includes('modulepreload') });
      return '';
    },
  );
  if (!entryScripts.some(({ preload }) => !preload)) {
    throw new Error('dist/index.html has no <script type="module" crossorigin src=…>');
  }
  mkdirSync(join(dist, 'prerendered'), { recursive: true });
  const scriptHashes = new Set();
  for (const { path, file, modules, kind } of PAGES) {
    const rendered = await renderPage(path, { signedIn: kind === 'shell' });
    // Emotion writes each style next to the first element that uses it, and the theme's global styles (its
    // CSS variables among them) after the elements that read them. Gathered in the head, in the same order,
    // they apply from the first paint (a page painted while its HTML still arrives does not shift) and the
    // browser parses one style sheet instead of dozens. Emotion reads the names of what is already there from
    // the data-emotion attribute, in this form too.
    const globals = [];
    const names = [];
    const rules = [];
    const body = rendered.body.replace(
      /<style data-emotion="(css(?:-global)?) ([^"]*)"[^>]*>([\s\S]*?)<\/style>/g,
      (style, key, styleNames, css) => {
        if (key === 'css-global') globals.push(style);
        else {
          names.push(styleNames);
          rules.push(css);
        }
        return '';
      },
    );
    // React writes the preload of a high-priority image (the landing page's hero) where the image is; in
    // the head, before the scripts, it is fetched before the code, which the browser would otherwise ask for first.
    const imagePreloads = [];
    const markup = body.replace(/<link rel="preload" as="image"[^>]*>/g, (link) => {
      imagePreloads.push(link);
      return '';
    });
    const styles = `${globals.join('')}<style data-emotion="css ${names.join(' ')}">${rules.join('')}</style>`;
    const head = rendered.head;
    // The server's Content-Security-Policy allows inline scripts by hash only: list each one's.
    for (const [, script] of `${head}${body}`.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
      scriptHashes.add(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    }
    const loader = codeLoader([...entryScripts, ...preloads(modules)]);
    // Before the end marker, so that it runs before the first paint.
    const shellCheck = kind === 'shell' ? signedOutShellScript() : '';
    const signedOutCheck = shellCheck ? `<script>${shellCheck}</script>` : '';
    for (const script of [loader, shellCheck].filter(Boolean)) {
      scriptHashes.add(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    }
    const html = shellWithoutCode
      .replace(
        '</head>',
        `${imagePreloads.join('')}${styles}${inertButtons}\n    ${renderBlocking}\n  </head>`,
      )
      .replace('<body>', `<body>\n    ${head}`)
      .replace(
        emptyRoot,
        `<div id="root" data-prerendered="${kind}">${markup}</div>${signedOutCheck}${rootEnd}<script>${loader}</script>`,
      );
    writeFileSync(join(dist, 'prerendered', file), html);
    console.log(
      `prerendered ${path} -> dist/prerendered/${file} (${(html.length / 1024).toFixed(1)} KB)`,
    );
  }
  writeFileSync(join(dist, 'prerendered', 'script-hashes.txt'), [...scriptHashes, ''].join('\n'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
