//! One test binary for every black-box API test (fast to link, shares one helper).

mod helpers;
mod skeleton;
