import { useEffect } from 'react';

export const PRODUCT_TITLE = 'Developer Portal';

/** The browser tab's title of a page: `My Apps · Developer Portal`, or the product's name alone. */
export function documentTitle(page?: string): string {
  return page ? `${page} · ${PRODUCT_TITLE}` : PRODUCT_TITLE;
}

/**
 * Sets the document title while the page is shown. `page` may be undefined while what names the page
 * (an app's name) is loading: the title then says the product's name until it arrives.
 */
export function useDocumentTitle(page?: string): void {
  const title = documentTitle(page);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
