import { lazy } from 'react';

// The row and page actions' dialogs, each loaded when it first opens (under a Suspense boundary, such as
// one with `DialogLoading`): the apps table and the app pages show without their code.
export const ApiKeyDialog = lazy(async () => ({
  default: (await import('./ApiKeyDialog')).ApiKeyDialog,
}));
export const DeleteAppDialog = lazy(async () => ({
  default: (await import('./DeleteAppDialog')).DeleteAppDialog,
}));
export const PublishDialog = lazy(async () => ({
  default: (await import('./PublishDialog')).PublishDialog,
}));
export const ShareDialog = lazy(async () => ({
  default: (await import('./ShareDialog')).ShareDialog,
}));
