import { describe, expect, it } from 'vitest';

import { errorMessage, isApiErrorBody, isFetchBaseQueryError } from './errors';

describe('API error helpers', () => {
  it('recognises RTK Query errors and the API error body', () => {
    expect(isFetchBaseQueryError({ status: 409, data: { error: 'Taken' } })).toBe(true);
    expect(isFetchBaseQueryError(new Error('boom'))).toBe(false);
    expect(isApiErrorBody({ error: 'Taken', code: 'DUPLICATE' })).toBe(true);
    expect(isApiErrorBody({ message: 'Taken' })).toBe(false);
  });

  it('shows the server message when there is one', () => {
    expect(
      errorMessage({
        status: 409,
        data: { error: 'Package name is already taken', code: 'DUPLICATE' },
      }),
    ).toBe('Package name is already taken');
  });

  it('explains an unreachable server and falls back otherwise', () => {
    expect(errorMessage({ status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' })).toBe(
      'The server could not be reached.',
    );
    expect(errorMessage({ status: 500, data: '<html>' }, 'Could not save.')).toBe(
      'Could not save.',
    );
    expect(errorMessage({ message: 'Serialized error' })).toBe('Serialized error');
    expect(errorMessage(undefined)).toBe('Something went wrong. Please try again.');
  });
});
