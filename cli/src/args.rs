//! The command line: every command, its flags and the examples `--help` shows.

use clap::{Args, Parser, Subcommand};
use domain::apps::validation::AppDetailsInput;
use std::path::PathBuf;

/// The exit codes and variables, shown by `devportal --help` (and the README).
macro_rules! exit_codes {
    () => {
        "\
Exit codes:
  0  done
  1  refused by the server (its message is printed), or the request or a file failed
  2  usage: a wrong flag or argument, a confirmation needed where no terminal can answer (pass --yes), or
     a plain http:// address of another machine (use https://, or --allow-insecure)
  3  not signed in, or the token was revoked or has expired (run `devportal login`), or the stored token
     belongs to another portal than DEVPORTAL_URL names (set DEVPORTAL_TOKEN for that one)

Environment:
  DEVPORTAL_URL     the portal's address; wins over the stored login (whose token goes only to its own
                    portal: another one needs DEVPORTAL_TOKEN)
  DEVPORTAL_TOKEN   the access token; wins over the stored login (for CI)
  DEVPORTAL_ALLOW_INSECURE=1  as --allow-insecure
  DEVPORTAL_ORG     the organization id; wins over the project file and `org switch`
  DEVPORTAL_CONFIG_DIR  where the login is stored (default: the user's config directory + /devportal)
"
    };
}

/// The developer portal from the command line: sign in, choose an organization, manage apps.
#[derive(Debug, Parser)]
#[command(
    name = "devportal",
    version,
    about,
    after_help = concat!(
        "Examples:\n",
        "  devportal login --url https://portal.example.com\n",
        "  echo \"$DEVPORTAL_TOKEN\" | devportal login --url https://portal.example.com\n",
        "  devportal app list\n",
        "  devportal app import app_config.json --package com.example.weather --yes\n",
        "  devportal app publish --yes            (in a repository with a devportal.json)\n\n",
        exit_codes!(),
    ),
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args, Clone, Default)]
pub struct Global {
    /// Print the server's JSON instead of tables (for scripts).
    #[arg(long, global = true)]
    pub json: bool,
    /// The organization to act in, instead of the chosen one (`org switch`) or the project file's.
    #[arg(long, global = true, value_name = "ID")]
    pub org: Option<String>,
    /// Send the token over plain http:// to another machine than this one (127.0.0.0/8, ::1, localhost);
    /// without it that is refused. Only where the network in between is yours. DEVPORTAL_ALLOW_INSECURE=1
    /// does the same.
    #[arg(long, global = true)]
    pub allow_insecure: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store a token to sign in (read from a prompt, or from standard input when it is not a terminal).
    #[command(after_help = concat!(
        "Examples:\n",
        "  devportal login --url https://portal.example.com\n",
        "  devportal login --url https://portal.example.com < token.txt\n\n",
        "The token is checked with the server before it is stored (0600, in the user's config directory).\n",
        "Tokens are personal access tokens (dpt_...); another bearer is accepted with a warning.\n",
    ))]
    Login {
        /// The portal's address (default: DEVPORTAL_URL, the stored one, or http://127.0.0.1:8080).
        #[arg(long)]
        url: Option<String>,
    },
    /// Forget the stored token.
    #[command(after_help = "Example:\n  devportal logout\n")]
    Logout,
    /// Show who the token signs in as, where, and in which organization.
    #[command(after_help = "Examples:\n  devportal whoami\n  devportal whoami --json | jq -r .email\n")]
    Whoami,
    /// Organizations: list them, show one, choose the one commands act in.
    #[command(subcommand)]
    Org(OrgCommand),
    /// Apps of the organization: list, show, create, change, delete, publish, keys, configuration files.
    #[command(subcommand)]
    App(AppCommand),
}

#[derive(Debug, Subcommand)]
pub enum OrgCommand {
    /// Your organizations and your role in each (* marks the chosen one).
    #[command(after_help = "Example:\n  devportal org list\n")]
    List,
    /// One organization with its members (default: the chosen one).
    #[command(after_help = "Examples:\n  devportal org get\n  devportal org get 6f1c2b7e-...\n")]
    Get { id: Option<String> },
    /// Choose the organization later commands act in (stored with the login).
    #[command(after_help = "Example:\n  devportal org switch 6f1c2b7e-...\n")]
    Switch { id: String },
}

/// The fields of an app that `create` and `update` set.
#[derive(Debug, Args, Clone, Default)]
pub struct AppFields {
    /// Display name.
    #[arg(long)]
    pub name: Option<String>,
    /// What the app does.
    #[arg(long)]
    pub description: Option<String>,
    /// The app server's address (the platform calls its /webhook).
    #[arg(long)]
    pub public_url: Option<String>,
    /// The logo's address.
    #[arg(long)]
    pub logo_url: Option<String>,
    /// `background` or `standard`.
    #[arg(long, value_name = "TYPE")]
    pub app_type: Option<String>,
    /// The webview's address (an empty value removes it on update).
    #[arg(long)]
    pub webview_url: Option<String>,
}

impl AppFields {
    /// The flags, as a usage message lists them.
    pub const FLAGS: [&str; 6] = [
        "--name",
        "--description",
        "--public-url",
        "--logo-url",
        "--app-type",
        "--webview-url",
    ];
}

impl From<AppFields> for AppDetailsInput {
    fn from(fields: AppFields) -> Self {
        Self {
            name: fields.name,
            description: fields.description,
            public_url: fields.public_url,
            logo_url: fields.logo_url,
            webview_url: fields.webview_url,
            app_type: fields.app_type,
            ..Self::default()
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum AppCommand {
    /// The organization's apps.
    #[command(
        after_help = "Examples:\n  devportal app list\n  devportal app list --json | jq -r '.[].packageName'\n"
    )]
    List,
    /// One app (PKG defaults to the project file's package).
    #[command(after_help = "Example:\n  devportal app get com.example.weather\n")]
    Get { package: Option<String> },
    /// Register an app; asks for missing fields in a terminal. Prints its API key once.
    #[command(after_help = concat!(
        "Example:\n",
        "  devportal app create --package-name com.example.weather --name Weather \\\n",
        "    --description 'Forecasts on your glasses' --public-url https://weather.example.com \\\n",
        "    --logo-url https://cdn.example.com/weather.png --app-type standard\n",
    ))]
    Create {
        /// The package name (lowercase, dotted: com.example.weather).
        #[arg(long)]
        package_name: Option<String>,
        #[command(flatten)]
        fields: AppFields,
    },
    /// Change the fields given; the others stay.
    #[command(
        after_help = "Example:\n  devportal app update com.example.weather --description 'Forecasts and alerts'\n"
    )]
    Update {
        package: Option<String>,
        #[command(flatten)]
        fields: AppFields,
    },
    /// Delete the app, its key and its history (asks first unless --yes).
    #[command(after_help = "Example:\n  devportal app delete com.example.weather --yes\n")]
    Delete {
        package: Option<String>,
        #[arg(long, short)]
        yes: bool,
    },
    /// Submit the app for review (asks first unless --yes).
    #[command(
        after_help = "Examples:\n  devportal app publish com.example.weather\n  devportal app publish --yes   (package from devportal.json)\n"
    )]
    Publish {
        package: Option<String>,
        #[arg(long, short)]
        yes: bool,
    },
    /// Replace the app's API key and print the new one, once (asks first unless --yes).
    #[command(
        name = "api-key",
        after_help = "Example:\n  devportal app api-key com.example.weather --yes\n"
    )]
    ApiKey {
        package: Option<String>,
        #[arg(long, short)]
        yes: bool,
    },
    /// Write the app's SDK configuration file (to standard output unless -o).
    #[command(after_help = "Example:\n  devportal app export com.example.weather -o app_config.json\n")]
    Export {
        package: Option<String>,
        /// The file to write.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Apply an SDK configuration file to an app: shows what it sets, asks unless --yes, saves.
    #[command(after_help = concat!(
        "Examples:\n",
        "  devportal app import app_config.json                 (package from devportal.json)\n",
        "  devportal app import app_config.json --package com.example.weather --yes\n",
    ))]
    Import {
        file: PathBuf,
        /// The app (default: the project file's package).
        #[arg(long, value_name = "PKG")]
        package: Option<String>,
        #[arg(long, short)]
        yes: bool,
    },
}
