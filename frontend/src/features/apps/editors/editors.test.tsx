import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';

import { HardwareEditor } from './HardwareEditor';
import { PermissionsEditor } from './PermissionsEditor';
import {
  availablePermissions,
  newHardware,
  newPermission,
  preview,
  type HardwareRequirement,
  type Permission,
} from './types';

function PermissionsHarness({ initial }: { initial: Permission[] }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <PermissionsEditor value={value} onChange={setValue} />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}

function HardwareHarness({ initial }: { initial: HardwareRequirement[] }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <HardwareEditor value={value} onChange={setValue} />
      <output data-testid="value">{JSON.stringify(value)}</output>
    </>
  );
}

const current = <T,>() => JSON.parse(screen.getByTestId('value').textContent) as T[];

describe('editor rules', () => {
  it('cuts descriptions at 50 characters', () => {
    expect(preview('a'.repeat(50))).toBe('a'.repeat(50));
    expect(preview('a'.repeat(51))).toBe(`${'a'.repeat(50)}...`);
    expect(preview(undefined)).toBe('');
  });

  it('never offers the legacy NOTIFICATIONS type', () => {
    expect(availablePermissions([])).not.toContain('NOTIFICATIONS');
    expect(availablePermissions([])).toHaveLength(8);
    expect(newPermission([{ type: 'MICROPHONE' }])).toEqual({ type: 'LOCATION', description: '' });
  });

  it('adds hardware as REQUIRED on the first free type', () => {
    expect(newHardware([{ type: 'CAMERA', level: 'OPTIONAL' }])).toEqual({
      type: 'DISPLAY',
      level: 'REQUIRED',
      description: '',
    });
  });
});

describe('PermissionsEditor', { timeout: 20_000 }, () => {
  it('opens a new row in edit mode on the first available type with an empty description', async () => {
    const user = userEvent.setup();
    render(<PermissionsHarness initial={[{ type: 'MICROPHONE', description: 'To listen' }]} />);
    await user.click(screen.getByRole('button', { name: 'Add Permission' }));
    expect(current<Permission>()).toEqual([
      { type: 'MICROPHONE', description: 'To listen' },
      { type: 'LOCATION', description: '' },
    ]);
    // The new row is open: its type select and description field show.
    expect(screen.getByRole('combobox', { name: 'Permission type' })).toHaveTextContent('Location');
    expect(screen.getByRole('textbox', { name: 'Description' })).toHaveValue('');
    // The first row stays collapsed.
    expect(screen.getByRole('button', { name: 'Edit Microphone permission' })).toBeInTheDocument();
  });

  it('edits one row at a time', async () => {
    const user = userEvent.setup();
    render(
      <PermissionsHarness
        initial={[
          { type: 'MICROPHONE', description: 'a' },
          { type: 'CAMERA', description: 'b' },
        ]}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Edit Microphone permission' }));
    expect(screen.getAllByRole('textbox', { name: 'Description' })).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Edit Camera permission' }));
    expect(screen.getAllByRole('textbox', { name: 'Description' })).toHaveLength(1);
    expect(screen.getByRole('textbox', { name: 'Description' })).toHaveValue('b');
    expect(screen.getByRole('button', { name: 'Edit Microphone permission' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('textbox', { name: 'Description' })).not.toBeInTheDocument();
  });

  it('shows a description cut at 50 characters in the collapsed row', () => {
    render(<PermissionsHarness initial={[{ type: 'CAMERA', description: 'x'.repeat(60) }]} />);
    expect(screen.getByText(`${'x'.repeat(50)}...`)).toBeInTheDocument();
  });

  it('offers only unused non-legacy types, and keeps a legacy type on a row that has it', async () => {
    const user = userEvent.setup();
    render(
      <PermissionsHarness
        initial={[
          { type: 'NOTIFICATIONS', description: 'old' },
          { type: 'MICROPHONE', description: '' },
        ]}
      />,
    );
    await user.click(
      screen.getByRole('button', { name: 'Edit Notifications (legacy) permission' }),
    );
    await user.click(screen.getByRole('combobox', { name: 'Permission type' }));
    const options = within(screen.getByRole('listbox'))
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options).toContain('Notifications (legacy)');
    expect(options).not.toContain('Microphone');
    await user.click(screen.getByRole('option', { name: 'Read Notifications' }));
    expect(current<Permission>()[0]?.type).toBe('READ_NOTIFICATIONS');
    // Once replaced, the legacy type is no longer offered.
    await user.click(screen.getByRole('combobox', { name: 'Permission type' }));
    expect(
      screen.queryByRole('option', { name: 'Notifications (legacy)' }),
    ).not.toBeInTheDocument();
  });

  it('reads All Added and is disabled when every type is on the list', () => {
    const all = availablePermissions([]).map((type) => ({ type }));
    render(<PermissionsHarness initial={all} />);
    expect(screen.getByRole('button', { name: 'All Added' })).toBeDisabled();
  });

  it('removes a row', async () => {
    const user = userEvent.setup();
    render(<PermissionsHarness initial={[{ type: 'CAMERA' }, { type: 'CALENDAR' }]} />);
    await user.click(screen.getByRole('button', { name: 'Remove Camera permission' }));
    expect(current<Permission>()).toEqual([{ type: 'CALENDAR' }]);
  });
});

describe('HardwareEditor', { timeout: 20_000 }, () => {
  it('adds a REQUIRED row in edit mode and changes its level', async () => {
    const user = userEvent.setup();
    render(<HardwareHarness initial={[]} />);
    expect(screen.getByText('No hardware requirements.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add Hardware Requirement' }));
    expect(current<HardwareRequirement>()).toEqual([
      { type: 'CAMERA', level: 'REQUIRED', description: '' },
    ]);
    await user.click(screen.getByRole('combobox', { name: 'Level' }));
    await user.click(screen.getByRole('option', { name: 'Optional' }));
    await user.type(screen.getByRole('textbox', { name: 'Description' }), 'Photos');
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(current<HardwareRequirement>()).toEqual([
      { type: 'CAMERA', level: 'OPTIONAL', description: 'Photos' },
    ]);
    expect(screen.getByText('Optional')).toBeInTheDocument();
  });

  it('reads All Added when every hardware type is listed', () => {
    const all: HardwareRequirement[] = (
      ['CAMERA', 'DISPLAY', 'MICROPHONE', 'SPEAKER', 'IMU', 'BUTTON', 'LIGHT', 'WIFI'] as const
    ).map((type) => ({ type, level: 'REQUIRED' }));
    render(<HardwareHarness initial={all} />);
    expect(screen.getByRole('button', { name: 'All Added' })).toBeDisabled();
  });
});
