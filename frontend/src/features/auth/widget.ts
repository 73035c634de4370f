// What the sign-in page shares with its e-mail widget, apart from the widget (loaded when its dialog opens).

/** The widget's views (spec §2). */
export type AuthView =
  'sign_in' | 'sign_up' | 'forgotten_password' | 'magic_link' | 'update_password' | 'verify_otp';

export const UNEXPECTED_ERROR = 'An unexpected error occurred. Please try again.';

/** The id of the widget's heading, for a dialog around it to be named by. */
export const AUTH_WIDGET_TITLE_ID = 'auth-widget-title';
