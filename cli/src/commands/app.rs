//! `app list | get | create | update | delete | publish | api-key | export | import`.

use domain::apps::App;
use domain::apps::config::{ImportSummary, apply_config, import_summary, read_config_file};
use domain::apps::validation::{AppDetailsInput, RegistrationInput, UpdateInput};
use reqwest::Method;
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;

use super::{Context, app_path};
use crate::args::{AppCommand, AppFields};
use crate::error::{CliError, Result};
use crate::output;
use crate::wire::{api_key, permissions, registered};

pub fn run(context: &Context, command: AppCommand) -> Result<()> {
    match command {
        AppCommand::List => list(context),
        AppCommand::Get { package } => get(context, &context.package(package)?),
        AppCommand::Create { package_name, fields } => create(context, package_name, fields),
        AppCommand::Update { package, fields } => update(context, &context.package(package)?, fields),
        AppCommand::Delete { package, yes } => delete(context, &context.package(package)?, yes),
        AppCommand::Publish { package, yes } => publish(context, &context.package(package)?, yes),
        AppCommand::ApiKey { package, yes } => regenerate_key(context, &context.package(package)?, yes),
        AppCommand::Export { package, output } => {
            export(context, &context.package(package)?, output.as_deref())
        }
        AppCommand::Import { file, package, yes } => import(context, &file, package, yes),
    }
}

/// An answer read as the domain's type (the human output's view of it).
fn typed<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T> {
    serde_json::from_value(value.clone())
        .map_err(|error| CliError::Failed(format!("The server's answer was not understood: {error}")))
}

/// The wire name of a value (`SUBMITTED`, `standard`).
fn wire_name(value: &impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn show(app: &App) {
    let permissions: Vec<String> = app.permissions.iter().map(|p| wire_name(&p.kind)).collect();
    let mut rows = vec![
        ("Package", app.package_name.to_string()),
        ("Name", app.name.clone()),
        ("Status", wire_name(&app.app_store_status)),
        ("Type", wire_name(&app.app_type)),
        ("Description", app.description.clone()),
        ("Server URL", app.public_url.clone()),
        ("Logo URL", app.logo_url.clone()),
        ("Webview URL", app.webview_url.clone().unwrap_or_default()),
        ("Settings", app.settings.len().to_string()),
        ("AI tools", app.tools.len().to_string()),
        ("Permissions", permissions.join(", ")),
        ("Organization", app.org_id.to_string()),
        ("Updated", app.updated_at.to_rfc3339()),
    ];
    if let Some(notes) = &app.review_notes {
        rows.push(("Review notes", notes.clone()));
    }
    output::pairs(&rows);
}

fn list(context: &Context) -> Result<()> {
    let api = context.org_api()?;
    let answer: Value = api.get("/api/dev/apps")?;
    if context.global.json {
        return output::json(&answer);
    }
    let apps: Vec<App> = typed(&answer)?;
    if apps.is_empty() {
        println!("No apps in this organization yet: create one with `devportal app create`.");
        return Ok(());
    }
    let rows = apps
        .iter()
        .map(|app| {
            vec![
                app.package_name.to_string(),
                app.name.clone(),
                wire_name(&app.app_store_status),
                wire_name(&app.app_type),
                app.updated_at.format("%Y-%m-%d %H:%M").to_string(),
            ]
        })
        .collect();
    output::table(&["PACKAGE", "NAME", "STATUS", "TYPE", "UPDATED"], rows);
    Ok(())
}

fn get(context: &Context, package: &str) -> Result<()> {
    let answer: Value = context.org_api()?.get(&app_path(package, ""))?;
    if context.global.json {
        return output::json(&answer);
    }
    show(&typed(&answer)?);
    Ok(())
}

/// A required field: the flag, else asked in a terminal; `None` when it is missing and nobody can answer.
fn required(value: Option<String>, label: &str) -> Result<Option<String>> {
    match value.filter(|v| !v.trim().is_empty()) {
        Some(value) => Ok(Some(value)),
        None if output::interactive() => Ok(Some(output::ask(label)?)),
        None => Ok(None),
    }
}

fn create(context: &Context, package_name: Option<String>, fields: AppFields) -> Result<()> {
    let api = context.org_api()?;
    let mut details = AppDetailsInput::from(fields);
    let asked = [
        (package_name, "--package-name", "Package name (com.example.app)"),
        (details.name.take(), "--name", "Name"),
        (details.description.take(), "--description", "Description"),
        (
            details.public_url.take(),
            "--public-url",
            "Server URL (https://…)",
        ),
        (details.logo_url.take(), "--logo-url", "Logo URL (https://…)"),
    ];
    let mut values = Vec::new();
    let mut missing = Vec::new();
    for (value, flag, label) in asked {
        match required(value, label)? {
            Some(value) => values.push(value),
            None => missing.push(flag),
        }
    }
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "Missing {} (or run in a terminal to be asked).",
            missing.join(", ")
        )));
    }
    let [package_name, name, description, public_url, logo_url] =
        <[String; 5]>::try_from(values).map_err(|_| CliError::Usage("Missing fields.".to_owned()))?;
    let input = RegistrationInput {
        package_name,
        details: AppDetailsInput {
            name: Some(name),
            description: Some(description),
            public_url: Some(public_url),
            logo_url: Some(logo_url),
            ..details
        },
        ..RegistrationInput::default()
    };
    let answer: Value = api.call(Method::POST, "/api/dev/apps/register", Some(&input))?;
    if context.global.json {
        return output::json(&answer);
    }
    show(&typed(answer.get(registered::APP).unwrap_or(&Value::Null))?);
    print_key(
        answer
            .get(registered::API_KEY)
            .and_then(Value::as_str)
            .unwrap_or_default(),
    );
    Ok(())
}

/// The API key alone on standard output (so that `$(…)` takes it), the explanation on standard error.
fn print_key(key: &str) {
    output::note("\nThe app's API key, shown this once (store it now; `devportal app api-key` replaces it):");
    println!("{key}");
}

fn update(context: &Context, package: &str, fields: AppFields) -> Result<()> {
    let input = UpdateInput {
        details: AppDetailsInput::from(fields),
        ..UpdateInput::default()
    };
    if input == UpdateInput::default() {
        return Err(CliError::Usage(format!(
            "Nothing to change: give {}.",
            AppFields::FLAGS.join(", ")
        )));
    }
    let answer: Value = context
        .org_api()?
        .call(Method::PUT, &app_path(package, ""), Some(&input))?;
    if context.global.json {
        return output::json(&answer);
    }
    show(&typed(&answer)?);
    Ok(())
}

fn delete(context: &Context, package: &str, yes: bool) -> Result<()> {
    let api = context.org_api()?;
    output::confirm(
        &format!("Delete {package} with its API key, images and history? This cannot be undone."),
        yes,
    )?;
    api.call_empty(Method::DELETE, &app_path(package, ""))?;
    if context.global.json {
        return output::json(&json!({"packageName": package, "deleted": true}));
    }
    println!("Deleted {package}.");
    Ok(())
}

fn publish(context: &Context, package: &str, yes: bool) -> Result<()> {
    let api = context.org_api()?;
    output::confirm(&format!("Submit {package} for review?"), yes)?;
    let answer: Value = api.call(Method::POST, &app_path(package, "/publish"), None::<&()>)?;
    if context.global.json {
        return output::json(&answer);
    }
    let app: App = typed(&answer)?;
    println!(
        "{package} is submitted for review (status {}).",
        wire_name(&app.app_store_status)
    );
    Ok(())
}

fn regenerate_key(context: &Context, package: &str, yes: bool) -> Result<()> {
    let api = context.org_api()?;
    output::confirm(
        &format!("Replace the API key of {package}? The current key stops working at once."),
        yes,
    )?;
    let answer: Value = api.call(Method::POST, &app_path(package, "/api-key"), None::<&()>)?;
    if context.global.json {
        return output::json(&answer);
    }
    print_key(
        answer
            .get(api_key::API_KEY)
            .and_then(Value::as_str)
            .unwrap_or_default(),
    );
    Ok(())
}

fn export(context: &Context, package: &str, file: Option<&Path>) -> Result<()> {
    let mut text = context.org_api()?.get_text(&app_path(package, "/config"))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match file {
        None => print!("{text}"),
        Some(file) => {
            std::fs::write(file, &text)
                .map_err(|e| CliError::Failed(format!("Cannot write {}: {e}", file.display())))?;
            output::note(&format!(
                "Wrote the configuration of {package} to {}.",
                file.display()
            ));
        }
    }
    Ok(())
}

/// The rows the browser's import confirmation shows.
fn show_summary(summary: &ImportSummary) {
    let or_not_set = |value: &Option<String>| value.clone().unwrap_or_else(|| "Not set".to_owned());
    output::pairs(&[
        ("Name", or_not_set(&summary.name)),
        ("Description", or_not_set(&summary.description)),
        (
            "Settings",
            format!("{} (groups not counted)", summary.settings_count),
        ),
        ("AI tools", summary.tools_count.to_string()),
        ("Permissions", summary.permissions_count.to_string()),
        ("Server URL", or_not_set(&summary.public_url)),
        ("Logo URL", or_not_set(&summary.logo_url)),
        ("Webview URL", or_not_set(&summary.webview_url)),
    ]);
    if !summary.adjustments.is_empty() {
        println!("Defaults that did not fit their setting were adjusted:");
        for adjustment in &summary.adjustments {
            println!("  - {}", adjustment.message);
        }
    }
}

fn import(context: &Context, file: &Path, package: Option<String>, yes: bool) -> Result<()> {
    let package = context.package(package)?;
    let contents = std::fs::read_to_string(file)
        .map_err(|e| CliError::Failed(format!("Cannot read {}: {e}", file.display())))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The same checks and messages as the browser's import (the domain's reader).
    let config = read_config_file(&name, &contents).map_err(|error| CliError::Failed(error.to_string()))?;
    let summary = import_summary(&config);
    if !context.global.json {
        println!(
            "{} sets these values of {package}. Lists in the file replace the app's lists; fields it does not set stay as they are.",
            file.display()
        );
        show_summary(&summary);
    }
    let api = context.org_api()?;
    output::confirm(&format!("Import this configuration into {package}?"), yes)?;

    let app: App = api.get(&app_path(&package, ""))?;
    let next = apply_config(&app, &config);
    // Only the fields the file sets are sent, as the domain applied them (URLs normalised).
    let input = config.update_input(&next);
    let mut saved: Value = api.call(Method::PUT, &app_path(&package, ""), Some(&input))?;
    if config.permissions.is_some() && next.permissions != app.permissions {
        // Permissions have their own call (a published app that gains one goes back to review).
        let mut body = serde_json::Map::new();
        body.insert(
            permissions::PERMISSIONS.to_owned(),
            serde_json::to_value(&next.permissions).map_err(|e| CliError::Failed(e.to_string()))?,
        );
        saved = api.call(
            Method::PATCH,
            &format!("/api/permissions/{}", crate::client::segment(&package)),
            Some(&body),
        )?;
    }
    if context.global.json {
        return output::json(&json!({"summary": summary, "app": saved}));
    }
    println!("Imported {} into {package}.", file.display());
    Ok(())
}
