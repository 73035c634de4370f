//! The audit log (PRODUCT.md §9): who did what, when and from where, for organizations and the platform.
//!
//! A use case that changes something builds an [`AuditEntry`] and hands it to the repository method that
//! writes the change, which appends it in the same transaction: an entry exists exactly when its change
//! committed. [`AuditLog`](ports::AuditLog) reads entries and applies the retention; nothing edits one.

pub mod actions;
pub mod models;
pub mod ports;
pub mod service;

pub use actions::AuditAction;
pub use models::{
    AuditCursor, AuditEntry, AuditEntryId, AuditFilter, AuditPage, AuditScope, AuditTarget, AuditTargetKind,
    FieldChange, OPERATOR_ACTOR, is_secret_field,
};
pub use service::{AuditError, AuditQuery, AuditService};
