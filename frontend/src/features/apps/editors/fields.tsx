import TextField, { type TextFieldProps } from '@mui/material/TextField';
import { useState } from 'react';

import { joinCommaList, parseCommaList } from '../config/validate';

type BaseProps = Omit<TextFieldProps, 'value' | 'onChange' | 'type'>;

/**
 * A number input that keeps what is typed ("-", "1.") while it is not yet a number and reports a number,
 * or `undefined` when cleared (only for optional fields).
 */
export function NumberField({
  value,
  onChange,
  optional = false,
  ...props
}: BaseProps & {
  value: number | undefined;
  onChange: (next: number | undefined) => void;
  optional?: boolean;
}) {
  const [text, setText] = useState(value === undefined ? '' : String(value));
  // Follow changes made from outside (an import, a type change).
  const parsed = text.trim() === '' ? undefined : Number(text);
  const shown = parsed === value || (parsed !== undefined && Number.isNaN(parsed)) ? text : value;
  return (
    <TextField
      {...props}
      type="number"
      value={shown ?? ''}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        if (next.trim() === '') {
          if (optional) onChange(undefined);
          return;
        }
        const n = Number(next);
        if (Number.isFinite(n)) onChange(n);
      }}
    />
  );
}

/** Comma-separated values: trimmed, empties dropped (activation phrases, allowed values). */
export function CommaListField({
  value,
  onChange,
  ...props
}: BaseProps & { value: readonly string[]; onChange: (next: string[]) => void }) {
  const [text, setText] = useState(joinCommaList(value));
  const same = joinCommaList(parseCommaList(text)) === joinCommaList(value);
  return (
    <TextField
      {...props}
      value={same ? text : joinCommaList(value)}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseCommaList(e.target.value));
      }}
      onBlur={() => {
        setText(joinCommaList(value));
      }}
    />
  );
}
