import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { arrayMove, SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import AddIcon from '@mui/icons-material/Add';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';

import { visuallyHidden } from '../../../components/visuallyHidden';
import { newSetting } from '../config/settings';
import type { Setting } from '../types';
import { oneRowAtATime } from './keyboardCoordinates';
import { settingName } from './settingText';
import { SortableSetting } from './SettingRow';

interface Props {
  value: Setting[];
  onChange: (next: Setting[]) => void;
  /** Field errors keyed as the API names them (`settings[2].key`). */
  errors?: Record<string, string>;
  disabled?: boolean;
}

let nextId = 0;
const newId = () => {
  nextId += 1;
  return `setting-${String(nextId)}`;
};

/**
 * The app settings editor (specification §2, §3, §4): all eleven types, type changes converted as the
 * domain converts them, reordering by drag (after 8 px) or keyboard (focus the handle, Space, arrows,
 * Space).
 */
export function SettingsEditor({ value, onChange, errors = {}, disabled = false }: Props) {
  // Stable ids for the sortable rows, kept beside the list; renewed when the list is replaced from outside.
  const [ids, setIds] = useState<string[]>(() => value.map(() => newId()));
  if (ids.length !== value.length) setIds(value.map(() => newId()));
  const [announce, setAnnounce] = useState('');

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: oneRowAtATime, scrollBehavior: 'auto' }),
  );

  const position = (id: UniqueIdentifier) => ids.indexOf(String(id)) + 1;
  const describe = (id: UniqueIdentifier) => {
    const index = ids.indexOf(String(id));
    const setting = value[index];
    return setting ? settingName(setting, index) : 'the setting';
  };

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = ids.indexOf(String(active.id));
    const to = ids.indexOf(String(over.id));
    if (from < 0 || to < 0) return;
    setIds(arrayMove(ids, from, to));
    onChange(arrayMove(value, from, to));
  };

  const update = (index: number, next: Setting) => {
    onChange(value.map((s, i) => (i === index ? next : s)));
  };
  const remove = (index: number) => {
    setIds(ids.filter((_, i) => i !== index));
    onChange(value.filter((_, i) => i !== index));
    setAnnounce(`Removed ${settingName(value[index] ?? newSetting('toggle'), index)}.`);
  };
  const add = () => {
    setIds([...ids, newId()]);
    onChange([...value, newSetting('toggle')]);
  };

  const listError = errors.settings;
  return (
    <Stack spacing={1.5}>
      {value.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No settings yet. Settings let users configure your app from their phone.
        </Typography>
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{
            announcements: {
              onDragStart: ({ active }) =>
                `Picked up ${describe(active.id)}, at position ${String(position(active.id))} of ${String(value.length)}.`,
              onDragOver: ({ active, over }) =>
                over
                  ? `${describe(active.id)} is over position ${String(position(over.id))} of ${String(value.length)}.`
                  : `${describe(active.id)} is no longer over a position.`,
              onDragEnd: ({ active, over }) =>
                over
                  ? `Dropped ${describe(active.id)} at position ${String(position(over.id))} of ${String(value.length)}.`
                  : `Dropped ${describe(active.id)}.`,
              onDragCancel: ({ active }) =>
                `Moving ${describe(active.id)} was cancelled; it stays at position ${String(position(active.id))}.`,
            },
            screenReaderInstructions: {
              draggable:
                'To reorder a setting, press Space or Enter on its handle, move it with the arrow keys, and press Space or Enter again to drop it. Press Escape to cancel.',
            },
          }}
        >
          <SortableContext items={ids} strategy={verticalListSortingStrategy}>
            <Stack component="ol" spacing={1.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
              {value.map((setting, index) => (
                <SortableSetting
                  key={ids[index] ?? index}
                  id={ids[index] ?? String(index)}
                  index={index}
                  setting={setting}
                  errors={errors}
                  disabled={disabled}
                  onChange={(next) => {
                    update(index, next);
                  }}
                  onRemove={() => {
                    remove(index);
                  }}
                />
              ))}
            </Stack>
          </SortableContext>
        </DndContext>
      )}
      {listError && (
        <Typography color="error" variant="body2" role="alert">
          {listError}
        </Typography>
      )}
      <Box>
        <Button variant="outlined" startIcon={<AddIcon />} onClick={add} disabled={disabled}>
          Add Setting
        </Button>
      </Box>
      <Box aria-live="polite" sx={visuallyHidden}>
        {announce}
      </Box>
    </Stack>
  );
}
