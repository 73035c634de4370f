import { useCallback } from 'react';

import { baseApi, LIST } from '../api/baseApi';
import { useAppDispatch, useAppSelector } from '../app/store';
import { selectBearer } from '../session/authSlice';
import { selectCurrentOrgId } from '../session/orgSlice';
import { imageIdOf, UploadError, uploadImage } from './ImageUploadRequest';

export interface ImageUploadOptions {
  /** The image shown now ('' for none): one of the organization's is replaced, not kept beside the new one. */
  current: string;
  /** `{appPackageName}` and the like. */
  metadata?: Record<string, string> | undefined;
  /** Called with 0–100 as the bytes go out. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/**
 * What the cached data that may show a replaced image is tagged with: the app the image belongs to (and the
 * app list), else the organization (whose profile shows its logo).
 */
function replacedImageTags(orgId: string, metadata: Record<string, string> | undefined) {
  const app = metadata?.appPackageName;
  return app
    ? [
        { type: 'App' as const, id: app },
        { type: 'App' as const, id: LIST },
      ]
    : [
        { type: 'Org' as const, id: orgId },
        { type: 'Org' as const, id: LIST },
      ];
}

/**
 * Uploads images for the current organization with the session's token (both read from the store). An
 * upload that replaces an image removes the old one on the server, so what showed it is loaded again.
 */
export function useImageUpload() {
  const bearer = useAppSelector(selectBearer);
  const orgId = useAppSelector(selectCurrentOrgId);
  const dispatch = useAppDispatch();

  const upload = useCallback(
    async (file: File, { current, metadata, onProgress, signal }: ImageUploadOptions) => {
      if (!orgId) throw new UploadError(0, 'No organization is selected');
      const send = (replaceImageId: string | null) =>
        uploadImage({ file, orgId, bearer, metadata, replaceImageId, onProgress, signal });
      const replacing = imageIdOf(current);
      if (!replacing) return send(null);
      try {
        const url = await send(replacing);
        dispatch(baseApi.util.invalidateTags(replacedImageTags(orgId, metadata)));
        return url;
      } catch (first) {
        // The current image is not one this organization may replace: upload a new one instead.
        if (first instanceof UploadError && first.status === 404) return send(null);
        throw first;
      }
    },
    [orgId, bearer, dispatch],
  );

  return { orgId, upload };
}
