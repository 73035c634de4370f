import type { Estimator } from './passwordStrength';

let loading: Promise<Estimator> | null = null;

/**
 * The password-strength estimator, loaded once: the estimator's code and each of its dictionaries are
 * files of their own (data, ~360 KB gzipped in all), asked for all at once so that they download in
 * parallel. A new-password field calls this when it gets focus, so that the estimate is ready by the first
 * typed character; the meter calls it too (the same promise). A failed load may be tried again.
 */
export function loadPasswordStrength(): Promise<Estimator> {
  loading ??= Promise.all([
    import('./passwordStrength'),
    import('@zxcvbn-ts/language-common/dist/adjacencyGraphs.json.mjs'),
    import('@zxcvbn-ts/language-common/dist/diceware.json.mjs'),
    import('@zxcvbn-ts/language-common/dist/passwords.json.mjs'),
    import('@zxcvbn-ts/language-en/dist/wikipedia.json.mjs'),
    import('@zxcvbn-ts/language-en/dist/firstnames.json.mjs'),
    import('@zxcvbn-ts/language-en/dist/wordSequences.json.mjs'),
    import('@zxcvbn-ts/language-en/dist/translations.mjs'),
  ])
    .then(
      ([estimator, graphs, diceware, passwords, wikipedia, firstnames, sequences, translations]) =>
        estimator.createEstimator({
          adjacencyGraphs: graphs.default,
          diceware: diceware.default,
          passwords: passwords.default,
          wikipedia: wikipedia.default,
          firstnames: firstnames.default,
          wordSequences: sequences.default,
          translations: translations.default,
        }),
    )
    .catch((error: unknown) => {
      loading = null;
      throw error;
    });
  return loading;
}
