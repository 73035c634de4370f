//! The commands, and what they share: the session, the organization and the package they act on.

mod app;
mod auth;
mod org;

use serde_json::Value;

use crate::args::{Cli, Command, Global};
use crate::client::{Api, segment};
use crate::config::{self, Project, Session, Stored};
use crate::error::{CliError, Result};
use crate::wire::{org_list, org_summary, text};

/// What every command starts from.
pub struct Context {
    pub global: Global,
    pub stored: Stored,
    pub project: Option<Project>,
}

impl Context {
    /// The signed-in client (the environment's token, else the stored one).
    pub fn api(&self) -> Result<(Api, Session)> {
        let session = config::session(&self.stored)?;
        let allow_insecure = config::allow_insecure(self.global.allow_insecure);
        Ok((Api::new(&session.url, &session.token, allow_insecure)?, session))
    }

    /// The organization a command acts in: `--org`, `$DEVPORTAL_ORG`, the project file's, the chosen one;
    /// else the caller's only organization. Several and none chosen is a usage error.
    pub fn org_id(&self, api: &Api) -> Result<String> {
        if let Some(org) = config::chosen_org(self.global.org.as_deref(), self.project.as_ref(), &self.stored)
        {
            return Ok(org);
        }
        let list: Value = api.get("/api/orgs")?;
        let orgs = list
            .get(org_list::DATA)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match orgs.as_slice() {
            [only] => Ok(text(only, org_summary::ID).to_owned()),
            _ => Err(CliError::Usage(
                "Choose an organization: `devportal org switch ID` (see `devportal org list`), or pass --org ID."
                    .to_owned(),
            )),
        }
    }

    /// The client acting in the command's organization.
    pub fn org_api(&self) -> Result<Api> {
        let (api, _) = self.api()?;
        let org = self.org_id(&api)?;
        Ok(api.in_org(&org))
    }

    /// The app a command is about: the argument, else the project file's package.
    pub fn package(&self, argument: Option<String>) -> Result<String> {
        argument
            .or_else(|| self.project.as_ref().and_then(|p| p.package_name.clone()))
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "Name the app (its package name), or run in a directory with a {} naming its packageName.",
                    config::PROJECT_FILE
                ))
            })
    }
}

/// The path of an app call.
pub fn app_path(package: &str, rest: &str) -> String {
    format!("/api/dev/apps/{}{rest}", segment(package))
}

pub fn run(cli: Cli) -> Result<()> {
    let context = Context {
        global: cli.global,
        stored: Stored::load()?,
        project: Project::find()?,
    };
    match cli.command {
        Command::Login { url } => auth::login(&context, url),
        Command::Logout => auth::logout(&context),
        Command::Whoami => auth::whoami(&context),
        Command::Org(command) => org::run(context, command),
        Command::App(command) => app::run(&context, command),
    }
}
