import { settingKey, settingLabel } from '../config/settings';
import type { Setting, SettingValue } from '../types';

/** What a setting is called in labels: its label, key or title, else its position. */
export function settingName(setting: Setting, index: number): string {
  const label = setting.type === 'group' ? setting.title : (settingLabel(setting) ?? '');
  const name = label === '' ? (settingKey(setting) ?? '') : label;
  return name ? `setting "${name}"` : `setting ${String(index + 1)}`;
}

/** An option's or a read-only value's text: a string as it is, anything else as JSON. */
export const optionText = (value: SettingValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value);
