import Link from '@mui/material/Link';

/** First focusable element of a page: jumps over the header to `#main`. */
export function SkipLink({ target = 'main' }: { target?: string }) {
  return (
    <Link
      href={`#${target}`}
      sx={{
        position: 'absolute',
        left: 16,
        top: -64,
        zIndex: 'tooltip',
        px: 2,
        py: 1,
        borderRadius: 1,
        bgcolor: 'background.paper',
        boxShadow: 3,
        '&:focus': { top: 16 },
      }}
    >
      Skip to main content
    </Link>
  );
}
