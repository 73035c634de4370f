import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import DownloadIcon from '@mui/icons-material/Download';
import {
  DataGrid,
  type GridCellParams,
  type GridColDef,
  type GridPaginationModel,
  type GridRenderCellParams,
  type GridRowParams,
} from '@mui/x-data-grid';
import { useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';

import { errorMessage } from '../../api/errors';
import { EmailAddress } from '../../components/EmailAddress';
import { visuallyHidden } from '../../components/visuallyHidden';
import { ACTION_LABELS, ACTIONS, entryLabel, TARGET_KIND_LABELS, viaTokenText } from './actions';
import { AuditCards } from './AuditCards';
import { useAuditLogInfiniteQuery, useDownloadAuditCsvMutation } from './api';
import { AuditEntryDialog } from './AuditEntryDialog';
import {
  hasCriteria,
  localTime,
  NO_CRITERIA,
  personOptions,
  saveFile,
  targetDetail,
  targetText,
  toFilters,
  type Criteria,
} from './format';
import type { AuditAction, AuditEntry, AuditPerson, AuditScope } from './types';

/** Entries per page unless the reader picks another size. */
export const DEFAULT_PAGE_SIZE = 50;
const PAGE_SIZES = [25, 50, 100];

export const NO_ENTRIES = 'No audit entries yet';
export const NO_MATCHES = 'No entries match these filters';

export interface AuditLogProps {
  /** Which log: an organization's or the platform's. */
  scope: AuditScope;
  /** People the "Person" filter offers besides the actors of the entries read (an organization's members). */
  people?: AuditPerson[];
  /** The grid's accessible name. */
  label: string;
}

const EMPTY: AuditPerson[] = [];

/** A cell's text: it wraps (an e-mail or a package name anywhere) rather than being cut off. */
const WRAP = { overflowWrap: 'anywhere', whiteSpace: 'normal' } as const;

const twoLines = (first: ReactNode, second: string, monospace = true) => (
  <Box sx={{ minWidth: 0, lineHeight: 1.3, py: 1 }}>
    <Typography variant="body2" sx={WRAP}>
      {first}
    </Typography>
    <Typography
      variant="caption"
      color="text.secondary"
      component="div"
      sx={{ ...WRAP, fontFamily: monospace ? 'monospace' : undefined }}
    >
      {second}
    </Typography>
  </Box>
);

/** Under this width the log is a list of cards; the grid's columns would not fit. */
const cardsWidth = (theme: Theme) => theme.breakpoints.down('md');
/** From this width the grid has room for the client address (the detail always shows it). */
const wideWidth = (theme: Theme) => theme.breakpoints.up('lg');

/**
 * An audit log (PRODUCT.md §9), one component for both the organization's Audit Log page and the Admin
 * Panel's tab: filters by person, action, app and local days, pages newest first by cursor (the grid's
 * server pagination: a page is read when it is first shown), a row's detail, and the CSV of every entry the
 * filters match.
 */
export function AuditLog({ scope, people = EMPTY, label }: AuditLogProps) {
  const [criteria, setCriteria] = useState<Criteria>(NO_CRITERIA);
  const [appText, setAppText] = useState('');
  const [pagination, setPagination] = useState<GridPaginationModel>({
    page: 0,
    pageSize: DEFAULT_PAGE_SIZE,
  });
  const [open, setOpen] = useState<AuditEntry | null>(null);
  const [csvError, setCsvError] = useState<string | null>(null);

  const filters = useMemo(() => toFilters(criteria), [criteria]);
  const log = useAuditLogInfiniteQuery(
    { scope, filters, limit: pagination.pageSize },
    { refetchOnMountOrArgChange: true },
  );
  const [downloadCsv, csv] = useDownloadAuditCsvMutation();

  const pages = log.data?.pages;
  const shown = pages?.[pagination.page];
  const rows = shown?.entries ?? [];
  const loaded = useMemo(() => pages?.flatMap((page) => page.entries) ?? [], [pages]);
  const options = useMemo(
    () => personOptions(people, loaded, criteria.actor),
    [people, loaded, criteria.actor],
  );
  const filtered = hasCriteria(criteria);

  const change = (next: Partial<Criteria>) => {
    setCriteria((current) => ({ ...current, ...next }));
    setPagination((current) => ({ ...current, page: 0 }));
  };
  const commitApp = () => {
    if (appText.trim() !== criteria.app) change({ app: appText.trim() });
  };
  const onAppKey = (event: KeyboardEvent) => {
    if (event.key === 'Enter') commitApp();
  };
  const clear = () => {
    setAppText('');
    change(NO_CRITERIA);
  };

  const onPagination = (model: GridPaginationModel) => {
    if (model.pageSize !== pagination.pageSize) {
      setPagination({ page: 0, pageSize: model.pageSize });
      return;
    }
    setPagination(model);
    if (pages && model.page >= pages.length && log.hasNextPage) void log.fetchNextPage();
  };
  const retry = () => {
    if (pages && pagination.page >= pages.length) void log.fetchNextPage();
    else void log.refetch();
  };

  const onDownload = async () => {
    setCsvError(null);
    try {
      const file = await downloadCsv({ scope, filters }).unwrap();
      saveFile(file.fileName, file.csv, 'text/csv');
    } catch (error) {
      setCsvError(errorMessage(error, 'The CSV could not be downloaded. Please try again.'));
    } finally {
      csv.reset();
    }
  };

  const columns = useMemo<GridColDef<AuditEntry>[]>(
    () => [
      {
        field: 'at',
        headerName: 'Time',
        width: 170,
        display: 'flex',
        renderCell: ({ row }: GridRenderCellParams<AuditEntry>) => (
          <Tooltip title={row.at}>
            <time dateTime={row.at}>{localTime(row.at)}</time>
          </Tooltip>
        ),
      },
      {
        field: 'actor',
        headerName: 'Person',
        flex: 1,
        minWidth: 170,
        display: 'flex',
        valueGetter: (_value, row) => row.actor.email,
        renderCell: ({ row }: GridRenderCellParams<AuditEntry>) => (
          <Typography variant="body2" sx={{ ...WRAP, py: 1 }}>
            <EmailAddress address={row.actor.email} />
            {row.viaToken && (
              <Box component="span" sx={{ display: 'block', color: 'text.secondary' }}>
                {viaTokenText(row)}
              </Box>
            )}
          </Typography>
        ),
      },
      {
        field: 'action',
        headerName: 'Action',
        flex: 1.3,
        minWidth: 200,
        display: 'flex',
        renderCell: ({ row }: GridRenderCellParams<AuditEntry>) =>
          twoLines(entryLabel(row), row.action),
      },
      {
        field: 'target',
        headerName: 'Target',
        flex: 1,
        minWidth: 170,
        display: 'flex',
        renderCell: ({ row }: GridRenderCellParams<AuditEntry>) =>
          row.target
            ? twoLines(
                <EmailAddress address={targetText(row)} />,
                targetDetail(row, TARGET_KIND_LABELS[row.target.kind]),
              )
            : '',
      },
      {
        field: 'clientIp',
        headerName: 'Client address',
        width: 130,
        display: 'flex',
        valueGetter: (_value, row) => row.clientIp ?? '',
      },
      {
        field: 'details',
        headerName: 'Details',
        width: 90,
        display: 'flex',
        renderCell: ({ row, tabIndex }: GridRenderCellParams<AuditEntry>) => (
          <Button
            size="small"
            // The grid moves the focus between cells: the button is reached as its cell is.
            tabIndex={tabIndex}
            aria-label={`Details of ${entryLabel(row)} by ${row.actor.email} at ${localTime(row.at)}`}
            onClick={(event) => {
              event.stopPropagation();
              setOpen(row);
            }}
          >
            Details
          </Button>
        ),
      },
    ],
    [],
  );

  const cards = useMediaQuery(cardsWidth);
  const wide = useMediaQuery(wideWidth);
  const firstLoad = !shown && (log.isLoading || log.isFetching);
  const failed = log.isError && !shown;
  const knownCount = loaded.length;

  return (
    <Stack spacing={2}>
      <Stack
        direction={{ xs: 'column', md: 'row' }}
        spacing={2}
        useFlexGap
        sx={{ flexWrap: 'wrap', alignItems: { md: 'center' } }}
      >
        <TextField
          select
          size="small"
          label="Person"
          value={criteria.actor?.id ?? ''}
          onChange={(event) => {
            const id = event.target.value;
            change({ actor: options.find((person) => person.id === id) ?? null });
          }}
          sx={{ minWidth: 200 }}
          slotProps={{
            select: {
              renderValue: (id) => options.find((person) => person.id === id)?.email ?? 'Anyone',
              displayEmpty: true,
            },
            inputLabel: { shrink: true },
          }}
        >
          <MenuItem value="">Anyone</MenuItem>
          {options.map((person) => (
            <MenuItem key={person.id} value={person.id}>
              {person.email}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          select
          size="small"
          label="Action"
          value={criteria.action}
          onChange={(event) => {
            change({ action: event.target.value as AuditAction | '' });
          }}
          sx={{ minWidth: 220 }}
          slotProps={{
            select: {
              renderValue: (value) => (value ? ACTION_LABELS[value as AuditAction] : 'Any action'),
              displayEmpty: true,
            },
            inputLabel: { shrink: true },
          }}
        >
          <MenuItem value="">Any action</MenuItem>
          {ACTIONS.map((action) => (
            <MenuItem key={action} value={action}>
              {twoLines(ACTION_LABELS[action], action)}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          label="App package name"
          placeholder="com.example.app"
          value={appText}
          onChange={(event) => {
            setAppText(event.target.value);
          }}
          onBlur={commitApp}
          onKeyDown={onAppKey}
          sx={{ minWidth: 200 }}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          size="small"
          type="date"
          label="From"
          value={criteria.fromDay}
          onChange={(event) => {
            change({ fromDay: event.target.value });
          }}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          size="small"
          type="date"
          label="To"
          value={criteria.toDay}
          onChange={(event) => {
            change({ toDay: event.target.value });
          }}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        {filtered && <Button onClick={clear}>Clear filters</Button>}
        <Box sx={{ flexGrow: 1, display: { xs: 'none', md: 'block' } }} />
        <Button
          variant="outlined"
          startIcon={<DownloadIcon />}
          onClick={() => void onDownload()}
          disabled={csv.isLoading}
        >
          {csv.isLoading ? 'Preparing CSV...' : 'Download CSV'}
        </Button>
      </Stack>
      {csvError && (
        <Alert
          severity="error"
          onClose={() => {
            setCsvError(null);
          }}
        >
          {csvError}
        </Alert>
      )}
      {failed ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={retry}>
              Retry
            </Button>
          }
        >
          {errorMessage(log.error, 'The audit log could not be loaded. Please try again.')}
        </Alert>
      ) : (
        <>
          {firstLoad && (
            <Typography role="status" sx={visuallyHidden}>
              Loading audit entries...
            </Typography>
          )}
          {cards ? (
            <AuditCards
              label={label}
              rows={rows}
              loading={firstLoad}
              emptyText={filtered ? NO_MATCHES : NO_ENTRIES}
              page={pagination.page}
              hasOlder={pagination.page + 1 < (pages?.length ?? 0) || log.hasNextPage}
              onOpen={setOpen}
              onPage={(page) => {
                onPagination({ page, pageSize: pagination.pageSize });
              }}
            />
          ) : (
            <DataGrid<AuditEntry>
              label={label}
              rows={rows}
              columns={columns}
              getRowId={(row) => row.id}
              loading={firstLoad}
              autoHeight
              getRowHeight={() => 'auto'}
              columnVisibilityModel={{ clientIp: wide }}
              paginationMode="server"
              paginationModel={pagination}
              onPaginationModelChange={onPagination}
              pageSizeOptions={PAGE_SIZES}
              rowCount={log.hasNextPage ? -1 : knownCount}
              paginationMeta={{ hasNextPage: log.hasNextPage }}
              onRowClick={({ row }: GridRowParams<AuditEntry>) => {
                setOpen(row);
              }}
              // By keyboard: Enter on any cell of a row opens its detail, as a click on the row does.
              onCellKeyDown={({ row }: GridCellParams<AuditEntry>, event) => {
                if (event.key === 'Enter') setOpen(row);
              }}
              disableColumnSorting
              disableColumnFilter
              disableColumnMenu
              disableRowSelectionOnClick
              localeText={{ noRowsLabel: filtered ? NO_MATCHES : NO_ENTRIES }}
              sx={{ '& .MuiDataGrid-row': { cursor: 'pointer' } }}
            />
          )}
        </>
      )}
      {open && (
        <AuditEntryDialog
          entry={open}
          onClose={() => {
            setOpen(null);
          }}
        />
      )}
    </Stack>
  );
}
