//! Validation of the register and update bodies (specification §5), from the raw values received to the
//! new app or a [`Valid`] update, or a map of field errors keyed by the API's camelCase names.
//!
//! The descriptive fields both bodies carry are declared once in `details` (limits, messages, checks,
//! how they are written and how an edit is recorded), the bodies in `bodies`, the rules of single fields
//! in `fields`.

mod bodies;
mod details;
mod fields;

pub use bodies::{
    REQUIRED_AT_REGISTRATION, RegistrationInput, UpdateInput, Valid, validate_registration, validate_update,
};
pub use details::{
    AppDetailsInput, DESCRIPTION_REQUIRED, DESCRIPTION_TOO_LONG, EDITABLE_FIELDS, INVALID_APP_TYPE,
    INVALID_URL, LOGO_REQUIRED, MAX_DESCRIPTION_LEN, MAX_NAME_LEN, MAX_ONBOARDING_LEN, NAME_REQUIRED,
    NAME_TOO_LONG, ONBOARDING_TOO_LONG, SERVER_URL_REQUIRED, changed_fields,
};

use super::{Setting, Tool};

/// Field name (camelCase, as in the API) → message.
pub use crate::common::FieldErrors;

/// The seam for the rules of settings and AI tools (PRODUCT.md §4: validated on every write).
///
/// # Errors
/// The field errors of the settings and tools rules.
pub fn validate_app_config(settings: &[Setting], tools: &[Tool]) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    if let Err(problems) = super::settings::validate_settings(settings) {
        errors.merge(problems.fields());
    }
    if let Err(problems) = super::tools::validate_tools(tools) {
        errors.merge(problems.fields());
    }
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

#[cfg(test)]
mod validation_tests;
