import type {
  AppDoc,
  AppStoreStatusDoc,
  AppTypeDoc,
  HardwareLevelDoc,
  HardwareTypeDoc,
  HistoryEntryDoc,
  PermissionTypeDoc,
  RegisterAppDoc,
  TesterViewDoc,
  UpdateAppDoc,
} from '../../api/types';

/**
 * The apps API's wire shapes (the domain `App` serialization, spec §3). The enums are the generated
 * OpenAPI types (`src/api/types.ts`); the records are written out here because the OpenAPI document
 * describes settings and tools only as objects and marks fields the server always sends as optional. The
 * checks at the end of this file fail to compile when these and the generated types drift apart.
 */

export type AppStoreStatus = AppStoreStatusDoc;

/** `background` apps run alongside others; one `standard` ("Foreground App") runs at a time. */
export type AppType = AppTypeDoc;

export type PermissionType = PermissionTypeDoc;

export interface Permission {
  type: PermissionType;
  description?: string;
}

export type HardwareType = HardwareTypeDoc;

export type HardwareLevel = HardwareLevelDoc;

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
  /** A `ReviewEventKindName`; a newer server may send others. */
  kind: string;
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

// Compile-time checks against the generated OpenAPI types: what the server answers must fit these shapes
// (fields and enums), and what the screens send must fit the documented request bodies.
type Fits<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;
type Untyped = 'settings' | 'tools';
export type AppFitsDoc = Check<Fits<Omit<App, Untyped>, Omit<AppDoc, Untyped>>>;
export type DocFieldsAreApps = Check<Fits<keyof AppDoc, keyof App>>;
export type TesterViewFitsDoc = Check<Fits<TesterView, TesterViewDoc>>;
export type RegisterFitsDoc = Check<Fits<RegisterAppRequest, RegisterAppDoc>>;
export type UpdateFitsDoc = Check<
  Fits<Omit<UpdateAppRequest, Untyped>, Omit<UpdateAppDoc, Untyped>>
>;
export type HistoryFitsDoc = Check<Fits<keyof HistoryEntryDoc, keyof AppHistoryEntry>>;
