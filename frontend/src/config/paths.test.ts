import { describe, expect, it } from 'vitest';

import { paths } from './paths';

describe('paths', () => {
  it('builds the edit path of an app from its package name', () => {
    expect(paths.appEdit('com.example.weather')).toBe('/apps/com.example.weather/edit');
  });

  it('escapes what does not belong in a path segment', () => {
    expect(paths.appEdit('a/b c')).toBe('/apps/a%2Fb%20c/edit');
  });

  it('adds the invitation token to the sign-in path only when there is one', () => {
    expect(paths.signIn()).toBe('/signin');
    expect(paths.signIn('t0k/en')).toBe('/signin?token=t0k%2Fen');
    expect(paths.inviteAccept('abc')).toBe('/invite/accept?token=abc');
  });

  it('builds the organization settings query', () => {
    expect(paths.orgSettings()).toBe('/org-settings');
    expect(paths.orgSettings({ welcome: true, orgName: "Ann's Organization", orgId: 'o1' })).toBe(
      '/org-settings?welcome=true&orgName=Ann%27s+Organization&orgId=o1',
    );
  });
});
