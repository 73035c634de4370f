import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

import type { Setting, Tool } from '../types';
import { SettingsEditor } from './SettingsEditor';
import { secondsToTime, timeToSeconds } from './time';
import { ToolsEditor } from './ToolsEditor';

function SettingsHarness({
  initial,
  errors,
}: {
  initial: Setting[];
  errors?: Record<string, string>;
}) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <SettingsEditor value={value} onChange={setValue} errors={errors} />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}

function ToolsHarness({ initial }: { initial: Tool[] }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <ToolsEditor value={value} onChange={setValue} />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}

const current = <T,>() => JSON.parse(screen.getByTestId('value').textContent) as T[];

describe('SettingsEditor', { timeout: 20_000 }, () => {
  it('keeps its screen-reader announcements in a 1 px box, so that the page never scrolls sideways', () => {
    const { container } = render(<SettingsHarness initial={[]} />);
    const live = container.querySelector<HTMLElement>('[aria-live="polite"]');
    if (!live) throw new Error('The editor has no live region');
    const style = getComputedStyle(live);
    expect(style.position).toBe('absolute');
    expect(style.width).toBe('1px');
    expect(style.height).toBe('1px');
  });

  it('adds a toggle and converts it to a slider with the 0 to 100 defaults, keeping key and label', async () => {
    const user = userEvent.setup();
    render(<SettingsHarness initial={[]} />);
    expect(screen.getByText(/No settings yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add Setting' }));
    await user.type(screen.getByRole('textbox', { name: 'Key' }), 'volume');
    await user.type(screen.getByRole('textbox', { name: 'Label' }), 'Volume');
    await user.click(screen.getByRole('combobox', { name: 'Type' }));
    await user.click(screen.getByRole('option', { name: 'Slider' }));
    expect(current<Setting>()).toEqual([
      { type: 'slider', key: 'volume', label: 'Volume', min: 0, max: 100, defaultValue: 0 },
    ]);
    expect(screen.getByRole('spinbutton', { name: 'Maximum' })).toHaveValue(100);
  });

  it('turns a setting into a group titled after its label', async () => {
    const user = userEvent.setup();
    render(
      <SettingsHarness
        initial={[{ type: 'text', key: 'city', label: 'City', defaultValue: 'Paris' }]}
      />,
    );
    await user.click(screen.getByRole('combobox', { name: 'Type' }));
    await user.click(screen.getByRole('option', { name: 'Group' }));
    expect(current<Setting>()).toEqual([{ type: 'group', title: 'City' }]);
    expect(screen.getByRole('textbox', { name: 'Group title' })).toHaveValue('City');
  });

  it('gives a new select one sample option and chooses its default', async () => {
    const user = userEvent.setup();
    render(
      <SettingsHarness
        initial={[{ type: 'toggle', key: 'u', label: 'Units', defaultValue: false }]}
      />,
    );
    await user.click(screen.getByRole('combobox', { name: 'Type' }));
    await user.click(screen.getByRole('option', { name: 'Select' }));
    expect(screen.getByRole('textbox', { name: 'Option 1 label' })).toHaveValue('Option 1');
    await user.click(screen.getByRole('button', { name: 'Add Option' }));
    await user.click(screen.getByRole('combobox', { name: 'Default option' }));
    await user.click(screen.getByRole('option', { name: 'Option 2' }));
    expect(current<Setting>()).toEqual([
      {
        type: 'select',
        key: 'u',
        label: 'Units',
        options: [
          { label: 'Option 1', value: 'option1' },
          { label: 'Option 2', value: 'option2' },
        ],
        defaultValue: 'option2',
      },
    ]);
  });

  it('shows field errors on their fields and removes a setting', async () => {
    const user = userEvent.setup();
    render(
      <SettingsHarness
        initial={[
          { type: 'toggle', key: 'a', label: 'A', defaultValue: true },
          { type: 'toggle', key: 'a', label: 'B', defaultValue: false },
        ]}
        errors={{ 'settings[1].key': 'Setting key "a" is used more than once' }}
      />,
    );
    expect(screen.getByText('Setting key "a" is used more than once')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: /^Reorder setting/ })).toHaveLength(2);
    await user.click(screen.getByRole('button', { name: 'Remove setting "A"' }));
    expect(current<Setting>()).toEqual([
      { type: 'toggle', key: 'a', label: 'B', defaultValue: false },
    ]);
  });

  it('converts time picker seconds to and from clock text', () => {
    expect(secondsToTime(3723, true)).toBe('01:02:03');
    expect(secondsToTime(3723, false)).toBe('01:02');
    expect(timeToSeconds('23:59:59')).toBe(86399);
    expect(timeToSeconds('24:00')).toBeUndefined();
  });
});

describe('ToolsEditor', { timeout: 20_000 }, () => {
  it('builds a tool with comma-separated phrases and a string parameter with allowed values', async () => {
    const user = userEvent.setup();
    render(<ToolsHarness initial={[]} />);
    await user.click(screen.getByRole('button', { name: 'Add Tool' }));
    await user.type(screen.getByRole('textbox', { name: 'Tool id' }), 'forecast');
    await user.type(
      screen.getByRole('textbox', { name: 'Tool description' }),
      'Gives the forecast',
    );
    await user.type(
      screen.getByRole('textbox', { name: 'Activation phrases' }),
      ' weather ,, what is the forecast, ',
    );
    await user.click(screen.getByRole('button', { name: 'Add Parameter' }));
    const name = screen.getByRole('textbox', { name: 'Parameter name' });
    await user.clear(name);
    expect(screen.getByText('Parameter name is required')).toBeInTheDocument();
    await user.type(name, 'day');
    await user.type(screen.getByRole('textbox', { name: 'Allowed values' }), 'today, tomorrow,');
    await user.click(screen.getByRole('checkbox', { name: 'Required' }));
    expect(current<Tool>()).toEqual([
      {
        id: 'forecast',
        description: 'Gives the forecast',
        activationPhrases: ['weather', 'what is the forecast'],
        parameters: {
          day: { type: 'string', description: '', required: true, enum: ['today', 'tomorrow'] },
        },
      },
    ]);
  });

  it('drops allowed values when a parameter stops being a string', async () => {
    const user = userEvent.setup();
    render(
      <ToolsHarness
        initial={[
          {
            id: 't',
            description: 'd',
            activationPhrases: [],
            parameters: { n: { type: 'string', description: '', required: false, enum: ['a'] } },
          },
        ]}
      />,
    );
    await user.click(screen.getByRole('combobox', { name: 'Parameter type' }));
    await user.click(screen.getByRole('option', { name: 'number' }));
    expect(current<Tool>()[0]?.parameters).toEqual({
      n: { type: 'number', description: '', required: false },
    });
    expect(screen.queryByRole('textbox', { name: 'Allowed values' })).not.toBeInTheDocument();
  });
});
