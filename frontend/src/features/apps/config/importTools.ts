/** Reading the tools and permissions of a configuration file. */
import type { Permission, PermissionType, Tool, ToolParameter, ToolParameterType } from '../types';

import { ConfigError, isObject, isStringArray, present, stringField } from './configJson';

export const PERMISSION_TYPE_NAMES: readonly PermissionType[] = [
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

/** One imported tool: its id, description, activation phrases and parameters checked. */
export function parseTool(index: number, value: unknown): Tool {
  const path = `tools[${String(index)}]`;
  const at = `Tool at index ${String(index)}`;
  const fail = (message: string) => new ConfigError(message, path);
  if (!isObject(value)) throw fail(`${at} must be an object.`);
  const id = stringField(value, 'id');
  const description = stringField(value, 'description');
  if (id === undefined || description === undefined) {
    throw fail(`${at} needs a string id and description.`);
  }
  const phrases = present(value, 'activationPhrases');
  if (phrases !== undefined && !isStringArray(phrases)) {
    throw fail(`${at}: activationPhrases must be an array of strings if provided.`);
  }
  const rawParameters = present(value, 'parameters');
  const parameters: Record<string, ToolParameter> = {};
  if (rawParameters !== undefined) {
    if (!isObject(rawParameters)) throw fail(`${at}: parameters must be an object if provided.`);
    for (const [name, raw] of Object.entries(rawParameters)) {
      parameters[name] = parseParameter(at, path, name, raw);
    }
  }
  return { id, description, activationPhrases: phrases ?? [], parameters };
}

const PARAMETER_TYPES: readonly ToolParameterType[] = ['string', 'number', 'boolean'];

function parseParameter(at: string, path: string, name: string, value: unknown): ToolParameter {
  const fail = (what: string) => new ConfigError(`${at}: parameter "${name}" ${what}.`, path);
  const type = isObject(value) ? value.type : undefined;
  if (!isObject(value) || !PARAMETER_TYPES.includes(type as ToolParameterType)) {
    throw fail('needs a type of string, number or boolean');
  }
  const description = present(value, 'description');
  if (description !== undefined && typeof description !== 'string') {
    throw fail('description must be a string if provided');
  }
  const required = present(value, 'required');
  if (required !== undefined && typeof required !== 'boolean') {
    throw fail('required must be a boolean if provided');
  }
  const allowed = present(value, 'enum');
  if (allowed !== undefined && !isStringArray(allowed)) {
    throw fail('enum must be an array of strings if provided');
  }
  const parameter: ToolParameter = {
    type: type as ToolParameterType,
    description: description ?? '',
    required: required ?? false,
  };
  if (allowed && allowed.length > 0) parameter.enum = allowed;
  return parameter;
}

/** The imported permissions: each a known type, once. */
export function parsePermissions(items: unknown[]): Permission[] {
  const seen = new Set<string>();
  return items.map((item, index) => {
    const path = `permissions[${String(index)}]`;
    const at = `Permission at index ${String(index)}`;
    const typeName = isObject(item) ? item.type : undefined;
    if (!isObject(item) || typeof typeName !== 'string') {
      throw new ConfigError(`${at} needs a string type.`, path);
    }
    if (!PERMISSION_TYPE_NAMES.includes(typeName as PermissionType)) {
      throw new ConfigError(
        `${at} has unsupported type "${typeName}". Supported types: ${PERMISSION_TYPE_NAMES.join(', ')}.`,
        path,
      );
    }
    const description = present(item, 'description');
    if (description !== undefined && typeof description !== 'string') {
      throw new ConfigError(`${at}: description must be a string if provided.`, path);
    }
    if (seen.has(typeName)) {
      throw new ConfigError(`${at}: type "${typeName}" is listed more than once.`, path);
    }
    seen.add(typeName);
    const permission: Permission = { type: typeName as PermissionType };
    if (description !== undefined) permission.description = description;
    return permission;
  });
}
