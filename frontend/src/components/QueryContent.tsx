import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import type { ReactNode } from 'react';

import { errorMessage } from '../api/errors';

/** What of an RTK Query result the block reads. */
export interface QueryState<T> {
  data?: T;
  error?: unknown;
  isLoading: boolean;
  isFetching: boolean;
  refetch: () => unknown;
}

interface Props<T> {
  query: QueryState<T>;
  /** The skeleton's accessible name while the first answer comes, such as "Loading your sessions". */
  loadingLabel: string;
  /** The skeleton's height in pixels: about that of what it stands for. */
  skeletonHeight: number;
  /** The words of a failure when the server's answer has none of its own. */
  failure: string;
  /** What the answer shows. */
  children: (data: T) => ReactNode;
}

/**
 * The loading and failure states the list sections share (access tokens, sessions, webhooks): a skeleton
 * until the first answer, the server's error with Retry (off while a new answer is on its way) in place of
 * the content whenever the last read failed, and otherwise what the answer shows.
 */
export function QueryContent<T>({
  query,
  loadingLabel,
  skeletonHeight,
  failure,
  children,
}: Props<T>) {
  const { data, error, isLoading, isFetching, refetch } = query;
  const skeleton = <Skeleton variant="rounded" height={skeletonHeight} aria-label={loadingLabel} />;
  if (isLoading) return skeleton;
  if (error) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        }
      >
        {errorMessage(error, failure)}
      </Alert>
    );
  }
  // No answer yet and none asked for (a query not started): as while loading.
  if (data === undefined) return skeleton;
  return children(data);
}
