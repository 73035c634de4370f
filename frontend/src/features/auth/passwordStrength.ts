/**
 * Password strength by zxcvbn, the algorithm the server decides with (score 3 or more, with the account's
 * e-mail address and name as easy words). The dictionaries are large, so this module is loaded only when a
 * new password is being typed: the common passwords, diceware words and keyboard graphs, and of English
 * the Wikipedia words, first names and word sequences (the common-words and last-names lists, another
 * ~475 KB gzipped, are left out; the server's check, which has its own lists, stays the one that decides).
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as common } from '@zxcvbn-ts/language-common';
import firstnames from '@zxcvbn-ts/language-en/dist/firstnames.json.mjs';
import translations from '@zxcvbn-ts/language-en/dist/translations.mjs';
import wikipedia from '@zxcvbn-ts/language-en/dist/wikipedia.json.mjs';
import wordSequences from '@zxcvbn-ts/language-en/dist/wordSequences.json.mjs';

/** The weakest score the server accepts. */
export const MIN_SCORE = 3;

export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess). */
  score: 0 | 1 | 2 | 3 | 4;
  /** Why it is weak, when zxcvbn says. */
  warning: string | null;
  suggestions: string[];
}

const zxcvbn = new ZxcvbnFactory({
  dictionary: {
    ...common,
    'wikipedia-en': wikipedia,
    'firstnames-en': firstnames,
    ...wordSequences,
  },
  graphs: adjacencyGraphs,
  translations,
});

/** The words an attacker would try first: the address, its parts, and the name. */
export function userInputs(email: string, name?: string): string[] {
  const address = email.trim().toLowerCase();
  const inputs = [address, ...address.split(/[@._+-]/)];
  if (name) inputs.push(name.toLowerCase(), ...name.toLowerCase().split(/\s+/));
  return inputs.filter((input) => input.length >= 2);
}

export function strengthOf(password: string, inputs: string[]): Strength {
  const result = zxcvbn.check(password, inputs);
  return {
    score: result.score,
    warning: result.feedback.warning,
    suggestions: result.feedback.suggestions,
  };
}
