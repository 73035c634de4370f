import Check from '@mui/icons-material/Check';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';

import { colorModes, type ColorMode } from './colorModes';

interface Props {
  id: string;
  labelledBy: string;
  anchor: HTMLElement;
  current: ColorMode;
  onChoose: (mode: ColorMode) => void;
  onClose: () => void;
}

/** The choices of the colour-mode toggle, one of them checked. */
export function ColorModeMenu({ id, labelledBy, anchor, current, onChoose, onClose }: Props) {
  return (
    <Menu
      id={id}
      anchorEl={anchor}
      open
      onClose={onClose}
      slotProps={{ list: { 'aria-labelledby': labelledBy } }}
    >
      {colorModes.map((option) => (
        <MenuItem
          key={option.mode}
          role="menuitemradio"
          aria-checked={current === option.mode}
          selected={current === option.mode}
          onClick={() => {
            onChoose(option.mode);
          }}
        >
          <ListItemIcon>{current === option.mode ? <Check fontSize="small" /> : null}</ListItemIcon>
          <ListItemText>{option.label}</ListItemText>
        </MenuItem>
      ))}
    </Menu>
  );
}
