export type ColorMode = 'light' | 'dark' | 'system';

export const colorModes: { mode: ColorMode; label: string }[] = [
  { mode: 'light', label: 'Light' },
  { mode: 'dark', label: 'Dark' },
  { mode: 'system', label: 'System' },
];
