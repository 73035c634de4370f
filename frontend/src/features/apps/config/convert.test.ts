import { describe, expect, it } from 'vitest';

import type { Setting, SettingType } from '../types';
import { convertSetting } from './convert';
import { newSetting, SETTING_TYPES, withWireDefaults } from './settings';

interface Vector {
  from: Setting;
  toType: SettingType;
  expected: Setting;
}

// The vectors the Rust domain runs too (tests/vectors at the repository root).
const files = import.meta.glob<{ cases: Vector[] }>(
  '../../../../../tests/vectors/setting_conversion.json',
  { eager: true, import: 'default' },
);
const vectors = Object.values(files)[0]?.cases ?? [];

describe('convertSetting', () => {
  it('has the shared vectors to run', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(20);
  });

  it.each(vectors)('converts $from.type to $toType', ({ from, toType, expected }) => {
    expect(convertSetting(withWireDefaults(from), toType)).toEqual(expected);
  });

  it('keeps the key and label across every type pair of keyed kinds', () => {
    for (const from of SETTING_TYPES.filter((t) => t !== 'group' && t !== 'titleValue')) {
      for (const to of SETTING_TYPES.filter((t) => t !== 'group' && t !== 'titleValue')) {
        const source = { ...newSetting(from), key: 'k', label: 'L' } as Setting;
        expect(convertSetting(source, to)).toMatchObject({ type: to, key: 'k', label: 'L' });
      }
    }
  });

  it('gives a new slider 0 to 100 and a new select one sample option', () => {
    expect(newSetting('slider')).toMatchObject({ min: 0, max: 100, defaultValue: 0 });
    expect(newSetting('select')).toMatchObject({
      options: [{ label: 'Option 1', value: 'option1' }],
    });
  });
});
