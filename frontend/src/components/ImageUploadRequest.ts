/**
 * Image upload over `POST /api/dev/images/upload` (multipart `file`, optional `metadata` JSON and
 * `replaceImageId`), through XMLHttpRequest so that the screen can show the upload's progress.
 */

export const ALLOWED_IMAGE_TYPES = [
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/gif',
  'image/webp',
];
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export const INVALID_IMAGE_TYPE = 'Please select a valid image file (PNG, JPEG, GIF, or WebP)';
export const IMAGE_TOO_LARGE = 'Image size must be less than 10MB';
export const UPLOAD_FAILED = 'Failed to upload image. Please try again.';
export const IMAGE_LOAD_FAILED = 'Failed to load image';

/** Why a file cannot be uploaded, or `null` when it can (spec §5). */
export function imageFileProblem(file: Pick<File, 'type' | 'size'>): string | null {
  if (!ALLOWED_IMAGE_TYPES.includes(file.type.toLowerCase())) return INVALID_IMAGE_TYPE;
  if (file.size > MAX_IMAGE_BYTES) return IMAGE_TOO_LARGE;
  return null;
}

/** The image id of one of the portal's image URLs (`…/api/images/{id}`), else `null`. */
export function imageIdOf(url: string | null | undefined): string | null {
  if (!url) return null;
  const match = /\/api\/images\/([A-Za-z0-9-]+)(?:[?#].*)?$/.exec(url.trim());
  return match?.[1] ?? null;
}

export interface UploadOptions {
  file: File;
  orgId: string;
  bearer: string | null;
  /** `{appPackageName}` and the like, sent as the `metadata` part. */
  metadata?: Record<string, string>;
  /** An image of the organization that the upload replaces. */
  replaceImageId?: string | null;
  /** Called with 0–100 as the bytes go out. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

/** A failed upload: the HTTP status (0 when the server was not reached) and the server's message. */
export class UploadError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'UploadError';
    this.status = status;
  }
}

/** Sends the image and answers its delivery URL. */
export function uploadImage({
  file,
  orgId,
  bearer,
  metadata,
  replaceImageId,
  onProgress,
  signal,
}: UploadOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file);
    if (metadata && Object.keys(metadata).length > 0)
      form.append('metadata', JSON.stringify(metadata));
    if (replaceImageId) form.append('replaceImageId', replaceImageId);

    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/dev/images/upload');
    xhr.withCredentials = true;
    if (bearer) xhr.setRequestHeader('Authorization', `Bearer ${bearer}`);
    xhr.setRequestHeader('x-org-id', orgId);
    xhr.responseType = 'text';

    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) {
        onProgress?.(Math.round((event.loaded / event.total) * 100));
      }
    });
    xhr.addEventListener('load', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      const record =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      if (xhr.status >= 200 && xhr.status < 300 && typeof record.url === 'string') {
        onProgress?.(100);
        resolve(record.url);
        return;
      }
      const message = typeof record.error === 'string' ? record.error : UPLOAD_FAILED;
      reject(new UploadError(xhr.status, message));
    });
    xhr.addEventListener('error', () => {
      reject(new UploadError(0, UPLOAD_FAILED));
    });
    xhr.addEventListener('abort', () => {
      reject(new UploadError(0, 'Upload cancelled'));
    });
    signal?.addEventListener('abort', () => {
      xhr.abort();
    });
    xhr.send(form);
  });
}

/**
 * What to tell the person about a failed upload: the server's own words for a refused file or field (400), a full storage
 * quota (413) or too many uploads (429).
 */
export function uploadFailureMessage(error: unknown): string {
  if (error instanceof UploadError && [400, 413, 415, 429].includes(error.status))
    return error.message;
  return UPLOAD_FAILED;
}
