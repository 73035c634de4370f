//! The hosted Supabase mode (`SUPABASE_*`): identity by a Supabase project instead of the built-in service.

use super::ConfigError;

/// A hosted Supabase used for identity instead of the built-in service. Its access tokens are verified
/// with the project's JWT secret (HS256), its JWKS (RS256/ES256), or both.
#[derive(Clone, PartialEq, Eq)]
pub struct HostedSupabase {
    /// The project URL, without a trailing `/`.
    pub url: String,
    pub anon_key: String,
    /// `SUPABASE_JWT_SECRET`: verifies HS256 tokens when set.
    pub jwt_secret: Option<String>,
    /// `SUPABASE_JWKS_URL`, or `<url>/auth/v1/.well-known/jwks.json` when no secret is set: verifies
    /// RS256/ES256 tokens. `None` when only the secret is used.
    pub jwks_url: Option<String>,
}

impl HostedSupabase {
    /// The auth API of the project, also the `iss` of its access tokens.
    #[must_use]
    pub fn auth_url(&self) -> String {
        format!("{}/auth/v1", self.url)
    }
}

impl std::fmt::Debug for HostedSupabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostedSupabase")
            .field("url", &self.url)
            .field("jwt_secret", &self.jwt_secret.as_ref().map(|_| "<redacted>"))
            .field("jwks_url", &self.jwks_url)
            .finish_non_exhaustive()
    }
}

/// `SUPABASE_URL` and `SUPABASE_ANON_KEY` together turn the hosted mode on; `SUPABASE_JWT_SECRET` and/or
/// `SUPABASE_JWKS_URL` say how its tokens are verified (without the secret, the project's JWKS at its
/// standard address).
pub(super) fn hosted_supabase(
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<HostedSupabase>, ConfigError> {
    let url = get("SUPABASE_URL");
    let anon_key = get("SUPABASE_ANON_KEY");
    let jwt_secret = get("SUPABASE_JWT_SECRET");
    let jwks_url = get("SUPABASE_JWKS_URL");
    if url.is_none() && anon_key.is_none() && jwt_secret.is_none() && jwks_url.is_none() {
        return Ok(None);
    }
    let (Some(url), Some(anon_key)) = (url, anon_key) else {
        return Err(ConfigError {
            variable: "SUPABASE_*",
            problem: "a hosted Supabase needs SUPABASE_URL and SUPABASE_ANON_KEY (and SUPABASE_JWT_SECRET \
                      unless its tokens are checked with the project's JWKS)"
                .into(),
        });
    };
    let http_url = |variable: &'static str, text: &str| -> Result<String, ConfigError> {
        let host = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("http://"))
            .and_then(|rest| rest.split('/').next())
            .filter(|host| !host.is_empty() && !host.contains(char::is_whitespace));
        match host {
            Some(_) => Ok(text.trim_end_matches('/').to_owned()),
            None => Err(ConfigError {
                variable,
                problem: format!("`{text}` is not an http(s) URL"),
            }),
        }
    };
    let url = http_url("SUPABASE_URL", &url)?;
    if let Some(secret) = &jwt_secret
        && secret.chars().count() < adapter_identity::hosted::MIN_HOSTED_SECRET_CHARS
    {
        return Err(ConfigError {
            variable: "SUPABASE_JWT_SECRET",
            problem: format!(
                "must be at least {} characters long",
                adapter_identity::hosted::MIN_HOSTED_SECRET_CHARS
            ),
        });
    }
    let jwks_url = match (jwks_url, &jwt_secret) {
        (Some(explicit), _) => Some(http_url("SUPABASE_JWKS_URL", &explicit)?),
        (None, None) => Some(format!("{url}/auth/v1/.well-known/jwks.json")),
        (None, Some(_)) => None,
    };
    Ok(Some(HostedSupabase {
        url,
        anon_key,
        jwt_secret,
        jwks_url,
    }))
}
