//! The sign-in providers configured as OIDC clients (`PORTAL_OAUTH_<PROVIDER>_ISSUER`, `_CLIENT_ID` and
//! `_CLIENT_SECRET`).

use super::ConfigError;

/// A sign-in provider configured as an OIDC client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthProvider {
    /// `google`, `apple`, `github` or `azure`.
    pub name: &'static str,
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
}

const PROVIDERS: [&str; 4] = ["google", "apple", "github", "azure"];

/// The providers whose three variables are set, in the order of [`PROVIDERS`].
pub(super) fn oauth_providers(
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<OAuthProvider>, ConfigError> {
    let mut oauth_providers = Vec::new();
    for name in PROVIDERS {
        let upper = name.to_ascii_uppercase();
        let issuer = get(&format!("PORTAL_OAUTH_{upper}_ISSUER"));
        let client_id = get(&format!("PORTAL_OAUTH_{upper}_CLIENT_ID"));
        let client_secret = get(&format!("PORTAL_OAUTH_{upper}_CLIENT_SECRET"));
        match (issuer, client_id, client_secret) {
            (None, None, None) => {}
            (Some(issuer), Some(client_id), Some(client_secret)) => {
                oauth_providers.push(OAuthProvider {
                    name,
                    issuer,
                    client_id,
                    client_secret,
                });
            }
            _ => {
                return Err(ConfigError {
                    variable: "PORTAL_OAUTH_*",
                    problem: format!(
                        "provider {name} needs its _ISSUER, _CLIENT_ID and _CLIENT_SECRET together"
                    ),
                });
            }
        }
    }
    Ok(oauth_providers)
}
