import FileDownloadIcon from '@mui/icons-material/FileDownload';
import FileUploadIcon from '@mui/icons-material/FileUpload';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useRef, useState, type ChangeEvent } from 'react';

import { useExportAppConfigMutation } from '../api';
import {
  ConfigError,
  importSummary,
  readConfigFile,
  type AppConfig,
  type ImportSummary,
} from '../config/importConfig';

export const EXPORTED = 'Configuration exported successfully!';
export const IMPORTED = 'Configuration imported successfully! Remember to save changes.';
export const EXPORT_FAILED = 'Failed to export configuration. Please try again.';
export const READ_FAILED = 'Failed to read the file. Please try again.';
export const PROCESS_FAILED = 'Failed to process the file. Please try again.';
export const IMPORT_FAILED = 'Failed to import configuration. Please try again.';

interface Props {
  orgId: string;
  packageName: string;
  /** Applies a confirmed configuration to the form (the user saves afterwards). */
  onImport: (config: AppConfig) => void;
  disabled?: boolean;
}

type Message = { severity: 'success' | 'error'; text: string } | null;

/** Saves `data` as a file named `fileName` through a temporary link. */
function download(fileName: string, data: unknown) {
  const blob = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 0);
}

/**
 * Configuration import and export (spec §2, §5): export downloads `{pkg}_config.json` from the server;
 * import reads a local JSON file, checks it with the domain's rules and messages, shows what it sets and
 * asks for confirmation.
 */
export function ConfigSection({ orgId, packageName, onImport, disabled = false }: Props) {
  const [exportConfig, { isLoading: exporting }] = useExportAppConfigMutation();
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState<{ config: AppConfig; summary: ImportSummary } | null>(
    null,
  );
  const input = useRef<HTMLInputElement>(null);

  const runExport = async () => {
    setMessage(null);
    try {
      const { fileName, config } = await exportConfig({ orgId, packageName }).unwrap();
      download(fileName, config);
      setMessage({ severity: 'success', text: EXPORTED });
    } catch {
      setMessage({ severity: 'error', text: EXPORT_FAILED });
    }
  };

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // The same file may be chosen again after a fix.
    event.target.value = '';
    if (!file) return;
    setMessage(null);
    let contents: string;
    try {
      contents = await file.text();
    } catch {
      setMessage({ severity: 'error', text: READ_FAILED });
      return;
    }
    try {
      const config = readConfigFile(file.name, contents);
      setPending({ config, summary: importSummary(config) });
    } catch (error) {
      setMessage({
        severity: 'error',
        text: error instanceof ConfigError ? error.message : PROCESS_FAILED,
      });
    }
  };

  const confirm = () => {
    if (!pending) return;
    try {
      onImport(pending.config);
      setMessage({ severity: 'success', text: IMPORTED });
    } catch {
      setMessage({ severity: 'error', text: IMPORT_FAILED });
    }
    setPending(null);
  };

  return (
    <Stack spacing={2}>
      <Typography variant="body2" color="text.secondary">
        Export the app&apos;s configuration as a JSON file (the format the SDK reads), or import one
        to fill this form. Imported values are not saved until you press Save Changes.
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
        <Button
          variant="outlined"
          startIcon={<FileDownloadIcon />}
          onClick={() => void runExport()}
          disabled={disabled || exporting}
        >
          {exporting ? 'Exporting...' : 'Export Configuration'}
        </Button>
        <Button
          variant="outlined"
          startIcon={<FileUploadIcon />}
          onClick={() => input.current?.click()}
          disabled={disabled}
        >
          Import Configuration
        </Button>
        <input
          ref={input}
          type="file"
          accept=".json,application/json"
          hidden
          aria-label="Configuration file"
          data-testid="config-file-input"
          onChange={(event) => void onFile(event)}
        />
      </Stack>
      {message && (
        <Alert severity={message.severity} role={message.severity === 'error' ? 'alert' : 'status'}>
          {message.text}
        </Alert>
      )}
      <Dialog
        open={pending !== null}
        onClose={() => {
          setPending(null);
        }}
        maxWidth="sm"
        fullWidth
      >
        <DialogTitle>Import Configuration</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            The file sets these values. Lists in the file replace the app&apos;s lists; fields it
            does not set stay as they are.
          </DialogContentText>
          {pending && <SummaryTable summary={pending.summary} />}
          {pending && pending.summary.adjustments.length > 0 && (
            <Alert severity="info" sx={{ mt: 2 }}>
              <Typography variant="body2" sx={{ fontWeight: 500 }}>
                Defaults that did not fit their setting were adjusted:
              </Typography>
              <Typography variant="body2" component="ul" sx={{ m: 0, pl: 2 }}>
                {pending.summary.adjustments.map((adjustment) => (
                  <li key={adjustment.path}>{adjustment.message}</li>
                ))}
              </Typography>
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              setPending(null);
            }}
          >
            Cancel
          </Button>
          <Button variant="contained" onClick={confirm}>
            Import
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
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
