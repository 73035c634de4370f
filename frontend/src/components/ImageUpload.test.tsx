import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

import { baseApi } from '../api/baseApi';
import { signedInStore } from '../testing/apps';
import { renderWithProviders } from '../testing/render';
import { server } from '../testing/server';
import { ImageUpload } from './ImageUpload';
import {
  IMAGE_TOO_LARGE,
  imageFileProblem,
  imageIdOf,
  INVALID_IMAGE_TYPE,
} from './ImageUploadRequest';

const OLD_ID = '0b5c6a3e-7f1d-4c1e-9a8b-2f0e3d4c5b6a';

/** A query tagged as the data of one app, to see what an upload invalidates. */
const probeApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    probeApp: build.query<number, string>({
      queryFn: () => ({ data: Date.now() }),
      providesTags: (_r, _e, packageName) => [{ type: 'App', id: packageName }],
    }),
  }),
});

function Harness({ initial, metadata }: { initial: string; metadata?: Record<string, string> }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <ImageUpload label="Logo" value={value} onChange={setValue} metadata={metadata} />
      <output data-testid="value">{value}</output>
    </>
  );
}

describe('image upload', { timeout: 20000 }, () => {
  it('replaces the current image, sending its id with the organization and the token', async () => {
    const seen: { replace: FormDataEntryValue | null; org: string | null; auth: string | null }[] =
      [];
    server.use(
      http.post('*/api/dev/images/upload', async ({ request }) => {
        const form = await request.formData();
        seen.push({
          replace: form.get('replaceImageId'),
          org: request.headers.get('x-org-id'),
          auth: request.headers.get('Authorization'),
        });
        return HttpResponse.json({ url: 'http://localhost:3000/api/images/new-id' });
      }),
    );
    const { user } = renderWithProviders(
      <Harness initial={`http://localhost:3000/api/images/${OLD_ID}`} />,
      { store: signedInStore() },
    );
    expect(screen.getByRole('button', { name: 'Replace Image' })).toBeInTheDocument();
    await user.upload(
      screen.getByTestId('image-upload-input'),
      new File([new Uint8Array([1])], 'l.png', { type: 'image/png' }),
    );
    expect(await screen.findByText('http://localhost:3000/api/images/new-id')).toBeInTheDocument();
    expect(seen).toEqual([{ replace: OLD_ID, org: 'org-1', auth: 'Bearer core-1' }]);
  });

  it("shows the server's reason for a full quota or too many uploads", async () => {
    const reasons = [
      [
        413,
        "This image would take your organization's images over their 100 MB storage quota. Delete images you no longer use first.",
      ],
      [
        429,
        'You have uploaded 60 images in the last hour, the most allowed. Please try again later.',
      ],
    ] as const;
    for (const [status, reason] of reasons) {
      server.use(
        http.post('*/api/dev/images/upload', () =>
          HttpResponse.json(
            { error: reason, code: status === 413 ? 'IMAGE_QUOTA_EXCEEDED' : 'RATE_LIMITED' },
            { status, headers: { 'Retry-After': '60' } },
          ),
        ),
      );
      const { user, unmount } = renderWithProviders(<Harness initial="" />, {
        store: signedInStore(),
      });
      await user.upload(
        screen.getByTestId('image-upload-input'),
        new File([new Uint8Array([1])], 'l.png', { type: 'image/png' }),
      );
      expect(await screen.findByText(reason)).toBeInTheDocument();
      unmount();
    }
  });

  it('reloads the data of the app whose logo it replaced', async () => {
    server.use(
      http.post('*/api/dev/images/upload', () =>
        HttpResponse.json({ url: 'http://localhost:3000/api/images/new-id' }),
      ),
    );
    const store = signedInStore();
    const { user } = renderWithProviders(
      <Harness
        initial={`http://localhost:3000/api/images/${OLD_ID}`}
        metadata={{ appPackageName: 'com.acme.weather' }}
      />,
      { store },
    );
    const probe = store.dispatch(probeApi.endpoints.probeApp.initiate('com.acme.weather'));
    const first = (await probe).data;
    await user.upload(
      screen.getByTestId('image-upload-input'),
      new File([new Uint8Array([1])], 'l.png', { type: 'image/png' }),
    );
    expect(await screen.findByText('http://localhost:3000/api/images/new-id')).toBeInTheDocument();
    await waitFor(() => {
      expect(
        probeApi.endpoints.probeApp.select('com.acme.weather')(store.getState()).data,
      ).not.toBe(first);
    });
    probe.unsubscribe();
  });

  it('says when the preview cannot be loaded', async () => {
    renderWithProviders(<Harness initial="https://elsewhere.test/missing.png" />, {
      store: signedInStore(),
    });
    const preview = screen.getByRole('img', { name: 'Logo preview' });
    preview.dispatchEvent(new Event('error'));
    expect(await screen.findByText('Failed to load image')).toBeInTheDocument();
  });
});

describe('image rules', () => {
  it('takes the image id from one of the portal image URLs only', () => {
    expect(imageIdOf(`https://portal.test/api/images/${OLD_ID}`)).toBe(OLD_ID);
    expect(imageIdOf(`/api/images/${OLD_ID}?v=2`)).toBe(OLD_ID);
    expect(imageIdOf('https://cdn.test/logo.png')).toBeNull();
    expect(imageIdOf('')).toBeNull();
  });

  it('accepts PNG, JPEG, GIF and WebP up to 10 MB', () => {
    expect(imageFileProblem({ type: 'image/webp', size: 10 * 1024 * 1024 })).toBeNull();
    expect(imageFileProblem({ type: 'image/jpg', size: 1 })).toBeNull();
    expect(imageFileProblem({ type: 'image/svg+xml', size: 1 })).toBe(INVALID_IMAGE_TYPE);
    expect(imageFileProblem({ type: 'image/png', size: 10 * 1024 * 1024 + 1 })).toBe(
      IMAGE_TOO_LARGE,
    );
  });
});
