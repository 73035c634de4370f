//! The settings editor's type change and new-setting defaults (specification §4).
//!
//! [`convert_setting`] rules, in full:
//! - converting to the setting's own type changes nothing;
//! - **key and label** are kept between keyed kinds; a `titleValue` keeps its label; a keyed setting made
//!   from a `group` or `titleValue` has an empty key (the user must fill it in) and takes its label from
//!   the group's title or the titleValue's label;
//! - **group**: the title comes from the old title or label; key, label and default are dropped;
//! - **titleValue**: takes the label (or title) and, as its value, the old default written as the text it
//!   displays: a text as it is; a number as JavaScript writes it; a boolean as `On` or `Off`; a select's
//!   or multiselect's value(s) as the chosen options' labels (joined with `, `); a time as `HH:MM` (or
//!   `HH:MM:SS` when seconds are shown); `""` when there was none;
//! - **toggle**: the old default when it was a boolean, else `false`;
//! - **text** and **text_no_save_button**: the old default when it was a string (of at most
//!   [`MAX_TEXT_DEFAULT_LEN`] characters) or a number (written as JavaScript would: `5`, `0.5`, `-0` as
//!   `0`, `1e+21`), else
//!   `""`; no `maxLines`;
//! - **select**, **select_with_search**: the old options when the old setting had some, else one sample
//!   option ([`SAMPLE_OPTION_LABEL`] / [`SAMPLE_OPTION_VALUE`]); the old default (the first one of a
//!   multiselect) is kept when it is among the options, else cleared;
//! - **multiselect**: options as above; the old defaults (a single select default counts as a list of
//!   one) filtered to those among the options;
//! - **slider**: bounds from an old slider, or from a numeric input that had both; else 0 and 100
//!   (specification §9); the old numeric default when within the bounds, else the minimum;
//! - **numeric_input**: bounds from an old slider, else none; no step or placeholder; the
//!   old numeric default when within the bounds, else the minimum (or 0 without one);
//! - **time_picker**: the old numeric default when it is a whole number of seconds under 24 hours, else
//!   0; seconds hidden.
//!
//! Numeric defaults come only from JSON numbers (a text `"5"` does not become 5).

use serde_json::Value;

use super::validate::{MAX_TEXT_DEFAULT_LEN, SECONDS_PER_DAY};
use super::{SelectOption, Setting, SettingType, is_option_value, same_value};

/// Label of the option a new select-like setting starts with.
pub const SAMPLE_OPTION_LABEL: &str = "Option 1";
/// Value of the option a new select-like setting starts with.
pub const SAMPLE_OPTION_VALUE: &str = "option1";
/// A slider's minimum when none is known (specification §9).
pub const SLIDER_DEFAULT_MIN: f64 = 0.0;
/// A slider's maximum when none is known (specification §9).
pub const SLIDER_DEFAULT_MAX: f64 = 100.0;

fn sample_options() -> Vec<SelectOption> {
    vec![SelectOption::new(SAMPLE_OPTION_LABEL, SAMPLE_OPTION_VALUE)]
}

/// A fresh setting of the given type as the editor adds it: empty key, label and title; `false`, `""`
/// and 0 defaults; select-like kinds with one sample option and no default; a slider from 0 to 100 at 0;
/// a titleValue whose value is `""`. It validates once key and label (or title) are filled in.
#[must_use]
pub fn new_setting(kind: SettingType) -> Setting {
    let (key, label) = (String::new(), String::new());
    match kind {
        SettingType::Group => Setting::Group { title: String::new() },
        SettingType::TitleValue => Setting::TitleValue {
            label,
            value: Value::String(String::new()),
        },
        SettingType::Toggle => Setting::Toggle {
            key,
            label,
            default_value: false,
        },
        SettingType::Text => Setting::Text {
            key,
            label,
            default_value: String::new(),
        },
        SettingType::TextNoSaveButton => Setting::TextNoSaveButton {
            key,
            label,
            default_value: String::new(),
            max_lines: None,
        },
        SettingType::Select => Setting::Select {
            key,
            label,
            options: sample_options(),
            default_value: None,
        },
        SettingType::SelectWithSearch => Setting::SelectWithSearch {
            key,
            label,
            options: sample_options(),
            default_value: None,
        },
        SettingType::Multiselect => Setting::Multiselect {
            key,
            label,
            options: sample_options(),
            default_value: Vec::new(),
        },
        SettingType::Slider => Setting::Slider {
            key,
            label,
            min: SLIDER_DEFAULT_MIN,
            max: SLIDER_DEFAULT_MAX,
            default_value: SLIDER_DEFAULT_MIN,
        },
        SettingType::NumericInput => Setting::NumericInput {
            key,
            label,
            min: None,
            max: None,
            step: None,
            placeholder: None,
            default_value: 0.0,
        },
        SettingType::TimePicker => Setting::TimePicker {
            key,
            label,
            default_value: 0,
            show_seconds: false,
        },
    }
}

/// Changes a setting's type, keeping what fits (see the module documentation for every rule). A valid
/// setting converts to a valid setting, except that a keyed setting made from a `group` or `titleValue`
/// has an empty key to fill in.
#[must_use]
pub fn convert_setting(from: &Setting, to: SettingType) -> Setting {
    if from.setting_type() == to {
        return from.clone();
    }
    let key = from.key().unwrap_or_default().to_owned();
    let label = from
        .label()
        .or_else(|| from.title())
        .unwrap_or_default()
        .to_owned();
    let old_default = from.default_value();
    let options = || match from.options() {
        Some(options) if !options.is_empty() => options.to_vec(),
        _ => sample_options(),
    };
    match to {
        SettingType::Group => Setting::Group { title: label },
        SettingType::TitleValue => Setting::TitleValue {
            label,
            value: Value::String(displayed_text(from, old_default.as_ref())),
        },
        SettingType::Toggle => Setting::Toggle {
            key,
            label,
            default_value: old_default.as_ref().and_then(Value::as_bool).unwrap_or(false),
        },
        SettingType::Text => Setting::Text {
            key,
            label,
            default_value: text_from(old_default.as_ref()),
        },
        SettingType::TextNoSaveButton => Setting::TextNoSaveButton {
            key,
            label,
            default_value: text_from(old_default.as_ref()),
            max_lines: None,
        },
        SettingType::Select => {
            let options = options();
            let default_value = single_default(old_default, &options);
            Setting::Select {
                key,
                label,
                options,
                default_value,
            }
        }
        SettingType::SelectWithSearch => {
            let options = options();
            let default_value = single_default(old_default, &options);
            Setting::SelectWithSearch {
                key,
                label,
                options,
                default_value,
            }
        }
        SettingType::Multiselect => {
            let options = options();
            let default_value = many_defaults(old_default, &options);
            Setting::Multiselect {
                key,
                label,
                options,
                default_value,
            }
        }
        SettingType::Slider => {
            let (min, max) = match from {
                Setting::Slider { min, max, .. } => (*min, *max),
                Setting::NumericInput {
                    min: Some(min),
                    max: Some(max),
                    ..
                } if min <= max => (*min, *max),
                _ => (SLIDER_DEFAULT_MIN, SLIDER_DEFAULT_MAX),
            };
            let default_value = number_from(old_default.as_ref())
                .filter(|n| (min..=max).contains(n))
                .unwrap_or(min);
            Setting::Slider {
                key,
                label,
                min,
                max,
                default_value,
            }
        }
        SettingType::NumericInput => {
            let (min, max) = match from {
                Setting::Slider { min, max, .. } => (Some(*min), Some(*max)),
                _ => (None, None),
            };
            let within = |n: &f64| min.is_none_or(|min| *n >= min) && max.is_none_or(|max| *n <= max);
            let default_value = number_from(old_default.as_ref())
                .filter(within)
                .unwrap_or_else(|| min.unwrap_or(0.0));
            Setting::NumericInput {
                key,
                label,
                min,
                max,
                step: None,
                placeholder: None,
                default_value,
            }
        }
        SettingType::TimePicker => {
            let default_value = number_from(old_default.as_ref())
                .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n < f64::from(SECONDS_PER_DAY))
                .and_then(|n| format!("{n:.0}").parse::<u32>().ok())
                .unwrap_or(0);
            Setting::TimePicker {
                key,
                label,
                default_value,
                show_seconds: false,
            }
        }
    }
}

/// The text a titleValue made from `from` displays for its old default (see the module documentation).
fn displayed_text(from: &Setting, old_default: Option<&Value>) -> String {
    if let Setting::TimePicker {
        default_value,
        show_seconds,
        ..
    } = from
    {
        let (hours, minutes, seconds) = (default_value / 3600, default_value / 60 % 60, default_value % 60);
        return if *show_seconds {
            format!("{hours:02}:{minutes:02}:{seconds:02}")
        } else {
            format!("{hours:02}:{minutes:02}")
        };
    }
    let options = from.options().unwrap_or_default();
    let one = |value: &Value| -> String {
        if let Some(option) = options.iter().find(|option| same_value(&option.value, value)) {
            return option.label.clone();
        }
        match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number
                .as_f64()
                .filter(|n| n.is_finite())
                .map(js_number_text)
                .unwrap_or_default(),
            Value::Bool(true) => "On".to_owned(),
            Value::Bool(false) => "Off".to_owned(),
            Value::Null | Value::Array(_) | Value::Object(_) => String::new(),
        }
    };
    match old_default {
        Some(Value::Array(values)) => values
            .iter()
            .map(one)
            .filter(|text| !text.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Some(value) => one(value),
        None => String::new(),
    }
}

fn number_from(value: Option<&Value>) -> Option<f64> {
    value.and_then(Value::as_f64).filter(|n| n.is_finite())
}

fn text_from(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(text)) if text.chars().count() <= MAX_TEXT_DEFAULT_LEN => text.clone(),
        // The browser reads every JSON number as a double, so a large integer loses its last digits there.
        Some(Value::Number(number)) => number
            .as_f64()
            .filter(|n| n.is_finite())
            .map(js_number_text)
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// A finite number as JavaScript's `String(n)` writes it (ECMA-262 `Number::toString`): `-0` as `0`, no
/// `.0` on whole numbers, plain digits from 1e-6 up to 1e21 and exponent form (`1e+21`, `1.5e-7`)
/// outside, with the shortest digits that read back as the same number.
#[must_use]
pub fn js_number_text(value: f64) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.5e-7", "1e21".
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    // ECMA-262's n: the decimal point sits after n digits.
    let n = exponent.parse::<i64>().unwrap_or(0) + 1;
    let sign = if value < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat(usize::try_from(n - k).unwrap_or(0)))
    } else if 0 < n && n <= 21 {
        let (whole, fraction) = digits.split_at(usize::try_from(n).unwrap_or(0));
        format!("{whole}.{fraction}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat(usize::try_from(-n).unwrap_or(0)))
    } else {
        let e = n - 1;
        let e_sign = if e < 0 { '-' } else { '+' };
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        format!("{first}{point}{rest}e{e_sign}{}", e.abs())
    };
    format!("{sign}{body}")
}

fn single_default(old: Option<Value>, options: &[SelectOption]) -> Option<Value> {
    let candidate = match old? {
        Value::Array(values) => values.into_iter().next()?,
        value => value,
    };
    is_option_value(options, &candidate).then_some(candidate)
}

fn many_defaults(old: Option<Value>, options: &[SelectOption]) -> Vec<Value> {
    let candidates = match old {
        Some(Value::Array(values)) => values,
        Some(Value::Null) | None => Vec::new(),
        Some(value) => vec![value],
    };
    candidates
        .into_iter()
        .filter(|value| is_option_value(options, value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn select(default_value: Option<Value>) -> Setting {
        Setting::Select {
            key: "units".into(),
            label: "Units".into(),
            options: vec![
                SelectOption::new("Metric", "metric"),
                SelectOption::new("Imperial", "imperial"),
            ],
            default_value,
        }
    }

    fn text(default_value: &str) -> Setting {
        Setting::Text {
            key: "name".into(),
            label: "Name".into(),
            default_value: default_value.into(),
        }
    }

    #[test]
    fn converting_to_the_same_type_changes_nothing() {
        let setting = select(Some(json!("metric")));
        assert_eq!(convert_setting(&setting, SettingType::Select), setting);
    }

    #[test]
    fn key_and_label_survive_a_type_change() {
        let converted = convert_setting(&text("x"), SettingType::Toggle);
        assert_eq!((converted.key(), converted.label()), (Some("name"), Some("Name")));
    }

    #[test]
    fn a_group_takes_its_title_from_the_old_label_and_drops_the_key() {
        assert_eq!(
            convert_setting(&text("x"), SettingType::Group),
            Setting::Group { title: "Name".into() }
        );
    }

    #[test]
    fn a_keyed_setting_made_from_a_group_has_an_empty_key_and_the_title_as_label() {
        let converted = convert_setting(
            &Setting::Group {
                title: "Display".into(),
            },
            SettingType::Slider,
        );
        assert_eq!(
            converted,
            Setting::Slider {
                key: String::new(),
                label: "Display".into(),
                min: 0.0,
                max: 100.0,
                default_value: 0.0
            }
        );
    }

    #[test]
    fn a_title_value_takes_the_label_and_the_old_default_as_the_text_it_displays() {
        let converted = convert_setting(&select(Some(json!("metric"))), SettingType::TitleValue);
        assert_eq!(
            converted,
            Setting::TitleValue {
                label: "Units".into(),
                value: json!("Metric")
            }
        );
        let value_of = |from: Setting| match convert_setting(&from, SettingType::TitleValue) {
            Setting::TitleValue { value, .. } => value,
            other => panic!("not a titleValue: {other:?}"),
        };
        let toggle = |default_value| Setting::Toggle {
            key: "k".into(),
            label: "Enabled".into(),
            default_value,
        };
        // Never a boolean left in the value's text field.
        assert_eq!(value_of(toggle(true)), json!("On"));
        assert_eq!(value_of(toggle(false)), json!("Off"));
        let time = |default_value, show_seconds| Setting::TimePicker {
            key: "k".into(),
            label: "Alarm".into(),
            default_value,
            show_seconds,
        };
        assert_eq!(value_of(time(7 * 3600 + 5 * 60 + 9, false)), json!("07:05"));
        assert_eq!(value_of(time(7 * 3600 + 5 * 60 + 9, true)), json!("07:05:09"));
        let days = Setting::Multiselect {
            key: "d".into(),
            label: "Days".into(),
            options: vec![SelectOption::new("Mon", 1), SelectOption::new("Tue", 2)],
            default_value: vec![json!(2), json!(1)],
        };
        assert_eq!(value_of(days), json!("Tue, Mon"));
        let volume = Setting::Slider {
            key: "v".into(),
            label: "Volume".into(),
            min: 0.0,
            max: 10.0,
            default_value: 2.5,
        };
        assert_eq!(value_of(volume), json!("2.5"));
        let from_group = convert_setting(&Setting::Group { title: "G".into() }, SettingType::TitleValue);
        assert_eq!(
            from_group,
            Setting::TitleValue {
                label: "G".into(),
                value: json!("")
            }
        );
    }

    #[test]
    fn a_toggle_keeps_only_a_boolean_default() {
        let from_title = Setting::TitleValue {
            label: "On".into(),
            value: json!(true),
        };
        assert!(matches!(
            convert_setting(&from_title, SettingType::Toggle),
            Setting::Toggle {
                default_value: true,
                ..
            }
        ));
        assert!(matches!(
            convert_setting(&text("true"), SettingType::Toggle),
            Setting::Toggle {
                default_value: false,
                ..
            }
        ));
    }

    #[test]
    fn a_negative_zero_default_becomes_the_text_0_as_in_the_browser() {
        let slider = Setting::Slider {
            key: "v".into(),
            label: "V".into(),
            min: -1.0,
            max: 1.0,
            default_value: -0.0,
        };
        assert_eq!(
            convert_setting(&slider, SettingType::Text).default_value(),
            Some(json!("0"))
        );
    }

    #[test]
    fn numbers_are_written_as_javascripts_string_writes_them() {
        for (value, text) in [
            (0.0, "0"),
            (-0.0, "0"),
            (5.0, "5"),
            (-5.0, "-5"),
            (0.5, "0.5"),
            (-0.25, "-0.25"),
            (0.1 + 0.2, "0.30000000000000004"),
            (123.456, "123.456"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (-2.5e22, "-2.5e+22"),
            (1e-6, "0.000001"),
            (1.5e-6, "0.0000015"),
            (1e-7, "1e-7"),
            (-1.25e-7, "-1.25e-7"),
            (12_345_678_901_234_567_890.0, "12345678901234567000"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(js_number_text(value), text, "{value:e}");
        }
    }

    #[test]
    fn text_takes_a_string_or_number_default_and_nothing_else() {
        let slider = Setting::Slider {
            key: "v".into(),
            label: "V".into(),
            min: 0.0,
            max: 10.0,
            default_value: 5.0,
        };
        assert_eq!(
            convert_setting(&slider, SettingType::Text).default_value(),
            Some(json!("5"))
        );
        let half = Setting::Slider {
            key: "v".into(),
            label: "V".into(),
            min: 0.0,
            max: 1.0,
            default_value: 0.5,
        };
        assert_eq!(
            convert_setting(&half, SettingType::TextNoSaveButton).default_value(),
            Some(json!("0.5"))
        );
        assert_eq!(
            convert_setting(&select(Some(json!("metric"))), SettingType::Text).default_value(),
            Some(json!("metric"))
        );
        let toggle = Setting::Toggle {
            key: "t".into(),
            label: "T".into(),
            default_value: true,
        };
        assert_eq!(
            convert_setting(&toggle, SettingType::Text).default_value(),
            Some(json!(""))
        );
    }

    #[test]
    fn a_new_select_like_setting_gets_one_sample_option() {
        for kind in [
            SettingType::Select,
            SettingType::SelectWithSearch,
            SettingType::Multiselect,
        ] {
            let converted = convert_setting(&text("x"), kind);
            assert_eq!(
                converted.options(),
                Some(&[SelectOption::new("Option 1", "option1")][..]),
                "{kind}"
            );
            assert_eq!(new_setting(kind).options(), converted.options());
        }
    }

    #[test]
    fn select_like_settings_keep_their_options_between_each_other() {
        let converted = convert_setting(&select(None), SettingType::Multiselect);
        assert_eq!(converted.options(), select(None).options());
    }

    #[test]
    fn a_select_default_is_kept_only_when_it_is_an_option() {
        assert_eq!(
            convert_setting(&select(Some(json!("imperial"))), SettingType::SelectWithSearch).default_value(),
            Some(json!("imperial"))
        );
        assert_eq!(
            convert_setting(&text("metric"), SettingType::Select).default_value(),
            None
        );
        assert_eq!(
            convert_setting(&text("option1"), SettingType::Select).default_value(),
            Some(json!("option1"))
        );
    }

    #[test]
    fn a_multiselect_default_is_filtered_to_existing_options() {
        let multi = Setting::Multiselect {
            key: "d".into(),
            label: "D".into(),
            options: vec![SelectOption::new("A", "a")],
            default_value: vec![json!("a")],
        };
        let back_to_select = convert_setting(&multi, SettingType::Select);
        assert_eq!(back_to_select.default_value(), Some(json!("a")));
        let from_select = convert_setting(&select(Some(json!("metric"))), SettingType::Multiselect);
        assert_eq!(from_select.default_value(), Some(json!(["metric"])));
        let from_text = convert_setting(&text("zzz"), SettingType::Multiselect);
        assert_eq!(from_text.default_value(), Some(json!([])));
    }

    #[test]
    fn a_slider_default_falls_back_to_the_minimum_when_out_of_range() {
        let numeric = Setting::NumericInput {
            key: "n".into(),
            label: "N".into(),
            min: Some(10.0),
            max: Some(20.0),
            step: None,
            placeholder: None,
            default_value: 15.0,
        };
        assert_eq!(
            convert_setting(&numeric, SettingType::Slider),
            Setting::Slider {
                key: "n".into(),
                label: "N".into(),
                min: 10.0,
                max: 20.0,
                default_value: 15.0
            }
        );
        let time = Setting::TimePicker {
            key: "t".into(),
            label: "T".into(),
            default_value: 3600,
            show_seconds: true,
        };
        assert_eq!(
            convert_setting(&time, SettingType::Slider),
            Setting::Slider {
                key: "t".into(),
                label: "T".into(),
                min: 0.0,
                max: 100.0,
                default_value: 0.0
            }
        );
    }

    #[test]
    fn a_numeric_input_keeps_slider_bounds_and_default() {
        let slider = Setting::Slider {
            key: "v".into(),
            label: "V".into(),
            min: -5.0,
            max: 5.0,
            default_value: 2.0,
        };
        assert_eq!(
            convert_setting(&slider, SettingType::NumericInput),
            Setting::NumericInput {
                key: "v".into(),
                label: "V".into(),
                min: Some(-5.0),
                max: Some(5.0),
                step: None,
                placeholder: None,
                default_value: 2.0
            }
        );
    }

    #[test]
    fn a_time_picker_keeps_only_a_whole_number_of_seconds_within_a_day() {
        let numeric = |default_value| Setting::NumericInput {
            key: "n".into(),
            label: "N".into(),
            min: None,
            max: None,
            step: None,
            placeholder: None,
            default_value,
        };
        assert_eq!(
            convert_setting(&numeric(3600.0), SettingType::TimePicker).default_value(),
            Some(json!(3600))
        );
        assert_eq!(
            convert_setting(&numeric(1.5), SettingType::TimePicker).default_value(),
            Some(json!(0))
        );
        assert_eq!(
            convert_setting(&numeric(90_000.0), SettingType::TimePicker).default_value(),
            Some(json!(0))
        );
    }

    #[test]
    fn new_settings_have_the_editor_defaults() {
        assert_eq!(
            new_setting(SettingType::Slider),
            Setting::Slider {
                key: String::new(),
                label: String::new(),
                min: 0.0,
                max: 100.0,
                default_value: 0.0
            }
        );
        assert_eq!(
            new_setting(SettingType::Group),
            Setting::Group { title: String::new() }
        );
        for kind in SettingType::ALL {
            assert_eq!(new_setting(kind).setting_type(), kind);
        }
    }
}
