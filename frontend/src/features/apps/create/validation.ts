import {
  checkPublicUrl,
  checkServerUrl,
  INVALID_URL,
  normaliseServerUrl,
  normaliseUrl,
} from '../../../utils/url';
import { packageNameError } from '../../../utils/packageName';
import type { AppType, HardwareRequirement, Permission, RegisterAppRequest } from '../types';

/** Longest onboarding text (spec §5, §9: about five lines). */
export const MAX_ONBOARDING_LENGTH = 2000;

export const NO_ORGANIZATION = 'Please select an organization to create this app';
export const PACKAGE_NAME_TAKEN_FIELD =
  'This package name is already in use. Please choose another.';
export const PACKAGE_NAME_TAKEN_BANNER = 'Package name is already in use';
export const CREATE_FAILED = 'Failed to create app. Please try again.';
export const NETWORK_ERROR = 'Network error. Please check your connection and try again.';
export { INVALID_URL };

export interface CreateAppValues {
  packageName: string;
  name: string;
  description: string;
  onboardingInstructions: string;
  publicUrl: string;
  logoURL: string;
  webviewURL: string;
  appType: AppType;
  permissions: Permission[];
  hardwareRequirements: HardwareRequirement[];
}

export type CreateAppField = keyof CreateAppValues;
export type CreateAppErrors = Partial<Record<CreateAppField, string>>;

export const emptyCreateApp = (): CreateAppValues => ({
  packageName: '',
  name: '',
  description: '',
  onboardingInstructions: '',
  publicUrl: '',
  logoURL: '',
  webviewURL: '',
  appType: 'background',
  permissions: [],
  hardwareRequirements: [],
});

/** Whether a server or webview URL passes the server's rules once normalised (`checkPublicUrl`). */
export function isValidUrl(value: string): boolean {
  return checkPublicUrl(value).ok;
}

/**
 * The spec §5 checks of the Create App form; URLs are checked as they will be sent (normalised), by the
 * rules the server applies (`utils/url.ts`); `keepLoopbackHttp` is the server's local-development rule for
 * the server URL (`GET /api/public-config`).
 */
export function validateCreateApp(
  values: CreateAppValues,
  keepLoopbackHttp = false,
): CreateAppErrors {
  const errors: CreateAppErrors = {};
  const pkg = packageNameError(values.packageName);
  if (pkg) errors.packageName = pkg;
  if (!values.name.trim()) errors.name = 'Display name is required';
  if (!values.description.trim()) errors.description = 'Description is required';
  if (values.onboardingInstructions.length > MAX_ONBOARDING_LENGTH) {
    errors.onboardingInstructions = `Onboarding instructions must be ${MAX_ONBOARDING_LENGTH} characters or fewer`;
  }
  const publicUrl = checkServerUrl(values.publicUrl, keepLoopbackHttp);
  if (!publicUrl.ok) {
    errors.publicUrl = publicUrl.problem === 'empty' ? 'Server URL is required' : INVALID_URL;
  }
  if (!values.logoURL.trim()) errors.logoURL = 'Logo is required';
  const webview = checkPublicUrl(values.webviewURL);
  if (!webview.ok && webview.problem === 'invalid') errors.webviewURL = INVALID_URL;
  return errors;
}

/** The register body for valid values. */
export function registerBody(
  values: CreateAppValues,
  keepLoopbackHttp = false,
): RegisterAppRequest {
  const webview = normaliseUrl(values.webviewURL);
  return {
    packageName: values.packageName.trim(),
    name: values.name.trim(),
    description: values.description.trim(),
    onboardingInstructions: values.onboardingInstructions.trim(),
    publicUrl: normaliseServerUrl(values.publicUrl, keepLoopbackHttp),
    logoURL: values.logoURL.trim(),
    webviewURL: webview || null,
    appType: values.appType,
    permissions: values.permissions,
    hardwareRequirements: values.hardwareRequirements,
  };
}

/** Maps the server's field paths (`permissions[0].type`) onto the form's fields. */
export function serverFieldErrors(fields: Record<string, string> | undefined): CreateAppErrors {
  const errors: CreateAppErrors = {};
  if (!fields) return errors;
  const known: CreateAppField[] = [
    'packageName',
    'name',
    'description',
    'onboardingInstructions',
    'publicUrl',
    'logoURL',
    'webviewURL',
    'appType',
    'permissions',
    'hardwareRequirements',
  ];
  for (const [path, message] of Object.entries(fields)) {
    const head = /^[A-Za-z]+/.exec(path)?.[0];
    const field = known.find((name) => name === head);
    if (field && !errors[field]) errors[field] = message;
  }
  return errors;
}
