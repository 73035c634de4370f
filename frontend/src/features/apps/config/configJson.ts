/** What reading a configuration file's JSON shares: the refusal and the small readers of values. */

/** Why a file or its contents were refused; `message` is shown as is. */
export class ConfigError extends Error {
  /** The field or entry at fault (`settings[2]`), when there is one. */
  readonly path: string | undefined;

  constructor(message: string, path?: string) {
    super(message);
    this.name = 'ConfigError';
    this.path = path;
  }
}

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field counts as present unless it is absent or `null`. */
export const present = (object: JsonObject, field: string): unknown =>
  object[field] === null ? undefined : object[field];

export const stringField = (object: JsonObject, field: string): string | undefined =>
  typeof object[field] === 'string' ? object[field] : undefined;

/** A whole number from 0 to 2^32 - 1. */
export function wholeNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff
    ? value
    : undefined;
}

/** The text of a value in an adjustment: numbers as JavaScript writes them, the rest as JSON. */
export const valueText = (value: unknown): string =>
  typeof value === 'number' ? String(value) : JSON.stringify(value);

export const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
