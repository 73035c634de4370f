import Code from '@mui/icons-material/Code';
import GitHub from '@mui/icons-material/GitHub';
import type { SvgIconProps } from '@mui/material/SvgIcon';

/** The GitHub mark for a repository on github.com, a generic code icon otherwise. */
export function RepoIcon({ url, ...props }: { url: string } & SvgIconProps) {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // Not a URL: fall through to the generic icon.
  }
  return host === 'github.com' ? <GitHub {...props} /> : <Code {...props} />;
}
