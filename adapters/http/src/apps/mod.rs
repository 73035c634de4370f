//! The app calls (specification §7 "Apps", PRODUCT.md §4, §6): register, read, edit, delete, publish, move,
//! keys, permissions, sharing with testers, the export file and the review history — all in the
//! organization of `x-org-id` ([`crate::auth::OrgScope`]: a forged header is 403 before anything happens) — and the
//! public tester page of a share link (`GET /api/install/{token}`).
//!
//! Handlers only translate: the `OrgScope` extractor reads the membership once, the domain's [`AppService`] and
//! [`ReviewService`] check the role and every rule. One file per action: `crud.rs` (register, read, edit,
//! delete, export, history, tester page), `publish.rs` (publish, move), `keys.rs`, `sharing.rs`,
//! `permissions.rs`; `body.rs` reads the lenient bodies.

mod body;
mod crud;
pub mod dto;
mod keys;
pub mod list_cache;
mod permissions;
mod publish;
mod sharing;

pub use crud::*;
pub use keys::*;
pub use permissions::*;
pub use publish::*;
pub use sharing::*;

use actix_web::HttpResponse;
use domain::apps::PackageName;
use domain::apps::service::{AppError, AppPublishingService, AppService};
use domain::common::FieldErrors;
use domain::review::ReviewService;
use std::sync::Arc;

use self::list_cache::AppListCache;
use crate::ApiError;
use crate::RouteSink;

/// The summary message of a refused body whose fields are listed in `fields`.
pub const FIX_FIELDS: &str = "Please fix the highlighted fields.";
/// The message of a visibility change without its flag.
pub const VISIBILITY_REQUIRED: &str = "sharedWithOrganization must be true or false";

/// What the app handlers need.
#[derive(Clone)]
pub struct AppsApi {
    pub apps: Arc<AppService>,
    /// The use cases around the store and other people (publish, sharing, visibility, move).
    pub publishing: Arc<AppPublishingService>,
    pub reviews: Arc<ReviewService>,
    /// The answers of `GET /api/dev/apps`, kept with the revision of the organization's apps.
    pub lists: Arc<AppListCache>,
}

impl std::fmt::Debug for AppsApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppsApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(list)
        .service(register)
        .service(get)
        .service(update)
        .service(delete)
        .service(publish_app)
        .service(move_org)
        .service(regenerate_key)
        .service(visibility)
        .service(share_emails)
        .service(share_link)
        .service(share)
        .service(reset_share)
        .service(export)
        .service(history)
        .service(get_permissions)
        .service(set_permissions)
        .service(tester_view);
}

/// A package name from the path: one that cannot be a package name names no app.
fn package(text: &str) -> Result<PackageName, ApiError> {
    PackageName::parse(text).map_err(|_| ApiError::from(AppError::NotFound))
}

fn validation(fields: FieldErrors) -> ApiError {
    ApiError::from(AppError::Validation(fields))
}

fn no_store(app: &impl serde::Serialize) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(app)
}
