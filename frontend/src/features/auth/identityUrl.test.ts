import { describe, expect, it } from 'vitest';

import { identityAuthUrl } from './identityUrl';

const builtin = (authUrl: string) => ({ kind: 'builtin' as const, url: '', authUrl, anonKey: 'k' });

describe('identityAuthUrl', () => {
  it('calls the built-in identity service on the origin the page was loaded from', () => {
    // PORTAL_PUBLIC_URL is 127.0.0.1; the page was opened at localhost for passkeys (and the reverse).
    expect(identityAuthUrl(builtin('http://127.0.0.1:8080/auth/v1'), 'http://localhost:8080')).toBe(
      'http://localhost:8080/auth/v1',
    );
    expect(identityAuthUrl(builtin('http://localhost:8080/auth/v1'), 'http://127.0.0.1:8080')).toBe(
      'http://127.0.0.1:8080/auth/v1',
    );
    // The path the server names is kept (a portal under a prefix).
    expect(
      identityAuthUrl(builtin('https://example.test/portal/auth/v1/'), 'https://example.test'),
    ).toBe('https://example.test/portal/auth/v1');
  });

  it('calls a hosted Supabase where the server says, and answers nothing while unknown', () => {
    const hosted = {
      kind: 'hosted' as const,
      url: 'https://abc.supabase.co',
      authUrl: 'https://abc.supabase.co/auth/v1',
      anonKey: 'k',
    };
    expect(identityAuthUrl(hosted, 'http://localhost:8080')).toBe(
      'https://abc.supabase.co/auth/v1',
    );
    expect(identityAuthUrl(builtin(''), 'http://localhost:8080')).toBe('');
    // By default, this page's own origin.
    expect(identityAuthUrl(builtin('http://127.0.0.1:8080/auth/v1'))).toBe(
      `${window.location.origin}/auth/v1`,
    );
  });
});
