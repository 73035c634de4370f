//! The built-in identity service's non-database ports: argon2id password hashing ([`Argon2Hasher`]), the
//! signing and verification of identity access tokens and core tokens ([`JwtSigner`], one key per token
//! kind, HS256 pinned, `iss` and `aud` checked), and the operating system's random generator
//! ([`OsSecretGenerator`]).
//!
//! A hosted Supabase (PRODUCT.md §1, second adapter) would add a verifier of its access tokens beside
//! [`JwtSigner`]; the key material is kept apart in [`SigningKeys`] so that such a verifier can reuse it.

pub mod keys;
pub mod password;
pub mod random;
pub mod tokens;

pub use keys::{KeyError, SigningKeys};
pub use password::{Argon2Hasher, HashCost};
pub use random::OsSecretGenerator;
pub use tokens::JwtSigner;
