import { describe, expect, it } from 'vitest';

import {
  applyConfig,
  checkConfigFile,
  ConfigError,
  importSummary,
  readConfigFile,
  validateConfig,
  type ImportSummary,
  type ImportTarget,
} from './importConfig';

interface Vector {
  name: string;
  input: unknown;
  valid: boolean;
  error?: string;
  summary?: ImportSummary;
  /** The settings as imported (JSON form). */
  settings?: unknown[];
}

// The vectors the Rust domain runs too (tests/vectors at the repository root).
const files = import.meta.glob<{ cases: Vector[] }>(
  '../../../../../tests/vectors/config_import.json',
  { eager: true, import: 'default' },
);
const vectors = Object.values(files)[0]?.cases ?? [];

function outcome(input: unknown): { valid: boolean; error?: string } {
  try {
    validateConfig(input);
    return { valid: true };
  } catch (error) {
    if (error instanceof ConfigError) return { valid: false, error: error.message };
    throw error;
  }
}

describe('validateConfig', () => {
  it('has the shared vectors to run', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(50);
  });

  it.each(vectors)('$name', ({ input, valid, error, summary, settings }) => {
    expect(outcome(input)).toEqual(valid ? { valid: true } : { valid: false, error });
    if (summary) expect(importSummary(validateConfig(input))).toEqual(summary);
    if (settings) expect(validateConfig(input).settings).toEqual(settings);
  });
});

describe('checkConfigFile', () => {
  it('wants a .json name, some content and valid JSON', () => {
    expect(() => checkConfigFile('config.txt', '{}')).toThrow('Please select a JSON file.');
    expect(() => checkConfigFile('config.json', '  \n')).toThrow('The selected file is empty.');
    expect(() => checkConfigFile('config.json', '{name:')).toThrow(
      'Invalid JSON format. Please check the file content.',
    );
    expect(checkConfigFile('CONFIG.JSON', '\uFEFF{"name":"A"}')).toEqual({ name: 'A' });
  });

  it('reads a file through both checks', () => {
    expect(readConfigFile('a.json', '{"name":"Weather"}')).toEqual({
      name: 'Weather',
      adjustments: [],
    });
  });
});

describe('applyConfig', () => {
  const form: ImportTarget = {
    name: 'Old',
    description: 'Old description',
    onboardingInstructions: '',
    publicUrl: 'https://old.example.com',
    logoURL: 'https://cdn.example.com/old.png',
    webviewURL: '',
    appType: 'background',
    permissions: [],
    settings: [],
    tools: [],
  };

  it('replaces only what the file sets and normalises URLs', () => {
    const next = applyConfig(form, {
      adjustments: [],
      name: 'New',
      publicUrl: 'http://new.example.com/',
      settings: [{ type: 'toggle', key: 'k', label: 'K', defaultValue: true }],
    });
    expect(next).toEqual({
      ...form,
      name: 'New',
      publicUrl: 'https://new.example.com',
      settings: [{ type: 'toggle', key: 'k', label: 'K', defaultValue: true }],
    });
  });

  it('keeps a loopback http server URL only when the portal allows local development', () => {
    const config = { adjustments: [], publicUrl: 'http://localhost:3000/' };
    expect(applyConfig(form, config).publicUrl).toBe('https://localhost:3000');
    expect(applyConfig(form, config, true).publicUrl).toBe('http://localhost:3000');
    const remote = { adjustments: [], publicUrl: 'http://new.example.com' };
    expect(applyConfig(form, remote, true).publicUrl).toBe('https://new.example.com');
  });
});
