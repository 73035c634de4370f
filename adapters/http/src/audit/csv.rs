//! The CSV export: one quoted row per entry, never a formula.

use domain::audit::AuditEntry;

/// The CSV's header row.
pub const CSV_HEADER: &str = "time,organizationId,actorId,actorEmail,action,targetKind,targetId,targetLabel,changes,clientIp,userAgent,viaToken\r\n";

/// One CSV field's text: a leading `=`, `+`, `-`, `@`, tab or carriage return is escaped with `'` so that
/// a spreadsheet never runs it as a formula (the row quotes every field: [`csv_row`]).
fn csv_text(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// One entry as a CSV row (RFC 4180, `\r\n`), every field quoted: a spreadsheet whose list separator is
/// `;` (or a tab) still reads each field as one text cell, never a formula.
#[must_use]
pub fn csv_row(entry: &AuditEntry) -> String {
    let target = entry.target.as_ref();
    let fields = [
        entry.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        entry.org_id.map(|org| org.to_string()).unwrap_or_default(),
        entry.actor_id.map(|actor| actor.to_string()).unwrap_or_default(),
        entry.actor_email.clone(),
        entry.action.code().to_owned(),
        target.map(|t| t.kind.code().to_owned()).unwrap_or_default(),
        target.map(|t| t.id.clone()).unwrap_or_default(),
        target.and_then(|t| t.label.clone()).unwrap_or_default(),
        serde_json::to_string(&entry.changes).unwrap_or_default(),
        entry.client_ip.clone().unwrap_or_default(),
        entry.user_agent.clone().unwrap_or_default(),
        // The personal access token the change was made through (its name), empty for a session.
        entry.via_token.clone().unwrap_or_default(),
    ];
    let mut writer = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    // Writing text into memory does not fail.
    let written = writer
        .write_record(fields.iter().map(|field| csv_text(field)))
        .ok()
        .and_then(|()| writer.into_inner().ok())
        .unwrap_or_default();
    String::from_utf8(written).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_never_formulas() {
        assert_eq!(csv_text("plain"), "plain");
        assert_eq!(csv_text("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_text("-1,2"), "'-1,2");
        assert_eq!(csv_text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_text("a;=1+1"), "a;=1+1");
    }
}
