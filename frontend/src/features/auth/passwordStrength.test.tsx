import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { PasswordStrengthMeter } from './PasswordStrengthMeter';
import { MIN_SCORE, userInputs } from './passwordStrength';
import { loadPasswordStrength } from './strengthLoader';

const { strengthOf } = await loadPasswordStrength();

describe('password strength', () => {
  it('refuses what the server refuses: well-known passwords of twelve characters or more', () => {
    for (const breached of ['elizabeth123', 'manchesterunited', 'Aa123456789!', 'password1234']) {
      expect(strengthOf(breached, []).score, breached).toBeLessThan(MIN_SCORE);
    }
    for (const strong of ['violet-harbour-tram-42', 'a sufficiently long passphrase 42']) {
      expect(strengthOf(strong, []).score, strong).toBeGreaterThanOrEqual(MIN_SCORE);
    }
  });

  it("counts the account's e-mail address and name as easy words", () => {
    const candidate = 'ada lovelace 1815';
    expect(strengthOf(candidate, []).score).toBeGreaterThanOrEqual(MIN_SCORE);
    const inputs = userInputs('ada.lovelace@example.com', 'Ada Lovelace');
    expect(strengthOf(candidate, inputs).score).toBeLessThan(MIN_SCORE);
  });

  it('shows the estimate as the password is typed, once its dictionaries have loaded', async () => {
    const { rerender } = render(<PasswordStrengthMeter password="" email="ada@example.com" />);
    expect(screen.queryByText(/Strength/)).not.toBeInTheDocument();

    rerender(<PasswordStrengthMeter password="password1234" email="ada@example.com" />);
    expect(
      await screen.findByText(/^Strength: (Very weak|Weak)\. Too weak to be accepted\./),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('progressbar', { name: 'Strength of the new password' }),
    ).toBeInTheDocument();

    rerender(<PasswordStrengthMeter password="violet-harbour-tram-42" email="ada@example.com" />);
    expect(await screen.findByText('Strength: Very strong.')).toBeInTheDocument();
  });
});
