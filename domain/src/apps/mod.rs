//! Apps: registration, configuration (settings, AI tools, permissions, hardware), the app-store state
//! machine, API keys, sharing, moving between organizations, and configuration files.

pub mod config;
pub mod hardware;
pub mod list_errors;
pub mod models;
pub mod permissions;
pub mod ports;
pub mod review_events;
pub mod service;
pub mod settings;
pub mod status;
pub mod tools;
pub mod validation;

pub use hardware::{HardwareLevel, HardwareRequirement, HardwareType};
pub use models::{App, AppType, PackageName, TesterView};
pub use permissions::{Permission, PermissionCategory, PermissionType};
pub use settings::{SelectOption, Setting, SettingType, convert_setting, new_setting, validate_settings};
pub use status::AppStoreStatus;
pub use tools::{ParameterType, Tool, ToolParameter, parse_comma_list, validate_tools};
pub mod keys;
pub mod sharing;
