/**
 * The `sx` of a table column a phone leaves out (issue 25, item 8): below the `sm` breakpoint (600 px) the
 * table keeps its main column, its status and its row actions on screen, without scrolling sideways.
 */
export const secondaryColumn = { display: { xs: 'none', sm: 'table-cell' } } as const;
