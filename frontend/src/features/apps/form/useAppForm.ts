import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useMemo, type SyntheticEvent } from 'react';
import { useForm, type DefaultValues, type FieldPath, type Resolver } from 'react-hook-form';

import { usePublicConfig } from '../../publicConfig';
import {
  appFormSchema,
  flatErrors,
  normalisedUrls,
  type AppFormErrors,
  type AppFormMode,
  type AppFormValues,
} from './appForm';
import { focusFirstInvalid } from './formFields';

/**
 * The app-details form of one page (react-hook-form with the zod schema of `appForm.ts`). Errors show after
 * a submit and each goes when its field is edited (no checks while typing); the first marked field gets
 * the focus.
 */
export function useAppForm(mode: AppFormMode, defaultValues: AppFormValues) {
  const { keepLoopbackHttp } = usePublicConfig();
  const resolver: Resolver<AppFormValues> = useMemo(
    () => zodResolver(appFormSchema(mode, keepLoopbackHttp)),
    [mode, keepLoopbackHttp],
  );
  const form = useForm<AppFormValues>({
    // Read once, when the form is made: a page gives each app a form of its own (`key`).
    defaultValues: defaultValues as DefaultValues<AppFormValues>,
    resolver,
    reValidateMode: 'onSubmit',
    shouldFocusError: false,
  });
  /** The `<form>`'s id, where the first marked field is looked for. */
  const formId = useId();
  const focusFirstError = () => {
    focusFirstInvalid(document.getElementById(formId));
  };

  /** Normalises both URLs (as on blur), then checks the values: `onValid` gets them, else `onInvalid` runs. */
  const submit =
    (onValid: (values: AppFormValues) => unknown, onInvalid?: () => void) =>
    (event: SyntheticEvent) => {
      event.preventDefault();
      const urls = normalisedUrls(form.getValues(), keepLoopbackHttp);
      form.setValue('publicUrl', urls.publicUrl);
      form.setValue('webviewURL', urls.webviewURL);
      void form.handleSubmit(onValid, () => {
        onInvalid?.();
        focusFirstError();
      })();
    };

  /** Shows the server's field errors (see `serverFieldErrors`) in place of the form's. */
  const showErrors = (errors: AppFormErrors) => {
    form.clearErrors();
    for (const [path, message] of Object.entries(errors)) {
      form.setError(path as FieldPath<AppFormValues>, { type: 'server', message });
    }
    if (Object.keys(errors).length > 0) focusFirstError();
  };

  return {
    form,
    formId,
    keepLoopbackHttp,
    errors: flatErrors(form.formState.errors),
    submit,
    showErrors,
  };
}

export type AppForm = ReturnType<typeof useAppForm>;
