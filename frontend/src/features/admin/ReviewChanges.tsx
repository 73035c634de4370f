import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { appFieldLabels, hardwareLabels, permissionLabels } from '../apps';
import type { AdminApp } from './types';

type Since = AdminApp['sinceLastDecision'];
type Change = Since['changes'][number];

/** The reviewed fields (the app's editable fields) by their names in the app, as the dialog names them. */
const FIELD_LABELS: Record<string, string> = appFieldLabels;

/** The summary line of what changed since the last approval or rejection. */
function sinceLastDecisionText({ state, changedFields }: Since): string {
  if (state === 'first_review') return 'First review';
  if (state === 'not_recorded') return 'Not recorded at the last decision';
  if (changedFields.length === 0) return 'Nothing changed';
  return `Changed: ${changedFields.map((field) => FIELD_LABELS[field] ?? field).join(', ')}`;
}

type Item = Record<string, unknown>;

const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const items = (value: unknown): Item[] => (Array.isArray(value) ? value.filter(isItem) : []);

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** How each list field's items are told apart, and named for people. */
const LISTS: Record<string, { key: (item: Item) => string; name: (item: Item) => string }> = {
  permissions: {
    key: (item) => String(item.type),
    name: (item) => {
      const type = String(item.type);
      const label = (permissionLabels as Record<string, string | undefined>)[type] ?? type;
      return text(item.description) ? `${label}: ${String(item.description)}` : label;
    },
  },
  hardwareRequirements: {
    key: (item) => String(item.type),
    name: (item) => {
      const type = String(item.type);
      const label = (hardwareLabels as Record<string, string | undefined>)[type] ?? type;
      return `${label} (${item.level === 'REQUIRED' ? 'required' : 'optional'})`;
    },
  },
  settings: {
    key: (item) => text(item.key) ?? JSON.stringify(item),
    name: (item) => text(item.label) ?? text(item.key) ?? JSON.stringify(item),
  },
  tools: {
    key: (item) => text(item.id) ?? text(item.name) ?? JSON.stringify(item),
    name: (item) => text(item.id) ?? text(item.name) ?? JSON.stringify(item),
  },
};

type Mark = 'added' | 'removed' | 'changed';
const MARKS: Record<Mark, { label: string; color: 'success' | 'error' | 'info' }> = {
  added: { label: 'Added', color: 'success' },
  removed: { label: 'Removed', color: 'error' },
  changed: { label: 'Changed', color: 'info' },
};

/** A list field's items marked added, removed or changed (same key, other content). */
function listDiff(field: string, change: Change): { mark: Mark; name: string; was?: string }[] {
  const list = LISTS[field];
  if (!list) return [];
  const before = new Map(items(change.old).map((item) => [list.key(item), item]));
  const after = new Map(items(change.new).map((item) => [list.key(item), item]));
  const rows: { mark: Mark; name: string; was?: string }[] = [];
  for (const [key, item] of after) {
    const old = before.get(key);
    if (!old) rows.push({ mark: 'added', name: list.name(item) });
    else if (JSON.stringify(old) !== JSON.stringify(item)) {
      rows.push({ mark: 'changed', name: list.name(item), was: list.name(old) });
    }
  }
  for (const [key, item] of before) {
    if (!after.has(key)) rows.push({ mark: 'removed', name: list.name(item) });
  }
  return rows;
}

/** A single value as text: `(none)` for no value. */
function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function ValueChange({ change }: { change: Change }) {
  return (
    <Box
      sx={{
        display: 'grid',
        gridTemplateColumns: 'max-content 1fr',
        columnGap: 1.5,
        rowGap: 0.5,
        alignItems: 'baseline',
      }}
    >
      <Typography variant="caption" color="text.secondary" component="span">
        Before
      </Typography>
      <Typography
        variant="body2"
        component="del"
        sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', color: 'text.secondary' }}
      >
        {valueText(change.old)}
      </Typography>
      <Typography variant="caption" color="text.secondary" component="span">
        Now
      </Typography>
      <Typography
        variant="body2"
        component="ins"
        sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', textDecoration: 'none' }}
      >
        {valueText(change.new)}
      </Typography>
    </Box>
  );
}

function ListChange({ field, change }: { field: string; change: Change }) {
  const rows = listDiff(field, change);
  if (rows.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        Reordered
      </Typography>
    );
  }
  return (
    <Stack component="ul" spacing={0.5} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {rows.map((row) => (
        <Stack
          component="li"
          key={`${row.mark}-${row.name}`}
          direction="row"
          spacing={1}
          sx={{ alignItems: 'baseline' }}
        >
          <Chip
            size="small"
            variant="outlined"
            color={MARKS[row.mark].color}
            label={MARKS[row.mark].label}
            sx={{ flexShrink: 0 }}
          />
          <Typography variant="body2" sx={{ overflowWrap: 'anywhere', minWidth: 0 }}>
            {row.name}
            {row.was && (
              <Box component="span" sx={{ color: 'text.secondary' }}>
                {' '}
                (was {row.was})
              </Box>
            )}
          </Typography>
        </Stack>
      ))}
    </Stack>
  );
}

/**
 * What changed in the reviewed fields since the last approval or rejection: each field with its value
 * then and now, and for the lists (permissions, hardware, settings, tools) which items were added, removed
 * or changed.
 */
export function ReviewChanges({ since }: { since: Since }) {
  const summary = sinceLastDecisionText(since);
  if (since.state !== 'compared' || since.changes.length === 0) return <>{summary}</>;
  return (
    <Stack spacing={1.5} sx={{ mt: 0.5 }}>
      <div>{summary}</div>
      {since.changes.map((change) => (
        <Box
          key={change.field}
          role="group"
          aria-label={`${FIELD_LABELS[change.field] ?? change.field} changes`}
          sx={{
            borderLeft: 3,
            borderColor: 'divider',
            pl: 1.5,
          }}
        >
          <Typography variant="subtitle2" component="div" sx={{ mb: 0.5 }}>
            {FIELD_LABELS[change.field] ?? change.field}
          </Typography>
          {LISTS[change.field] ? (
            <ListChange field={change.field} change={change} />
          ) : (
            <ValueChange change={change} />
          )}
        </Box>
      ))}
    </Stack>
  );
}
