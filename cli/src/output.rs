//! What the user sees: tables for people, JSON for scripts, questions only in a terminal.

use comfy_table::{ContentArrangement, Table, presets};
use serde::Serialize;
use std::io::{BufRead, IsTerminal, Write};

use crate::error::{CliError, Result};

/// Prints `value` as pretty JSON on standard output.
pub fn json(value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::Failed(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// A table with a header row.
pub fn table(header: &[&str], rows: Vec<Vec<String>>) {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_BORDERS_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.to_vec());
    for row in rows {
        table.add_row(row);
    }
    println!("{table}");
}

/// Label / value lines.
pub fn pairs(rows: &[(&str, String)]) {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic);
    for (label, value) in rows {
        table.add_row(vec![format!("{label}:"), value.clone()]);
    }
    println!("{table}");
}

/// Whether a person can answer questions: standard input and error are terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks for a line of text on the terminal.
pub fn ask(label: &str) -> Result<String> {
    eprint!("{label}: ");
    std::io::stderr().flush().ok();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::Failed(format!("Cannot read the answer: {e}")))?;
    Ok(line.trim().to_owned())
}

/// Goes on when `yes` was given or the person answers yes; refuses (exit 2) where nobody can answer.
pub fn confirm(question: &str, yes: bool) -> Result<()> {
    if yes {
        return Ok(());
    }
    if !interactive() {
        return Err(CliError::Usage(format!(
            "{question} Pass --yes to confirm when not running in a terminal."
        )));
    }
    let answer = ask(&format!("{question} [y/N]"))?;
    if matches!(answer.to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::Failed("Cancelled: nothing was changed.".to_owned()))
    }
}

/// A note for people on standard error (kept out of `--json` output).
pub fn note(text: &str) {
    eprintln!("{text}");
}
