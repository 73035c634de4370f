// The English dictionaries of @zxcvbn-ts/language-en taken one by one (its index also brings the large
// common-words and last-names lists, about 475 KB gzipped, which the strength meter leaves out).
declare module '@zxcvbn-ts/language-en/dist/wikipedia.json.mjs' {
  const words: string[];
  export default words;
}
declare module '@zxcvbn-ts/language-en/dist/firstnames.json.mjs' {
  const words: string[];
  export default words;
}
declare module '@zxcvbn-ts/language-en/dist/wordSequences.json.mjs' {
  const sequences: Record<string, string[]>;
  export default sequences;
}
declare module '@zxcvbn-ts/language-en/dist/translations.mjs' {
  import type { TranslationKeys } from '@zxcvbn-ts/core';
  const translations: TranslationKeys;
  export default translations;
}
