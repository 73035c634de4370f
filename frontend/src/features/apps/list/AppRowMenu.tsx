import Divider from '@mui/material/Divider';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import KeyIcon from '@mui/icons-material/Key';
import PublishIcon from '@mui/icons-material/Publish';
import ShareIcon from '@mui/icons-material/Share';

import type { App } from '../types';
import { storeAction } from './status';

/** What a row's actions menu offers besides Edit App, which opens the page. */
export type RowAction = 'apiKey' | 'share' | 'publish' | 'delete';

interface Props {
  id: string;
  anchor: HTMLElement;
  app: App;
  onEdit: () => void;
  onChoose: (action: RowAction) => void;
  onClose: () => void;
}

/** The actions menu of a row of the apps table (loaded when a row's menu first opens). */
export function AppRowMenu({ id, anchor, app, onEdit, onChoose, onClose }: Props) {
  const action = storeAction(app.appStoreStatus);
  const choose = (kind: RowAction) => () => {
    onChoose(kind);
  };
  return (
    <Menu
      id={id}
      anchorEl={anchor}
      open
      onClose={onClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
      transformOrigin={{ vertical: 'top', horizontal: 'right' }}
    >
      <MenuItem onClick={onEdit}>
        <ListItemIcon>
          <EditIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>Edit App</ListItemText>
      </MenuItem>
      <MenuItem onClick={choose('apiKey')}>
        <ListItemIcon>
          <KeyIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>Manage API Key</ListItemText>
      </MenuItem>
      <MenuItem onClick={choose('share')}>
        <ListItemIcon>
          <ShareIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>Share with Testers</ListItemText>
      </MenuItem>
      {action && (
        <MenuItem onClick={choose('publish')}>
          <ListItemIcon>
            <PublishIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>
            {action === 'resubmit' ? 'Resubmit to App Store' : 'Publish to App Store'}
          </ListItemText>
        </MenuItem>
      )}
      <Divider />
      <MenuItem onClick={choose('delete')} sx={{ color: 'error.main' }}>
        <ListItemIcon>
          <DeleteIcon fontSize="small" color="error" />
        </ListItemIcon>
        <ListItemText>Delete App</ListItemText>
      </MenuItem>
    </Menu>
  );
}
