/**
 * Password strength by zxcvbn, the algorithm the server decides with (score 3 or more, with the account's
 * e-mail address and name as easy words). The dictionaries are large (data, ~360 KB gzipped), so they are
 * not part of any route: `strengthLoader.ts` loads this module and each dictionary as a file of its own, all
 * at once, when a new-password field gets focus. The dictionaries: the common passwords, diceware words and
 * keyboard graphs, and of English the Wikipedia words, first names and word sequences (the common-words and
 * last-names lists, another ~475 KB gzipped, are left out; the server's check, which has its own lists,
 * stays the one that decides).
 */
import { ZxcvbnFactory, type OptionsType } from '@zxcvbn-ts/core';

/** The weakest score the server accepts. */
export const MIN_SCORE = 3;

export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess). */
  score: 0 | 1 | 2 | 3 | 4;
  /** Why it is weak, when zxcvbn says. */
  warning: string | null;
  suggestions: string[];
}

/** The loaded estimator. */
export interface Estimator {
  MIN_SCORE: number;
  userInputs: (email: string, name?: string) => string[];
  strengthOf: (password: string, inputs: string[]) => Strength;
}

/** The words an attacker would try first: the address, its parts, and the name. */
export function userInputs(email: string, name?: string): string[] {
  const address = email.trim().toLowerCase();
  const inputs = [address, ...address.split(/[@._+-]/)];
  if (name) inputs.push(name.toLowerCase(), ...name.toLowerCase().split(/\s+/));
  return inputs.filter((input) => input.length >= 2);
}

/** The dictionaries, as `strengthLoader.ts` loads them. */
export interface Dictionaries {
  adjacencyGraphs: NonNullable<OptionsType['graphs']>;
  diceware: string[];
  passwords: string[];
  wikipedia: string[];
  firstnames: string[];
  wordSequences: Record<string, string[]>;
  translations: NonNullable<OptionsType['translations']>;
}

export function createEstimator(loaded: Dictionaries): Estimator {
  const zxcvbn = new ZxcvbnFactory({
    dictionary: {
      'diceware-common': loaded.diceware,
      'passwords-common': loaded.passwords,
      'wikipedia-en': loaded.wikipedia,
      'firstnames-en': loaded.firstnames,
      ...loaded.wordSequences,
    },
    graphs: loaded.adjacencyGraphs,
    translations: loaded.translations,
  });
  return {
    MIN_SCORE,
    userInputs,
    strengthOf: (password, inputs) => {
      const result = zxcvbn.check(password, inputs);
      return {
        score: result.score,
        warning: result.feedback.warning,
        suggestions: result.feedback.suggestions,
      };
    },
  };
}
