//! The diesel implementations of the domain's repository ports, one module per context.

pub mod apps;
pub mod images;
pub mod invites;
pub mod orgs;
pub mod outbox;
pub mod reviews;

pub use apps::{DieselAppRepository, DieselOrgProfileLookup};
pub use images::DieselImageRepository;
pub use invites::DieselInviteRepository;
pub use orgs::{DieselMemberDirectory, DieselOrgRepository};
pub use outbox::{DieselOutboxRepository, enqueue_emails};
pub use reviews::DieselReviewRepository;
