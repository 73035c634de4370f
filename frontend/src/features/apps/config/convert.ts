/**
 * Changing a setting's type (specification §4), ported from `domain/src/apps/settings/convert.rs` and run
 * against the shared vectors `tests/vectors/setting_conversion.json`: key and label are kept; the default
 * is kept or reset to fit (a titleValue's value is the text the old default displays); a group takes its title from the old title or label and drops key and label; a
 * new select-like setting gets one sample option.
 */
import type { SelectOption, Setting, SettingType, SettingValue } from '../types';
import {
  isOptionValue,
  MAX_TEXT_DEFAULT_LEN,
  SAMPLE_OPTION,
  sameValue,
  SECONDS_PER_DAY,
  settingDefault,
  settingKey,
  settingLabel,
  settingOptions,
  SLIDER_DEFAULT_MAX,
  SLIDER_DEFAULT_MIN,
} from './settings';

const numberFrom = (value: SettingValue | undefined): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

function textFrom(value: SettingValue | undefined): string {
  if (typeof value === 'string')
    return Array.from(value).length <= MAX_TEXT_DEFAULT_LEN ? value : '';
  // As JavaScript writes numbers (the domain writes them the same way): -0 as 0, 1e+21, 1e-7.
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

const twoDigits = (n: number): string => String(n).padStart(2, '0');

/**
 * The text a titleValue made from `from` displays for its old default: a text as it is, a number as
 * JavaScript writes it, a boolean as On or Off, option values as their labels (joined with ", "), a time
 * as HH:MM (HH:MM:SS with seconds shown).
 */
function displayedText(from: Setting, old: SettingValue | undefined): string {
  if (from.type === 'time_picker') {
    const seconds = from.defaultValue;
    const hm = `${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(Math.floor(seconds / 60) % 60)}`;
    return from.showSeconds ? `${hm}:${twoDigits(seconds % 60)}` : hm;
  }
  const options = settingOptions(from) ?? [];
  const one = (value: unknown): string => {
    const option = options.find((candidate) => sameValue(candidate.value, value));
    if (option) return option.label;
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
    if (typeof value === 'boolean') return value ? 'On' : 'Off';
    return '';
  };
  if (Array.isArray(old)) {
    return old
      .map(one)
      .filter((text) => text !== '')
      .join(', ');
  }
  return old === undefined ? '' : one(old);
}

function singleDefault(
  old: SettingValue | undefined,
  options: SelectOption[],
): SettingValue | undefined {
  if (old === undefined) return undefined;
  // An entry of a JSON list is a JSON value (the document types list entries loosely).
  const candidate = Array.isArray(old) ? (old[0] as SettingValue | undefined) : old;
  if (candidate === undefined) return undefined;
  return isOptionValue(options, candidate) ? candidate : undefined;
}

function manyDefaults(old: SettingValue | undefined, options: SelectOption[]): SettingValue[] {
  const candidates: SettingValue[] = Array.isArray(old)
    ? (old as SettingValue[])
    : old === undefined || old === null
      ? []
      : [old];
  return candidates.filter((value) => isOptionValue(options, value));
}

/** `from` converted to `to`; the same setting when the type does not change. */
export function convertSetting(from: Setting, to: SettingType): Setting {
  if (from.type === to) return from;
  const key = settingKey(from) ?? '';
  const label = settingLabel(from) ?? (from.type === 'group' ? from.title : '');
  const oldDefault = settingDefault(from);
  const options = (): SelectOption[] => {
    const existing = settingOptions(from);
    return existing && existing.length > 0
      ? existing.map((o) => ({ ...o }))
      : [{ ...SAMPLE_OPTION }];
  };

  switch (to) {
    case 'group':
      return { type: to, title: label };
    case 'titleValue':
      return { type: to, label, value: displayedText(from, oldDefault) };
    case 'toggle':
      return {
        type: to,
        key,
        label,
        defaultValue: typeof oldDefault === 'boolean' ? oldDefault : false,
      };
    case 'text':
      return { type: to, key, label, defaultValue: textFrom(oldDefault) };
    case 'text_no_save_button':
      return { type: to, key, label, defaultValue: textFrom(oldDefault) };
    case 'select':
    case 'select_with_search': {
      const opts = options();
      const defaultValue = singleDefault(oldDefault, opts);
      return defaultValue === undefined
        ? { type: to, key, label, options: opts }
        : { type: to, key, label, options: opts, defaultValue };
    }
    case 'multiselect': {
      const opts = options();
      return { type: to, key, label, options: opts, defaultValue: manyDefaults(oldDefault, opts) };
    }
    case 'slider': {
      let min = SLIDER_DEFAULT_MIN;
      let max = SLIDER_DEFAULT_MAX;
      if (from.type === 'slider') {
        ({ min, max } = from);
      } else if (
        from.type === 'numeric_input' &&
        from.min !== undefined &&
        from.max !== undefined &&
        from.min <= from.max
      ) {
        ({ min, max } = from);
      }
      const n = numberFrom(oldDefault);
      const defaultValue = n !== undefined && n >= min && n <= max ? n : min;
      return { type: to, key, label, min, max, defaultValue };
    }
    case 'numeric_input': {
      const min = from.type === 'slider' ? from.min : undefined;
      const max = from.type === 'slider' ? from.max : undefined;
      const n = numberFrom(oldDefault);
      const within =
        n !== undefined && (min === undefined || n >= min) && (max === undefined || n <= max);
      const defaultValue = within ? n : (min ?? 0);
      const out: Setting = { type: to, key, label, defaultValue };
      if (min !== undefined) out.min = min;
      if (max !== undefined) out.max = max;
      return out;
    }
    case 'time_picker': {
      const n = numberFrom(oldDefault);
      const defaultValue =
        n !== undefined && Number.isInteger(n) && n >= 0 && n < SECONDS_PER_DAY ? n : 0;
      return { type: to, key, label, defaultValue, showSeconds: false };
    }
  }
}
