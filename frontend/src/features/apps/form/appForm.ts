/**
 * The app-details form that Create App and Edit App share: its values, the rules checked before sending
 * (spec §5, one zod schema with the server's URL and list rules), the request bodies, and the server's
 * field errors mapped onto the form, and the fields' names in a review. A new app field is added here and in
 * `AppDetailsFields.tsx`.
 */
import type { FieldErrors } from 'react-hook-form';
import { z } from 'zod';

import { packageNameError } from '../../../utils/packageName';
import {
  checkPublicUrl,
  checkServerUrl,
  INVALID_URL,
  normaliseServerUrl,
  normaliseUrl,
} from '../../../utils/url';
import { validateSettings, validateTools } from '../config/validate';
import type {
  App,
  AppType,
  HardwareRequirement,
  Permission,
  RegisterAppRequest,
  Setting,
  Tool,
  UpdateAppRequest,
} from '../types';

/** Longest onboarding text (spec §5, §9: about five lines). */
export const MAX_ONBOARDING_LENGTH = 2000;

/** Which page the form is on: Create App asks for the package name, Edit App shows it read-only. */
export type AppFormMode = 'create' | 'edit';

export interface AppFormValues {
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
  /** Edited on Edit App only (Create App sends none). */
  settings: Setting[];
  tools: Tool[];
}

/**
 * The editable fields by their names in the app, as a review names them ("Changed: Name, Settings"): every
 * field of the form but the package name, which never changes.
 */
export const appFieldLabels: Record<Exclude<keyof AppFormValues, 'packageName'>, string> = {
  name: 'Name',
  description: 'Description',
  onboardingInstructions: 'Onboarding instructions',
  publicUrl: 'Server URL',
  logoURL: 'Logo',
  webviewURL: 'Webview URL',
  appType: 'App type',
  permissions: 'Permissions',
  hardwareRequirements: 'Hardware',
  settings: 'Settings',
  tools: 'AI tools',
};

/** Errors keyed by form field (`publicUrl`) or list path (`settings[2].key`), as the editors read them. */
export type AppFormErrors = Record<string, string>;

export const emptyAppForm = (): AppFormValues => ({
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
  settings: [],
  tools: [],
});

export function appFormValues(app: App): AppFormValues {
  return {
    packageName: app.packageName,
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

/** The values with both URLs as they will be sent (normalised on save, spec §5). */
export function normalisedUrls(values: AppFormValues, keepLoopbackHttp = false) {
  return {
    publicUrl: normaliseServerUrl(values.publicUrl, keepLoopbackHttp),
    webviewURL: normaliseUrl(values.webviewURL),
  };
}

const required = (message: string) => z.string().refine((value) => value.trim() !== '', message);
const list = <T>() => z.array(z.custom<T>());

/**
 * The form's rules. URLs are checked as they will be sent (normalised), by the rules the server applies
 * (`utils/url.ts`); `keepLoopbackHttp` is the server's local-development rule for the server URL
 * (`GET /api/public-config`). The settings and tools lists are checked by the rules of every write,
 * each problem on its entry's path; parents come first, so that a list's own error and its entries' both show.
 */
export function appFormSchema(mode: AppFormMode, keepLoopbackHttp = false) {
  return z
    .object({
      packageName: z.string().superRefine((value, ctx) => {
        const problem = mode === 'create' ? packageNameError(value) : null;
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
      name: required('Display name is required'),
      description: required('Description is required'),
      onboardingInstructions: z
        .string()
        .max(
          MAX_ONBOARDING_LENGTH,
          `Onboarding instructions must be ${String(MAX_ONBOARDING_LENGTH)} characters or fewer`,
        ),
      publicUrl: z.string().superRefine((value, ctx) => {
        const check = checkServerUrl(value, keepLoopbackHttp);
        if (!check.ok) {
          const message = check.problem === 'empty' ? 'Server URL is required' : INVALID_URL;
          ctx.addIssue({ code: 'custom', message });
        }
      }),
      logoURL: required('Logo is required'),
      webviewURL: z.string().superRefine((value, ctx) => {
        const check = checkPublicUrl(value);
        if (!check.ok && check.problem === 'invalid') {
          ctx.addIssue({ code: 'custom', message: INVALID_URL });
        }
      }),
      appType: z.enum(['background', 'standard']),
      permissions: list<Permission>(),
      hardwareRequirements: list<HardwareRequirement>(),
      settings: list<Setting>(),
      tools: list<Tool>(),
    })
    .superRefine((values, ctx) => {
      const issues = [...validateSettings(values.settings), ...validateTools(values.tools)];
      const depth = (path: string) => path.split(/[.[]/u).length;
      for (const issue of issues.sort((a, b) => depth(a.path) - depth(b.path))) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: pathOf(issue.path) });
      }
    }) satisfies z.ZodType<AppFormValues>;
}

/** `settings[2].options[0].value` as a path: `['settings', 2, 'options', 0, 'value']`. */
function pathOf(path: string): (string | number)[] {
  return path
    .split(/[.[\]]/u)
    .filter(Boolean)
    .map((part) => (/^\d+$/u.test(part) ? Number(part) : part));
}

/** The form's errors as the fields and editors read them: one message per field or list path. */
export function flatErrors(errors: FieldErrors<AppFormValues>): AppFormErrors {
  const flat: AppFormErrors = {};
  const walk = (node: unknown, path: string) => {
    if (typeof node !== 'object' || node === null || node instanceof Element) return;
    const { message } = node as { message?: unknown };
    if (path && typeof message === 'string' && message) flat[path] ??= message;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'ref' || key === 'types') continue;
      const childPath =
        key === 'root'
          ? path
          : /^\d+$/u.test(key)
            ? `${path}[${key}]`
            : path
              ? `${path}.${key}`
              : key;
      walk(child, childPath);
    }
  };
  walk(errors, '');
  return flat;
}

/** The fields each page shows: Create App has no settings or tools, Edit App types no package name. */
function shownFields(mode: AppFormMode): (keyof AppFormValues)[] {
  const hidden: (keyof AppFormValues)[] =
    mode === 'create' ? ['settings', 'tools'] : ['packageName'];
  return (Object.keys(emptyAppForm()) as (keyof AppFormValues)[]).filter(
    (name) => !hidden.includes(name),
  );
}

/**
 * The server's `fields` as form errors, for the fields the page shows: list paths are kept for the settings
 * and tools editors (`settings[2].key`); anything deeper is shown on the field (`permissions[0].type` on
 * the permissions).
 */
export function serverFieldErrors(
  fields: Record<string, string> | undefined,
  mode: AppFormMode,
): AppFormErrors {
  const shown = shownFields(mode);
  const errors: AppFormErrors = {};
  for (const [path, message] of Object.entries(fields ?? {})) {
    const head = shown.find((name) => name === /^[A-Za-z]+/u.exec(path)?.[0]);
    if (!head) continue;
    errors[head === 'settings' || head === 'tools' ? path : head] ??= message;
  }
  return errors;
}

/** What both bodies send, trimmed and normalised. */
function detailsBody(values: AppFormValues, keepLoopbackHttp: boolean) {
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    onboardingInstructions: values.onboardingInstructions.trim(),
    publicUrl: normaliseServerUrl(values.publicUrl, keepLoopbackHttp),
    logoURL: values.logoURL.trim(),
    appType: values.appType,
    hardwareRequirements: values.hardwareRequirements,
  };
}

/** The register body for valid values (no webview URL: `null`). */
export function registerBody(values: AppFormValues, keepLoopbackHttp = false): RegisterAppRequest {
  return {
    ...detailsBody(values, keepLoopbackHttp),
    packageName: values.packageName.trim(),
    webviewURL: normaliseUrl(values.webviewURL) || null,
    permissions: values.permissions,
  };
}

/**
 * The `PUT` body (only the fields the server writes; the permissions have their own call). The webview URL
 * is always sent as text: the server reads `null` as "unchanged" and an empty string as "cleared".
 */
export function updateBody(values: AppFormValues, keepLoopbackHttp = false): UpdateAppRequest {
  return {
    ...detailsBody(values, keepLoopbackHttp),
    webviewURL: normaliseUrl(values.webviewURL),
    settings: values.settings,
    tools: values.tools,
  };
}
