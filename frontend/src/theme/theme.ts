import { createTheme, type Theme } from '@mui/material/styles';

const fontFamily = [
  'system-ui',
  '-apple-system',
  '"Segoe UI"',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  'sans-serif',
].join(',');

/** Where MUI keeps the colour mode the person picked. */
export const COLOR_MODE_STORAGE_KEY = 'portal-color-mode';

let made: Theme | undefined;

/**
 * The one theme of the portal: a light and a dark colour scheme served as CSS
 * variables. The scheme follows the system preference until the person picks
 * one with the colour-mode toggle (stored in localStorage by MUI). Made on first
 * use, not when the module loads: making it is a fair part of the page's start,
 * which main.tsx gives a task of its own.
 */
export function portalTheme(): Theme {
  made ??= makeTheme();
  return made;
}

const makeTheme = () =>
  createTheme({
    cssVariables: { colorSchemeSelector: 'data' },
    colorSchemes: {
      light: {
        palette: {
          primary: { main: '#3451d1', contrastText: '#ffffff' },
          secondary: { main: '#0b7b78', contrastText: '#ffffff' },
          background: { default: '#f6f7fb', paper: '#ffffff' },
          text: { primary: '#161a2b', secondary: '#4a5068' },
          divider: 'rgba(22, 26, 43, 0.12)',
        },
      },
      dark: {
        palette: {
          primary: { main: '#9db0ff', contrastText: '#0c1233' },
          secondary: { main: '#5ad6cf', contrastText: '#04201f' },
          background: { default: '#0d1020', paper: '#161a2e' },
          text: { primary: '#e8eaf6', secondary: '#aab0cc' },
          divider: 'rgba(232, 234, 246, 0.14)',
        },
      },
    },
    shape: { borderRadius: 10 },
    typography: {
      fontFamily,
      h1: { fontWeight: 800, letterSpacing: '-0.02em' },
      h2: { fontWeight: 700, letterSpacing: '-0.01em' },
      h3: { fontWeight: 700 },
      button: { textTransform: 'none', fontWeight: 600 },
    },
    components: {
      MuiCssBaseline: {
        styleOverrides: (theme) => ({
          // A clearly visible keyboard focus ring on every interactive element.
          ':focus-visible': {
            outline: `3px solid ${theme.vars.palette.primary.main}`,
            outlineOffset: '2px',
          },
        }),
      },
      // MUI removes the outline of buttons and links; put the same ring back.
      MuiButtonBase: {
        styleOverrides: {
          root: ({ theme }) => ({
            '&.Mui-focusVisible': {
              outline: `3px solid ${theme.vars.palette.primary.main}`,
              outlineOffset: '2px',
            },
          }),
        },
      },
      MuiButton: {
        defaultProps: { disableElevation: true },
      },
      MuiLink: {
        defaultProps: { underline: 'hover' },
        styleOverrides: {
          root: ({ theme }) => ({
            '&:focus-visible': {
              outline: `3px solid ${theme.vars.palette.primary.main}`,
              outlineOffset: '2px',
            },
          }),
        },
      },
    },
  });
