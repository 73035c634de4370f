/** The account feature as other features use it (its public file: import nothing else of it). */
export { SecondFactorNeeded } from './SecondFactorNeeded';
export { ConfirmPassword } from './ConfirmPassword';
