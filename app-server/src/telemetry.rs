//! Logs: one line per event (one per request, see `adapter_http::request_log`), level from `RUST_LOG`
//! (default `info`), human-readable text or JSON lines (`PORTAL_LOG_FORMAT=json`). Colour codes only when
//! the output is a terminal, so a log file or a collector gets plain text.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

impl LogFormat {
    /// Reads `PORTAL_LOG_FORMAT` (`text`, the default, or `json`).
    ///
    /// # Errors
    /// For any other value, naming the accepted ones.
    pub fn parse(value: &str) -> Result<Self, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!("PORTAL_LOG_FORMAT must be text or json, not {other:?}")),
        }
    }
}

/// Installs the global log subscriber. Safe to call more than once (later calls do nothing).
pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,actix_server=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stdout);
    let _ = match format {
        LogFormat::Text => builder.with_ansi(std::io::stdout().is_terminal()).try_init(),
        LogFormat::Json => builder.json().with_current_span(true).try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_format_is_text_unless_json_is_asked_for() {
        assert_eq!(LogFormat::parse(""), Ok(LogFormat::Text));
        assert_eq!(LogFormat::parse("text"), Ok(LogFormat::Text));
        assert_eq!(LogFormat::parse(" JSON "), Ok(LogFormat::Json));
        assert!(LogFormat::parse("xml").unwrap_err().contains("text or json"));
    }
}
