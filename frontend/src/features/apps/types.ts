import type { components } from '../../api/schema.gen';

/**
 * The apps API's wire shapes, named. They are the generated OpenAPI types (`src/api/schema.gen.ts`), whose
 * schemas the server derives from the domain types it serializes (`App`, `Setting`, `Tool`…), so a change on
 * the server shows up here as a type error.
 */
type Schemas = components['schemas'];

export type AppStoreStatus = Schemas['AppStoreStatus'];
/** `background` apps run alongside others; one `standard` ("Foreground App") runs at a time. */
export type AppType = Schemas['AppType'];
export type PermissionType = Schemas['PermissionType'];
export type Permission = Schemas['Permission'];
export type HardwareType = Schemas['HardwareType'];
export type HardwareLevel = Schemas['HardwareLevel'];
export type HardwareRequirement = Schemas['HardwareRequirement'];

export type SelectOption = Schemas['SelectOption'];
/** A JSON scalar (or any value the SDK allows as an option value). */
export type SettingValue = Schemas['SettingValue'];
/** The eleven setting kinds, tagged by `type` as on the wire. */
export type Setting = Schemas['Setting'];
export type SettingType = Setting['type'];

export type ToolParameterType = Schemas['ParameterType'];
export type ToolParameter = Schemas['ToolParameter'];
export type Tool = Schemas['Tool'];

export type App = Schemas['App'];
/** `POST /api/dev/apps/register` body. */
export type RegisterAppRequest = Schemas['RegistrationInput'];
export type RegisteredApp = Schemas['RegisteredDto'];
/** `PUT /api/dev/apps/{pkg}` body: only these fields are written. */
export type UpdateAppRequest = Schemas['UpdateInput'];

/** One entry of `GET /api/dev/apps/{pkg}/history` (oldest first). */
export type AppHistoryEntry = Schemas['HistoryEntryDto'];
/** What anyone holding a tester link sees (`GET /api/install/{token}`). */
export type TesterView = Schemas['TesterView'];

/** The exported configuration file (`GET /api/dev/apps/{pkg}/config`), read as JSON. */
export type AppConfigFile = Record<string, unknown>;
