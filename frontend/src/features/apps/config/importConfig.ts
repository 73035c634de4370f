/**
 * Reading a configuration file for import (specification §5, PRODUCT.md §4), ported from
 * `domain/src/apps/config/{file,import,import_settings,apply}.rs` and run against the shared vectors
 * `tests/vectors/config_import.json`. The flow: `checkConfigFile` (name, emptiness, JSON syntax) →
 * `validateConfig` (shape of every field, then the rules of every write) → `importSummary` for the
 * confirmation → `applyConfig` to the form, which the user then saves.
 */
import { CONFIG_FIELDS } from '../../../api/configFields.gen';
import { normaliseServerUrl, normaliseUrl } from '../../../utils/url';
import type { Permission, Setting, Tool } from '../types';
import { validateSettings, validateTools } from './validate';
import { ConfigError, isObject, type JsonObject } from './configJson';
import { readSetting, type ImportAdjustment } from './importSettings';
import { parsePermissions, parseTool } from './importTools';

export { ConfigError } from './configJson';
export type { ImportAdjustment } from './importSettings';

/** The descriptive fields of a configuration file (the server's `ConfigFields`, in export order). */
type ConfigFieldName = keyof typeof CONFIG_FIELDS;

const isConfigField = (field: string): field is ConfigFieldName =>
  Object.hasOwn(CONFIG_FIELDS, field);

/** Each descriptive field with its type: one of its values when it has a list of them, else text. */
export type ConfigFields = {
  [K in ConfigFieldName]?: (typeof CONFIG_FIELDS)[K] extends { enum: readonly (infer E)[] }
    ? E
    : string;
};

/** A validated configuration: each field absent when the file does not set it. */
export interface AppConfig extends ConfigFields {
  permissions?: Permission[];
  settings?: Setting[];
  tools?: Tool[];
  /** Defaults the file gave that did not fit their setting and were fitted, in file order. */
  adjustments: ImportAdjustment[];
}

export interface ImportSummary {
  name: string | null;
  description: string | null;
  /** Groups are not counted. */
  settingsCount: number;
  toolsCount: number;
  permissionsCount: number;
  publicUrl: string | null;
  logoURL: string | null;
  webviewURL: string | null;
  adjustments: ImportAdjustment[];
}

/** The checks on a chosen file before its contents are looked at; the parsed JSON. */
export function checkConfigFile(fileName: string, contents: string): unknown {
  if (!fileName.trim().toLowerCase().endsWith('.json')) {
    throw new ConfigError('Please select a JSON file.');
  }
  const text = contents.startsWith('\uFEFF') ? contents.slice(1) : contents;
  if (text.trim() === '') throw new ConfigError('The selected file is empty.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ConfigError('Invalid JSON format. Please check the file content.');
  }
}

/** A descriptive field's value checked by its rule in `CONFIG_FIELDS` (`null` is the wrong type). */
function checkField(field: ConfigFieldName, value: unknown): string {
  const rule: { nonEmpty?: boolean; enum?: readonly string[] } = CONFIG_FIELDS[field];
  if (rule.enum) {
    if (typeof value === 'string' && rule.enum.includes(value)) return value;
    const choices = rule.enum.map((choice) => `"${choice}"`).join(' or ');
    throw new ConfigError(
      `Optional field "${field}" must be either ${choices} if provided.`,
      field,
    );
  }
  if (typeof value === 'string' && !(rule.nonEmpty && value.trim() === '')) return value;
  const kind = rule.nonEmpty ? 'a non-empty string' : 'a string';
  throw new ConfigError(`Optional field "${field}" must be ${kind} if provided.`, field);
}

function optionalArray(object: JsonObject, field: string): unknown[] | undefined {
  if (!(field in object)) return undefined;
  const value = object[field];
  if (Array.isArray(value)) return value as unknown[];
  throw new ConfigError(`Optional field "${field}" must be an array if provided.`, field);
}

/**
 * Checks a parsed configuration in the domain's order; the first problem wins: the descriptive fields in
 * the file's order, then the lists, then each list's entries, then the rules of every write.
 */
export function validateConfig(value: unknown): AppConfig {
  if (!isObject(value)) throw new ConfigError('Configuration must be a JSON object.');
  const fields: Record<string, string> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    if (isConfigField(field)) fields[field] = checkField(field, fieldValue);
  }
  const config: AppConfig = { ...(fields as ConfigFields), adjustments: [] };
  const settings = optionalArray(value, 'settings');
  const tools = optionalArray(value, 'tools');
  const permissions = optionalArray(value, 'permissions');
  if (settings) {
    config.settings = settings.map((item, i) => readSetting(i, item, config.adjustments));
  }
  if (tools) config.tools = tools.map((item, i) => parseTool(i, item));
  if (permissions) config.permissions = parsePermissions(permissions);
  const [settingIssue] = config.settings ? validateSettings(config.settings) : [];
  if (settingIssue) throw new ConfigError(settingIssue.text, settingIssue.path);
  const [toolIssue] = config.tools ? validateTools(config.tools) : [];
  if (toolIssue) throw new ConfigError(toolIssue.text, toolIssue.path);
  return config;
}

/** `checkConfigFile` then `validateConfig`. */
export function readConfigFile(fileName: string, contents: string): AppConfig {
  return validateConfig(checkConfigFile(fileName, contents));
}

/** What the confirmation dialog shows. */
export function importSummary(config: AppConfig): ImportSummary {
  return {
    name: config.name ?? null,
    description: config.description ?? null,
    settingsCount: (config.settings ?? []).filter((s) => s.type !== 'group').length,
    toolsCount: config.tools?.length ?? 0,
    permissionsCount: config.permissions?.length ?? 0,
    publicUrl: config.publicUrl ?? null,
    logoURL: config.logoURL ?? null,
    webviewURL: config.webviewURL ?? null,
    adjustments: config.adjustments,
  };
}

/** What an import writes: the descriptive fields the form has (not `version`) and the lists. */
export interface ImportTarget extends Omit<ConfigFields, 'version'> {
  permissions: Permission[];
  settings: Setting[];
  tools: Tool[];
}

/**
 * The form after a confirmed import: each field the file sets replaces the form's; URLs normalised as the
 * form does (a loopback `http://` server URL is kept when the portal allows local development).
 */
export function applyConfig<T extends ImportTarget>(
  form: T,
  config: AppConfig,
  keepLoopbackHttp = false,
): T {
  const next: T = { ...form };
  const fields = next as unknown as Record<string, unknown>;
  for (const field of Object.keys(CONFIG_FIELDS) as ConfigFieldName[]) {
    const value = config[field];
    if (value === undefined || !(field in fields)) continue;
    if (field === 'publicUrl') fields[field] = normaliseServerUrl(value, keepLoopbackHttp);
    else if (field === 'webviewURL') fields[field] = normaliseUrl(value);
    else fields[field] = value;
  }
  if (config.permissions !== undefined) next.permissions = config.permissions;
  if (config.settings !== undefined) next.settings = config.settings;
  if (config.tools !== undefined) next.tools = config.tools;
  return next;
}
