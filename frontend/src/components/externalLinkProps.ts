/** Attributes of a link to another site, opened in a new tab (pair it with `<NewTabHint />`). */
export const externalLinkProps = {
  target: '_blank',
  rel: 'noopener noreferrer',
} as const;
