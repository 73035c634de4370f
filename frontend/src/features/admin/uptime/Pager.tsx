import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';

/** Where the page is among the matching apps, and the buttons to the previous and next page. */
export function Pager({
  page,
  pageSize,
  matching,
  onPage,
}: {
  page: number;
  pageSize: number;
  matching: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(matching / pageSize));
  const first = Math.min((page - 1) * pageSize + 1, matching);
  const last = Math.min(page * pageSize, matching);
  const count = matching.toLocaleString('en');
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', justifyContent: 'flex-end' }}>
      <Typography variant="body2" color="text.secondary">
        {matching === 1
          ? '1 app'
          : `${first.toLocaleString('en')}–${last.toLocaleString('en')} of ${count} apps`}
      </Typography>
      {pages > 1 && (
        <>
          <IconButton
            size="small"
            aria-label="Previous page"
            disabled={page <= 1}
            onClick={() => {
              onPage(page - 1);
            }}
          >
            <ChevronLeftIcon fontSize="small" />
          </IconButton>
          <Typography variant="body2">
            Page {page} of {pages.toLocaleString('en')}
          </Typography>
          <IconButton
            size="small"
            aria-label="Next page"
            disabled={page >= pages}
            onClick={() => {
              onPage(page + 1);
            }}
          >
            <ChevronRightIcon fontSize="small" />
          </IconButton>
        </>
      )}
    </Stack>
  );
}
