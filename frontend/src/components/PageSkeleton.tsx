import Box from '@mui/material/Box';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';

/**
 * The outline of a page (title, a card, a table) shown inside the signed-in layout while what the page
 * needs first is on its way: the top bar and the sidebar are real at once, and the page takes the place of
 * this outline without anything moving. Grey shapes only: nothing here claims to be content.
 */
export function PageSkeleton({ label = 'Loading' }: { label?: string }) {
  return (
    <Box role="status" aria-busy="true" aria-label={label}>
      <Stack spacing={3} aria-hidden="true">
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={2}
          sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
        >
          <div>
            <Skeleton variant="text" sx={{ fontSize: '2.125rem', width: 320, maxWidth: '80%' }} />
            <Skeleton variant="text" sx={{ width: 220, maxWidth: '60%' }} />
          </div>
          <Skeleton variant="rounded" width={132} height={36} />
        </Stack>
        <Skeleton variant="rounded" height={152} />
        <Skeleton variant="rounded" height={240} />
      </Stack>
    </Box>
  );
}
