//! Values and ports shared by every context.

pub mod caller;
pub mod clock;
mod code_enum;
pub mod credential;
pub mod cursor;
pub mod email;
pub mod error;
pub mod fields;
pub mod ids;
pub mod package;
pub mod readiness;
pub mod secrets;
pub mod text;
pub mod url;

pub use caller::{Caller, ClientOrigin, PlatformRole};
pub use clock::Clock;
pub(crate) use code_enum::code_enum;
pub use credential::{ACCESS_TOKEN_PREFIX, Scope, Scopes, TokenUse};
pub use cursor::{Cursor, CursorId};
pub use email::EmailAddress;
pub use error::RepoError;
pub use fields::FieldErrors;
pub use ids::{ImageId, InviteId, OrgId, UserId};
pub use package::PackageName;
pub use readiness::Readiness;
pub use secrets::SecretGenerator;
pub use url::{PublicUrl, ServerUrlRule, UrlError, normalise_server_url, normalise_url};
