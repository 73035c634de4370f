//! `org list | get [ID] | switch ID`.

use serde_json::{Value, json};

use super::Context;
use crate::args::OrgCommand;
use crate::client::segment;
use crate::config;
use crate::error::Result;
use crate::output;
use crate::wire::{ENVELOPE_DATA, member, member_user, org, org_list, org_summary, profile, text};

pub fn run(mut context: Context, command: OrgCommand) -> Result<()> {
    match command {
        OrgCommand::List => list(&context),
        OrgCommand::Get { id } => get(&context, id),
        OrgCommand::Switch { id } => switch(&mut context, &id),
    }
}

fn list(context: &Context) -> Result<()> {
    let (api, _) = context.api()?;
    let answer: Value = api.get("/api/orgs")?;
    if context.global.json {
        return output::json(&answer);
    }
    let chosen = config::chosen_org(
        context.global.org.as_deref(),
        context.project.as_ref(),
        &context.stored,
    );
    let rows = answer
        .get(org_list::DATA)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|entry| {
            let id = text(entry, org_summary::ID);
            let mark = if chosen.as_deref() == Some(id) { "*" } else { "" };
            vec![
                mark.to_owned(),
                id.to_owned(),
                text(entry, org_summary::NAME).to_owned(),
                text(entry, org_summary::ROLE).to_owned(),
            ]
        })
        .collect();
    output::table(&["", "ID", "NAME", "ROLE"], rows);
    Ok(())
}

fn get(context: &Context, id: Option<String>) -> Result<()> {
    let (api, _) = context.api()?;
    let id = match id {
        Some(id) => id,
        None => context.org_id(&api)?,
    };
    let answer: Value = api.get(&format!("/api/orgs/{}", segment(&id)))?;
    if context.global.json {
        return output::json(&answer);
    }
    let data = answer.get(ENVELOPE_DATA).unwrap_or(&Value::Null);
    let members = data
        .get(org::MEMBERS)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let profile_of = data.get(org::PROFILE).unwrap_or(&Value::Null);
    output::pairs(&[
        ("Id", text(data, org::ID).to_owned()),
        ("Name", text(data, org::NAME).to_owned()),
        ("Your role", text(data, org::ROLE).to_owned()),
        (
            "Contact e-mail",
            text(profile_of, profile::CONTACT_EMAIL).to_owned(),
        ),
        ("Website", text(profile_of, profile::WEBSITE).to_owned()),
        ("Members", members.len().to_string()),
    ]);
    let rows = members
        .iter()
        .map(|entry| {
            let user = entry.get(member::USER).unwrap_or(&Value::Null);
            vec![
                text(user, member_user::EMAIL).to_owned(),
                text(entry, member::ROLE).to_owned(),
            ]
        })
        .collect();
    output::table(&["MEMBER", "ROLE"], rows);
    Ok(())
}

fn switch(context: &mut Context, id: &str) -> Result<()> {
    let (api, _) = context.api()?;
    // The organization must exist and have the caller as a member (404 otherwise).
    let answer: Value = api.get(&format!("/api/orgs/{}", segment(id)))?;
    let data = answer.get(ENVELOPE_DATA).unwrap_or(&Value::Null);
    context.stored.org_id = Some(id.to_owned());
    context.stored.save()?;
    if context.global.json {
        return output::json(&json!({"orgId": id, "name": text(data, org::NAME)}));
    }
    println!("Commands now act in {} ({id}).", text(data, org::NAME));
    if std::env::var_os(config::ENV_ORG).is_some() {
        output::note("DEVPORTAL_ORG is set in this environment: it still wins over this choice.");
    }
    Ok(())
}
