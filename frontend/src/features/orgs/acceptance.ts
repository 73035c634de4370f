import { isApiErrorBody, isFetchBaseQueryError } from '../../api/errors';
import { paths } from '../../config/paths';

interface Notice {
  severity: 'success' | 'info' | 'error';
  text: string;
}

/** Where a failed acceptance leads, and what it says (spec §8). */
export function acceptanceFailure(error: unknown): { to: string; notice: Notice } {
  const status = isFetchBaseQueryError(error) ? error.status : undefined;
  const message =
    isFetchBaseQueryError(error) && isApiErrorBody(error.data) ? error.data.error : undefined;
  if (status === 400 && message?.includes('already a member')) {
    const orgId = message.slice(message.lastIndexOf(':') + 1).trim();
    return {
      to: paths.orgSettings({ existing: true, orgId: orgId || undefined }),
      notice: { severity: 'info', text: 'You are already a member of this organization' },
    };
  }
  if (status === 400 && message?.includes('already been accepted')) {
    return {
      to: paths.dashboard,
      notice: { severity: 'info', text: 'This invitation has already been used' },
    };
  }
  if (status === 400 && message?.includes('expired')) {
    return {
      to: paths.dashboard,
      notice: {
        severity: 'error',
        text: 'This invitation has expired. Please request a new invitation.',
      },
    };
  }
  return {
    to: paths.dashboard,
    notice: {
      severity: 'error',
      text: message
        ? `Invitation error: ${message}`
        : 'Failed to accept the invitation. It may be invalid or expired.',
    },
  };
}
