/**
 * Permission and hardware entries as the API carries them (`domain/src/apps/permissions.rs`,
 * `hardware.rs`), with the editors' rules: each type at most once, the legacy `NOTIFICATIONS` never newly
 * added, a new permission on the first available type, a new hardware entry `REQUIRED`.
 */

import type {
  HardwareLevel,
  HardwareRequirement,
  HardwareType,
  Permission,
  PermissionType,
} from '../types';

export type { HardwareLevel, HardwareRequirement, HardwareType, Permission, PermissionType };

export const PERMISSION_TYPES: readonly PermissionType[] = [
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

export type PermissionCategory = 'phone' | 'audio' | 'location' | 'calendar' | 'camera' | 'system';

export const HARDWARE_TYPES: readonly HardwareType[] = [
  'CAMERA',
  'DISPLAY',
  'MICROPHONE',
  'SPEAKER',
  'IMU',
  'BUTTON',
  'LIGHT',
  'WIFI',
];

/** What the add button reads when no type remains (specification §2). */
export const ALL_ADDED_LABEL = 'All Added';
/** Where a collapsed row cuts its description (specification §2, §9). */
export const DESCRIPTION_PREVIEW_LEN = 50;
/** Longest description the server accepts. */
export const MAX_DESCRIPTION_LEN = 500;

export const permissionLabels: Record<PermissionType, string> = {
  MICROPHONE: 'Microphone',
  LOCATION: 'Location',
  BACKGROUND_LOCATION: 'Background Location',
  CALENDAR: 'Calendar',
  CAMERA: 'Camera',
  NOTIFICATIONS: 'Notifications (legacy)',
  READ_NOTIFICATIONS: 'Read Notifications',
  POST_NOTIFICATIONS: 'Post Notifications',
  ALL: 'All Permissions',
};

export const hardwareLabels: Record<HardwareType, string> = {
  CAMERA: 'Camera',
  DISPLAY: 'Display',
  MICROPHONE: 'Microphone',
  SPEAKER: 'Speaker',
  IMU: 'IMU (motion sensor)',
  BUTTON: 'Button',
  LIGHT: 'Light',
  WIFI: 'Wi-Fi',
};

/** The category a permission is shown under, as the domain maps it. */
export function permissionCategory(type: PermissionType): PermissionCategory {
  switch (type) {
    case 'MICROPHONE':
      return 'audio';
    case 'LOCATION':
    case 'BACKGROUND_LOCATION':
      return 'location';
    case 'CALENDAR':
      return 'calendar';
    case 'CAMERA':
      return 'camera';
    case 'NOTIFICATIONS':
    case 'READ_NOTIFICATIONS':
    case 'POST_NOTIFICATIONS':
      return 'phone';
    case 'ALL':
      return 'system';
  }
}

/** Legacy types stay on apps that have them but cannot be newly added. */
export const isLegacyPermission = (type: PermissionType): boolean => type === 'NOTIFICATIONS';

/** The first 50 characters of `text`, followed by `...` when it was longer. */
export function preview(text: string | null | undefined): string {
  const chars = Array.from(text ?? '');
  return chars.length > DESCRIPTION_PREVIEW_LEN
    ? `${chars.slice(0, DESCRIPTION_PREVIEW_LEN).join('')}...`
    : chars.join('');
}

/** Permission types that may still be added: unused and not legacy, in editor order. */
export function availablePermissions(existing: readonly Permission[]): PermissionType[] {
  return PERMISSION_TYPES.filter(
    (type) => !isLegacyPermission(type) && !existing.some((p) => p.type === type),
  );
}

/** Hardware types not yet on the list, in editor order. */
export function availableHardware(existing: readonly HardwareRequirement[]): HardwareType[] {
  return HARDWARE_TYPES.filter((type) => !existing.some((h) => h.type === type));
}

/** The row the add button creates, or `undefined` when all types are added. */
export function newPermission(existing: readonly Permission[]): Permission | undefined {
  const [first] = availablePermissions(existing);
  return first ? { type: first, description: '' } : undefined;
}

/** The row the add button creates, or `undefined` when all types are added. */
export function newHardware(
  existing: readonly HardwareRequirement[],
): HardwareRequirement | undefined {
  const [first] = availableHardware(existing);
  return first ? { type: first, level: 'REQUIRED', description: '' } : undefined;
}
