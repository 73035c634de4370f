import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState, type ReactNode } from 'react';

import { ALL_ADDED_LABEL } from './types';

interface Props<T> {
  items: readonly T[];
  onChange: (next: T[]) => void;
  /** The row the add button appends, or `undefined` when every type is on the list. */
  makeNew: (items: readonly T[]) => T | undefined;
  /** Short name of a row for labels ("Microphone permission"). */
  rowName: (item: T) => string;
  /** The collapsed view of a row. */
  summary: (item: T) => ReactNode;
  /** The editing view of a row; `update` replaces it. */
  editor: (item: T, index: number, update: (next: T) => void) => ReactNode;
  addLabel: string;
  emptyText: string;
  disabled?: boolean;
}

/**
 * A list whose rows switch between a collapsed and an editing view, one edited at a time; a newly added
 * row opens in edit mode; the add button reads "All Added" and is disabled when no type remains.
 */
export function EditableRows<T>({
  items,
  onChange,
  makeNew,
  rowName,
  summary,
  editor,
  addLabel,
  emptyText,
  disabled = false,
}: Props<T>) {
  const [editing, setEditing] = useState<number | null>(null);
  const next = makeNew(items);

  const add = () => {
    if (!next) return;
    onChange([...items, next]);
    setEditing(items.length);
  };
  const remove = (index: number) => {
    onChange(items.filter((_, i) => i !== index));
    setEditing((current) => {
      if (current === null || current === index) return null;
      return current > index ? current - 1 : current;
    });
  };
  const update = (index: number) => (value: T) => {
    onChange(items.map((item, i) => (i === index ? value : item)));
  };

  return (
    <Stack spacing={1}>
      {items.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {emptyText}
        </Typography>
      ) : (
        <Stack component="ul" spacing={1} sx={{ listStyle: 'none', m: 0, p: 0 }}>
          {items.map((item, index) => (
            <Paper
              component="li"
              variant="outlined"
              // Rows are identified by position: each type appears at most once, but the type itself
              // changes while a row is edited.
              key={index}
              sx={{ p: 1.5 }}
            >
              {editing === index ? (
                <Stack spacing={1.5}>
                  {editor(item, index, update(index))}
                  <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end' }}>
                    <Button
                      color="error"
                      onClick={() => {
                        remove(index);
                      }}
                      disabled={disabled}
                    >
                      Remove
                    </Button>
                    <Button
                      variant="contained"
                      onClick={() => {
                        setEditing(null);
                      }}
                    >
                      Done
                    </Button>
                  </Stack>
                </Stack>
              ) : (
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Box sx={{ flex: 1, minWidth: 0 }}>{summary(item)}</Box>
                  {/* The browser's tooltip (as the colour scheme button's): MUI's brings Popper. */}
                  <IconButton
                    aria-label={`Edit ${rowName(item)}`}
                    title="Edit"
                    onClick={() => {
                      setEditing(index);
                    }}
                    disabled={disabled}
                  >
                    <EditOutlinedIcon />
                  </IconButton>
                  <IconButton
                    aria-label={`Remove ${rowName(item)}`}
                    title="Remove"
                    onClick={() => {
                      remove(index);
                    }}
                    disabled={disabled}
                  >
                    <DeleteOutlineIcon />
                  </IconButton>
                </Stack>
              )}
            </Paper>
          ))}
        </Stack>
      )}
      <Box>
        <Button
          variant="outlined"
          startIcon={next ? <AddIcon /> : undefined}
          onClick={add}
          disabled={disabled || !next}
        >
          {next ? addLabel : ALL_ADDED_LABEL}
        </Button>
      </Box>
    </Stack>
  );
}
