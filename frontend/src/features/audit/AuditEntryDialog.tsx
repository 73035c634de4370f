import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

import { entryLabel, TARGET_KIND_LABELS, viaTokenText } from './actions';
import { localTime, targetText, valueText } from './format';
import type { AuditEntry } from './types';

const CODE = { fontFamily: 'monospace', fontSize: '0.85em', overflowWrap: 'anywhere' } as const;

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <Typography component="dt" variant="body2" color="text.secondary" sx={{ fontWeight: 600 }}>
        {term}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </>
  );
}

/** One entry in full: who, when (local and exact), what, the target, old → new of each field, from where. */
export function AuditEntryDialog({ entry, onClose }: { entry: AuditEntry; onClose: () => void }) {
  const { target } = entry;
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" aria-labelledby="audit-entry-title">
      <DialogTitle id="audit-entry-title">{entryLabel(entry)}</DialogTitle>
      {/* Reachable by keyboard: on a phone its content scrolls. */}
      <DialogContent tabIndex={0}>
        <Box
          component="dl"
          sx={{
            display: 'grid',
            gridTemplateColumns: { xs: '1fr', sm: 'max-content 1fr' },
            columnGap: 3,
            rowGap: 1,
            m: 0,
          }}
        >
          <Fact term="Time">
            {localTime(entry.at)}{' '}
            <Box component="span" sx={{ color: 'text.secondary' }}>
              ({entry.at})
            </Box>
          </Fact>
          <Fact term="Person">
            {entry.actor.email}{' '}
            <Box component="span" sx={{ ...CODE, color: 'text.secondary' }}>
              {entry.actor.id}
            </Box>
            {entry.viaToken && (
              <Box component="span" sx={{ display: 'block' }}>
                {viaTokenText(entry)}
              </Box>
            )}
          </Fact>
          <Fact term="Action">
            {entryLabel(entry)}{' '}
            <Box component="code" sx={CODE}>
              {entry.action}
            </Box>
          </Fact>
          <Fact term="Target">
            {target ? (
              <>
                {TARGET_KIND_LABELS[target.kind]}: {targetText(entry)}
                {target.label && target.label !== target.id && (
                  <>
                    {' '}
                    <Box component="span" sx={{ ...CODE, color: 'text.secondary' }}>
                      {target.id}
                    </Box>
                  </>
                )}
              </>
            ) : (
              '(none)'
            )}
          </Fact>
          {entry.organizationId && (
            <Fact term="Organization">
              <Box component="span" sx={CODE}>
                {entry.organizationId}
              </Box>
            </Fact>
          )}
          <Fact term="Client address">{entry.clientIp ?? 'Unknown'}</Fact>
          <Fact term="User agent">{entry.userAgent ?? 'Unknown'}</Fact>
        </Box>
        <Typography variant="h6" component="h3" sx={{ mt: 3, mb: 1 }}>
          Changed fields
        </Typography>
        {entry.changes.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            No field changes are recorded for this action.
          </Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-label="Changed fields">
              <TableHead>
                <TableRow>
                  <TableCell>Field</TableCell>
                  <TableCell>Before</TableCell>
                  <TableCell>After</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {entry.changes.map((change) => (
                  <TableRow key={change.field}>
                    <TableCell component="th" scope="row" sx={CODE}>
                      {change.field}
                    </TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>{valueText(change.old)}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>
                      <Box component="span" aria-hidden sx={{ color: 'text.secondary', mr: 1 }}>
                        →
                      </Box>
                      {valueText(change.new)}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
