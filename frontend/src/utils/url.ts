/**
 * URL normalisation (specification §5), applied on blur and before saving. The server applies the same
 * rule; both run the vectors in `tests/vectors/url_normalisation.json`.
 *
 * Trim white space; an empty value stays empty; upgrade `http://` to `https://`; add `https://` when there
 * is no `http(s)://` scheme; remove trailing slashes (and white space before them) after the scheme.
 */
export function normaliseUrl(input: string): string {
  const trimmed = input.trim();
  if (trimmed === '') return '';
  const scheme = /^https?:\/\//i.exec(trimmed);
  const rest = scheme ? trimmed.slice(scheme[0].length) : trimmed;
  return `https://${rest.replace(/[\s/]+$/u, '')}`;
}
