//! The error a settings list that breaks a rule of [`validate_settings`](super::validate_settings) gives.

use crate::apps::list_errors::{ListErrors, ListIssue, SettingsList};

/// One problem found in a settings list.
pub type SettingIssue = ListIssue<SettingsList>;

/// A settings list broke at least one rule; see [`ListErrors`].
pub type SettingsError = ListErrors<SettingsList>;
