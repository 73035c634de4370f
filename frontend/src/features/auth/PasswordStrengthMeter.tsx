import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';

import type { Estimator, Strength } from './passwordStrength';
import { loadPasswordStrength } from './strengthLoader';

const LABELS = ['Very weak', 'Weak', 'Fair', 'Strong', 'Very strong'] as const;
const COLORS = ['error', 'error', 'warning', 'success', 'success'] as const;

interface Props {
  password: string;
  email: string;
}

/**
 * A live estimate of a new password's strength, by the algorithm the server uses. Its dictionaries are
 * loaded when the password field gets focus (the field calls `loadPasswordStrength`), or at the latest
 * when the first character is typed; says nothing until there is a password to judge.
 */
export function PasswordStrengthMeter({ password, email }: Props) {
  const [estimator, setEstimator] = useState<Estimator | null>(null);
  const [failed, setFailed] = useState(false);

  const typing = password.length > 0;

  useEffect(() => {
    // Loaded by the field's focus already, as a rule; the same promise here.
    if (!typing || estimator) return;
    let live = true;
    loadPasswordStrength()
      .then((loaded) => {
        if (live) setEstimator(loaded);
      })
      .catch(() => {
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, [typing, estimator]);

  if (!password || failed) return null;
  if (!estimator) {
    return (
      <Typography variant="caption" color="text.secondary">
        Checking strength…
      </Typography>
    );
  }
  const strength: Strength = estimator.strengthOf(password, estimator.userInputs(email));
  const enough = strength.score >= estimator.MIN_SCORE;
  const advice = strength.warning ?? strength.suggestions[0] ?? null;
  return (
    <Stack spacing={0.5}>
      <LinearProgress
        variant="determinate"
        value={((strength.score + 1) / LABELS.length) * 100}
        color={COLORS[strength.score]}
        aria-label="Strength of the new password"
        aria-valuetext={LABELS[strength.score]}
      />
      <Typography variant="caption" color={enough ? 'text.secondary' : 'error'} aria-live="polite">
        {`Strength: ${LABELS[strength.score]}.`}
        {enough ? '' : ' Too weak to be accepted.'}
        {advice && !enough ? ` ${advice}` : ''}
      </Typography>
    </Stack>
  );
}
