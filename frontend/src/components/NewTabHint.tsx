import Box from '@mui/material/Box';

/** Hidden text for screen readers: tells that a link opens a new tab. */
export function NewTabHint() {
  return (
    <>
      {' '}
      <Box
        component="span"
        sx={{
          position: 'absolute',
          width: '1px',
          height: '1px',
          p: 0,
          m: '-1px',
          overflow: 'hidden',
          clip: 'rect(0 0 0 0)',
          whiteSpace: 'nowrap',
          border: 0,
        }}
      >
        (opens in a new tab)
      </Box>
    </>
  );
}
