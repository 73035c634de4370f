import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { entryLabel, TARGET_KIND_LABELS, viaTokenText } from './actions';
import { localTime, targetText } from './format';
import type { AuditEntry } from './types';

const WRAP = { overflowWrap: 'anywhere' } as const;

/**
 * The audit log at phone width: one card per entry (what, who, the target, when), each opening the entry's
 * detail (the card is the button: its text is its name), with Newer and Older under the list instead of
 * the grid's pagination.
 */
export function AuditCards({
  label,
  rows,
  loading,
  emptyText,
  page,
  hasOlder,
  onOpen,
  onPage,
}: {
  label: string;
  rows: AuditEntry[];
  loading: boolean;
  emptyText: string;
  page: number;
  hasOlder: boolean;
  onOpen: (entry: AuditEntry) => void;
  onPage: (page: number) => void;
}) {
  return (
    <Stack spacing={1.5}>
      {loading ? (
        <Box sx={{ display: 'grid', placeItems: 'center', py: 4 }}>
          <CircularProgress aria-label="Loading audit entries" />
        </Box>
      ) : rows.length === 0 ? (
        <Card variant="outlined" sx={{ p: 2 }}>
          <Typography color="text.secondary">{emptyText}</Typography>
        </Card>
      ) : (
        <Stack
          component="ul"
          aria-label={label}
          spacing={1.5}
          sx={{ listStyle: 'none', m: 0, p: 0 }}
        >
          {rows.map((row) => (
            <li key={row.id}>
              <Card variant="outlined">
                <CardActionArea
                  onClick={() => {
                    onOpen(row);
                  }}
                  sx={{ p: 2 }}
                >
                  <Typography sx={{ fontWeight: 600, ...WRAP }}>{entryLabel(row)}</Typography>
                  <Typography variant="body2" sx={WRAP}>
                    {row.actor.email}
                    {row.viaToken && ` ${viaTokenText(row) ?? ''}`}
                  </Typography>
                  {row.target && (
                    <Typography variant="body2" sx={WRAP}>
                      <Box component="span" sx={{ color: 'text.secondary' }}>
                        {TARGET_KIND_LABELS[row.target.kind]}:
                      </Box>{' '}
                      {targetText(row)}
                    </Typography>
                  )}
                  <Typography variant="caption" color="text.secondary" component="div">
                    <time dateTime={row.at}>{localTime(row.at)}</time>
                    {row.clientIp ? ` · ${row.clientIp}` : ''}
                  </Typography>
                </CardActionArea>
              </Card>
            </li>
          ))}
        </Stack>
      )}
      {(page > 0 || hasOlder) && (
        <Stack
          direction="row"
          spacing={1}
          sx={{ justifyContent: 'space-between', alignItems: 'center' }}
        >
          <Button
            disabled={page === 0}
            onClick={() => {
              onPage(page - 1);
            }}
          >
            Newer
          </Button>
          <Typography variant="body2" color="text.secondary">
            Page {page + 1}
          </Typography>
          <Button
            disabled={!hasOlder}
            onClick={() => {
              onPage(page + 1);
            }}
          >
            Older
          </Button>
        </Stack>
      )}
    </Stack>
  );
}
