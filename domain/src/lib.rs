//! The domain core of the developer portal.
//!
//! Pure Rust: no database, HTTP, mail or runtime crate is reachable from here (see `make check-deps`).
//! Each bounded context has `models` (data and rules), `ports` (traits the adapters implement, each with
//! its `# Errors` contract) and `service` (use cases over the ports).

pub mod apps;
pub mod audit;
pub mod common;
pub mod identity;
pub mod mail;
pub mod media;
pub mod membership;
pub mod orgs;
pub mod review;
pub mod tokens;
pub mod uptime;
pub mod webhooks;

#[cfg(test)]
pub(crate) mod testing;
