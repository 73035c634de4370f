export { ApiKeyDialog, MIN_SHOWN_KEY_LENGTH, type ApiKeyDialogProps } from './ApiKeyDialog';
export { DeleteAppDialog, type DeleteAppDialogProps } from './DeleteAppDialog';
export { PublishDialog, type PublishDialogProps } from './PublishDialog';
export { ShareDialog, type ShareDialogProps } from './ShareDialog';
