/** A recovery code for reading: groups of four characters joined by dashes (the server ignores them). */
export function formatRecoveryCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

/** The text of the downloaded (or copied) codes: a heading, then one code per line. */
export function recoveryCodesText(codes: string[], host = window.location.host): string {
  return [
    `Recovery codes for ${host}`,
    'Each code works once, in place of a code from your authenticator app.',
    '',
    ...codes.map(formatRecoveryCode),
    '',
  ].join('\n');
}
