import { renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { Provider } from 'react-redux';
import { describe, expect, it } from 'vitest';

import { makeStore } from '../../app/store';
import { testPublicConfig } from '../../testing/handlers';
import { server } from '../../testing/server';
import {
  companionInstallLink,
  DEFAULT_PUBLIC_CONFIG,
  normalizePublicConfig,
  usePublicConfig,
} from '.';

function renderUsePublicConfig() {
  const store = makeStore();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <Provider store={store}>{children}</Provider>
  );
  return renderHook(() => usePublicConfig(), { wrapper });
}

describe('usePublicConfig', () => {
  it('gives the defaults while loading, then the server configuration', async () => {
    const { result } = renderUsePublicConfig();

    expect(result.current).toEqual(DEFAULT_PUBLIC_CONFIG);
    await waitFor(() => {
      expect(result.current).toEqual(testPublicConfig);
    });
  });

  it('keeps the defaults when the server cannot be reached', async () => {
    let calls = 0;
    server.use(
      http.get('*/api/public-config', () => {
        calls += 1;
        return HttpResponse.error();
      }),
    );
    const { result } = renderUsePublicConfig();

    await waitFor(() => {
      expect(calls).toBe(1);
    });
    expect(result.current).toEqual(DEFAULT_PUBLIC_CONFIG);
  });
});

describe('normalizePublicConfig', () => {
  it('keeps a well-formed configuration as it is', () => {
    expect(normalizePublicConfig(testPublicConfig)).toEqual(testPublicConfig);
  });

  it('falls back field by field on missing or malformed values', () => {
    const config = normalizePublicConfig({
      docsUrl: 'javascript:alert(1)',
      sourceUrl: 'not a url',
      exampleAppUrl: 'https://example.test/app',
      providers: ['google', 3, ''],
      identity: { url: 'https://id.example.test' },
      keepLoopbackHttp: 'yes',
      monitorIntervalSecs: -5,
      companionInstallUrl: 'javascript:alert("{installUrl}")',
    });

    expect(config).toEqual({
      docsUrl: DEFAULT_PUBLIC_CONFIG.docsUrl,
      sourceUrl: DEFAULT_PUBLIC_CONFIG.sourceUrl,
      exampleAppUrl: 'https://example.test/app',
      providers: ['google'],
      identity: {
        kind: 'builtin',
        url: 'https://id.example.test',
        authUrl: 'https://id.example.test/auth/v1',
        anonKey: '',
      },
      keepLoopbackHttp: false,
      monitorIntervalSecs: 60,
      companionInstallUrl: null,
      passkeyOrigin: null,
      mailSent: true,
    });
  });

  it('says no e-mail goes out only when the server says so', () => {
    expect(normalizePublicConfig({ mailSent: false }).mailSent).toBe(false);
    expect(normalizePublicConfig({ mailSent: 'no' }).mailSent).toBe(true);
    expect(normalizePublicConfig({}).mailSent).toBe(true);
  });

  it('reads where passkeys work as an http(s) origin only', () => {
    expect(normalizePublicConfig({ passkeyOrigin: 'http://localhost:8080/' }).passkeyOrigin).toBe(
      'http://localhost:8080',
    );
    expect(normalizePublicConfig({ passkeyOrigin: 'javascript:alert(1)' }).passkeyOrigin).toBe(
      null,
    );
    expect(normalizePublicConfig({}).passkeyOrigin).toBe(null);
  });

  it('reads the companion app install template and fills it with URL-encoded values', () => {
    const template = 'mentra://install?package={packageName}&link={installUrl}';
    expect(normalizePublicConfig({ companionInstallUrl: template }).companionInstallUrl).toBe(
      template,
    );
    expect(normalizePublicConfig({ companionInstallUrl: 'no scheme' }).companionInstallUrl).toBe(
      null,
    );
    expect(
      companionInstallLink(template, 'com.acme.x', 'https://portal.test/install/t?a=1&b=2'),
    ).toBe(
      'mentra://install?package=com.acme.x&link=https%3A%2F%2Fportal.test%2Finstall%2Ft%3Fa%3D1%26b%3D2',
    );
  });

  it('reads the monitor interval when it is a whole number of seconds, 0 meaning off', () => {
    expect(normalizePublicConfig({ monitorIntervalSecs: 0 }).monitorIntervalSecs).toBe(0);
    expect(normalizePublicConfig({ monitorIntervalSecs: 30 }).monitorIntervalSecs).toBe(30);
    expect(normalizePublicConfig({ monitorIntervalSecs: 1.5 }).monitorIntervalSecs).toBe(60);
  });

  it('reads the local-development rule for server URLs only when it is true', () => {
    expect(normalizePublicConfig({ keepLoopbackHttp: true }).keepLoopbackHttp).toBe(true);
    expect(normalizePublicConfig({ keepLoopbackHttp: 1 }).keepLoopbackHttp).toBe(false);
    expect(normalizePublicConfig({}).keepLoopbackHttp).toBe(false);
  });

  it.each([null, 'text', 42, []])(
    'gives the defaults for a body that is not an object (%j)',
    (raw) => {
      expect(normalizePublicConfig(raw)).toEqual(DEFAULT_PUBLIC_CONFIG);
    },
  );
});
