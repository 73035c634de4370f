import { Fragment } from 'react';

/**
 * An e-mail address that, when it must wrap, wraps after its `@` or after a dot, hyphen, underscore or plus
 * sign of either part, not in the middle of a word (a word longer than the line still wraps anywhere where
 * the surrounding style says `overflow-wrap: anywhere`).
 */
export function EmailAddress({ address }: { address: string }) {
  const pieces = address.match(/[^@._+-]*(?:[@._+-]|$)/g)?.filter((piece) => piece !== '') ?? [];
  return (
    <>
      {pieces.map((piece, index) => (
        // The pieces of one address never move: their place is their key.
        <Fragment key={index}>
          {piece}
          {index < pieces.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
