import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { QueryContent, type QueryState } from './QueryContent';

function renderBlock(query: QueryState<string[]>) {
  return render(
    <QueryContent
      query={query}
      loadingLabel="Loading your things"
      skeletonHeight={80}
      failure="Your things could not be loaded."
    >
      {(things) => <p>{things.length} things</p>}
    </QueryContent>,
  );
}

const idle = { isLoading: false, isFetching: false, refetch: () => undefined };

describe('QueryContent', () => {
  it('shows a named skeleton until the first answer', () => {
    renderBlock({ ...idle, isLoading: true, isFetching: true });
    expect(screen.getByLabelText('Loading your things')).toBeInTheDocument();
    expect(screen.queryByText(/things$/)).toBeNull();
  });

  it('shows the server’s words with Retry, which reads again and is off while it does', async () => {
    const refetch = vi.fn();
    const error = { status: 503, data: { error: 'The database is unavailable', code: 'X' } };
    const { rerender } = renderBlock({ ...idle, error, data: ['old'], refetch });
    expect(screen.getByRole('alert')).toHaveTextContent('The database is unavailable');
    // A failed read replaces what an earlier one showed.
    expect(screen.queryByText('1 things')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(refetch).toHaveBeenCalledTimes(1);
    rerender(
      <QueryContent
        query={{ ...idle, error, isFetching: true, refetch }}
        loadingLabel="Loading your things"
        skeletonHeight={80}
        failure="Your things could not be loaded."
      >
        {(things: string[]) => <p>{things.length} things</p>}
      </QueryContent>,
    );
    expect(screen.getByRole('button', { name: 'Retry' })).toBeDisabled();
  });

  it('falls back on its own words when the failure carries none', () => {
    renderBlock({ ...idle, error: { status: 502, data: '<html>Bad gateway</html>' } });
    expect(screen.getByRole('alert')).toHaveTextContent('Your things could not be loaded.');
  });

  it('shows what the answer holds', () => {
    renderBlock({ ...idle, data: ['a', 'b'] });
    expect(screen.getByText('2 things')).toBeInTheDocument();
  });
});
