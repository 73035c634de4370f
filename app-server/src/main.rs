//! `app-server`: the developer portal in one binary.

use app_server::admin_cli::{self, AdminCommand};
use app_server::factors_cli::{self, FactorsCommand};
use app_server::telemetry::{self, LogFormat};
use app_server::{Application, Config};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "app-server",
    version,
    about = "Developer portal for smart-glasses apps"
)]
struct Cli {
    /// Read settings from FILE (VARIABLE=value lines, as /etc/devportal/portal.env) instead of `./.env`;
    /// variables already set in the environment win.
    #[arg(long, global = true, value_name = "FILE")]
    env_file: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web UI and the API (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate {
        /// Only say whether migrations are pending (exit status 1 when some are, or when the database is
        /// newer than this binary); change nothing.
        #[arg(long)]
        check: bool,
    },
    /// Write a backup archive (.tar.gz) while the portal serves: a consistent copy of the SQLite database
    /// and the local images (on PostgreSQL, the images; the database goes with pg_dump).
    Backup {
        /// The archive to write; it must not exist.
        file: PathBuf,
    },
    /// Restore a backup archive into an empty database and data folder (never over a live one).
    Restore {
        /// The archive `app-server backup` wrote.
        file: PathBuf,
    },
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
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve);
    if let Command::Openapi = command {
        // Needs no configuration: the document is built from the code.
        println!("{}", adapter_http::openapi::document_json()?);
        return Ok(());
    }
    match &cli.env_file {
        Some(file) => {
            dotenvy::from_path(file).map_err(|e| anyhow::anyhow!("--env-file {}: {e}", file.display()))?;
        }
        None => {
            let _ = dotenvy::dotenv();
        }
    }
    let log_format = LogFormat::parse(&std::env::var("PORTAL_LOG_FORMAT").unwrap_or_default())
        .map_err(anyhow::Error::msg)?;
    telemetry::init(log_format);
    let config = Config::from_env()?;
    match command {
        Command::Serve | Command::Openapi => {
            let application = Application::build(&config).await?;
            application.run_until_stopped().await?;
        }
        Command::Migrate { check: false } => {
            app_server::startup::open_database_for_command(&config)?;
            println!("database is up to date");
        }
        Command::Migrate { check: true } => {
            let status =
                adapter_db::Db::connect_for_command_with(&config.database_url, &config.database_options)?
                    .migration_status()?;
            if !status.newer.is_empty() {
                eprintln!(
                    "app-server migrate --check: {}",
                    adapter_db::DbError::NewerDatabase(status.newer)
                );
                std::process::exit(1);
            }
            if status.pending.is_empty() {
                println!("database is up to date: no migration pending");
            } else {
                println!(
                    "{} migration(s) pending (applied by `app-server migrate` or at the next start): {}",
                    status.pending.len(),
                    status.pending.join(", ")
                );
                std::process::exit(1);
            }
        }
        Command::Backup { file } => match app_server::backup::backup(&config, &file) {
            Ok(report) => println!("{report}"),
            Err(error) => {
                eprintln!("app-server backup: {error:#}");
                std::process::exit(1);
            }
        },
        Command::Restore { file } => match app_server::backup::restore(&config, &file) {
            Ok(report) => println!("{report}"),
            Err(error) => {
                eprintln!("app-server restore: {error:#}");
                std::process::exit(1);
            }
        },
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
