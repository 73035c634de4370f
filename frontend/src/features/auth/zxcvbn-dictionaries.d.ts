// The dictionaries of @zxcvbn-ts/language-en and language-common taken one by one (strengthLoader.ts loads
// each as a file of its own; language-en's index also brings the large common-words and last-names lists,
// about 475 KB gzipped, which the strength meter leaves out).
declare module '@zxcvbn-ts/language-common/dist/adjacencyGraphs.json.mjs' {
  import type { OptionsType } from '@zxcvbn-ts/core';
  const graphs: NonNullable<OptionsType['graphs']>;
  export default graphs;
}
declare module '@zxcvbn-ts/language-common/dist/diceware.json.mjs' {
  const words: string[];
  export default words;
}
declare module '@zxcvbn-ts/language-common/dist/passwords.json.mjs' {
  const words: string[];
  export default words;
}
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
