/** Reading the settings of a configuration file: each one's shape, and its default fitted to it. */
import type { SelectOption, Setting, SettingValue } from '../types';
import { isOptionValue, isSettingType, omit, SECONDS_PER_DAY } from './settings';

import {
  ConfigError,
  isObject,
  present,
  stringField,
  valueText,
  wholeNumber,
  type JsonObject,
} from './configJson';

export const SUPPORTED_SETTING_TYPES =
  'toggle, text, text_no_save_button, select, select_with_search, multiselect, slider, group, titleValue, numeric_input, time_picker';

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
export function readSetting(
  index: number,
  value: unknown,
  adjustments: ImportAdjustment[],
): Setting {
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
