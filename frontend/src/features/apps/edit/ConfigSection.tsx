import FileDownloadIcon from '@mui/icons-material/FileDownload';
import FileUploadIcon from '@mui/icons-material/FileUpload';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useRef, useState, type ChangeEvent } from 'react';

import { DialogLoading } from '../../../components/DialogLoading';
import { usePublicConfig } from '../../publicConfig';
import { useExportAppConfigMutation } from '../api';
import type { ImportSummary } from '../config/importConfig';
import type { AppFormValues } from '../form/appForm';

// Reading a file (the configuration's checks) and its confirmation load when the user picks a file.
const ImportConfigDialog = lazy(async () => ({
  default: (await import('./ImportConfigDialog')).ImportConfigDialog,
}));

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
  onImport: (apply: (form: AppFormValues) => AppFormValues) => void;
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
  const { keepLoopbackHttp } = usePublicConfig();
  const [exportConfig, { isLoading: exporting }] = useExportAppConfigMutation();
  const [message, setMessage] = useState<Message>(null);
  const [pending, setPending] = useState<{
    apply: (form: AppFormValues) => AppFormValues;
    summary: ImportSummary;
  } | null>(null);
  // The last summary shown stays in the dialog while it closes.
  const [shown, setShown] = useState<ImportSummary | null>(null);
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
    let config;
    try {
      config = await import('../config/importConfig');
    } catch {
      setMessage({ severity: 'error', text: PROCESS_FAILED });
      return;
    }
    const { applyConfig, ConfigError, importSummary, readConfigFile } = config;
    try {
      const read = readConfigFile(file.name, contents);
      const summary = importSummary(read);
      setPending({ apply: (form) => applyConfig(form, read, keepLoopbackHttp), summary });
      setShown(summary);
    } catch (error) {
      setMessage({
        severity: 'error',
        text: error instanceof ConfigError ? error.message : PROCESS_FAILED,
      });
    }
  };

  const cancel = () => {
    setPending(null);
  };

  const confirm = () => {
    if (!pending) return;
    try {
      onImport(pending.apply);
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
      {shown && (
        <Suspense fallback={<DialogLoading onClose={cancel} />}>
          <ImportConfigDialog
            open={pending !== null}
            summary={shown}
            onCancel={cancel}
            onConfirm={confirm}
          />
        </Suspense>
      )}
    </Stack>
  );
}
