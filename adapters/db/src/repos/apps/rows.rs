//! The stored forms of an app: its editable fields (declared once), the full row around them and the
//! changeset of an edit.

use diesel::prelude::*;
use domain::apps::{App, AppStoreStatus, AppType, PackageName};
use domain::common::{OrgId, RepoError, UserId};
use domain::media::ImageLinks;

use crate::convert::{from_json, from_millis, from_millis_opt, parse_stored, to_json, to_millis};
use crate::schema::apps;

/// The editable fields of an app: the part of a row an edit writes. Read, inserted and written as part of
/// [`AppRow`] and [`AppEdit`] (`#[diesel(embed)]`), so a new editable column is declared here once.
#[derive(Debug, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = apps, treat_none_as_null = true)]
pub(super) struct AppFields {
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
}

impl AppFields {
    /// `app`'s fields as stored: its logo by its key when it is one of this portal's images.
    fn from_app(app: &App, links: &ImageLinks) -> Result<Self, RepoError> {
        Ok(Self {
            name: app.name.clone(),
            description: app.description.clone(),
            onboarding_instructions: app.onboarding_instructions.clone(),
            public_url: app.public_url.clone(),
            logo_url: links.stored(&app.logo_url),
            webview_url: app.webview_url.clone(),
            app_type: app.app_type.code().to_owned(),
            settings: to_json(&app.settings)?,
            tools: to_json(&app.tools)?,
            hardware_requirements: to_json(&app.hardware_requirements)?,
            permissions: to_json(&app.permissions)?,
        })
    }

    /// Sets these fields of `app` (read back from the database), its logo at today's address.
    fn read_into(self, app: &mut App, links: &ImageLinks) -> Result<(), RepoError> {
        app.name = self.name;
        app.description = self.description;
        app.onboarding_instructions = self.onboarding_instructions;
        app.public_url = self.public_url;
        app.logo_url = links.delivered(&self.logo_url);
        app.webview_url = self.webview_url;
        app.app_type = parse_stored("apps.app_type", &self.app_type, |text| {
            AppType::parse(text).ok_or("not an app type")
        })?;
        app.settings = from_json("apps.settings", &self.settings)?;
        app.tools = from_json("apps.tools", &self.tools)?;
        app.hardware_requirements = from_json("apps.hardware_requirements", &self.hardware_requirements)?;
        app.permissions = from_json("apps.permissions", &self.permissions)?;
        Ok(())
    }
}

/// One row of `apps`.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = apps)]
pub(super) struct AppRow {
    package_name: String,
    org_id: String,
    developer_id: String,
    #[diesel(embed)]
    fields: AppFields,
    is_public: bool,
    app_store_status: String,
    created_at: i64,
    updated_at: i64,
    review_notes: Option<String>,
    reviewed_by: Option<String>,
    reviewed_at: Option<i64>,
    shared_with_organization: bool,
    shared_with_emails: String,
}

impl AppRow {
    pub(super) fn from_app(app: &App, links: &ImageLinks) -> Result<Self, RepoError> {
        Ok(Self {
            package_name: app.package_name.as_str().to_owned(),
            org_id: app.org_id.to_string(),
            developer_id: app.developer_id.to_string(),
            fields: AppFields::from_app(app, links)?,
            is_public: app.is_public,
            app_store_status: app.app_store_status.code().to_owned(),
            created_at: to_millis(app.created_at),
            updated_at: to_millis(app.updated_at),
            review_notes: app.review_notes.clone(),
            reviewed_by: app.reviewed_by.clone(),
            reviewed_at: app.reviewed_at.map(to_millis),
            shared_with_organization: app.shared_with_organization,
            shared_with_emails: to_json(&app.shared_with_emails)?,
        })
    }

    pub(super) fn into_app(self, links: &ImageLinks) -> Result<App, RepoError> {
        let mut app = App {
            package_name: parse_stored("apps.package_name", &self.package_name, PackageName::parse)?,
            org_id: parse_stored("apps.org_id", &self.org_id, str::parse::<OrgId>)?,
            developer_id: parse_stored("apps.developer_id", &self.developer_id, str::parse::<UserId>)?,
            name: String::new(),
            description: String::new(),
            onboarding_instructions: String::new(),
            public_url: String::new(),
            logo_url: String::new(),
            webview_url: None,
            is_public: self.is_public,
            // Anything unknown reads as DEVELOPMENT (specification §4).
            app_store_status: AppStoreStatus::parse_lossy(&self.app_store_status),
            app_type: AppType::default(),
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            review_notes: self.review_notes,
            reviewed_by: self.reviewed_by,
            reviewed_at: from_millis_opt(self.reviewed_at)?,
            tools: Vec::new(),
            settings: Vec::new(),
            hardware_requirements: Vec::new(),
            permissions: Vec::new(),
            shared_with_organization: self.shared_with_organization,
            shared_with_emails: from_json("apps.shared_with_emails", &self.shared_with_emails)?,
        };
        self.fields.read_into(&mut app, links)?;
        Ok(app)
    }
}

/// What `AppRepository::update` writes, and only that: the editable fields (`None` writes NULL: a cleared
/// webview URL), the status the apps service decided (the stored one, or SUBMITTED when a permission was
/// added to a PUBLISHED app; the update is conditional on the status read) and the time of the edit.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = apps)]
pub(super) struct AppEdit {
    #[diesel(embed)]
    fields: AppFields,
    app_store_status: String,
    updated_at: i64,
}

impl AppEdit {
    pub(super) fn from_app(app: &App, links: &ImageLinks) -> Result<Self, RepoError> {
        Ok(Self {
            fields: AppFields::from_app(app, links)?,
            app_store_status: app.app_store_status.code().to_owned(),
            updated_at: to_millis(app.updated_at),
        })
    }
}
