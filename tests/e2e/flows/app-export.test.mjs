// The export file of an app, fetched through the API, passes the real `@mentra/sdk` `validateAppConfig`
// (PRODUCT.md §4): an app with every kind of setting and an AI tool, and a freshly registered one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { validateAppConfig } from '@mentra/sdk';

import { saveLogs, startPortal } from '../support/harness.mjs';

const PASSWORD = 'glasses are the next screen 42';

let portal;
let token;
let orgId;

/** A product API call with the core token and the organization header. */
async function api(method, path, body) {
  const response = await fetch(`${portal.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      'x-org-id': orgId,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response;
}

before(async () => {
  // Without SMTP the built-in identity service confirms a sign-up at once.
  portal = await startPortal();
  const auth = (path, body) =>
    fetch(`${portal.url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: 'built-in', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const signedUp = await auth('/signup', { email: 'ada@example.com', password: PASSWORD });
  assert.equal(signedUp.status, 200, await signedUp.clone().text());
  const session = await (await auth('/token?grant_type=password', { email: 'ada@example.com', password: PASSWORD })).json();
  const exchanged = await fetch(`${portal.url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ supabaseToken: session.access_token }),
  });
  assert.equal(exchanged.status, 200);
  token = (await exchanged.json()).coreToken;
  const orgs = await fetch(`${portal.url}/api/orgs`, { headers: { Authorization: `Bearer ${token}` } });
  orgId = (await orgs.json()).data[0].id;
});

after(async () => {
  if (portal) saveLogs('flows-app-export-portal', portal.logs());
  await portal?.stop();
});

async function register(packageName) {
  const response = await api('POST', '/api/dev/apps/register', {
    packageName,
    name: 'Notes',
    description: 'Takes notes',
    publicUrl: 'https://notes.example.com',
    logoURL: 'https://cdn.example.com/logo.png',
    appType: 'standard',
    permissions: [{ type: 'MICROPHONE', description: 'To hear notes' }],
  });
  assert.equal(response.status, 201, await response.clone().text());
}

async function exported(packageName) {
  const response = await api('GET', `/api/dev/apps/${packageName}/config`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-disposition'), `attachment; filename="${packageName}_config.json"`);
  return response.json();
}

describe('the export file', () => {
  test('of a freshly registered app is valid for the SDK', async () => {
    await register('com.example.fresh');
    const file = await exported('com.example.fresh');
    assert.equal(file.version, '1.0.0');
    assert.deepEqual(file.settings, []);
    assert.equal(validateAppConfig(file), true, JSON.stringify(file));
  });

  test('of an app with every kind of setting and a tool is valid for the SDK', async () => {
    await register('com.example.full');
    const settings = [
      { type: 'group', title: 'Display' },
      { type: 'titleValue', label: 'Version', value: '1.2' },
      { type: 'toggle', key: 'dark', label: 'Dark mode', defaultValue: true },
      { type: 'text', key: 'greeting', label: 'Greeting', defaultValue: 'Hello' },
      { type: 'text_no_save_button', key: 'notes', label: 'Notes', defaultValue: '', maxLines: 4 },
      {
        type: 'select',
        key: 'language',
        label: 'Language',
        options: [
          { label: 'English', value: 'en' },
          { label: 'French', value: 'fr' },
        ],
        defaultValue: 'en',
      },
      {
        type: 'select_with_search',
        key: 'city',
        label: 'City',
        options: [{ label: 'Paris', value: 'paris' }],
      },
      {
        type: 'multiselect',
        key: 'topics',
        label: 'Topics',
        options: [
          { label: 'News', value: 'news' },
          { label: 'Sport', value: 'sport' },
        ],
        defaultValue: ['news'],
      },
      { type: 'slider', key: 'size', label: 'Text size', min: 10, max: 30, defaultValue: 16 },
      { type: 'numeric_input', key: 'count', label: 'Count', min: 0, max: 9, step: 1, defaultValue: 3 },
      { type: 'time_picker', key: 'wake', label: 'Wake up', defaultValue: 25200 },
    ];
    const tools = [
      {
        id: 'add_note',
        description: 'Adds a note',
        activationPhrases: ['take a note'],
        parameters: { text: { type: 'string', description: 'The note', required: true } },
      },
    ];
    const saved = await api('PUT', '/api/dev/apps/com.example.full', { settings, tools });
    assert.equal(saved.status, 200, await saved.clone().text());

    const file = await exported('com.example.full');
    assert.equal(file.settings.length, settings.length);
    assert.deepEqual(
      file.settings.map((s) => s.type),
      settings.map((s) => s.type),
    );
    assert.equal(file.tools[0].id, 'add_note');
    for (const hidden of ['appStoreStatus', 'orgId', 'developerId', 'reviewNotes', 'sharedWithEmails', 'packageName']) {
      assert.equal(hidden in file, false, `${hidden} is not exported`);
    }
    assert.equal(validateAppConfig(file), true, JSON.stringify(file));
    // The check is real: a file without its version is refused.
    const { version: _version, ...unversioned } = file;
    assert.equal(validateAppConfig(unversioned), false);
  });
});
