import { zodResolver } from '@hookform/resolvers/zod';
import { describe, expect, it } from 'vitest';

import { testApp } from '../../../testing/apps';
import {
  appFormSchema,
  appFormValues,
  emptyAppForm,
  flatErrors,
  registerBody,
  serverFieldErrors,
  updateBody,
  type AppFormErrors,
  type AppFormMode,
  type AppFormValues,
} from './appForm';

/** The errors the form shows for `values`, as react-hook-form gets them from the schema. */
async function errorsOf(
  values: AppFormValues,
  mode: AppFormMode = 'create',
): Promise<AppFormErrors> {
  const resolve = zodResolver(appFormSchema(mode));
  const result = await resolve(values, undefined, { fields: {}, shouldUseNativeValidation: false });
  return flatErrors(result.errors);
}

describe('the app form rules', () => {
  it('asks for the required fields with the same words on both pages', async () => {
    const expected = {
      packageName: 'Package name is required',
      name: 'Display name is required',
      description: 'Description is required',
      publicUrl: 'Server URL is required',
      logoURL: 'Logo is required',
    };
    expect(await errorsOf(emptyAppForm())).toEqual(expected);
    expect(await errorsOf({ ...emptyAppForm(), packageName: 'Not A Name' }, 'edit')).toEqual({
      ...expected,
      packageName: undefined,
    });
  });

  it('checks the optional webview URL and the onboarding length', async () => {
    const errors = await errorsOf({
      ...emptyAppForm(),
      webviewURL: 'https://',
      onboardingInstructions: 'x'.repeat(2001),
    });
    expect(errors.webviewURL).toBe('Please enter a valid URL');
    expect(errors.onboardingInstructions).toBe(
      'Onboarding instructions must be 2000 characters or fewer',
    );
    const userinfo = await errorsOf({
      ...emptyAppForm(),
      publicUrl: 'https://user:secret@host.test',
    });
    expect(userinfo.publicUrl).toBe('Please enter a valid URL');
  });

  it('checks the settings and tools on their entries, beside the other fields', async () => {
    const errors = await errorsOf(
      {
        ...appFormValues(testApp()),
        name: ' ',
        settings: [
          { type: 'toggle', key: '', label: 'Sound', defaultValue: true },
          { type: 'toggle', key: 'b', label: 'B', defaultValue: false },
        ],
        tools: [{ id: '', description: 'Weather', activationPhrases: [], parameters: {} }],
      },
      'edit',
    );
    expect(errors).toMatchObject({
      name: 'Display name is required',
      'settings[0].key': 'Setting key is required',
      'tools[0].id': 'Tool id is required',
    });
  });
});

describe('the app form bodies', () => {
  const values = {
    ...emptyAppForm(),
    packageName: ' com.a.b ',
    name: ' A ',
    publicUrl: 'a.test/',
    webviewURL: '  ',
  };

  it('registers trimmed, normalised values and no empty webview URL', () => {
    const body = registerBody(values);
    expect(body).toMatchObject({ packageName: 'com.a.b', name: 'A', publicUrl: 'https://a.test' });
    expect(body.webviewURL).toBeNull();
  });

  it('updates with the webview URL as text (empty clears it) and with the lists', () => {
    const body = updateBody({ ...values, settings: [], tools: [] });
    expect(body).toMatchObject({ name: 'A', publicUrl: 'https://a.test', webviewURL: '' });
    expect(body).toHaveProperty('settings', []);
    expect(body).not.toHaveProperty('packageName');
  });
});

describe('server field errors', () => {
  it('puts a deeper path on its field, and keeps list paths for the settings and tools editors', () => {
    const fields = {
      'permissions[0].type': 'Duplicate permission',
      publicUrl: 'Bad URL',
      'settings[2].key': 'Duplicate key',
      packageName: 'Taken',
      unknown: 'Not a field',
    };
    expect(serverFieldErrors(fields, 'create')).toEqual({
      permissions: 'Duplicate permission',
      publicUrl: 'Bad URL',
      packageName: 'Taken',
    });
    expect(serverFieldErrors(fields, 'edit')).toEqual({
      permissions: 'Duplicate permission',
      publicUrl: 'Bad URL',
      'settings[2].key': 'Duplicate key',
    });
  });
});
