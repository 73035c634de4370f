import { describe, expect, it } from 'vitest';

import { formatRecoveryCode, recoveryCodesText } from './recoveryCodes';

describe('recovery codes', () => {
  it('groups a code by four for reading', () => {
    expect(formatRecoveryCode('k4m9x7qp2ab8ht3z')).toBe('k4m9-x7qp-2ab8-ht3z');
    expect(formatRecoveryCode('')).toBe('');
  });

  it('writes one code per line under a heading naming the portal', () => {
    const text = recoveryCodesText(['aaaabbbbccccdddd', 'eeeeffffgggghhhh'], 'portal.example.com');
    expect(text.split('\n')).toEqual([
      'Recovery codes for portal.example.com',
      'Each code works once, in place of a code from your authenticator app.',
      '',
      'aaaa-bbbb-cccc-dddd',
      'eeee-ffff-gggg-hhhh',
      '',
    ]);
  });
});
