//! Where the client's settings come from: the stored login (0600, in the user's config directory), the
//! environment (which wins, for CI) and the project file `devportal.json` (in the working directory or
//! above).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};
use crate::portal::PortalUrl;

pub const DEFAULT_URL: &str = "http://127.0.0.1:8080";
pub const ENV_URL: &str = "DEVPORTAL_URL";
pub const ENV_TOKEN: &str = "DEVPORTAL_TOKEN";
pub const ENV_ORG: &str = "DEVPORTAL_ORG";
pub const ENV_CONFIG_DIR: &str = "DEVPORTAL_CONFIG_DIR";
pub const ENV_ALLOW_INSECURE: &str = "DEVPORTAL_ALLOW_INSECURE";
pub const PROJECT_FILE: &str = "devportal.json";
const CREDENTIALS_FILE: &str = "credentials.json";

/// The stored login: the client's own file, not a wire type.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The organization chosen with `org switch` (or at login).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org_id: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// `$DEVPORTAL_CONFIG_DIR`, else the user's config directory + `devportal`.
pub fn config_dir() -> Result<PathBuf> {
    if let Some(dir) = env(ENV_CONFIG_DIR) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|dir| dir.join("devportal"))
        .ok_or_else(|| {
            CliError::Failed(format!(
                "No config directory is known here: set {ENV_CONFIG_DIR}."
            ))
        })
}

pub fn credentials_path() -> Result<PathBuf> {
    Ok(config_dir()?.join(CREDENTIALS_FILE))
}

impl Stored {
    /// The stored login, or an empty one when there is none.
    pub fn load() -> Result<Self> {
        let path = credentials_path()?;
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|error| {
                CliError::Failed(format!(
                    "{} is not readable ({error}): run `devportal logout`.",
                    path.display()
                ))
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(error) => Err(CliError::Failed(format!(
                "Cannot read {}: {error}",
                path.display()
            ))),
        }
    }

    /// Writes the login, readable and writable by the user only (0600; the folder 0700).
    pub fn save(&self) -> Result<PathBuf> {
        let path = credentials_path()?;
        let fail =
            |error: std::io::Error| CliError::Failed(format!("Cannot write {}: {error}", path.display()));
        if let Some(dir) = path.parent() {
            create_private_dir(dir).map_err(fail)?;
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| CliError::Failed(e.to_string()))?;
        write_private(&path, &text).map_err(fail)?;
        Ok(path)
    }

    /// Removes the stored login; answers whether there was one.
    pub fn remove() -> Result<bool> {
        let path = credentials_path()?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(CliError::Failed(format!(
                "Cannot remove {}: {error}",
                path.display()
            ))),
        }
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // A file made earlier with wider permissions is narrowed too.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// Where the token in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    Environment,
    Stored,
}

impl TokenSource {
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Environment => "DEVPORTAL_TOKEN",
            Self::Stored => "stored login",
        }
    }
}

/// The server and token a command uses: the environment wins over the stored login.
#[derive(Debug, Clone)]
pub struct Session {
    pub url: String,
    pub token: String,
    pub source: TokenSource,
}

/// The server's address: `$DEVPORTAL_URL`, the stored one, or the default.
pub fn url(stored: &Stored) -> String {
    env(ENV_URL)
        .or_else(|| stored.url.clone())
        .unwrap_or_else(|| DEFAULT_URL.to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// Whether a token may go over plain `http://` to another machine: `--allow-insecure` (`flag`) or
/// `$DEVPORTAL_ALLOW_INSECURE` = `1`.
pub fn allow_insecure(flag: bool) -> bool {
    flag || env(ENV_ALLOW_INSECURE).as_deref() == Some("1")
}

/// The session of a command. The stored token is used only for the portal it was stored for: another
/// address (`$DEVPORTAL_URL`) needs `$DEVPORTAL_TOKEN`.
///
/// # Errors
/// [`CliError::NotSignedIn`] without a token; [`CliError::OtherPortal`] when only the stored token is there
/// and the address names another portal; [`CliError::Usage`] when an address is not an http(s) URL.
pub fn session(stored: &Stored) -> Result<Session> {
    let url = url(stored);
    let (token, source) = match env(ENV_TOKEN) {
        Some(token) => (token, TokenSource::Environment),
        None => match &stored.token {
            Some(token) => {
                // A login always stores its address; a file without one was for the default.
                let owner = stored.url.as_deref().unwrap_or(DEFAULT_URL).trim_end_matches('/');
                if !PortalUrl::parse(owner)?.same_portal(&PortalUrl::parse(&url)?) {
                    return Err(CliError::OtherPortal(format!(
                        "The saved token belongs to {owner}; to use {url}, set {ENV_TOKEN} (or sign in to \
                         it with `devportal login --url {url}`)."
                    )));
                }
                (token.clone(), TokenSource::Stored)
            }
            None => return Err(CliError::NotSignedIn("Not signed in.".to_owned())),
        },
    };
    Ok(Session { url, token, source })
}

/// The project file: which app (and organization) the repository it sits in is about.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub package_name: Option<String>,
    pub org_id: Option<String>,
    #[serde(skip)]
    pub path: PathBuf,
}

impl Project {
    /// The nearest `devportal.json` from the working directory up, if any.
    pub fn find() -> Result<Option<Self>> {
        let Ok(start) = std::env::current_dir() else {
            return Ok(None);
        };
        for dir in start.ancestors() {
            let path = dir.join(PROJECT_FILE);
            if path.is_file() {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| CliError::Failed(format!("Cannot read {}: {e}", path.display())))?;
                let mut project: Self = serde_json::from_str(&text).map_err(|e| {
                    CliError::Failed(format!(
                        "{} is not a project file ({e}); it holds {{\"packageName\": \"…\", \"orgId\": \"…\"}}.",
                        path.display()
                    ))
                })?;
                project.path = path;
                return Ok(Some(project));
            }
        }
        Ok(None)
    }
}

/// The organization a command acts in: `--org`, `$DEVPORTAL_ORG`, the project file's, the chosen one.
pub fn chosen_org(flag: Option<&str>, project: Option<&Project>, stored: &Stored) -> Option<String> {
    flag.map(str::to_owned)
        .or_else(|| env(ENV_ORG))
        .or_else(|| project.and_then(|p| p.org_id.clone()))
        .or_else(|| stored.org_id.clone())
}
