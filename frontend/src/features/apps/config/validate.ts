/**
 * The rules every write of a settings or tools list applies, ported from
 * `domain/src/apps/settings/validate.rs` and `domain/src/apps/tools.rs`. Each issue knows its entry and
 * field, so the editor can show it where it belongs (`settings[2].key`), and reads
 * "Setting at index 2: …" as a single message.
 */
import type { SelectOption, Setting, Tool } from '../types';
import { isOptionValue, SECONDS_PER_DAY } from './settings';

export interface ListIssue {
  /** `settings[2].key`, `tools[0].id`, or the list name for a list-wide problem. */
  path: string;
  /** The message shown beside the field. */
  message: string;
  /** The message with its entry named ("Setting at index 2: …"). */
  text: string;
}

const MAX_SETTINGS = 200;
const MAX_KEY_LEN = 100;
const MAX_LABEL_LEN = 200;
const MAX_OPTIONS = 100;
const MAX_TEXT_DEFAULT_LEN = 10_000;
const MAX_PLACEHOLDER_LEN = 200;

const MAX_TOOLS = 100;
const MAX_TOOL_ID_LEN = 100;
const MAX_TOOL_DESCRIPTION_LEN = 2000;
const MAX_ACTIVATION_PHRASES = 50;
const MAX_PHRASE_LEN = 200;
const MAX_PARAMETERS = 50;
const MAX_PARAMETER_NAME_LEN = 100;
const MAX_PARAMETER_DESCRIPTION_LEN = 1000;
const MAX_ENUM_VALUES = 100;
const MAX_ENUM_VALUE_LEN = 200;

const length = (text: string) => Array.from(text).length;

function issueMaker(list: 'settings' | 'tools', item: 'Setting' | 'Tool', issues: ListIssue[]) {
  return (index: number | null, field: string, message: string) => {
    let path: string = list;
    if (index !== null) path += `[${String(index)}]`;
    if (field) path += `.${field}`;
    const text = index === null ? message : `${item} at index ${String(index)}: ${message}`;
    issues.push({ path, message, text });
  };
}

function textProblem(value: string, what: string, max: number): string | undefined {
  if (value.trim() === '') return `${what} is required`;
  if (length(value) > max) return `${what} must be at most ${String(max)} characters`;
  return undefined;
}

/** Every problem of a settings list, in list order; empty when the list may be saved. */
export function validateSettings(settings: readonly Setting[]): ListIssue[] {
  const issues: ListIssue[] = [];
  const add = issueMaker('settings', 'Setting', issues);
  if (settings.length > MAX_SETTINGS) {
    add(null, '', `An app can have at most ${String(MAX_SETTINGS)} settings`);
  }
  const seen = new Set<string>();
  settings.forEach((setting, index) => {
    const push = (field: string, message: string) => {
      add(index, field, message);
    };
    const required = (field: string, value: string, what: string, max: number) => {
      const problem = textProblem(value, what, max);
      if (problem) push(field, problem);
    };
    const keyAndLabel = (key: string, label: string) => {
      required('key', key, 'Setting key', MAX_KEY_LEN);
      required('label', label, 'Setting label', MAX_LABEL_LEN);
    };
    const textDefault = (value: string) => {
      if (length(value) > MAX_TEXT_DEFAULT_LEN) {
        push(
          'defaultValue',
          `Default text must be at most ${String(MAX_TEXT_DEFAULT_LEN)} characters`,
        );
      }
    };
    const options = (list: readonly SelectOption[]) => {
      if (list.length === 0) push('options', 'At least one option is required');
      else if (list.length > MAX_OPTIONS) {
        push('options', `A setting can have at most ${String(MAX_OPTIONS)} options`);
      }
      list.forEach((option, position) => {
        const problem = textProblem(option.label, 'Option label', MAX_LABEL_LEN);
        if (problem) push(`options[${String(position)}].label`, problem);
      });
    };
    const bounded = (min: number | undefined, max: number | undefined, value: number) => {
      let finite = true;
      for (const [field, n] of [
        ['min', min],
        ['max', max],
        ['defaultValue', value],
      ] as const) {
        if (n !== undefined && !Number.isFinite(n)) {
          push(field, 'Numbers must be finite');
          finite = false;
        }
      }
      if (!finite) return;
      if (min !== undefined && max !== undefined && min > max) {
        push('min', 'Minimum must not be greater than maximum');
        return;
      }
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        push('defaultValue', 'Default value must lie within the minimum and maximum');
      }
    };

    switch (setting.type) {
      case 'group':
        // An empty title is a divider without a heading (as the SDK allows).
        if (length(setting.title) > MAX_LABEL_LEN) {
          push('title', `Group title must be at most ${String(MAX_LABEL_LEN)} characters`);
        }
        break;
      case 'titleValue':
        required('label', setting.label, 'Setting label', MAX_LABEL_LEN);
        break;
      case 'toggle':
        keyAndLabel(setting.key, setting.label);
        break;
      case 'text':
        keyAndLabel(setting.key, setting.label);
        textDefault(setting.defaultValue);
        break;
      case 'text_no_save_button':
        keyAndLabel(setting.key, setting.label);
        textDefault(setting.defaultValue);
        if (setting.maxLines === 0) push('maxLines', 'Maximum lines must be at least 1');
        break;
      case 'select':
      case 'select_with_search':
        keyAndLabel(setting.key, setting.label);
        options(setting.options);
        if (
          setting.defaultValue !== undefined &&
          setting.defaultValue !== null &&
          setting.options.length > 0 &&
          !isOptionValue(setting.options, setting.defaultValue)
        ) {
          push('defaultValue', 'Default value must be one of the options');
        }
        break;
      case 'multiselect':
        keyAndLabel(setting.key, setting.label);
        options(setting.options);
        if (
          setting.options.length > 0 &&
          !setting.defaultValue.every((value) => isOptionValue(setting.options, value))
        ) {
          push('defaultValue', 'Default values must be among the options');
        }
        break;
      case 'slider':
        keyAndLabel(setting.key, setting.label);
        bounded(setting.min, setting.max, setting.defaultValue);
        break;
      case 'numeric_input':
        keyAndLabel(setting.key, setting.label);
        bounded(setting.min, setting.max, setting.defaultValue);
        if (setting.step !== undefined) {
          if (!Number.isFinite(setting.step)) push('step', 'Numbers must be finite');
          else if (setting.step <= 0) push('step', 'Step must be greater than zero');
        }
        if (
          setting.placeholder !== undefined &&
          length(setting.placeholder) > MAX_PLACEHOLDER_LEN
        ) {
          push(
            'placeholder',
            `Placeholder must be at most ${String(MAX_PLACEHOLDER_LEN)} characters`,
          );
        }
        break;
      case 'time_picker':
        keyAndLabel(setting.key, setting.label);
        if (setting.defaultValue >= SECONDS_PER_DAY) {
          push(
            'defaultValue',
            `Default time must be less than 24 hours (${String(SECONDS_PER_DAY)} seconds)`,
          );
        }
        break;
    }
    const key = 'key' in setting ? setting.key : undefined;
    if (key !== undefined && key.trim() !== '') {
      if (seen.has(key)) push('key', `Setting key "${key}" is used more than once`);
      seen.add(key);
    }
  });
  return issues;
}

/** Every problem of a tools list, in list order; empty when the list may be saved. */
export function validateTools(tools: readonly Tool[]): ListIssue[] {
  const issues: ListIssue[] = [];
  const add = issueMaker('tools', 'Tool', issues);
  if (tools.length > MAX_TOOLS) add(null, '', `An app can have at most ${String(MAX_TOOLS)} tools`);
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const push = (field: string, message: string) => {
      add(index, field, message);
    };
    const idProblem = textProblem(tool.id, 'Tool id', MAX_TOOL_ID_LEN);
    if (idProblem) push('id', idProblem);
    else if (seen.has(tool.id)) push('id', `Tool id "${tool.id}" is used more than once`);
    else seen.add(tool.id);
    const descriptionProblem = textProblem(
      tool.description,
      'Tool description',
      MAX_TOOL_DESCRIPTION_LEN,
    );
    if (descriptionProblem) push('description', descriptionProblem);
    if (tool.activationPhrases.length > MAX_ACTIVATION_PHRASES) {
      push(
        'activationPhrases',
        `A tool can have at most ${String(MAX_ACTIVATION_PHRASES)} activation phrases`,
      );
    }
    tool.activationPhrases.forEach((phrase, position) => {
      const problem = textProblem(phrase, 'Activation phrase', MAX_PHRASE_LEN);
      if (problem) push(`activationPhrases[${String(position)}]`, problem);
    });
    const parameters = Object.entries(tool.parameters);
    if (parameters.length > MAX_PARAMETERS) {
      push('parameters', `A tool can have at most ${String(MAX_PARAMETERS)} parameters`);
    }
    for (const [name, parameter] of parameters) {
      const nameProblem = textProblem(name, 'Parameter name', MAX_PARAMETER_NAME_LEN);
      if (nameProblem) push(`parameters.${name}`, nameProblem);
      if (length(parameter.description) > MAX_PARAMETER_DESCRIPTION_LEN) {
        push(
          `parameters.${name}.description`,
          `Parameter description must be at most ${String(MAX_PARAMETER_DESCRIPTION_LEN)} characters`,
        );
      }
      const allowed = parameter.enum ?? [];
      if (allowed.length === 0) continue;
      const field = `parameters.${name}.enum`;
      if (parameter.type !== 'string')
        push(field, 'Only string parameters can have allowed values');
      if (allowed.length > MAX_ENUM_VALUES) {
        push(field, `A parameter can have at most ${String(MAX_ENUM_VALUES)} allowed values`);
      }
      const valueProblem = allowed
        .map((value) => textProblem(value, 'Allowed value', MAX_ENUM_VALUE_LEN))
        .find((problem) => problem !== undefined);
      if (valueProblem) push(field, valueProblem);
    }
  });
  return issues;
}

/** Comma-separated input as a list: trimmed, empties dropped (activation phrases, allowed values). */
export function parseCommaList(input: string): string[] {
  return input
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export const joinCommaList = (items: readonly string[]): string => items.join(', ');
