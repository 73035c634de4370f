//! One test binary for every black-box API test (fast to link, shares one helper).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test-only crate: a failed setup should panic

mod admins;
mod helpers;
mod hosted;
mod identity;
mod images;
mod mail;
mod openapi;
mod skeleton;
