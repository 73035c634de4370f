//! The diesel implementations of the domain's repository ports, one module per context.

pub mod invites;
pub mod orgs;
pub mod outbox;

pub use invites::DieselInviteRepository;
pub use orgs::{DieselMemberDirectory, DieselOrgRepository};
pub use outbox::{DieselOutboxRepository, enqueue_emails};
