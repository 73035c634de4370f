//! The built-in identity service's non-database ports: argon2id password hashing ([`Argon2Hasher`]), the
//! signing and verification of identity access tokens and core tokens ([`JwtSigner`], one key per token
//! kind, HS256 pinned, `iss` and `aud` checked), and the operating system's random generator
//! ([`OsSecretGenerator`]), and the WebAuthn ceremonies of passkeys ([`WebAuthnRs`]).
//!
//! With a hosted Supabase (PRODUCT.md §1, second adapter), [`HostedTokenVerifier`] takes the place of
//! [`JwtSigner`]: it signs core tokens with the same core key and only verifies the project's access tokens
//! (HS256 with its secret, or RS256/ES256 with its JWKS, [`JwksCache`]).

pub mod hosted;
pub mod jwks;
pub mod keys;
pub mod password;
pub mod random;
pub mod tokens;
pub mod webauthn;

pub use hosted::{HostedConfigError, HostedTokenVerifier, HostedVerification};
pub use jwks::{JwksCache, JwksError, JwksSettings};
pub use keys::{KeyError, SigningKeys};
pub use password::{Argon2Hasher, HashCost};
pub use random::OsSecretGenerator;
pub use tokens::JwtSigner;
pub use webauthn::{RelyingParty, RelyingPartyError, WebAuthnRs};
