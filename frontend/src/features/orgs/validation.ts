import { normaliseUrl } from '../../utils/url';

/** The organization form's fields, as typed. */
export interface OrgFormValues {
  name: string;
  website: string;
  contactEmail: string;
  description: string;
  logo: string;
}

export type OrgFormErrors = Partial<Record<keyof OrgFormValues, string>>;

/** Text, an at-sign, text, a dot, text (spec §5). */
export const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const isHttpUrl = (value: string) => {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/** The rules of spec §5 for creating and updating an organization. */
export function validateOrgForm(values: OrgFormValues): OrgFormErrors {
  const errors: OrgFormErrors = {};
  if (!values.name.trim()) errors.name = 'Organization name is required';
  const email = values.contactEmail.trim();
  if (!email) errors.contactEmail = 'Contact email is required';
  else if (!SIMPLE_EMAIL.test(email)) errors.contactEmail = 'Please enter a valid email address';
  // Typed as the server URL is: `example.com` is saved as `https://example.com`.
  if (values.website.trim() && !isHttpUrl(normaliseUrl(values.website))) {
    errors.website = 'Please enter a valid URL';
  }
  if (values.logo.trim() && !isHttpUrl(values.logo.trim()))
    errors.logo = 'Please enter a valid URL';
  return errors;
}
