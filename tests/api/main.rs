//! One test binary for every black-box API test (fast to link, shares one helper).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test-only crate: a failed setup should panic

mod admins;
mod apps;
mod audit;
mod audit_matrix;
mod authz_matrix;
mod bad_input;
mod contract;
mod credential_attacks;
mod credential_table;
mod expiry;
mod first_admin;
mod front_door;
mod helpers;
mod hosted;
mod identity;
mod images;
mod instances;
mod limits;
mod lockout;
mod mail;
mod methods;
mod metrics;
mod mfa;
mod oauth;
mod openapi;
mod org_fixtures;
mod org_two_factor;
mod orgs;
mod outage;
mod passkeys;
mod pgbouncer;
mod protocol;
mod review;
mod skeleton;
mod slow_clients;
mod takeover;
mod token_attacks;
mod token_credentials;
mod tokens;
mod uptime;
mod webhooks;
mod webhooks_access;
mod webhooks_events;
mod webhooks_fairness;
