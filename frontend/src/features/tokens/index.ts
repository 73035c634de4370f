/** The access tokens feature as other features use it (its public file: import nothing else of it). */
export { OrgTokensSection } from './OrgTokensSection';
export { TokensAfterResetDialog } from './TokensAfterResetDialog';
