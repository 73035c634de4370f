import { OutlinedField } from './OutlinedField';

/**
 * The field of an irreversible delete that asks the person to type the name of what goes (issue 25,
 * item 15); the dialog enables its delete button only once `nameConfirmed` holds.
 */
export function TypeToConfirm({
  name,
  value,
  onChange,
  disabled,
}: {
  name: string;
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <OutlinedField
      label={`Type ${name} to confirm`}
      value={value}
      onChange={(event) => {
        onChange(event.target.value);
      }}
      disabled={disabled}
      fullWidth
      autoComplete="off"
      inputProps={{ spellCheck: false, 'data-testid': 'type-to-confirm' }}
      sx={{ mt: 2 }}
    />
  );
}
