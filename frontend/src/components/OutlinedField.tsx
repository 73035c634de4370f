import FormControl from '@mui/material/FormControl';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import OutlinedInput, { type OutlinedInputProps } from '@mui/material/OutlinedInput';
import { useId, type ReactNode } from 'react';

export interface OutlinedFieldProps extends Omit<OutlinedInputProps, 'label' | 'notched'> {
  label?: ReactNode;
  helperText?: ReactNode;
  /** Keeps the label above the field while it is empty (TextField's `inputLabel: { shrink: true }`). */
  shrinkLabel?: boolean;
}

/**
 * An outlined text field: MUI's outlined TextField with its label, helper text and their ids (the label
 * names the input, the helper text describes it), without what TextField always brings along: the select
 * (with its menu and popover), the native select and the filled and standard inputs. The input's props
 * are OutlinedInput's (`endAdornment`, `readOnly`, `slotProps.input` for the `<input>`).
 */
export function OutlinedField({
  id,
  label,
  helperText,
  shrinkLabel,
  required,
  error,
  disabled,
  fullWidth,
  size,
  sx,
  ...input
}: OutlinedFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const helperTextId = helperText ? `${inputId}-helper-text` : undefined;
  const hasLabel = label != null && label !== '';
  return (
    <FormControl
      required={required}
      error={error}
      disabled={disabled}
      fullWidth={fullWidth}
      size={size}
      sx={sx}
    >
      {hasLabel && (
        <InputLabel htmlFor={inputId} id={`${inputId}-label`} shrink={shrinkLabel}>
          {label}
        </InputLabel>
      )}
      <OutlinedInput
        id={inputId}
        label={label}
        notched={shrinkLabel}
        aria-describedby={helperTextId}
        {...input}
      />
      {helperText && <FormHelperText id={helperTextId}>{helperText}</FormHelperText>}
    </FormControl>
  );
}
