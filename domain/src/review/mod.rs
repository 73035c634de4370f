//! App review: the platform reviewers' queue, approve and reject, the notification e-mails, and the review
//! history kept for every app (PRODUCT.md §4, §5).
//!
//! The history is written by the apps context in the same transaction as each change (see
//! [`crate::apps::ports::AppRepository`]); this context reads it.

pub mod desk;
pub mod emails;
pub mod models;
pub mod platform;
pub mod ports;
pub mod service;

pub use desk::{DeskDashboard, DeskError, QueuedApp, ReviewDesk};
pub use models::{
    APP_REVIEW, AdminStats, DeveloperHistoryEntry, HistoryActor, REVIEWED_FIELDS, ReviewEvent, ReviewEventId,
    ReviewEventKind, ReviewedApp, ReviewedChange, SinceLastDecision,
};
pub use ports::ReviewRepository;
pub use service::{Dashboard, Decision, ReviewConfig, ReviewError, ReviewService, ReviewView};
