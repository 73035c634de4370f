import { describe, expect, it } from 'vitest';

import { atPasskeyOrigin, passkeysElsewhere } from './passkeySite';

const builtin = { kind: 'builtin' as const, url: '', authUrl: '', anonKey: '' };

describe('where passkeys work', () => {
  it('is here when the server serves them at this origin', () => {
    expect(
      passkeysElsewhere(
        { identity: builtin, passkeyOrigin: 'http://localhost:8080' },
        'http://localhost:8080',
      ),
    ).toBeNull();
  });

  it('is localhost when the page is at the loopback address the server gave as its public URL', () => {
    expect(
      passkeysElsewhere(
        { identity: builtin, passkeyOrigin: 'http://localhost:8080' },
        'http://127.0.0.1:8080',
      ),
    ).toBe('http://localhost:8080');
  });

  it('is left to the server when it serves none, and to a hosted Supabase', () => {
    expect(
      passkeysElsewhere({ identity: builtin, passkeyOrigin: null }, 'http://127.0.0.1:8080'),
    ).toBeNull();
    expect(
      passkeysElsewhere(
        { identity: { ...builtin, kind: 'hosted' }, passkeyOrigin: 'http://localhost:8080' },
        'http://127.0.0.1:8080',
      ),
    ).toBeNull();
  });

  it('keeps the page when it sends the browser there', () => {
    expect(
      atPasskeyOrigin('http://localhost:8080', {
        pathname: '/signin',
        search: '?token=t',
        hash: '#x',
      }),
    ).toBe('http://localhost:8080/signin?token=t#x');
  });
});
