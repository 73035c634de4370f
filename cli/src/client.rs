//! The HTTP side: one blocking client that sends the bearer (and the organization header) and turns an
//! error answer into the server's own message.

use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::{CliError, Result};
use crate::portal::PortalUrl;
use crate::wire::error_body;

/// The header that names the organization of an org-scoped call.
const ORG_HEADER: &str = "x-org-id";
/// What every portal answers to anyone: asked when an answer does not read as a portal's.
const PORTAL_PROBE: &str = "/api/public-config";

pub struct Api {
    http: Client,
    base: String,
    token: String,
    org: Option<String>,
}

impl Api {
    /// The client that sends `token` to the portal at `base`: over `https://`, or over `http://` to this
    /// machine, which it reaches directly (never through a proxy); to another machine over `http://` only
    /// when `allow_insecure`.
    ///
    /// # Errors
    /// [`CliError::Usage`] when `base` is not an http(s) address or the token would cross the network
    /// unencrypted; [`CliError::Failed`] when the HTTP client cannot start.
    pub fn new(base: &str, token: &str, allow_insecure: bool) -> Result<Self> {
        let portal = PortalUrl::parse(base)?;
        portal.check_transport(allow_insecure)?;
        let mut builder = Client::builder()
            .user_agent(concat!("devportal-cli/", env!("CARGO_PKG_VERSION")))
            .timeout(Duration::from_secs(60));
        if portal.is_loopback() {
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|error| CliError::Failed(format!("Cannot start the HTTP client: {error}")))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            org: None,
        })
    }

    /// The same client acting in `org` (org-scoped calls send it as `x-org-id`).
    #[must_use]
    pub fn in_org(mut self, org: &str) -> Self {
        self.org = Some(org.to_owned());
        self
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(org) = &self.org {
            request = request.header(ORG_HEADER, org);
        }
        request
    }

    /// Sends a request; a success answer is returned, an error answer becomes [`CliError`] (an answer
    /// without the portal's error envelope from an address that is not a portal says so).
    fn send(&self, request: RequestBuilder) -> Result<Response> {
        let response = request.send().map_err(|error| {
            CliError::Failed(format!("Cannot reach {}: {}", self.base, root_cause(&error)))
        })?;
        if response.status().is_success() {
            return Ok(response);
        }
        let refused = refusal(response);
        if matches!(
            &refused,
            CliError::Refused { code: None, .. } | CliError::NotSignedIn(_)
        ) && let Some(not_a_portal) = self.not_a_portal()
        {
            return Err(not_a_portal);
        }
        Err(refused)
    }

    /// When the address is not a developer portal (a wrong `DEVPORTAL_URL` or `--url`): the error that
    /// says so. Asks `GET /api/public-config`, which every portal answers to anyone, without the token.
    fn not_a_portal(&self) -> Option<CliError> {
        let probe = format!("{}{PORTAL_PROBE}", self.base);
        let answers_as_portal = self
            .http
            .get(&probe)
            .send()
            .ok()
            .filter(|answer| answer.status().is_success())
            .and_then(|answer| answer.json::<Value>().ok())
            .is_some_and(|config| config.get("identity").is_some_and(Value::is_object));
        (!answers_as_portal).then(|| {
            CliError::Failed(format!(
                "{} is not a developer portal ({probe} did not answer as one): check DEVPORTAL_URL or --url.",
                self.base
            ))
        })
    }

    /// A call with an optional JSON body whose answer is read as `T`.
    pub fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&impl Serialize>,
    ) -> Result<T> {
        let mut request = self.request(method, path);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = self.send(request)?;
        let text = response
            .text()
            .map_err(|error| CliError::Failed(format!("The answer could not be read: {error}")))?;
        serde_json::from_str(&text).map_err(|error| {
            self.not_a_portal().unwrap_or_else(|| {
                CliError::Failed(format!("The server's answer was not understood: {error}"))
            })
        })
    }

    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.call(Method::GET, path, None::<&()>)
    }

    /// A call whose answer is not read (204, or a body the command does not need).
    pub fn call_empty(&self, method: Method, path: &str) -> Result<()> {
        self.send(self.request(method, path)).map(drop)
    }

    /// A `GET` whose answer is kept as the text the server sent (the export file).
    pub fn get_text(&self, path: &str) -> Result<String> {
        self.send(self.request(Method::GET, path))?
            .text()
            .map_err(|error| CliError::Failed(format!("The answer could not be read: {error}")))
    }
}

/// The innermost cause of a transport error (connection refused, DNS…), which says the most.
fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// An error answer as the user should read it: the envelope's message (PRODUCT.md §6); 401 means the
/// token does not hold (exit 3).
fn refusal(response: Response) -> CliError {
    let status = response.status();
    let body: Value = response.json().unwrap_or(Value::Null);
    let message = body
        .get(error_body::ERROR)
        .and_then(Value::as_str)
        .map_or_else(|| format!("The server answered {status}."), str::to_owned);
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return CliError::NotSignedIn(message);
    }
    let fields: BTreeMap<String, String> = body
        .get(error_body::FIELDS)
        .and_then(Value::as_object)
        .map(|fields| {
            fields
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                .collect()
        })
        .unwrap_or_default();
    CliError::Refused {
        status: status.as_u16(),
        code: body
            .get(error_body::CODE)
            .and_then(Value::as_str)
            .map(str::to_owned),
        message,
        fields,
    }
}

/// A path segment (a package name or an id) as it goes in a URL.
pub fn segment(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._~".contains(c) {
                c.to_string()
            } else {
                let mut buffer = [0; 4];
                c.encode_utf8(&mut buffer)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            }
        })
        .collect()
}
