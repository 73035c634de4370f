/**
 * The apps API's wire shapes (the domain `App` serialization, spec §3). Hand-written to match the
 * contract until the generated OpenAPI types name them; then these become aliases of `src/api/types.ts`.
 */

export type AppStoreStatus = 'DEVELOPMENT' | 'SUBMITTED' | 'PUBLISHED' | 'REJECTED';

/** `background` apps run alongside others; one `standard` ("Foreground App") runs at a time. */
export type AppType = 'background' | 'standard';

export type PermissionType =
  | 'MICROPHONE'
  | 'LOCATION'
  | 'BACKGROUND_LOCATION'
  | 'CALENDAR'
  | 'CAMERA'
  | 'NOTIFICATIONS'
  | 'READ_NOTIFICATIONS'
  | 'POST_NOTIFICATIONS'
  | 'ALL';

export interface Permission {
  type: PermissionType;
  description?: string;
}

export type HardwareType =
  'CAMERA' | 'DISPLAY' | 'MICROPHONE' | 'SPEAKER' | 'IMU' | 'BUTTON' | 'LIGHT' | 'WIFI';

export type HardwareLevel = 'REQUIRED' | 'OPTIONAL';

export interface HardwareRequirement {
  type: HardwareType;
  level: HardwareLevel;
  description?: string;
}

/** A JSON scalar (or any value the SDK allows as an option value). */
export type SettingValue =
  string | number | boolean | null | SettingValue[] | { [key: string]: SettingValue };

export interface SelectOption {
  label: string;
  value: SettingValue;
}

/** The eleven setting kinds, tagged by `type` as on the wire. */
export type Setting =
  | { type: 'group'; title: string }
  | { type: 'titleValue'; label: string; value: SettingValue }
  | { type: 'toggle'; key: string; label: string; defaultValue: boolean }
  | { type: 'text'; key: string; label: string; defaultValue: string }
  | {
      type: 'text_no_save_button';
      key: string;
      label: string;
      defaultValue: string;
      maxLines?: number;
    }
  | {
      type: 'select';
      key: string;
      label: string;
      options: SelectOption[];
      defaultValue?: SettingValue;
    }
  | {
      type: 'select_with_search';
      key: string;
      label: string;
      options: SelectOption[];
      defaultValue?: SettingValue;
    }
  | {
      type: 'multiselect';
      key: string;
      label: string;
      options: SelectOption[];
      defaultValue: SettingValue[];
    }
  | { type: 'slider'; key: string; label: string; min: number; max: number; defaultValue: number }
  | {
      type: 'numeric_input';
      key: string;
      label: string;
      min?: number;
      max?: number;
      step?: number;
      placeholder?: string;
      defaultValue: number;
    }
  | { type: 'time_picker'; key: string; label: string; defaultValue: number; showSeconds: boolean };

export type SettingType = Setting['type'];

export type ToolParameterType = 'string' | 'number' | 'boolean';

export interface ToolParameter {
  type: ToolParameterType;
  description: string;
  required: boolean;
  /** Allowed values (string parameters only). */
  enum?: string[];
}

export interface Tool {
  id: string;
  description: string;
  activationPhrases: string[];
  /** Keyed by parameter name, in definition order. */
  parameters: Record<string, ToolParameter>;
}

export interface App {
  packageName: string;
  orgId: string;
  developerId: string;
  name: string;
  description: string;
  onboardingInstructions: string;
  publicUrl: string;
  logoURL: string;
  webviewURL: string | null;
  isPublic: boolean;
  appStoreStatus: AppStoreStatus;
  appType: AppType;
  createdAt: string;
  updatedAt: string;
  reviewNotes: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
  tools: Tool[];
  settings: Setting[];
  hardwareRequirements: HardwareRequirement[];
  permissions: Permission[];
  sharedWithOrganization: boolean;
  sharedWithEmails: string[];
}

/** `POST /api/dev/apps/register` body. */
export interface RegisterAppRequest {
  packageName: string;
  name: string;
  description: string;
  onboardingInstructions: string;
  publicUrl: string;
  logoURL: string;
  webviewURL: string | null;
  appType: AppType;
  permissions: Permission[];
  hardwareRequirements: HardwareRequirement[];
}

export interface RegisteredApp {
  apiKey: string;
  app: App;
}

/** `PUT /api/dev/apps/{pkg}` body: only these fields are written. */
export interface UpdateAppRequest {
  name: string;
  description: string;
  onboardingInstructions: string;
  publicUrl: string;
  logoURL: string;
  webviewURL: string | null;
  appType: AppType;
  settings: Setting[];
  tools: Tool[];
  hardwareRequirements: HardwareRequirement[];
}

export type ReviewEventKindName =
  'submitted' | 'approved' | 'rejected' | 'edited_after_approval' | 'moved';

/** One entry of `GET /api/dev/apps/{pkg}/history` (oldest first). */
export interface AppHistoryEntry {
  id: string;
  kind: ReviewEventKindName;
  at: string;
  actorEmail: string;
  notes?: string | null;
  selfReview?: boolean;
  detail?: Record<string, unknown> | null;
}

/** What anyone holding a tester link sees (`GET /api/install/{token}`). */
export interface TesterView {
  packageName: string;
  name: string;
  description: string;
  onboardingInstructions: string;
  logoURL: string;
  webviewURL: string | null;
  appType: AppType;
  permissions: Permission[];
  hardwareRequirements: HardwareRequirement[];
}

/** The exported configuration file (`GET /api/dev/apps/{pkg}/config`), read as JSON. */
export type AppConfigFile = Record<string, unknown>;
