//! The developer portal server: configuration, wiring of the adapters around the domain, background
//! workers and the command line.

pub mod admin_cli;
pub mod apps;
pub mod backup;
pub mod config;
pub mod factors_cli;
pub mod identity;
pub mod media;
pub mod metrics;
pub mod oauth;
pub mod orgs;
pub mod review;
pub mod startup;
pub mod system;
pub mod telemetry;
pub mod tokens;
pub mod uptime;
pub mod webhooks;
pub mod workers;

pub use config::Config;
pub use startup::Application;
