//! Why a command failed, and the exit code each reason gives (documented in `devportal --help` and the
//! README): 1 refused or failed, 2 usage, 3 not signed in.

use std::collections::BTreeMap;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The server answered an error other than 401: its message (the `error` of its envelope).
    #[error("{message}")]
    Refused {
        status: u16,
        code: Option<String>,
        message: String,
        fields: BTreeMap<String, String>,
    },
    /// Something on this side failed: the server could not be reached, a file could not be read or is
    /// not a valid configuration.
    #[error("{0}")]
    Failed(String),
    /// The command line is not usable as given (clap's own usage errors exit 2 too).
    #[error("{0}")]
    Usage(String),
    /// No token, or the server refused it (401): its message.
    #[error("{0}")]
    NotSignedIn(String),
    /// The stored token belongs to another portal than the one named (`DEVPORTAL_URL`): nothing was sent.
    #[error("{0}")]
    OtherPortal(String),
}

impl CliError {
    #[must_use]
    pub const fn exit_code(&self) -> u8 {
        match self {
            Self::Refused { .. } | Self::Failed(_) => 1,
            Self::Usage(_) => 2,
            Self::NotSignedIn(_) | Self::OtherPortal(_) => 3,
        }
    }

    /// What to print besides the message: the fields the server named, or how to sign in.
    #[must_use]
    pub fn details(&self) -> Vec<String> {
        match self {
            Self::Refused { fields, .. } => fields
                .iter()
                .map(|(field, message)| format!("  {field}: {message}"))
                .collect(),
            Self::NotSignedIn(_) => {
                vec!["Sign in with `devportal login`, or set DEVPORTAL_TOKEN.".to_owned()]
            }
            Self::Failed(_) | Self::Usage(_) | Self::OtherPortal(_) => Vec::new(),
        }
    }

    /// The error for `--json`: the server's envelope fields and the exit code.
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = serde_json::json!({
            "error": self.to_string(),
            "exitCode": self.exit_code(),
        });
        if let Self::Refused {
            status, code, fields, ..
        } = self
        {
            value["status"] = (*status).into();
            value["code"] = code.clone().into();
            if !fields.is_empty() {
                value["fields"] = serde_json::to_value(fields).unwrap_or_default();
            }
        }
        value
    }
}

pub type Result<T> = std::result::Result<T, CliError>;
