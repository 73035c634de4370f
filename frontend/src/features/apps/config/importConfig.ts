/**
 * Reading a configuration file for import (specification §5, PRODUCT.md §4), ported from
 * `domain/src/apps/config/{file,import,import_settings,apply}.rs` and run against the shared vectors
 * `tests/vectors/config_import.json`. The flow: `checkConfigFile` (name, emptiness, JSON syntax) →
 * `validateConfig` (shape of every field, then the rules of every write) → `importSummary` for the
 * confirmation → `applyConfig` to the form, which the user then saves.
 */
import { CONFIG_FIELDS } from '../../../api/configFields.gen';
import { normaliseServerUrl, normaliseUrl } from '../../../utils/url';
import type {
  Permission,
  PermissionType,
  SelectOption,
  Setting,
  SettingValue,
  Tool,
  ToolParameter,
  ToolParameterType,
} from '../types';
import { isOptionValue, isSettingType, omit, SECONDS_PER_DAY } from './settings';
import { validateSettings, validateTools } from './validate';

export const SUPPORTED_SETTING_TYPES =
  'toggle, text, text_no_save_button, select, select_with_search, multiselect, slider, group, titleValue, numeric_input, time_picker';

export const PERMISSION_TYPE_NAMES: readonly PermissionType[] = [
  'MICROPHONE',
  'LOCATION',
  'BACKGROUND_LOCATION',
  'CALENDAR',
  'CAMERA',
  'NOTIFICATIONS',
  'READ_NOTIFICATIONS',
  'POST_NOTIFICATIONS',
  'ALL',
];

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

/**
 * A default that import fitted to its setting by the rules of a type change: a select default not among
 * the options cleared, multiselect defaults filtered, a slider default out of range set to the minimum (a
 * numeric input's to its minimum, else its maximum), a time picker's that is not whole seconds under a
 * day set to 0.
 */
export interface ImportAdjustment {
  /** `settings[2]`. */
  path: string;
  /** `Setting at index 2 ("units"): default "kelvin" is not one of the options and was cleared.` */
  message: string;
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

/** Why a file or its contents were refused; `message` is shown as is. */
export class ConfigError extends Error {
  /** The field or entry at fault (`settings[2]`), when there is one. */
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.name = 'ConfigError';
    this.path = path;
  }
}

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field counts as present unless it is absent or `null`. */
const present = (object: JsonObject, field: string): unknown =>
  object[field] === null ? undefined : object[field];

const stringField = (object: JsonObject, field: string): string | undefined =>
  typeof object[field] === 'string' ? object[field] : undefined;

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

/** A whole number from 0 to 2^32 - 1. */
function wholeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff
    ? value
    : undefined;
}

/** The text of a value in an adjustment: numbers as JavaScript writes them, the rest as JSON. */
const valueText = (value: unknown): string =>
  typeof value === 'number' ? String(value) : JSON.stringify(value);

/** A setting's default fitted by the rules of a type change; the note says what changed. */
export function fitDefault(setting: Setting): { setting: Setting; note?: string } {
  switch (setting.type) {
    case 'select':
    case 'select_with_search': {
      const value = setting.defaultValue;
      if (value === undefined || setting.options.length === 0) return { setting };
      if (isOptionValue(setting.options, value)) return { setting };
      return {
        setting: omit(setting, 'defaultValue'),
        note: `default ${valueText(value)} is not one of the options and was cleared`,
      };
    }
    case 'multiselect': {
      if (setting.options.length === 0) return { setting };
      const kept = setting.defaultValue.filter((v) => isOptionValue(setting.options, v));
      const removed = setting.defaultValue.filter((v) => !isOptionValue(setting.options, v));
      if (removed.length === 0) return { setting };
      return {
        setting: { ...setting, defaultValue: kept },
        note: `defaults not among the options were removed (${removed.map(valueText).join(', ')})`,
      };
    }
    case 'slider': {
      const { min, max, defaultValue } = setting;
      if (min > max || (defaultValue >= min && defaultValue <= max)) return { setting };
      return {
        setting: { ...setting, defaultValue: min },
        note: `default ${String(defaultValue)} is outside ${String(min)} to ${String(max)} and was set to the minimum, ${String(min)}`,
      };
    }
    case 'numeric_input': {
      const { min, max, defaultValue } = setting;
      if (min !== undefined && max !== undefined && min > max) return { setting };
      const outside =
        (min !== undefined && defaultValue < min) || (max !== undefined && defaultValue > max);
      if (!outside) return { setting };
      const fitted = min ?? max ?? defaultValue;
      return {
        setting: { ...setting, defaultValue: fitted },
        note: `default ${String(defaultValue)} is outside the minimum and maximum and was set to ${String(fitted)}`,
      };
    }
    default:
      return { setting };
  }
}

/** One imported setting: its shape checked, its default fitted (and the fitting noted). */
function readSetting(index: number, value: unknown, adjustments: ImportAdjustment[]): Setting {
  const notes: string[] = [];
  const parsed = parseSetting(index, value, notes);
  const fitted = fitDefault(parsed);
  const note = notes[0] ?? fitted.note;
  if (note !== undefined) {
    const key = 'key' in fitted.setting ? fitted.setting.key : '';
    adjustments.push({
      path: `settings[${String(index)}]`,
      message: `Setting at index ${String(index)} ("${key}"): ${note}.`,
    });
  }
  return fitted.setting;
}

function parseSetting(index: number, value: unknown, notes: string[]): Setting {
  const path = `settings[${String(index)}]`;
  const fail = (message: string) => new ConfigError(message, path);
  const at = `Setting at index ${String(index)}`;
  const keyedShape = () => fail(`${at} needs a string key, label and type.`);

  if (!isObject(value)) throw fail(`${at} must be an object.`);
  const typeName = value.type;
  if (typeof typeName !== 'string') throw keyedShape();
  if (!isSettingType(typeName)) {
    throw fail(
      `${at} has unsupported type "${typeName}". Supported types: ${SUPPORTED_SETTING_TYPES}.`,
    );
  }
  if (typeName === 'group') {
    const title = stringField(value, 'title');
    if (title === undefined) throw fail(`${at}: a group needs a string title.`);
    return { type: 'group', title };
  }
  if (typeName === 'titleValue') {
    const label = stringField(value, 'label');
    // `null` is a value (the SDK asks only that the field be there).
    if (label === undefined || value.value === undefined) {
      throw fail(`${at}: a titleValue needs a string label and a value.`);
    }
    return { type: 'titleValue', label, value: value.value as SettingValue };
  }

  const key = stringField(value, 'key');
  const label = stringField(value, 'label');
  if (key === undefined || label === undefined) throw keyedShape();
  const defaultValue = present(value, 'defaultValue');

  switch (typeName) {
    case 'toggle': {
      if (defaultValue !== undefined && typeof defaultValue !== 'boolean') {
        throw fail(`${at}: toggle defaultValue must be a boolean.`);
      }
      return { type: typeName, key, label, defaultValue: defaultValue ?? false };
    }
    case 'text':
    case 'text_no_save_button': {
      if (defaultValue !== undefined && typeof defaultValue !== 'string') {
        throw fail(`${at}: ${typeName} defaultValue must be a string.`);
      }
      if (typeName === 'text')
        return { type: typeName, key, label, defaultValue: defaultValue ?? '' };
      const rawLines = present(value, 'maxLines');
      let maxLines: number | undefined;
      if (rawLines !== undefined) {
        maxLines = wholeNumber(rawLines);
        if (maxLines === undefined || maxLines === 0) {
          throw fail(`${at}: maxLines must be a positive whole number if provided.`);
        }
      }
      const setting: Setting = { type: typeName, key, label, defaultValue: defaultValue ?? '' };
      if (maxLines !== undefined) setting.maxLines = maxLines;
      return setting;
    }
    case 'select':
    case 'select_with_search':
    case 'multiselect': {
      const options = parseOptions(index, typeName, value);
      if (typeName === 'multiselect') {
        if (defaultValue !== undefined && !Array.isArray(defaultValue)) {
          throw fail(`${at}: multiselect defaultValue must be an array.`);
        }
        return {
          type: typeName,
          key,
          label,
          options,
          defaultValue: (defaultValue ?? []) as SettingValue[],
        };
      }
      return defaultValue === undefined
        ? { type: typeName, key, label, options }
        : { type: typeName, key, label, options, defaultValue: defaultValue as SettingValue };
    }
    case 'slider': {
      const number = (field: string) => {
        const n = present(value, field);
        return typeof n === 'number' ? n : undefined;
      };
      const [dv, min, max] = [number('defaultValue'), number('min'), number('max')];
      if (dv === undefined || min === undefined || max === undefined) {
        throw fail(`${at}: slider needs a numeric defaultValue, min and max.`);
      }
      if (min > max) throw fail(`${at}: slider min must not be greater than max.`);
      return { type: typeName, key, label, min, max, defaultValue: dv };
    }
    case 'numeric_input': {
      if (typeof defaultValue !== 'number') {
        throw fail(`${at}: numeric_input needs a numeric defaultValue.`);
      }
      const setting: Setting = { type: typeName, key, label, defaultValue };
      for (const field of ['min', 'max', 'step'] as const) {
        const n = present(value, field);
        if (n === undefined) continue;
        if (typeof n !== 'number') {
          throw fail(`${at}: numeric_input min, max and step must be numbers if provided.`);
        }
        setting[field] = n;
      }
      const placeholder = present(value, 'placeholder');
      if (placeholder !== undefined) {
        if (typeof placeholder !== 'string') {
          throw fail(`${at}: numeric_input placeholder must be a string if provided.`);
        }
        setting.placeholder = placeholder;
      }
      return setting;
    }
    case 'time_picker': {
      if (typeof defaultValue !== 'number') {
        throw fail(`${at}: time_picker needs a numeric defaultValue.`);
      }
      let seconds = wholeNumber(defaultValue);
      if (seconds === undefined || seconds >= SECONDS_PER_DAY) {
        notes.push(
          `default ${String(defaultValue)} is not a whole number of seconds under 24 hours and was set to 0`,
        );
        seconds = 0;
      }
      const showSeconds = present(value, 'showSeconds');
      if (showSeconds !== undefined && typeof showSeconds !== 'boolean') {
        throw fail(`${at}: time_picker showSeconds must be a boolean if provided.`);
      }
      return {
        type: typeName,
        key,
        label,
        defaultValue: seconds,
        showSeconds: showSeconds ?? false,
      };
    }
  }
}

function parseOptions(index: number, typeName: string, object: JsonObject): SelectOption[] {
  const at = `Setting at index ${String(index)}`;
  const path = `settings[${String(index)}]`;
  const items = object.options;
  if (!Array.isArray(items))
    throw new ConfigError(`${at}: ${typeName} needs an options array.`, path);
  return items.map((item: unknown, position) => {
    const label = isObject(item) ? stringField(item, 'label') : undefined;
    // `null` is a value, as in the SDK.
    const value = isObject(item) ? item.value : undefined;
    if (label === undefined || value === undefined) {
      throw new ConfigError(
        `${at}: option at index ${String(position)} needs a string label and a value.`,
        path,
      );
    }
    return { label, value: value as SettingValue };
  });
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

function parseTool(index: number, value: unknown): Tool {
  const path = `tools[${String(index)}]`;
  const at = `Tool at index ${String(index)}`;
  const fail = (message: string) => new ConfigError(message, path);
  if (!isObject(value)) throw fail(`${at} must be an object.`);
  const id = stringField(value, 'id');
  const description = stringField(value, 'description');
  if (id === undefined || description === undefined) {
    throw fail(`${at} needs a string id and description.`);
  }
  const phrases = present(value, 'activationPhrases');
  if (phrases !== undefined && !isStringArray(phrases)) {
    throw fail(`${at}: activationPhrases must be an array of strings if provided.`);
  }
  const rawParameters = present(value, 'parameters');
  const parameters: Record<string, ToolParameter> = {};
  if (rawParameters !== undefined) {
    if (!isObject(rawParameters)) throw fail(`${at}: parameters must be an object if provided.`);
    for (const [name, raw] of Object.entries(rawParameters)) {
      parameters[name] = parseParameter(at, path, name, raw);
    }
  }
  return { id, description, activationPhrases: phrases ?? [], parameters };
}

const PARAMETER_TYPES: readonly ToolParameterType[] = ['string', 'number', 'boolean'];

function parseParameter(at: string, path: string, name: string, value: unknown): ToolParameter {
  const fail = (what: string) => new ConfigError(`${at}: parameter "${name}" ${what}.`, path);
  const type = isObject(value) ? value.type : undefined;
  if (!isObject(value) || !PARAMETER_TYPES.includes(type as ToolParameterType)) {
    throw fail('needs a type of string, number or boolean');
  }
  const description = present(value, 'description');
  if (description !== undefined && typeof description !== 'string') {
    throw fail('description must be a string if provided');
  }
  const required = present(value, 'required');
  if (required !== undefined && typeof required !== 'boolean') {
    throw fail('required must be a boolean if provided');
  }
  const allowed = present(value, 'enum');
  if (allowed !== undefined && !isStringArray(allowed)) {
    throw fail('enum must be an array of strings if provided');
  }
  const parameter: ToolParameter = {
    type: type as ToolParameterType,
    description: description ?? '',
    required: required ?? false,
  };
  if (allowed && allowed.length > 0) parameter.enum = allowed;
  return parameter;
}

function parsePermissions(items: unknown[]): Permission[] {
  const seen = new Set<string>();
  return items.map((item, index) => {
    const path = `permissions[${String(index)}]`;
    const at = `Permission at index ${String(index)}`;
    const typeName = isObject(item) ? item.type : undefined;
    if (!isObject(item) || typeof typeName !== 'string') {
      throw new ConfigError(`${at} needs a string type.`, path);
    }
    if (!PERMISSION_TYPE_NAMES.includes(typeName as PermissionType)) {
      throw new ConfigError(
        `${at} has unsupported type "${typeName}". Supported types: ${PERMISSION_TYPE_NAMES.join(', ')}.`,
        path,
      );
    }
    const description = present(item, 'description');
    if (description !== undefined && typeof description !== 'string') {
      throw new ConfigError(`${at}: description must be a string if provided.`, path);
    }
    if (seen.has(typeName)) {
      throw new ConfigError(`${at}: type "${typeName}" is listed more than once.`, path);
    }
    seen.add(typeName);
    const permission: Permission = { type: typeName as PermissionType };
    if (description !== undefined) permission.description = description;
    return permission;
  });
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
