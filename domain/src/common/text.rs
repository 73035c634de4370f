//! The one rule for control characters in text that people send: no text field and no e-mail address holds
//! one (a NUL is refused by PostgreSQL and stored by SQLite; the others are invisible, break logs and mails,
//! and are never typed), except tab and line breaks in the multi-line texts (descriptions, onboarding
//! instructions, review notes).
//!
//! [`control_characters`] applies the rule to a whole JSON body, so that every field of every request is
//! checked in one place, before any use case sees it; [`crate::common::EmailAddress::parse`] applies it to
//! addresses from anywhere else (query strings, configuration, identity providers).

use serde_json::Value;

use super::FieldErrors;

/// The message of a field that holds a control character.
pub const CONTROL_CHARACTER: &str = "Remove the control characters (such as NUL) from this text";

/// The fields whose texts may span lines (API spelling; the last key of a path such as
/// `tools[0].description`): what the web UI edits in a multi-line box.
pub const MULTI_LINE_FIELDS: [&str; 3] = ["description", "onboardingInstructions", "notes"];

/// Whether a text is one line or may span lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// No control character at all.
    Single,
    /// Tab, line feed and carriage return allowed; no other control character.
    Multi,
}

impl Lines {
    /// The kind of the field named `key` (its last key, API spelling).
    #[must_use]
    pub fn of_field(key: &str) -> Self {
        if MULTI_LINE_FIELDS.contains(&key) {
            Self::Multi
        } else {
            Self::Single
        }
    }
}

/// Whether `c` is refused in a text of this kind: every Unicode control character (C0, DEL, C1), but tab,
/// line feed and carriage return in a multi-line text.
#[must_use]
pub fn is_refused(c: char, lines: Lines) -> bool {
    c.is_control() && !(lines == Lines::Multi && matches!(c, '\t' | '\n' | '\r'))
}

/// The rule as a JSON Schema `pattern` (what the OpenAPI document gives every text of a request): a whole
/// text of this kind without a refused character. ECMA-262 and Python read it alike.
#[must_use]
pub const fn pattern(lines: Lines) -> &'static str {
    match lines {
        Lines::Single => r"^[^\u0000-\u001F\u007F-\u009F]*$",
        Lines::Multi => r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$",
    }
}

/// [`pattern`] for a text that may not be blank either: at least one character that is not white space.
#[must_use]
pub const fn non_blank_pattern(lines: Lines) -> &'static str {
    match lines {
        Lines::Single => {
            r"^[^\u0000-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u001F\u007F-\u009F]*$"
        }
        Lines::Multi => concat!(
            r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*",
            r"[^\s\u0000-\u001F\u007F-\u009F]",
            r"[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
        ),
    }
}

/// Whether the text holds a character refused in a text of this kind.
#[must_use]
pub fn has_control_characters(text: &str, lines: Lines) -> bool {
    text.chars().any(|c| is_refused(c, lines))
}

/// Every string of a JSON body (values and keys, at any depth) checked against the rule; the failing fields
/// named by their path in the API's spelling (`name`, `profile.description`, `settings[2].options[0].label`,
/// `emails[1]`). A key with a control character is named with the character escaped. Empty when all is well.
#[must_use]
pub fn control_characters(body: &Value) -> FieldErrors {
    let mut errors = FieldErrors::new();
    walk(body, "", Lines::Single, &mut errors);
    errors
}

fn walk(value: &Value, path: &str, lines: Lines, errors: &mut FieldErrors) {
    match value {
        Value::String(text) => {
            if has_control_characters(text, lines) {
                errors.add(path_or_body(path), CONTROL_CHARACTER);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{index}]"), lines, errors);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let child = if path.is_empty() {
                    key.escape_debug().to_string()
                } else {
                    format!("{path}.{}", key.escape_debug())
                };
                if has_control_characters(key, Lines::Single) {
                    errors.add(child.clone(), CONTROL_CHARACTER);
                }
                walk(item, &child, Lines::of_field(key), errors);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A string that is the whole body has no field name.
fn path_or_body(path: &str) -> String {
    if path.is_empty() {
        "body".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_documented_patterns_refuse_exactly_the_refused_characters() {
        for lines in [Lines::Single, Lines::Multi] {
            let whole = regex::Regex::new(pattern(lines)).unwrap();
            let non_blank = regex::Regex::new(non_blank_pattern(lines)).unwrap();
            for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
                let text = format!("a{c}b");
                let refused = is_refused(c, lines);
                assert_eq!(whole.is_match(&text), !refused, "{lines:?} U+{:04X}", c as u32);
                assert_eq!(
                    non_blank.is_match(&text),
                    !refused,
                    "{lines:?} U+{:04X}",
                    c as u32
                );
                let alone = c.to_string();
                assert_eq!(
                    non_blank.is_match(&alone),
                    !refused && !c.is_whitespace(),
                    "{lines:?} U+{:04X} alone",
                    c as u32
                );
            }
        }
    }

    #[test]
    fn a_nul_or_another_control_character_is_refused_in_a_one_line_text() {
        for bad in [
            "Acme\0",
            "\u{1}",
            "a\u{7f}b",
            "a\u{85}b",
            "a\u{9f}",
            "line\nbreak",
            "tab\there",
            "cr\r",
        ] {
            assert!(has_control_characters(bad, Lines::Single), "{bad:?}");
        }
        for good in ["Acme", "Ünïcödé ✓ 日本", "a\u{200b}b", "emoji 🚀", ""] {
            assert!(!has_control_characters(good, Lines::Single), "{good:?}");
        }
    }

    #[test]
    fn a_multi_line_text_keeps_tabs_and_line_breaks_but_not_the_other_control_characters() {
        assert!(!has_control_characters("one\r\ntwo\n\tthree", Lines::Multi));
        assert!(has_control_characters("one\0two", Lines::Multi));
        assert!(has_control_characters("bell\u{7}", Lines::Multi));
        assert!(has_control_characters("escape\u{1b}[31m", Lines::Multi));
    }

    #[test]
    fn descriptions_onboarding_instructions_and_notes_are_the_multi_line_fields() {
        assert_eq!(Lines::of_field("description"), Lines::Multi);
        assert_eq!(Lines::of_field("onboardingInstructions"), Lines::Multi);
        assert_eq!(Lines::of_field("notes"), Lines::Multi);
        assert_eq!(Lines::of_field("name"), Lines::Single);
        assert_eq!(Lines::of_field("email"), Lines::Single);
    }

    #[test]
    fn every_string_of_a_body_is_checked_and_named_by_its_path() {
        let body = json!({
            "name": "Acme\u{0}",
            "description": "Two\nlines\tand a tab",
            "profile": {"contactEmail": "ops\u{0}@acme.example", "description": "ok\n"},
            "settings": [{"label": "fine"}, {"options": [{"label": "bad\u{7}"}]}],
            "tools": [{"description": "multi\nline", "activationPhrases": ["one\ntwo"]}],
            "emails": ["a@b.co", "c\u{0}@d.co"],
            "count": 3,
            "flag": true,
            "nothing": null,
        });
        let errors = control_characters(&body);
        assert_eq!(
            errors.fields().collect::<Vec<_>>(),
            [
                "name",
                "profile.contactEmail",
                "settings[1].options[0].label",
                "tools[0].activationPhrases[0]",
                "emails[1]",
            ]
        );
        assert_eq!(errors["name"], CONTROL_CHARACTER);
    }

    #[test]
    fn a_key_with_a_control_character_is_refused_and_named_escaped() {
        let errors = control_characters(&json!({"data": {"na\u{0}me": "x"}}));
        assert_eq!(errors.fields().collect::<Vec<_>>(), ["data.na\\0me"]);
        assert!(control_characters(&json!("bare\u{0}")).contains("body"));
    }

    #[test]
    fn a_clean_body_has_no_errors() {
        let body = json!({"name": "Acme ✓", "notes": "Looks good.\r\nShip it.", "emails": ["a@b.co"]});
        assert!(control_characters(&body).is_empty());
    }

    proptest! {
        /// Any Unicode text: the rule never panics, a one-line text passes exactly when it holds no control
        /// character, and the body check agrees with the text check.
        #[test]
        fn any_text_is_judged_without_panicking(text in any::<String>()) {
            let single = has_control_characters(&text, Lines::Single);
            prop_assert_eq!(single, text.chars().any(char::is_control));
            let multi = has_control_characters(&text, Lines::Multi);
            prop_assert!(!multi || single);
            let body = json!({"name": text.clone(), "description": text.clone(), text.clone(): 1});
            let errors = control_characters(&body);
            prop_assert_eq!(errors.contains("name"), single);
            prop_assert_eq!(errors.contains("description"), multi);
        }

        /// A text made only of printable characters and spaces is never refused.
        #[test]
        fn printable_text_always_passes(text in "[^\\p{Cc}]*") {
            let body = json!({"name": text, "settings": [{"label": "x"}]});
            prop_assert!(control_characters(&body).is_empty());
        }
    }
}
