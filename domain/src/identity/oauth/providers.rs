//! The providers the sign-in widget knows and the names people see.

/// The providers the sign-in widget knows.
pub const KNOWN_PROVIDERS: [&str; 4] = ["google", "apple", "github", "azure"];

/// The name shown to people, e.g. `Google`.
#[must_use]
pub fn provider_label(name: &str) -> &str {
    match name {
        "google" => "Google",
        "apple" => "Apple",
        "github" => "GitHub",
        "azure" => "Microsoft (Azure)",
        other => other,
    }
}
