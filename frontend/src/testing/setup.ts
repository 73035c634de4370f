import '@testing-library/jest-dom/vitest';

import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

import { server } from './server';

// The suite runs many files at once on small machines: give `findBy…`/`waitFor` room before they give up.
configure({ asyncUtilTimeout: 4000 });

// jsdom has no matchMedia; MUI's colour-scheme handling asks for it.
if (typeof window.matchMedia !== 'function') {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string): MediaQueryList => {
      const list: MediaQueryList = {
        matches: false,
        media: query,
        onchange: null,
        // Deprecated, but part of the type and still called by some libraries.
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        addListener: () => undefined,
        // eslint-disable-next-line @typescript-eslint/no-deprecated
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      };
      return list;
    },
  });
}

// jsdom has no scrolling: it writes "Not implemented: Window's scrollTo()" for every navigation that
// scrolls to the top (the router's scroll restoration). Nothing is there to scroll.
window.scrollTo = () => undefined;

// RTK Query builds `new Request('/api/…')`. Node's Request (used under jsdom)
// has no page URL to resolve a relative path against, so give it the one the
// browser would use.
const NodeRequest = globalThis.Request;
class PageRelativeRequest extends NodeRequest {
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    super(typeof input === 'string' ? new URL(input, window.location.href) : input, init);
  }
}
globalThis.Request = PageRelativeRequest;

// A request no handler answers fails the test that made it: the page went somewhere the test did not
// expect, and what it showed then was an error the test never looked at. Only requests looked up while a
// test runs count: a request the page starts as the test ends is looked up after `resetHandlers` has
// removed the handlers that would have answered it, and it is nobody's finding.
const unhandled: string[] = [];
let testRunning = false;
beforeAll(() => {
  server.listen({
    onUnhandledRequest: (request) => {
      if (testRunning) unhandled.push(`${request.method} ${new URL(request.url).pathname}`);
    },
  });
});
beforeEach(() => {
  unhandled.length = 0;
  testRunning = true;
});
afterEach(() => {
  testRunning = false;
  const made = unhandled.splice(0);
  cleanup();
  server.resetHandlers();
  window.localStorage.clear();
  if (made.length) {
    throw new Error(`requests no handler answered (add one to the test): ${made.join(', ')}`);
  }
});
afterAll(() => {
  server.close();
});
