/**
 * What the Create App and Edit App forms share for their text fields: the props of an OutlinedField
 * bound to one value, the URL fields normalised on blur, and moving the focus to the first field
 * the checks marked.
 */
import { normaliseAppUrl } from '../../../utils/url';

export interface FieldBinding {
  /** The form's id prefix (`create-app`, `edit-app`). */
  form: string;
  value: string;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: string) => void;
}

/** The props of a text field named `name`. */
export function textFieldProps(
  name: string,
  { form, value, error, disabled, onChange }: FieldBinding,
) {
  return {
    name,
    id: `${form}-${name}`,
    value,
    onChange: (event: { target: { value: string } }) => {
      onChange(event.target.value);
    },
    error: Boolean(error),
    helperText: error,
    disabled,
    fullWidth: true,
    shrinkLabel: true,
  };
}

/**
 * The props of the server or webview URL field: a text field of type `url` whose value is normalised when it
 * loses the focus (`keepLoopbackHttp`: the server's local-development rule for the server URL).
 */
export function urlFieldProps(
  name: 'publicUrl' | 'webviewURL',
  binding: FieldBinding,
  keepLoopbackHttp: boolean,
  setNormalised: (value: string) => void,
) {
  return {
    ...textFieldProps(name, binding),
    type: 'url',
    onBlur: () => {
      setNormalised(normaliseAppUrl(name, binding.value, keepLoopbackHttp));
    },
  };
}

/** Focuses the first field of `form` marked invalid, once React has drawn the errors. */
export function focusFirstInvalid(form: HTMLElement | null) {
  requestAnimationFrame(() => {
    form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  });
}
