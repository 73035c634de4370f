//! `app-server`: the developer portal in one binary.

use app_server::admin_cli::{self, AdminCommand};
use app_server::factors_cli::{self, FactorsCommand};
use app_server::telemetry::{self, LogFormat};
use app_server::{Application, Config};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "app-server",
    version,
    about = "Developer portal for smart-glasses apps"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web UI and the API (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the OpenAPI document of the product API (JSON) and exit.
    Openapi,
    /// Manage platform admins (who review apps and watch uptime).
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Second factors: the recovery of a user who lost every factor (recorded in the log).
    Factors {
        #[command(subcommand)]
        command: FactorsCommand,
    },
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let command = Cli::parse().command.unwrap_or(Command::Serve);
    if let Command::Openapi = command {
        // Needs no configuration: the document is built from the code.
        println!("{}", adapter_http::openapi::document_json()?);
        return Ok(());
    }
    let _ = dotenvy::dotenv();
    let log_format = LogFormat::parse(&std::env::var("PORTAL_LOG_FORMAT").unwrap_or_default())
        .map_err(anyhow::Error::msg)?;
    telemetry::init(log_format);
    let config = Config::from_env()?;
    match command {
        Command::Serve | Command::Openapi => {
            let application = Application::build(&config).await?;
            application.run_until_stopped().await?;
        }
        Command::Migrate => {
            app_server::startup::open_database_for_command(&config)?;
            println!("database is up to date");
        }
        Command::Admin { command } => {
            let db = app_server::startup::open_database_for_command(&config)?;
            match admin_cli::run(&db, command).await {
                Ok(output) => println!("{output}"),
                Err(error) => {
                    eprintln!("app-server admin: {error}");
                    std::process::exit(1);
                }
            }
        }
        Command::Factors { command } => {
            let db = app_server::startup::open_database_for_command(&config)?;
            match factors_cli::run(&db, &config.public_url, command).await {
                Ok(output) => println!("{output}"),
                Err(error) => {
                    eprintln!("app-server factors: {error}");
                    std::process::exit(1);
                }
            }
        }
    }
    Ok(())
}
