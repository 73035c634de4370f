//! The rules every write of a settings list (create, update, import) applies (specification §3, §5;
//! PRODUCT.md §4).
//!
//! - keyed kinds need a non-empty `key` and `label`; keys are unique within the app (their character set
//!   is not checked, as in the specification);
//! - a `group`'s `title` may be empty (a divider without a heading; the specification and `@mentra/sdk`
//!   ask only for a string); a `titleValue` needs a non-empty `label` and may show any value, `null`
//!   included;
//! - select-like kinds need at least one option, each with a non-empty label and a value (any JSON value,
//!   `null` included, as in the SDK); a select's default (if any) is one of the option values, a
//!   multiselect's defaults are all option values (import fits a default that is not, see
//!   `config/import_settings.rs`);
//! - a slider has `min ≤ max` and its default within them; a numeric input has `min ≤ max` when both are
//!   given, its default within the bounds that are given and a positive step;
//! - a time picker's default is under 24 hours; a no-save text field shows at least one line;
//! - length caps: key 100, label/title/option label 200 characters, text default 10 000, placeholder
//!   200; at most 200 settings and 100 options per setting; numbers are finite.

use std::collections::HashSet;

use super::error::{SettingIssue, SettingsError};
use super::{SelectOption, Setting, is_option_value};

/// Most settings an app may have.
pub const MAX_SETTINGS: usize = 200;
/// Longest key, in characters.
pub const MAX_KEY_LEN: usize = 100;
/// Longest label, group title or option label, in characters.
pub const MAX_LABEL_LEN: usize = 200;
/// Most options of one select-like setting.
pub const MAX_OPTIONS: usize = 100;
/// Longest default of a text setting, in characters.
pub const MAX_TEXT_DEFAULT_LEN: usize = 10_000;
/// Longest numeric-input placeholder, in characters.
pub const MAX_PLACEHOLDER_LEN: usize = 200;
/// A time picker's default is a number of seconds below this.
pub const SECONDS_PER_DAY: u32 = 86_400;

/// Checks a whole settings list against the rules of this module.
///
/// # Errors
/// [`SettingsError`] listing every problem found.
pub fn validate_settings(settings: &[Setting]) -> Result<(), SettingsError> {
    let mut issues = Vec::new();
    if settings.len() > MAX_SETTINGS {
        issues.push(SettingIssue::new(
            None,
            "",
            format!("An app can have at most {MAX_SETTINGS} settings"),
        ));
    }
    let mut seen_keys = HashSet::new();
    for (index, setting) in settings.iter().enumerate() {
        let mut check = Checker {
            index,
            issues: &mut issues,
        };
        check.setting(setting);
        if let Some(key) = setting.key().filter(|key| !key.trim().is_empty())
            && !seen_keys.insert(key)
        {
            check.push("key", format!("Setting key \"{key}\" is used more than once"));
        }
    }
    SettingsError::from_issues(issues).map_or(Ok(()), Err)
}

struct Checker<'a> {
    index: usize,
    issues: &'a mut Vec<SettingIssue>,
}

impl Checker<'_> {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.issues
            .push(SettingIssue::new(Some(self.index), field, message));
    }

    fn setting(&mut self, setting: &Setting) {
        match setting {
            Setting::Group { title } => {
                if title.chars().count() > MAX_LABEL_LEN {
                    self.push(
                        "title",
                        format!("Group title must be at most {MAX_LABEL_LEN} characters"),
                    );
                }
            }
            Setting::TitleValue { label, .. } => self.label(label),
            Setting::Toggle { key, label, .. } => self.key_and_label(key, label),
            Setting::Text {
                key,
                label,
                default_value,
            } => {
                self.key_and_label(key, label);
                self.text_default(default_value);
            }
            Setting::TextNoSaveButton {
                key,
                label,
                default_value,
                max_lines,
            } => {
                self.key_and_label(key, label);
                self.text_default(default_value);
                if *max_lines == Some(0) {
                    self.push("maxLines", "Maximum lines must be at least 1");
                }
            }
            Setting::Select {
                key,
                label,
                options,
                default_value,
            }
            | Setting::SelectWithSearch {
                key,
                label,
                options,
                default_value,
            } => {
                self.key_and_label(key, label);
                self.options(options);
                if let Some(default) = default_value
                    && !options.is_empty()
                    && !is_option_value(options, default)
                {
                    self.push("defaultValue", "Default value must be one of the options");
                }
            }
            Setting::Multiselect {
                key,
                label,
                options,
                default_value,
            } => {
                self.key_and_label(key, label);
                self.options(options);
                if !options.is_empty() && !default_value.iter().all(|value| is_option_value(options, value)) {
                    self.push("defaultValue", "Default values must be among the options");
                }
            }
            Setting::Slider {
                key,
                label,
                min,
                max,
                default_value,
            } => {
                self.key_and_label(key, label);
                self.bounded_number(Some(*min), Some(*max), *default_value);
            }
            Setting::NumericInput {
                key,
                label,
                min,
                max,
                step,
                placeholder,
                default_value,
            } => {
                self.key_and_label(key, label);
                self.bounded_number(*min, *max, *default_value);
                if let Some(step) = step {
                    if !step.is_finite() {
                        self.push("step", "Numbers must be finite");
                    } else if *step <= 0.0 {
                        self.push("step", "Step must be greater than zero");
                    }
                }
                if placeholder
                    .as_deref()
                    .is_some_and(|p| p.chars().count() > MAX_PLACEHOLDER_LEN)
                {
                    self.push(
                        "placeholder",
                        format!("Placeholder must be at most {MAX_PLACEHOLDER_LEN} characters"),
                    );
                }
            }
            Setting::TimePicker {
                key,
                label,
                default_value,
                ..
            } => {
                self.key_and_label(key, label);
                if *default_value >= SECONDS_PER_DAY {
                    self.push(
                        "defaultValue",
                        format!("Default time must be less than 24 hours ({SECONDS_PER_DAY} seconds)"),
                    );
                }
            }
        }
    }

    fn key_and_label(&mut self, key: &str, label: &str) {
        self.required_text("key", key, "Setting key", MAX_KEY_LEN);
        self.label(label);
    }

    fn label(&mut self, label: &str) {
        self.required_text("label", label, "Setting label", MAX_LABEL_LEN);
    }

    /// `what` is the sentence subject: "Setting key is required".
    fn required_text(&mut self, field: &str, value: &str, what: &str, max: usize) {
        if value.trim().is_empty() {
            self.push(field, format!("{what} is required"));
        } else if value.chars().count() > max {
            self.push(field, format!("{what} must be at most {max} characters"));
        }
    }

    fn text_default(&mut self, value: &str) {
        if value.chars().count() > MAX_TEXT_DEFAULT_LEN {
            self.push(
                "defaultValue",
                format!("Default text must be at most {MAX_TEXT_DEFAULT_LEN} characters"),
            );
        }
    }

    fn options(&mut self, options: &[SelectOption]) {
        if options.is_empty() {
            self.push("options", "At least one option is required");
        } else if options.len() > MAX_OPTIONS {
            self.push(
                "options",
                format!("A setting can have at most {MAX_OPTIONS} options"),
            );
        }
        for (position, option) in options.iter().enumerate() {
            if option.label.trim().is_empty() {
                self.push(format!("options[{position}].label"), "Option label is required");
            } else if option.label.chars().count() > MAX_LABEL_LEN {
                self.push(
                    format!("options[{position}].label"),
                    format!("Option label must be at most {MAX_LABEL_LEN} characters"),
                );
            }
        }
    }

    fn bounded_number(&mut self, min: Option<f64>, max: Option<f64>, default: f64) {
        let mut finite = true;
        for (field, value) in [("min", min), ("max", max), ("defaultValue", Some(default))] {
            if value.is_some_and(|v| !v.is_finite()) {
                self.push(field, "Numbers must be finite");
                finite = false;
            }
        }
        if !finite {
            return;
        }
        if let (Some(min), Some(max)) = (min, max)
            && min > max
        {
            self.push("min", "Minimum must not be greater than maximum");
            return;
        }
        if min.is_some_and(|min| default < min) || max.is_some_and(|max| default > max) {
            self.push(
                "defaultValue",
                "Default value must lie within the minimum and maximum",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    fn toggle(key: &str, label: &str) -> Setting {
        Setting::Toggle {
            key: key.into(),
            label: label.into(),
            default_value: false,
        }
    }

    fn select(options: Vec<SelectOption>, default_value: Option<serde_json::Value>) -> Setting {
        Setting::Select {
            key: "units".into(),
            label: "Units".into(),
            options,
            default_value,
        }
    }

    fn slider(min: f64, max: f64, default_value: f64) -> Setting {
        Setting::Slider {
            key: "volume".into(),
            label: "Volume".into(),
            min,
            max,
            default_value,
        }
    }

    fn numeric(min: Option<f64>, max: Option<f64>, default_value: f64) -> Setting {
        Setting::NumericInput {
            key: "count".into(),
            label: "Count".into(),
            min,
            max,
            step: None,
            placeholder: None,
            default_value,
        }
    }

    fn messages(settings: &[Setting]) -> Vec<String> {
        validate_settings(settings)
            .err()
            .map(|e| e.issues().iter().map(|i| i.message.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_list_of_well_formed_settings_of_every_kind_is_valid() {
        let settings = vec![
            Setting::Group {
                title: "General".into(),
            },
            Setting::TitleValue {
                label: "Version".into(),
                value: json!("1.0"),
            },
            toggle("dark", "Dark mode"),
            Setting::Text {
                key: "name".into(),
                label: "Name".into(),
                default_value: String::new(),
            },
            Setting::TextNoSaveButton {
                key: "note".into(),
                label: "Note".into(),
                default_value: "hi".into(),
                max_lines: Some(3),
            },
            select(vec![SelectOption::new("Metric", "metric")], Some(json!("metric"))),
            Setting::Multiselect {
                key: "days".into(),
                label: "Days".into(),
                options: vec![SelectOption::new("Mon", "mon"), SelectOption::new("Tue", "tue")],
                default_value: vec![json!("tue")],
            },
            slider(0.0, 10.0, 10.0),
            numeric(None, Some(5.0), -3.0),
            Setting::TimePicker {
                key: "at".into(),
                label: "At".into(),
                default_value: 86_399,
                show_seconds: true,
            },
        ];
        assert_eq!(validate_settings(&settings), Ok(()));
    }

    #[test]
    fn a_keyed_setting_needs_a_key_and_a_label() {
        let error = validate_settings(&[toggle(" ", "")]).unwrap_err();
        assert_eq!(
            error.fields().to_map(),
            BTreeMap::from([
                ("settings[0].key".to_owned(), "Setting key is required".to_owned()),
                (
                    "settings[0].label".to_owned(),
                    "Setting label is required".to_owned()
                ),
            ])
        );
        assert_eq!(error.to_string(), "Setting at index 0: Setting key is required");
    }

    #[test]
    fn keys_must_be_unique_within_an_app() {
        let error = validate_settings(&[toggle("x", "A"), toggle("y", "B"), toggle("x", "C")]).unwrap_err();
        assert_eq!(error.issues().len(), 1);
        assert_eq!(error.first().index, Some(2));
        assert_eq!(
            error.to_string(),
            "Setting at index 2: Setting key \"x\" is used more than once"
        );
    }

    #[test]
    fn the_character_set_of_keys_is_not_enforced() {
        assert_eq!(validate_settings(&[toggle("my key!", "A")]), Ok(()));
    }

    #[test]
    fn overlong_keys_and_labels_are_refused() {
        let long_key = "k".repeat(MAX_KEY_LEN + 1);
        let long_label = "l".repeat(MAX_LABEL_LEN + 1);
        assert_eq!(
            messages(&[toggle(&long_key, &long_label)]),
            [
                "Setting key must be at most 100 characters",
                "Setting label must be at most 200 characters"
            ]
        );
        assert_eq!(
            validate_settings(&[toggle(&"k".repeat(MAX_KEY_LEN), "A")]),
            Ok(())
        );
    }

    #[test]
    fn a_group_title_may_be_empty_but_a_title_value_needs_a_label() {
        assert_eq!(
            validate_settings(&[
                Setting::Group { title: String::new() },
                Setting::Group { title: "  ".into() }
            ]),
            Ok(())
        );
        assert_eq!(
            messages(&[Setting::Group {
                title: "t".repeat(201)
            }]),
            ["Group title must be at most 200 characters"]
        );
        assert_eq!(
            messages(&[Setting::TitleValue {
                label: String::new(),
                value: json!(1)
            }]),
            ["Setting label is required"]
        );
        assert_eq!(
            validate_settings(&[Setting::TitleValue {
                label: "Nothing yet".into(),
                value: json!(null)
            }]),
            Ok(())
        );
    }

    #[test]
    fn groups_and_title_values_take_part_in_no_key_uniqueness() {
        let settings = [
            Setting::Group { title: "A".into() },
            Setting::Group { title: "A".into() },
            toggle("a", "A"),
        ];
        assert_eq!(validate_settings(&settings), Ok(()));
    }

    #[test]
    fn at_most_two_hundred_settings_are_allowed() {
        let settings: Vec<Setting> = (0..=MAX_SETTINGS)
            .map(|i| toggle(&format!("k{i}"), "L"))
            .collect();
        let error = validate_settings(&settings).unwrap_err();
        assert_eq!(error.to_string(), "An app can have at most 200 settings");
        assert_eq!(error.first().path(), "settings");
        assert_eq!(validate_settings(&settings[..MAX_SETTINGS]), Ok(()));
    }

    #[test]
    fn a_select_needs_options_with_labels_and_any_value_null_included() {
        assert_eq!(
            messages(&[select(vec![], None)]),
            ["At least one option is required"]
        );
        let error = validate_settings(&[select(
            vec![SelectOption::new(" ", "a"), SelectOption::new("B", json!(null))],
            None,
        )])
        .unwrap_err();
        assert_eq!(
            error.fields().to_map(),
            BTreeMap::from([(
                "settings[0].options[0].label".to_owned(),
                "Option label is required".to_owned()
            )])
        );
        assert_eq!(
            validate_settings(&[select(
                vec![
                    SelectOption::new("None", json!(null)),
                    SelectOption::new("A", "a")
                ],
                Some(json!("a"))
            )]),
            Ok(())
        );
    }

    #[test]
    fn option_labels_and_option_counts_are_capped() {
        let options: Vec<SelectOption> = (0..=MAX_OPTIONS)
            .map(|i| SelectOption::new(format!("O{i}"), i))
            .collect();
        assert_eq!(
            messages(&[select(options, None)]),
            ["A setting can have at most 100 options"]
        );
        assert_eq!(
            messages(&[select(vec![SelectOption::new("x".repeat(201), 1)], None)]),
            ["Option label must be at most 200 characters"]
        );
    }

    #[test]
    fn a_select_default_must_be_one_of_the_option_values() {
        let options = vec![SelectOption::new("One", 1), SelectOption::new("Two", 2)];
        assert_eq!(
            validate_settings(&[select(options.clone(), Some(json!(2)))]),
            Ok(())
        );
        assert_eq!(validate_settings(&[select(options.clone(), None)]), Ok(()));
        assert_eq!(
            messages(&[select(options, Some(json!("Two")))]),
            ["Default value must be one of the options"]
        );
    }

    #[test]
    fn a_select_with_search_follows_the_select_rules() {
        let setting = Setting::SelectWithSearch {
            key: "city".into(),
            label: "City".into(),
            options: vec![SelectOption::new("Paris", "paris")],
            default_value: Some(json!("rome")),
        };
        assert_eq!(messages(&[setting]), ["Default value must be one of the options"]);
    }

    #[test]
    fn multiselect_defaults_must_all_be_option_values() {
        let multi = |default_value: Vec<serde_json::Value>| Setting::Multiselect {
            key: "days".into(),
            label: "Days".into(),
            options: vec![SelectOption::new("Mon", "mon")],
            default_value,
        };
        assert_eq!(validate_settings(&[multi(vec![])]), Ok(()));
        assert_eq!(
            messages(&[multi(vec![json!("mon"), json!("sun")])]),
            ["Default values must be among the options"]
        );
    }

    #[test]
    fn a_slider_needs_min_not_above_max_and_a_default_between_them() {
        assert_eq!(validate_settings(&[slider(5.0, 5.0, 5.0)]), Ok(()));
        assert_eq!(
            messages(&[slider(10.0, 0.0, 5.0)]),
            ["Minimum must not be greater than maximum"]
        );
        assert_eq!(
            messages(&[slider(0.0, 10.0, 11.0)]),
            ["Default value must lie within the minimum and maximum"]
        );
        assert_eq!(
            messages(&[slider(0.0, f64::INFINITY, 1.0)]),
            ["Numbers must be finite"]
        );
    }

    #[test]
    fn a_numeric_input_checks_only_the_bounds_it_has() {
        assert_eq!(validate_settings(&[numeric(None, None, -1e9)]), Ok(()));
        assert_eq!(validate_settings(&[numeric(Some(0.0), None, 1e9)]), Ok(()));
        assert_eq!(
            messages(&[numeric(Some(0.0), None, -1.0)]),
            ["Default value must lie within the minimum and maximum"]
        );
        assert_eq!(
            messages(&[numeric(Some(3.0), Some(1.0), 2.0)]),
            ["Minimum must not be greater than maximum"]
        );
    }

    #[test]
    fn a_numeric_input_step_is_positive_and_its_placeholder_short() {
        let setting = Setting::NumericInput {
            key: "n".into(),
            label: "N".into(),
            min: None,
            max: None,
            step: Some(0.0),
            placeholder: Some("p".repeat(201)),
            default_value: 0.0,
        };
        assert_eq!(
            messages(&[setting]),
            [
                "Step must be greater than zero",
                "Placeholder must be at most 200 characters"
            ]
        );
    }

    #[test]
    fn a_time_picker_default_is_under_a_day() {
        let time = |default_value| Setting::TimePicker {
            key: "at".into(),
            label: "At".into(),
            default_value,
            show_seconds: false,
        };
        assert_eq!(validate_settings(&[time(0)]), Ok(()));
        assert_eq!(
            messages(&[time(86_400)]),
            ["Default time must be less than 24 hours (86400 seconds)"]
        );
    }

    #[test]
    fn a_no_save_text_field_shows_at_least_one_line_and_text_defaults_are_capped() {
        let setting = Setting::TextNoSaveButton {
            key: "k".into(),
            label: "L".into(),
            default_value: "x".repeat(MAX_TEXT_DEFAULT_LEN + 1),
            max_lines: Some(0),
        };
        assert_eq!(
            messages(&[setting]),
            [
                "Default text must be at most 10000 characters",
                "Maximum lines must be at least 1"
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_with_its_index() {
        let error =
            validate_settings(&[toggle("a", "A"), toggle("", "B"), slider(1.0, 0.0, 0.0)]).unwrap_err();
        let paths: Vec<String> = error.issues().iter().map(SettingIssue::path).collect();
        assert_eq!(paths, ["settings[1].key", "settings[2].min"]);
    }
}
