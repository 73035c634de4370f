/**
 * The Edit App form: its values, the checks before saving (spec §5, and the settings and tools rules of
 * every write), the update body, and the server's field errors mapped onto the form.
 */
import {
  checkPublicUrl,
  checkServerUrl,
  INVALID_URL,
  normaliseServerUrl,
  normaliseUrl,
} from '../../../utils/url';
import { validateSettings, validateTools } from '../config/validate';
import { MAX_ONBOARDING_LENGTH } from '../create/validation';
import type {
  App,
  AppType,
  HardwareRequirement,
  Permission,
  Setting,
  Tool,
  UpdateAppRequest,
} from '../types';

export const SAVED_MESSAGE = 'App updated successfully';
export const SAVE_FAILED = 'Failed to update app. Please try again.';
export const LOAD_FAILED = 'Failed to load App data. Please try again.';
export const notFoundMessage = (name: string) =>
  `App "${name}" not found. Redirecting to app list...`;
/** How long the save confirmation stays (spec §4). */
export const SAVED_BANNER_MS = 3000;
export const MOVED = 'App moved to new organization successfully';
/** How long the success of a move shows before going to /apps (spec §4). */
export const MOVE_REDIRECT_MS = 1500;

export interface EditAppValues {
  name: string;
  description: string;
  onboardingInstructions: string;
  publicUrl: string;
  logoURL: string;
  webviewURL: string;
  appType: AppType;
  permissions: Permission[];
  hardwareRequirements: HardwareRequirement[];
  settings: Setting[];
  tools: Tool[];
}

/** Errors keyed by form field (`publicUrl`) or list path (`settings[2].key`). */
export type EditAppErrors = Record<string, string>;

export function valuesOf(app: App): EditAppValues {
  return {
    name: app.name,
    description: app.description,
    onboardingInstructions: app.onboardingInstructions,
    publicUrl: app.publicUrl,
    logoURL: app.logoURL,
    webviewURL: app.webviewURL ?? '',
    appType: app.appType,
    permissions: app.permissions,
    hardwareRequirements: app.hardwareRequirements,
    settings: app.settings,
    tools: app.tools,
  };
}

/**
 * The values with both URLs normalised (on save, spec §5); `keepLoopbackHttp` is the server's
 * local-development rule for the server URL (`GET /api/public-config`).
 */
export function normalised(values: EditAppValues, keepLoopbackHttp = false): EditAppValues {
  return {
    ...values,
    publicUrl: normaliseServerUrl(values.publicUrl, keepLoopbackHttp),
    webviewURL: normaliseUrl(values.webviewURL),
  };
}

/** Every problem the browser can see before saving; empty when the form may be sent. */
export function validateEditApp(values: EditAppValues, keepLoopbackHttp = false): EditAppErrors {
  const errors: EditAppErrors = {};
  if (!values.name.trim()) errors.name = 'Display name is required';
  if (!values.description.trim()) errors.description = 'Description is required';
  if (values.onboardingInstructions.length > MAX_ONBOARDING_LENGTH) {
    errors.onboardingInstructions = `Onboarding instructions must be ${String(MAX_ONBOARDING_LENGTH)} characters or fewer`;
  }
  // URLs are checked as they will be sent (normalised), by the rules the server applies.
  const publicUrl = checkServerUrl(values.publicUrl, keepLoopbackHttp);
  if (!publicUrl.ok) {
    errors.publicUrl = publicUrl.problem === 'empty' ? 'Server URL is required' : INVALID_URL;
  }
  if (!values.logoURL.trim()) errors.logoURL = 'Logo is required';
  const webview = checkPublicUrl(values.webviewURL);
  if (!webview.ok && webview.problem === 'invalid') errors.webviewURL = INVALID_URL;
  for (const issue of [...validateSettings(values.settings), ...validateTools(values.tools)]) {
    errors[issue.path] ??= issue.message;
  }
  return errors;
}

/**
 * The `PUT` body (only the fields the server writes). The webview URL is always sent as text: the server
 * reads `null` as "unchanged" and an empty string as "cleared".
 */
export function updateBody(values: EditAppValues, keepLoopbackHttp = false): UpdateAppRequest {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    onboardingInstructions: values.onboardingInstructions.trim(),
    publicUrl: normaliseServerUrl(values.publicUrl, keepLoopbackHttp),
    logoURL: values.logoURL.trim(),
    webviewURL: normaliseUrl(values.webviewURL),
    appType: values.appType,
    settings: values.settings,
    tools: values.tools,
    hardwareRequirements: values.hardwareRequirements,
  };
}

/** Permission types on `next` that `previous` did not have. */
export function addedPermissions(previous: readonly Permission[], next: readonly Permission[]) {
  return next.filter((p) => !previous.some((q) => q.type === p.type)).map((p) => p.type);
}

/** Whether two permission lists differ (types, order or descriptions). */
export function permissionsChanged(previous: readonly Permission[], next: readonly Permission[]) {
  const shape = (list: readonly Permission[]) =>
    JSON.stringify(list.map((p) => [p.type, (p.description ?? '').trim()]));
  return shape(previous) !== shape(next);
}

/**
 * The server's `fields` as form errors: list paths are kept (`settings[2].key`); anything deeper under
 * `permissions` or `hardwareRequirements` is shown on the list.
 */
export function serverErrors(fields: Record<string, string> | undefined): EditAppErrors {
  const errors: EditAppErrors = {};
  for (const [path, message] of Object.entries(fields ?? {})) {
    const head = /^[A-Za-z]+/u.exec(path)?.[0] ?? path;
    const key = head === 'permissions' || head === 'hardwareRequirements' ? head : path;
    errors[key] ??= message;
  }
  return errors;
}

/** Which section an error key belongs to, for the summary above Save. */
export const errorCount = (errors: EditAppErrors) => Object.keys(errors).length;
