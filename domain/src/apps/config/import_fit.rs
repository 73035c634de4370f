//! Fitting an imported setting's default to the setting, by the rules of a type change, instead of
//! refusing the file.

use serde_json::Value;

use crate::apps::settings::{SelectOption, Setting, is_option_value, js_number_text};

/// A setting whose default fits it, by the rules of a type change (specification §4), and what was
/// changed: a select default not among the options is cleared; multiselect defaults not among them are
/// removed; a slider default outside min–max falls back to the minimum; a numeric input default outside
/// its bounds to the minimum (the maximum when it has no minimum); a time picker default that is not a
/// whole number of seconds under 24 hours to 0. A setting without options is left for the write rules to
/// refuse.
pub(super) fn fit_default(setting: Setting) -> (Setting, Option<String>) {
    match setting {
        Setting::Select {
            key,
            label,
            options,
            default_value,
        } => {
            let (default_value, note) = fit_single(&options, default_value);
            (
                Setting::Select {
                    key,
                    label,
                    options,
                    default_value,
                },
                note,
            )
        }
        Setting::SelectWithSearch {
            key,
            label,
            options,
            default_value,
        } => {
            let (default_value, note) = fit_single(&options, default_value);
            (
                Setting::SelectWithSearch {
                    key,
                    label,
                    options,
                    default_value,
                },
                note,
            )
        }
        Setting::Multiselect {
            key,
            label,
            options,
            default_value,
        } if !options.is_empty() => {
            let (kept, removed): (Vec<Value>, Vec<Value>) = default_value
                .into_iter()
                .partition(|value| is_option_value(&options, value));
            let note = (!removed.is_empty()).then(|| {
                let list: Vec<String> = removed.iter().map(value_text).collect();
                format!(
                    "defaults not among the options were removed ({})",
                    list.join(", ")
                )
            });
            (
                Setting::Multiselect {
                    key,
                    label,
                    options,
                    default_value: kept,
                },
                note,
            )
        }
        Setting::Slider {
            key,
            label,
            min,
            max,
            default_value,
        } if min <= max && !(min..=max).contains(&default_value) => {
            let note = format!(
                "default {} is outside {} to {} and was set to the minimum, {}",
                js_number_text(default_value),
                js_number_text(min),
                js_number_text(max),
                js_number_text(min)
            );
            (
                Setting::Slider {
                    key,
                    label,
                    min,
                    max,
                    default_value: min,
                },
                Some(note),
            )
        }
        Setting::NumericInput {
            key,
            label,
            min,
            max,
            step,
            placeholder,
            default_value,
        } if min.zip(max).is_none_or(|(min, max)| min <= max)
            && (min.is_some_and(|min| default_value < min) || max.is_some_and(|max| default_value > max)) =>
        {
            let fitted = min.or(max).unwrap_or(default_value);
            let note = format!(
                "default {} is outside the minimum and maximum and was set to {}",
                js_number_text(default_value),
                js_number_text(fitted)
            );
            (
                Setting::NumericInput {
                    key,
                    label,
                    min,
                    max,
                    step,
                    placeholder,
                    default_value: fitted,
                },
                Some(note),
            )
        }
        other => (other, None),
    }
}

fn fit_single(options: &[SelectOption], default: Option<Value>) -> (Option<Value>, Option<String>) {
    match default {
        Some(value) if !options.is_empty() && !is_option_value(options, &value) => {
            let note = format!(
                "default {} is not one of the options and was cleared",
                value_text(&value)
            );
            (None, Some(note))
        }
        other => (other, None),
    }
}

/// A JSON value as a message shows it: text in quotes, numbers as JavaScript writes them.
fn value_text(value: &Value) -> String {
    match value.as_f64() {
        Some(number) if value.is_number() => js_number_text(number),
        _ => value.to_string(),
    }
}
