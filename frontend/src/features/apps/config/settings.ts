/**
 * Setting helpers shared by the settings editor, the type conversion and the import checks, ported from
 * `domain/src/apps/settings.rs`.
 */
import type { SelectOption, Setting, SettingType, SettingValue } from '../types';

/** Every type, in the order the editor's type menu lists them (as the domain's `SettingType::ALL`). */
export const SETTING_TYPES: readonly SettingType[] = [
  'toggle',
  'text',
  'text_no_save_button',
  'select',
  'select_with_search',
  'multiselect',
  'slider',
  'group',
  'titleValue',
  'numeric_input',
  'time_picker',
];

export const settingTypeLabels: Record<SettingType, string> = {
  toggle: 'Toggle',
  text: 'Text',
  text_no_save_button: 'Text (no save button)',
  select: 'Select',
  select_with_search: 'Select with search',
  multiselect: 'Multiselect',
  slider: 'Slider',
  group: 'Group',
  titleValue: 'Title / value',
  numeric_input: 'Numeric input',
  time_picker: 'Time picker',
};

export const SAMPLE_OPTION: SelectOption = { label: 'Option 1', value: 'option1' };
export const SLIDER_DEFAULT_MIN = 0;
export const SLIDER_DEFAULT_MAX = 100;
export const MAX_TEXT_DEFAULT_LEN = 10_000;
export const SECONDS_PER_DAY = 86_400;

export const isSettingType = (value: unknown): value is SettingType =>
  typeof value === 'string' && (SETTING_TYPES as readonly string[]).includes(value);

export const isKeyed = (type: SettingType): boolean => type !== 'group' && type !== 'titleValue';

/** The key of a keyed setting; `undefined` for `group` and `titleValue`. */
export function settingKey(setting: Setting): string | undefined {
  return 'key' in setting ? setting.key : undefined;
}

/** The label; `undefined` for a group. */
export function settingLabel(setting: Setting): string | undefined {
  return 'label' in setting ? setting.label : undefined;
}

/** The options of a select-like setting. */
export function settingOptions(setting: Setting): SelectOption[] | undefined {
  return 'options' in setting ? setting.options : undefined;
}

/** The default as JSON: a titleValue's `value`, a multiselect's array, `undefined` for a group. */
export function settingDefault(setting: Setting): SettingValue | undefined {
  switch (setting.type) {
    case 'group':
      return undefined;
    case 'titleValue':
      return setting.value;
    default:
      return setting.defaultValue;
  }
}

/** Numbers compare by value, everything else structurally (as JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

export const isOptionValue = (options: readonly SelectOption[], value: unknown): boolean =>
  options.some((option) => sameValue(option.value, value));

/** A new setting of `type`: empty key and label, a sample option for select-like kinds, slider 0–100. */
export function newSetting(type: SettingType): Setting {
  const key = '';
  const label = '';
  switch (type) {
    case 'group':
      return { type, title: '' };
    case 'titleValue':
      return { type, label, value: '' };
    case 'toggle':
      return { type, key, label, defaultValue: false };
    case 'text':
    case 'text_no_save_button':
      return { type, key, label, defaultValue: '' };
    case 'select':
    case 'select_with_search':
      return { type, key, label, options: [{ ...SAMPLE_OPTION }] };
    case 'multiselect':
      return { type, key, label, options: [{ ...SAMPLE_OPTION }], defaultValue: [] };
    case 'slider':
      return {
        type,
        key,
        label,
        min: SLIDER_DEFAULT_MIN,
        max: SLIDER_DEFAULT_MAX,
        defaultValue: SLIDER_DEFAULT_MIN,
      };
    case 'numeric_input':
      return { type, key, label, defaultValue: 0 };
    case 'time_picker':
      return { type, key, label, defaultValue: 0, showSeconds: false };
  }
}

/**
 * A setting read from JSON as the domain deserialises it: a missing toggle or text default is `false` or
 * `""`, a missing slider `min`/`max` is 0/100, a missing time picker `showSeconds` is `false`.
 */
export function withWireDefaults(setting: Setting): Setting {
  const raw = setting as Setting & Record<string, unknown>;
  switch (setting.type) {
    case 'toggle':
      return { ...setting, defaultValue: (raw.defaultValue as boolean | undefined) ?? false };
    case 'text':
    case 'text_no_save_button':
      return { ...setting, defaultValue: (raw.defaultValue as string | undefined) ?? '' };
    case 'multiselect':
      return { ...setting, defaultValue: (raw.defaultValue as SettingValue[] | undefined) ?? [] };
    case 'slider':
      return {
        ...setting,
        min: (raw.min as number | undefined) ?? SLIDER_DEFAULT_MIN,
        max: (raw.max as number | undefined) ?? SLIDER_DEFAULT_MAX,
      };
    case 'time_picker':
      return { ...setting, showSeconds: (raw.showSeconds as boolean | undefined) ?? false };
    default:
      return setting;
  }
}

/** `object` without `field`. */
export function omit<T extends object, K extends keyof T>(object: T, field: K): Omit<T, K> {
  const copy = { ...object };
  Reflect.deleteProperty(copy, field);
  return copy;
}
