/**
 * The `sx` of text for screen readers only. Sizes are strings: in `sx` a bare `1` means 100%, and an
 * absolutely positioned box as wide as the page, placed after the sidebar, made the page scroll sideways.
 */
export const visuallyHidden = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  p: 0,
  m: '-1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
  border: 0,
} as const;
