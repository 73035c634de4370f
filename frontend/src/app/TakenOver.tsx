import { useEffect, type ReactNode } from 'react';

/**
 * Marks a page rendered at build time as live once React has taken it over: until then its buttons do not
 * take clicks (the page's style sheet ignores pointer events on them while `data-prerendered` is set, see
 * scripts/prerender.mjs).
 */
export function TakenOver({ rootId, children }: { rootId: string; children: ReactNode }) {
  useEffect(() => {
    document.getElementById(rootId)?.removeAttribute('data-prerendered');
  }, [rootId]);
  return children;
}
