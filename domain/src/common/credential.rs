//! What a request presented besides its account, shared by every context: the personal access token it
//! came through and the scopes that token was given. The tokens context makes and checks tokens; the
//! caller of any use case may carry one ([`super::ClientOrigin::via_token`]).

use crate::common::code_enum;
use uuid::Uuid;

use super::OrgId;

/// The fixed start of every personal access token (`dpt_`): a bearer that starts with it is checked as one.
pub const ACCESS_TOKEN_PREFIX: &str = "dpt_";

code_enum! {
    /// What a token may be used for (beside what its owner's role allows now).
    #[derive(PartialOrd, Ord)]
    pub enum Scope: "What a token may be used for (beside what its owner's role allows now)." {
        /// Read the organization's apps, their configuration and history.
        AppsRead => "apps:read",
        /// Register, change, import and delete apps.
        AppsWrite => "apps:write",
        /// Submit apps for review.
        AppsPublish => "apps:publish",
        /// Regenerate apps' API keys.
        AppsKeys => "apps:keys",
    }
}

/// A token's scopes: at least one, each once, in [`Scope::ALL`]'s order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// The scopes named by `names`; an unknown name is refused, repeats count once.
    ///
    /// # Errors
    /// A message for people when a name is unknown or none is given.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut scopes = Vec::new();
        for name in names {
            let scope = Scope::parse(name.trim()).ok_or_else(|| {
                format!(
                    "Unknown scope \"{name}\": use {}.",
                    Scope::ALL
                        .iter()
                        .map(|scope| scope.code())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        if scopes.is_empty() {
            return Err("Choose at least one scope.".to_owned());
        }
        scopes.sort_unstable();
        Ok(Self(scopes))
    }

    #[must_use]
    pub fn allows(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    #[must_use]
    pub fn as_slice(&self) -> &[Scope] {
        &self.0
    }

    /// The stored form: the names separated by spaces.
    #[must_use]
    pub fn to_stored(&self) -> String {
        self.0.iter().map(|s| s.code()).collect::<Vec<_>>().join(" ")
    }
}

/// What a caller who used a token acted through (recorded in audit entries as "via token <name>").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenUse {
    pub id: Uuid,
    pub name: String,
    /// The one organization it may act in; `None`: every one of its owner's.
    pub org: Option<OrgId>,
    pub scopes: Scopes,
}
