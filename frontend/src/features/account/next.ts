import { paths } from '../../config/paths';

/** Where to go back to after a second-factor step: a path of this site only, else `fallback`. */
export function safeNext(next: string | null, fallback: string): string;
export function safeNext(next: string | null): string | null;
export function safeNext(next: string | null, fallback?: string): string | null {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\')
    ? next
    : (fallback ?? null);
}

/** What a page to go back to is called. */
export function placeOf(next: string): string {
  return next.startsWith(paths.admin) ? 'the Admin Panel' : 'where you were';
}
