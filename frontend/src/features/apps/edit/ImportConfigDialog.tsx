import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';

import type { ImportSummary } from '../config/importConfig';

interface Props {
  open: boolean;
  summary: ImportSummary;
  onCancel: () => void;
  onConfirm: () => void;
}

/** What an imported configuration file sets, to confirm before it fills the form (see ConfigSection). */
export function ImportConfigDialog({ open, summary, onCancel, onConfirm }: Props) {
  return (
    <Dialog open={open} onClose={onCancel} maxWidth="sm" fullWidth>
      <DialogTitle>Import Configuration</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          The file sets these values. Lists in the file replace the app&apos;s lists; fields it does
          not set stay as they are.
        </DialogContentText>
        <SummaryTable summary={summary} />
        {summary.adjustments.length > 0 && (
          <Alert severity="info" sx={{ mt: 2 }}>
            <Typography variant="body2" sx={{ fontWeight: 500 }}>
              Defaults that did not fit their setting were adjusted:
            </Typography>
            <Typography variant="body2" component="ul" sx={{ m: 0, pl: 2 }}>
              {summary.adjustments.map((adjustment) => (
                <li key={adjustment.path}>{adjustment.message}</li>
              ))}
            </Typography>
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="contained" onClick={onConfirm}>
          Import
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function SummaryTable({ summary }: { summary: ImportSummary }) {
  const notSet = (
    <Typography component="span" color="text.secondary">
      Not set
    </Typography>
  );
  const rows: [string, React.ReactNode][] = [
    ['Name', summary.name ?? notSet],
    ['Description', summary.description ?? notSet],
    ['Settings', `${String(summary.settingsCount)} (groups not counted)`],
    ['AI tools', String(summary.toolsCount)],
    ['Permissions', String(summary.permissionsCount)],
    ['Server URL', summary.publicUrl ?? notSet],
    ['Logo URL', summary.logoURL ?? notSet],
    ['Webview URL', summary.webviewURL ?? notSet],
  ];
  return (
    <Table size="small" aria-label="Import summary">
      <TableBody>
        {rows.map(([label, value]) => (
          <TableRow key={label}>
            <TableCell component="th" scope="row" sx={{ fontWeight: 500, width: '35%' }}>
              {label}
            </TableCell>
            <TableCell sx={{ overflowWrap: 'anywhere' }}>{value}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
