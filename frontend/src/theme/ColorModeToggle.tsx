import DarkModeOutlined from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlined from '@mui/icons-material/LightModeOutlined';
import SettingsBrightness from '@mui/icons-material/SettingsBrightness';
import IconButton from '@mui/material/IconButton';
import { useColorScheme } from '@mui/material/styles';
import { lazy, Suspense, useId, useState, useSyncExternalStore, type MouseEvent } from 'react';

import type { ColorMode } from './colorModes';

// The menu (with its popover and focus trap) is loaded on first use only, to
// keep it out of the code every page downloads first.
const loadMenu = () => import('./ColorModeMenu');
const ColorModeMenu = lazy(async () => ({ default: (await loadMenu()).ColorModeMenu }));

const subscribeToNothing = () => () => undefined;
const isLive = () => true;
const isPrerendered = () => false;

/** Lets the person choose light, dark or the system colour scheme. */
export function ColorModeToggle() {
  const { mode, systemMode, setMode } = useColorScheme();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  const buttonId = useId();

  // A page rendered at build time shows the system choice (the build knows no person's): React first
  // renders it that way when it takes the page over, then with the stored choice.
  const live = useSyncExternalStore(subscribeToNothing, isLive, isPrerendered);
  const current: ColorMode = live ? (mode ?? 'system') : 'system';
  const resolved = current === 'system' ? systemMode : current;
  const label = `Color scheme: ${current}`;

  const preload = () => {
    void loadMenu();
  };
  const open = (event: MouseEvent<HTMLElement>) => {
    setAnchor(event.currentTarget);
  };
  const close = () => {
    setAnchor(null);
  };

  return (
    <>
      <IconButton
        id={buttonId}
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-controls={anchor ? menuId : undefined}
        aria-expanded={anchor ? 'true' : undefined}
        onClick={open}
        onPointerEnter={preload}
        onFocus={preload}
        color="inherit"
      >
        {current === 'system' ? (
          <SettingsBrightness />
        ) : resolved === 'dark' ? (
          <DarkModeOutlined />
        ) : (
          <LightModeOutlined />
        )}
      </IconButton>
      {anchor && (
        <Suspense fallback={null}>
          <ColorModeMenu
            id={menuId}
            labelledBy={buttonId}
            anchor={anchor}
            current={current}
            onChoose={(next) => {
              setMode(next);
              close();
            }}
            onClose={close}
          />
        </Suspense>
      )}
    </>
  );
}
