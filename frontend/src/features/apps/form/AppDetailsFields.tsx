import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormLabel from '@mui/material/FormLabel';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, type ReactNode } from 'react';
import type { PathValue } from 'react-hook-form';

import { ImageUpload } from '../../../components/ImageUpload';
import { Loading } from '../../../components/Loading';
import { OutlinedField } from '../../../components/OutlinedField';
import { packageNameError } from '../../../utils/packageName';
import type { AppType } from '../types';
import { MAX_ONBOARDING_LENGTH, type AppFormValues } from './appForm';
import { textFieldProps, urlFieldProps } from './formFields';
import type { AppForm } from './useAppForm';

// The editors below the text fields (selects and their menus, drag and drop for the settings): the form
// shows and takes input without their code, which loads at once beside it; each section shows the loading
// state meanwhile.
const PermissionsEditor = lazy(async () => ({
  default: (await import('../editors/PermissionsEditor')).PermissionsEditor,
}));
const HardwareEditor = lazy(async () => ({
  default: (await import('../editors/HardwareEditor')).HardwareEditor,
}));
const SettingsEditor = lazy(async () => ({
  default: (await import('../editors/SettingsEditor')).SettingsEditor,
}));
const ToolsEditor = lazy(async () => ({
  default: (await import('../editors/ToolsEditor')).ToolsEditor,
}));

/** A titled part of the form (`id`: the title's, which names the section). */
export function Section({
  title,
  id,
  spacing = 1.5,
  children,
}: {
  title: string;
  id: string;
  spacing?: number;
  children: ReactNode;
}) {
  return (
    <Stack component="section" spacing={spacing} aria-labelledby={id}>
      <Typography variant="h6" component="h2" id={id}>
        {title}
      </Typography>
      {children}
    </Stack>
  );
}

interface Props {
  appForm: AppForm;
  disabled: boolean;
  /** Told when a logo upload starts and ends, so that the page can wait for it. */
  onUploadingChange: (uploading: boolean) => void;
}

/** How one form binds its fields: values, errors and the id prefix (`create-app`, `edit-app`). */
function useBindings({ appForm, disabled }: Props, prefix: string) {
  const { form, errors, keepLoopbackHttp } = appForm;
  const values = form.watch();
  const set = <K extends keyof AppFormValues>(name: K, value: PathValue<AppFormValues, K>) => {
    form.setValue(name, value, { shouldDirty: true });
    form.clearErrors(name);
  };
  type TextName = 'packageName' | 'name' | 'description' | 'onboardingInstructions';
  const binding = (name: TextName | 'publicUrl' | 'webviewURL') => ({
    form: prefix,
    value: values[name],
    error: errors[name],
    disabled,
    onChange: (value: string) => {
      set(name, value);
    },
  });
  const text = (name: TextName) => textFieldProps(name, binding(name));
  const url = (name: 'publicUrl' | 'webviewURL') =>
    urlFieldProps(name, binding(name), keepLoopbackHttp, (value) => {
      form.setValue(name, value, { shouldDirty: true });
    });
  return { values, errors, set, text, url };
}

/**
 * The fields every page of an app edits, in the spec's order: package name (typed on Create App, shown
 * on Edit App), names, onboarding, URLs, logo, type, permissions and hardware.
 */
export function AppDetailsFields(
  props: Props & { mode: 'create' | 'edit'; permissionsNote?: ReactNode },
) {
  const { mode, disabled, onUploadingChange, permissionsNote } = props;
  const creating = mode === 'create';
  const prefix = `${mode}-app`;
  const { values, errors, set, text, url } = useBindings(props, prefix);
  const placeholder = (value: string) => (creating ? value : undefined);
  const packageName = values.packageName.trim();
  const logoMetadata =
    creating && packageNameError(values.packageName) ? undefined : { appPackageName: packageName };

  return (
    <>
      {creating ? (
        <OutlinedField
          label="Package Name"
          required
          placeholder="com.example.myapp"
          {...text('packageName')}
          helperText={
            errors.packageName ??
            'Lowercase letters, numbers, dots and hyphens. It cannot be changed later.'
          }
        />
      ) : (
        <OutlinedField
          label="Package Name"
          value={values.packageName}
          fullWidth
          readOnly
          shrinkLabel
          helperText="The package name cannot be changed."
        />
      )}
      <OutlinedField
        label="Display Name"
        required
        placeholder={placeholder('My App')}
        {...text('name')}
      />
      <OutlinedField
        label="Description"
        required
        multiline
        minRows={3}
        placeholder={placeholder('What does your app do?')}
        {...text('description')}
      />
      <OutlinedField
        label="Onboarding Instructions"
        multiline
        minRows={3}
        maxRows={5}
        placeholder={placeholder('How should a user get started? (up to about 5 lines)')}
        {...text('onboardingInstructions')}
        helperText={
          errors.onboardingInstructions ??
          `${String(values.onboardingInstructions.length)}/${String(MAX_ONBOARDING_LENGTH)} characters`
        }
      />
      <OutlinedField
        label="Server URL"
        required
        placeholder="https://myapp.example.com"
        {...url('publicUrl')}
        helperText={
          errors.publicUrl ??
          'The platform sends events to this URL plus /webhook. HTTPS is required.'
        }
      />
      <ImageUpload
        label="App Logo"
        required
        value={values.logoURL}
        onChange={(logo) => {
          set('logoURL', logo);
        }}
        error={errors.logoURL}
        disabled={disabled}
        hint="Recommended 512x512 PNG. PNG, JPEG, GIF or WebP, up to 10 MB."
        metadata={logoMetadata}
        onUploadingChange={onUploadingChange}
        previewAlt="App logo preview"
      />
      <OutlinedField
        label="Webview URL"
        placeholder="https://myapp.example.com/webview"
        {...url('webviewURL')}
        helperText={errors.webviewURL ?? 'Optional: a page the companion app shows.'}
      />
      <FormControl disabled={disabled}>
        <FormLabel id={`${prefix}-type`}>App Type</FormLabel>
        <RadioGroup
          aria-labelledby={`${prefix}-type`}
          name="appType"
          value={values.appType}
          onChange={(event) => {
            set('appType', event.target.value as AppType);
          }}
        >
          <FormControlLabel
            value="background"
            control={<Radio />}
            label="Background App (runs alongside other apps)"
          />
          <FormControlLabel
            value="standard"
            control={<Radio />}
            label="Foreground App (only one runs at a time)"
          />
        </RadioGroup>
      </FormControl>
      <Section title="Permissions" id={`${prefix}-permissions`} spacing={creating ? 1 : 1.5}>
        {permissionsNote}
        <Suspense fallback={<Loading label="Loading the permissions editor..." />}>
          <PermissionsEditor
            value={values.permissions}
            onChange={(next) => {
              set('permissions', next);
            }}
            disabled={disabled}
            error={errors.permissions}
          />
        </Suspense>
      </Section>
      <Section title="Hardware Requirements" id={`${prefix}-hardware`} spacing={creating ? 1 : 1.5}>
        <Suspense fallback={<Loading label="Loading the hardware editor..." />}>
          <HardwareEditor
            value={values.hardwareRequirements}
            onChange={(next) => {
              set('hardwareRequirements', next);
            }}
            disabled={disabled}
            error={errors.hardwareRequirements}
          />
        </Suspense>
      </Section>
    </>
  );
}

/** The settings and AI tools lists (Edit App); editing a list clears the errors of its entries. */
export function AppListFields(props: Props) {
  const { disabled } = props;
  const { values, errors, set } = useBindings(props, 'edit-app');
  return (
    <>
      <Section title="App Settings" id="edit-app-settings">
        <Suspense fallback={<Loading label="Loading the settings editor..." />}>
          <SettingsEditor
            value={values.settings}
            onChange={(next) => {
              set('settings', next);
            }}
            errors={errors}
            disabled={disabled}
          />
        </Suspense>
      </Section>
      <Section title="AI Tools" id="edit-app-tools">
        <Suspense fallback={<Loading label="Loading the AI tools editor..." />}>
          <ToolsEditor
            value={values.tools}
            onChange={(next) => {
              set('tools', next);
            }}
            errors={errors}
            disabled={disabled}
          />
        </Suspense>
      </Section>
    </>
  );
}
