pub mod apps;
pub use apps::{DieselAppRepository, DieselOrgProfileLookup};
pub mod reviews;
pub use reviews::DieselReviewRepository;
pub mod images;
pub use images::DieselImageRepository;
