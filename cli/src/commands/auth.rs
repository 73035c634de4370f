//! `login`, `logout`, `whoami`.

use serde_json::{Value, json};
use std::io::{IsTerminal, Read};

use super::Context;
use crate::client::Api;
use crate::config::{self, Stored};
use crate::error::{CliError, Result};
use crate::output;
use crate::portal::{self, PortalUrl};
use crate::wire::{me, org_list, org_summary, text};

/// The prefix of personal access tokens.
const TOKEN_PREFIX: &str = "dpt_";

/// The token, from a hidden prompt in a terminal or from standard input otherwise.
fn read_token() -> Result<String> {
    let token = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("Token: ")
            .map_err(|e| CliError::Failed(format!("Cannot read the token: {e}")))?
    } else {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::Failed(format!("Cannot read the token from standard input: {e}")))?;
        text
    };
    let token = token.trim().to_owned();
    if token.is_empty() {
        return Err(CliError::Usage("No token was given.".to_owned()));
    }
    Ok(token)
}

pub fn login(context: &Context, url: Option<String>) -> Result<()> {
    let url = url
        .map(|url| url.trim().trim_end_matches('/').to_owned())
        .unwrap_or_else(|| config::url(&context.stored));
    let allow_insecure = config::allow_insecure(context.global.allow_insecure);
    // Refused before the token is asked for when it could not be sent there.
    PortalUrl::parse(&url)?.check_transport(allow_insecure)?;
    let token = read_token()?;
    if !token.starts_with(TOKEN_PREFIX) {
        output::note(&format!(
            "warning: this token does not start with {TOKEN_PREFIX}: it is not a personal access token, \
             and it may stop working when the session it came from ends."
        ));
    }
    let api = Api::new(&url, &token, allow_insecure)?;
    let user: Value = api.get("/api/dev/auth/me")?;
    // Keep the chosen organization when signing in to the same server again; else choose the first.
    let same_server = context
        .stored
        .url
        .as_deref()
        .is_some_and(|stored| portal::same_portal(stored, &url));
    let org_id = match context.stored.org_id.clone().filter(|_| same_server) {
        Some(org) => Some(org),
        None => {
            let list: Value = api.get("/api/orgs")?;
            list.get(org_list::DATA)
                .and_then(Value::as_array)
                .and_then(|orgs| orgs.first())
                .map(|org| text(org, org_summary::ID).to_owned())
        }
    };
    let stored = Stored {
        url: Some(url.clone()),
        token: Some(token),
        org_id: org_id.clone(),
    };
    let path = stored.save()?;
    if context.global.json {
        return output::json(&json!({"url": url, "orgId": org_id, "user": user}));
    }
    println!("Signed in to {url} as {}.", text(&user, me::EMAIL));
    if let Some(org) = org_id {
        println!("Organization: {org} (change it with `devportal org switch ID`).");
    }
    output::note(&format!("The token is stored in {}.", path.display()));
    Ok(())
}

pub fn logout(context: &Context) -> Result<()> {
    let removed = Stored::remove()?;
    if context.global.json {
        return output::json(&json!({"signedOut": removed}));
    }
    println!(
        "{}",
        if removed {
            "Signed out: the stored token is removed."
        } else {
            "Not signed in."
        }
    );
    if std::env::var_os(config::ENV_TOKEN).is_some() {
        output::note("DEVPORTAL_TOKEN is still set in this environment: commands keep using it.");
    }
    Ok(())
}

pub fn whoami(context: &Context) -> Result<()> {
    let (api, session) = context.api()?;
    let user: Value = api.get("/api/dev/auth/me")?;
    if context.global.json {
        return output::json(&user);
    }
    let org = config::chosen_org(
        context.global.org.as_deref(),
        context.project.as_ref(),
        &context.stored,
    );
    output::pairs(&[
        ("Email", text(&user, me::EMAIL).to_owned()),
        ("Name", text(&user, me::DISPLAY_NAME).to_owned()),
        ("User id", text(&user, me::ID).to_owned()),
        ("Server", api.base().to_owned()),
        ("Token", session.source.describe().to_owned()),
        ("Organization", org.unwrap_or_else(|| "(none chosen)".to_owned())),
    ]);
    if let Some(role) = user.get(me::PLATFORM_ROLE).and_then(Value::as_str) {
        println!("Platform role: {role}");
    }
    Ok(())
}
