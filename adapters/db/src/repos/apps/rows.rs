//! The stored forms of an app: the full row and the changeset of its editable fields.

use diesel::prelude::*;
use domain::apps::{App, AppStoreStatus, AppType, PackageName};
use domain::common::{OrgId, RepoError, UserId};

use crate::convert::{from_json, from_millis, from_millis_opt, parse_stored, to_json, to_millis};
use crate::schema::apps;

/// One row of `apps`.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = apps)]
pub(super) struct AppRow {
    package_name: String,
    org_id: String,
    developer_id: String,
    name: String,
    description: String,
    onboarding_instructions: String,
    public_url: String,
    logo_url: String,
    webview_url: Option<String>,
    is_public: bool,
    app_store_status: String,
    app_type: String,
    created_at: i64,
    updated_at: i64,
    review_notes: Option<String>,
    reviewed_by: Option<String>,
    reviewed_at: Option<i64>,
    tools: String,
    settings: String,
    hardware_requirements: String,
    permissions: String,
    shared_with_organization: bool,
    shared_with_emails: String,
}

impl AppRow {
    pub(super) fn from_app(app: &App) -> Result<Self, RepoError> {
        Ok(Self {
            package_name: app.package_name.as_str().to_owned(),
            org_id: app.org_id.to_string(),
            developer_id: app.developer_id.to_string(),
            name: app.name.clone(),
            description: app.description.clone(),
            onboarding_instructions: app.onboarding_instructions.clone(),
            public_url: app.public_url.clone(),
            logo_url: app.logo_url.clone(),
            webview_url: app.webview_url.clone(),
            is_public: app.is_public,
            app_store_status: app.app_store_status.as_str().to_owned(),
            app_type: app.app_type.as_str().to_owned(),
            created_at: to_millis(app.created_at),
            updated_at: to_millis(app.updated_at),
            review_notes: app.review_notes.clone(),
            reviewed_by: app.reviewed_by.clone(),
            reviewed_at: app.reviewed_at.map(to_millis),
            tools: to_json(&app.tools)?,
            settings: to_json(&app.settings)?,
            hardware_requirements: to_json(&app.hardware_requirements)?,
            permissions: to_json(&app.permissions)?,
            shared_with_organization: app.shared_with_organization,
            shared_with_emails: to_json(&app.shared_with_emails)?,
        })
    }

    pub(super) fn into_app(self) -> Result<App, RepoError> {
        Ok(App {
            package_name: parse_stored("apps.package_name", &self.package_name, PackageName::parse)?,
            org_id: parse_stored("apps.org_id", &self.org_id, str::parse::<OrgId>)?,
            developer_id: parse_stored("apps.developer_id", &self.developer_id, str::parse::<UserId>)?,
            name: self.name,
            description: self.description,
            onboarding_instructions: self.onboarding_instructions,
            public_url: self.public_url,
            logo_url: self.logo_url,
            webview_url: self.webview_url,
            is_public: self.is_public,
            // Anything unknown reads as DEVELOPMENT (specification §4).
            app_store_status: AppStoreStatus::parse_lossy(&self.app_store_status),
            app_type: parse_stored("apps.app_type", &self.app_type, |text| {
                AppType::parse(text).ok_or("not an app type")
            })?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            review_notes: self.review_notes,
            reviewed_by: self.reviewed_by,
            reviewed_at: from_millis_opt(self.reviewed_at)?,
            tools: from_json("apps.tools", &self.tools)?,
            settings: from_json("apps.settings", &self.settings)?,
            hardware_requirements: from_json("apps.hardware_requirements", &self.hardware_requirements)?,
            permissions: from_json("apps.permissions", &self.permissions)?,
            shared_with_organization: self.shared_with_organization,
            shared_with_emails: from_json("apps.shared_with_emails", &self.shared_with_emails)?,
        })
    }
}

/// The fields `AppRepository::update` writes, and only those (`None` writes NULL: a cleared webview URL). The
/// status is the one the apps service decided (the stored one, or SUBMITTED when a permission was added to
/// a PUBLISHED app); the update is conditional on the status read.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = apps, treat_none_as_null = true)]
pub(super) struct AppEdit {
    name: String,
    description: String,
    onboarding_instructions: String,
    public_url: String,
    logo_url: String,
    webview_url: Option<String>,
    app_type: String,
    settings: String,
    tools: String,
    hardware_requirements: String,
    permissions: String,
    app_store_status: String,
    updated_at: i64,
}

impl AppEdit {
    pub(super) fn from_app(app: &App) -> Result<Self, RepoError> {
        Ok(Self {
            name: app.name.clone(),
            description: app.description.clone(),
            onboarding_instructions: app.onboarding_instructions.clone(),
            public_url: app.public_url.clone(),
            logo_url: app.logo_url.clone(),
            webview_url: app.webview_url.clone(),
            app_type: app.app_type.as_str().to_owned(),
            settings: to_json(&app.settings)?,
            tools: to_json(&app.tools)?,
            hardware_requirements: to_json(&app.hardware_requirements)?,
            permissions: to_json(&app.permissions)?,
            app_store_status: app.app_store_status.as_str().to_owned(),
            updated_at: to_millis(app.updated_at),
        })
    }
}
