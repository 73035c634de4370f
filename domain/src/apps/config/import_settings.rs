//! The shape checks of one imported setting (specification §5, with all eleven types accepted as
//! PRODUCT.md §4 decides). Messages name the setting's index; the rules that apply to every write (unique
//! keys, option labels, …) run afterwards on the whole list.
//!
//! Import accepts what the specification and `@mentra/sdk` `validateAppConfig` accept: a group's title
//! may be empty, a titleValue's value and an option's value may be `null`, and a default that does not fit
//! its setting is fitted by the rules of a type change ([`ImportAdjustment`]) instead of refused. A
//! select-like setting still needs an options array (and the write rules at least one option), and a keyed
//! setting a non-empty key, so that every exported file imports again and saves.

use serde_json::{Map, Value};

use super::import_fit::fit_default;
use super::{ConfigError, ImportAdjustment};
use crate::apps::settings::{SECONDS_PER_DAY, SelectOption, Setting, SettingType, js_number_text};

/// The setting types import accepts, as its error message lists them: all eleven (PRODUCT.md §4).
pub const SUPPORTED_SETTING_TYPES: &str = "toggle, text, text_no_save_button, select, select_with_search, \
     multiselect, slider, group, titleValue, numeric_input, time_picker";

type Object = Map<String, Value>;

/// Reads the setting at `index` of the file's `settings`, fitted ([`fit_default`]); a fitted default is
/// recorded in `adjustments`.
pub(super) fn read_setting(
    index: usize,
    value: &Value,
    adjustments: &mut Vec<ImportAdjustment>,
) -> Result<Setting, ConfigError> {
    let (setting, parse_note) = parse_setting(index, value)?;
    let (setting, fit_note) = fit_default(setting);
    if let Some(note) = parse_note.or(fit_note) {
        let key = setting.key().unwrap_or_default();
        adjustments.push(ImportAdjustment {
            path: format!("settings[{index}]"),
            message: format!("Setting at index {index} (\"{key}\"): {note}."),
        });
    }
    Ok(setting)
}

/// Reads the setting at `index` of the file's `settings`, as the file has it, except for a time picker
/// default that a `u32` of seconds cannot hold: that one is fitted here, and the note says so.
fn parse_setting(index: usize, value: &Value) -> Result<(Setting, Option<String>), ConfigError> {
    let fail = |message: String| ConfigError::InvalidEntry {
        path: format!("settings[{index}]"),
        message,
    };
    let keyed_shape = || {
        fail(format!(
            "Setting at index {index} needs a string key, label and type."
        ))
    };

    let object = value
        .as_object()
        .ok_or_else(|| fail(format!("Setting at index {index} must be an object.")))?;
    let type_name = object
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(keyed_shape)?;
    let kind = SettingType::parse(type_name).ok_or_else(|| {
        fail(format!(
            "Setting at index {index} has unsupported type \"{type_name}\". Supported types: {SUPPORTED_SETTING_TYPES}."
        ))
    })?;

    match kind {
        SettingType::Group => {
            let title = string(object, "title")
                .ok_or_else(|| fail(format!("Setting at index {index}: a group needs a string title.")))?;
            return Ok((Setting::Group { title }, None));
        }
        SettingType::TitleValue => {
            let shape = || {
                fail(format!(
                    "Setting at index {index}: a titleValue needs a string label and a value."
                ))
            };
            let label = string(object, "label").ok_or_else(shape)?;
            // `null` is a value (the SDK asks only that the field be there).
            let value = object.get("value").cloned().ok_or_else(shape)?;
            return Ok((Setting::TitleValue { label, value }, None));
        }
        _ => {}
    }

    let (Some(key), Some(label)) = (string(object, "key"), string(object, "label")) else {
        return Err(keyed_shape());
    };
    let default = present(object, "defaultValue");
    let mut note = None;
    let setting = match kind {
        SettingType::Toggle => {
            let default_value = match default {
                None => false,
                Some(value) => value.as_bool().ok_or_else(|| {
                    fail(format!(
                        "Setting at index {index}: toggle defaultValue must be a boolean."
                    ))
                })?,
            };
            Setting::Toggle {
                key,
                label,
                default_value,
            }
        }
        SettingType::Text | SettingType::TextNoSaveButton => {
            let default_value = match default {
                None => String::new(),
                Some(value) => value.as_str().map(str::to_owned).ok_or_else(|| {
                    fail(format!(
                        "Setting at index {index}: {type_name} defaultValue must be a string."
                    ))
                })?,
            };
            if kind == SettingType::Text {
                Setting::Text {
                    key,
                    label,
                    default_value,
                }
            } else {
                let max_lines = match present(object, "maxLines") {
                    None => None,
                    Some(value) => Some(whole_number(value).filter(|n| *n > 0).ok_or_else(|| {
                        fail(format!(
                            "Setting at index {index}: maxLines must be a positive whole number if provided."
                        ))
                    })?),
                };
                Setting::TextNoSaveButton {
                    key,
                    label,
                    default_value,
                    max_lines,
                }
            }
        }
        SettingType::Select | SettingType::SelectWithSearch | SettingType::Multiselect => {
            let options = parse_options(index, type_name, object)?;
            match kind {
                SettingType::Select => Setting::Select {
                    key,
                    label,
                    options,
                    default_value: default.cloned(),
                },
                SettingType::SelectWithSearch => Setting::SelectWithSearch {
                    key,
                    label,
                    options,
                    default_value: default.cloned(),
                },
                _ => {
                    let default_value = match default {
                        None => Vec::new(),
                        Some(value) => value.as_array().cloned().ok_or_else(|| {
                            fail(format!(
                                "Setting at index {index}: multiselect defaultValue must be an array."
                            ))
                        })?,
                    };
                    Setting::Multiselect {
                        key,
                        label,
                        options,
                        default_value,
                    }
                }
            }
        }
        SettingType::Slider => {
            let number = |field| present(object, field).and_then(Value::as_f64);
            let (Some(default_value), Some(min), Some(max)) =
                (number("defaultValue"), number("min"), number("max"))
            else {
                return Err(fail(format!(
                    "Setting at index {index}: slider needs a numeric defaultValue, min and max."
                )));
            };
            if min > max {
                return Err(fail(format!(
                    "Setting at index {index}: slider min must not be greater than max."
                )));
            }
            Setting::Slider {
                key,
                label,
                min,
                max,
                default_value,
            }
        }
        SettingType::NumericInput => {
            let default_value = default.and_then(Value::as_f64).ok_or_else(|| {
                fail(format!(
                    "Setting at index {index}: numeric_input needs a numeric defaultValue."
                ))
            })?;
            let mut bounds = [None; 3];
            for (slot, field) in bounds.iter_mut().zip(["min", "max", "step"]) {
                if let Some(value) = present(object, field) {
                    *slot = Some(value.as_f64().ok_or_else(|| {
                        fail(format!(
                            "Setting at index {index}: numeric_input min, max and step must be numbers if provided."
                        ))
                    })?);
                }
            }
            let [min, max, step] = bounds;
            let placeholder = match present(object, "placeholder") {
                None => None,
                Some(value) => Some(value.as_str().map(str::to_owned).ok_or_else(|| {
                    fail(format!(
                        "Setting at index {index}: numeric_input placeholder must be a string if provided."
                    ))
                })?),
            };
            Setting::NumericInput {
                key,
                label,
                min,
                max,
                step,
                placeholder,
                default_value,
            }
        }
        SettingType::TimePicker => {
            let number = default.and_then(Value::as_f64).ok_or_else(|| {
                fail(format!(
                    "Setting at index {index}: time_picker needs a numeric defaultValue."
                ))
            })?;
            let default_value = match default.and_then(whole_number).filter(|n| *n < SECONDS_PER_DAY) {
                Some(seconds) => seconds,
                None => {
                    note = Some(format!(
                        "default {} is not a whole number of seconds under 24 hours and was set to 0",
                        js_number_text(number)
                    ));
                    0
                }
            };
            let show_seconds = match present(object, "showSeconds") {
                None => false,
                Some(value) => value.as_bool().ok_or_else(|| {
                    fail(format!(
                        "Setting at index {index}: time_picker showSeconds must be a boolean if provided."
                    ))
                })?,
            };
            Setting::TimePicker {
                key,
                label,
                default_value,
                show_seconds,
            }
        }
        SettingType::Group | SettingType::TitleValue => return Err(keyed_shape()),
    };
    Ok((setting, note))
}

fn parse_options(index: usize, type_name: &str, object: &Object) -> Result<Vec<SelectOption>, ConfigError> {
    let fail = |message: String| ConfigError::InvalidEntry {
        path: format!("settings[{index}]"),
        message,
    };
    let items = object.get("options").and_then(Value::as_array).ok_or_else(|| {
        fail(format!(
            "Setting at index {index}: {type_name} needs an options array."
        ))
    })?;
    items
        .iter()
        .enumerate()
        .map(|(position, item)| {
            let option = item.as_object();
            let label = option.and_then(|o| string(o, "label"));
            // `null` is a value, as in the SDK.
            let value = option.and_then(|o| o.get("value"));
            match (label, value) {
                (Some(label), Some(value)) => Ok(SelectOption {
                    label,
                    value: value.clone(),
                }),
                _ => Err(fail(format!(
                    "Setting at index {index}: option at index {position} needs a string label and a value."
                ))),
            }
        })
        .collect()
}

/// A field that is there and not `null`.
fn present<'a>(object: &'a Object, field: &str) -> Option<&'a Value> {
    object.get(field).filter(|value| !value.is_null())
}

fn string(object: &Object, field: &str) -> Option<String> {
    object.get(field).and_then(Value::as_str).map(str::to_owned)
}

/// A non-negative whole number that fits in `u32` (`3600` or `3600.0`).
fn whole_number(value: &Value) -> Option<u32> {
    if let Some(n) = value.as_u64() {
        return u32::try_from(n).ok();
    }
    let n = value.as_f64()?;
    (n.fract() == 0.0 && n >= 0.0 && n <= f64::from(u32::MAX)).then(|| format!("{n:.0}").parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(index: usize, value: &Value) -> Result<Setting, ConfigError> {
        parse_setting(index, value).map(|(setting, _)| setting)
    }

    fn message(value: Value) -> String {
        parse(3, &value).unwrap_err().to_string()
    }

    #[test]
    fn a_setting_entry_must_be_an_object() {
        assert_eq!(message(json!("toggle")), "Setting at index 3 must be an object.");
    }

    #[test]
    fn a_group_needs_a_string_title() {
        assert_eq!(
            parse(0, &json!({"type": "group", "title": "Display"})).unwrap(),
            Setting::Group {
                title: "Display".into()
            }
        );
        assert_eq!(
            message(json!({"type": "group", "label": "x"})),
            "Setting at index 3: a group needs a string title."
        );
    }

    #[test]
    fn a_title_value_needs_a_string_label_and_a_value() {
        assert_eq!(
            parse(0, &json!({"type": "titleValue", "label": "Version", "value": 2})).unwrap(),
            Setting::TitleValue {
                label: "Version".into(),
                value: json!(2)
            }
        );
        for bad in [
            json!({"type": "titleValue", "label": "Version"}),
            json!({"type": "titleValue", "value": 1}),
        ] {
            assert_eq!(
                message(bad),
                "Setting at index 3: a titleValue needs a string label and a value."
            );
        }
    }

    #[test]
    fn other_settings_need_a_string_key_label_and_type() {
        for bad in [
            json!({"key": "k", "label": "L"}),
            json!({"type": 5, "key": "k", "label": "L"}),
            json!({"type": "toggle", "label": "L"}),
            json!({"type": "toggle", "key": "k", "label": 1}),
        ] {
            assert_eq!(
                message(bad),
                "Setting at index 3 needs a string key, label and type."
            );
        }
    }

    #[test]
    fn an_unknown_type_lists_all_eleven_supported_types() {
        assert_eq!(
            message(json!({"type": "checkbox", "key": "k", "label": "L"})),
            "Setting at index 3 has unsupported type \"checkbox\". Supported types: toggle, text, \
             text_no_save_button, select, select_with_search, multiselect, slider, group, titleValue, \
             numeric_input, time_picker."
        );
    }

    #[test]
    fn a_toggle_default_must_be_a_boolean_and_defaults_to_false() {
        assert_eq!(
            message(json!({"type": "toggle", "key": "k", "label": "L", "defaultValue": "yes"})),
            "Setting at index 3: toggle defaultValue must be a boolean."
        );
        assert_eq!(
            parse(0, &json!({"type": "toggle", "key": "k", "label": "L"}))
                .unwrap()
                .default_value(),
            Some(json!(false))
        );
    }

    #[test]
    fn a_text_default_must_be_a_string() {
        assert_eq!(
            message(json!({"type": "text_no_save_button", "key": "k", "label": "L", "defaultValue": 3})),
            "Setting at index 3: text_no_save_button defaultValue must be a string."
        );
        assert_eq!(
            message(json!({"type": "text_no_save_button", "key": "k", "label": "L", "maxLines": 0})),
            "Setting at index 3: maxLines must be a positive whole number if provided."
        );
    }

    #[test]
    fn select_like_settings_need_an_options_array_of_labelled_values() {
        assert_eq!(
            message(json!({"type": "select_with_search", "key": "k", "label": "L"})),
            "Setting at index 3: select_with_search needs an options array."
        );
        assert_eq!(
            message(
                json!({"type": "multiselect", "key": "k", "label": "L", "options": [{"label": "A", "value": 1}, {"label": "B"}]})
            ),
            "Setting at index 3: option at index 1 needs a string label and a value."
        );
    }

    #[test]
    fn a_multiselect_default_must_be_an_array() {
        assert_eq!(
            message(
                json!({"type": "multiselect", "key": "k", "label": "L", "options": [], "defaultValue": "a"})
            ),
            "Setting at index 3: multiselect defaultValue must be an array."
        );
    }

    #[test]
    fn a_slider_needs_numbers_with_min_not_above_max() {
        assert_eq!(
            message(json!({"type": "slider", "key": "k", "label": "L", "min": 0, "max": 10})),
            "Setting at index 3: slider needs a numeric defaultValue, min and max."
        );
        assert_eq!(
            message(
                json!({"type": "slider", "key": "k", "label": "L", "min": 10, "max": 0, "defaultValue": 5})
            ),
            "Setting at index 3: slider min must not be greater than max."
        );
    }

    #[test]
    fn a_numeric_input_needs_a_numeric_default_and_numeric_bounds() {
        assert_eq!(
            message(json!({"type": "numeric_input", "key": "k", "label": "L"})),
            "Setting at index 3: numeric_input needs a numeric defaultValue."
        );
        assert_eq!(
            message(
                json!({"type": "numeric_input", "key": "k", "label": "L", "defaultValue": 1, "step": "1"})
            ),
            "Setting at index 3: numeric_input min, max and step must be numbers if provided."
        );
        assert_eq!(
            message(
                json!({"type": "numeric_input", "key": "k", "label": "L", "defaultValue": 1, "placeholder": 2})
            ),
            "Setting at index 3: numeric_input placeholder must be a string if provided."
        );
    }

    #[test]
    fn a_time_picker_needs_a_numeric_default_fitted_to_whole_seconds_within_a_day() {
        assert_eq!(
            parse(
                0,
                &json!({"type": "time_picker", "key": "k", "label": "L", "defaultValue": 3600.0})
            )
            .unwrap()
            .default_value(),
            Some(json!(3600))
        );
        for (outside, shown) in [(json!(86_400), "86400"), (json!(-1), "-1"), (json!(1.5), "1.5")] {
            let mut adjustments = Vec::new();
            let setting = read_setting(
                1,
                &json!({"type": "time_picker", "key": "k", "label": "L", "defaultValue": outside}),
                &mut adjustments,
            )
            .unwrap();
            assert_eq!(setting.default_value(), Some(json!(0)));
            assert_eq!(
                adjustments,
                [ImportAdjustment {
                    path: "settings[1]".into(),
                    message: format!(
                        "Setting at index 1 (\"k\"): default {shown} is not a whole number of seconds under 24 hours and was set to 0."
                    ),
                }]
            );
        }
        for bad in [json!("08:00"), json!(null)] {
            assert_eq!(
                message(json!({"type": "time_picker", "key": "k", "label": "L", "defaultValue": bad})),
                "Setting at index 3: time_picker needs a numeric defaultValue."
            );
        }
        assert_eq!(
            message(
                json!({"type": "time_picker", "key": "k", "label": "L", "defaultValue": 0, "showSeconds": 1})
            ),
            "Setting at index 3: time_picker showSeconds must be a boolean if provided."
        );
    }

    #[test]
    fn a_group_title_may_be_empty_and_null_is_a_title_value_or_option_value() {
        assert_eq!(
            parse(0, &json!({"type": "group", "title": ""})).unwrap(),
            Setting::Group { title: String::new() }
        );
        assert_eq!(
            parse(
                0,
                &json!({"type": "titleValue", "label": "Status", "value": null})
            )
            .unwrap(),
            Setting::TitleValue {
                label: "Status".into(),
                value: Value::Null
            }
        );
        let select = parse(
            0,
            &json!({"type": "select", "key": "k", "label": "L", "options": [{"label": "None", "value": null}]}),
        )
        .unwrap();
        assert!(matches!(select, Setting::Select { ref options, .. } if options[0].value.is_null()));
    }

    #[test]
    fn a_select_default_not_among_the_options_is_cleared() {
        let options = vec![SelectOption::new("A", "a"), SelectOption::new("One", 1)];
        let (fitted, note) = fit_default(Setting::SelectWithSearch {
            key: "k".into(),
            label: "L".into(),
            options: options.clone(),
            default_value: Some(json!(2.0)),
        });
        assert_eq!(fitted.default_value(), None);
        assert_eq!(
            note.as_deref(),
            Some("default 2 is not one of the options and was cleared")
        );
        // 1.0 is the option 1, as in the browser; an absent default stays absent.
        for kept in [Some(json!(1.0)), Some(json!("a")), None] {
            let setting = Setting::Select {
                key: "k".into(),
                label: "L".into(),
                options: options.clone(),
                default_value: kept,
            };
            assert_eq!(fit_default(setting.clone()), (setting, None));
        }
    }

    #[test]
    fn multiselect_defaults_not_among_the_options_are_removed() {
        let (fitted, note) = fit_default(Setting::Multiselect {
            key: "k".into(),
            label: "L".into(),
            options: vec![SelectOption::new("A", "a"), SelectOption::new("B", "b")],
            default_value: vec![json!("b"), json!("x"), json!(true), json!("a")],
        });
        assert_eq!(fitted.default_value(), Some(json!(["b", "a"])));
        assert_eq!(
            note.as_deref(),
            Some("defaults not among the options were removed (\"x\", true)")
        );
    }

    #[test]
    fn a_slider_default_out_of_range_falls_back_to_the_minimum() {
        let slider = |default_value| Setting::Slider {
            key: "k".into(),
            label: "L".into(),
            min: -5.0,
            max: 5.0,
            default_value,
        };
        let (fitted, note) = fit_default(slider(7.5));
        assert_eq!(fitted, slider(-5.0));
        assert_eq!(
            note.as_deref(),
            Some("default 7.5 is outside -5 to 5 and was set to the minimum, -5")
        );
        assert_eq!(fit_default(slider(5.0)), (slider(5.0), None));
    }

    #[test]
    fn a_numeric_input_default_out_of_its_bounds_goes_to_the_minimum_else_the_maximum() {
        let numeric = |min, max, default_value| Setting::NumericInput {
            key: "k".into(),
            label: "L".into(),
            min,
            max,
            step: None,
            placeholder: None,
            default_value,
        };
        assert_eq!(
            fit_default(numeric(Some(1.0), Some(9.0), 0.0)).0,
            numeric(Some(1.0), Some(9.0), 1.0)
        );
        assert_eq!(
            fit_default(numeric(None, Some(-3.0), 0.0)),
            (
                numeric(None, Some(-3.0), -3.0),
                Some("default 0 is outside the minimum and maximum and was set to -3".into())
            )
        );
        assert_eq!(
            fit_default(numeric(None, None, 1e9)),
            (numeric(None, None, 1e9), None)
        );
        // Bounds the wrong way round are left for the write rules to refuse.
        assert_eq!(
            fit_default(numeric(Some(5.0), Some(1.0), 9.0)),
            (numeric(Some(5.0), Some(1.0), 9.0), None)
        );
    }

    #[test]
    fn an_invalid_entry_names_its_path() {
        let error = parse(3, &json!(null)).unwrap_err();
        assert!(matches!(error, ConfigError::InvalidEntry { ref path, .. } if path == "settings[3]"));
    }

    mod fitted {
        use super::super::*;
        use crate::apps::settings::validate_settings;
        use proptest::prelude::*;
        use serde_json::json;

        fn value() -> impl Strategy<Value = Value> {
            prop_oneof![
                "[a-c]".prop_map(Value::from),
                (-3i64..3).prop_map(Value::from),
                any::<bool>().prop_map(Value::from),
                Just(Value::Null),
            ]
        }

        fn number() -> impl Strategy<Value = f64> {
            prop_oneof![-1e6f64..1e6, (-5i32..5).prop_map(f64::from)]
        }

        proptest! {
            /// Whatever default a file gives a select-like setting with options, a slider or a numeric input
            /// with ordered bounds, or a time picker, the imported setting passes the write rules.
            #[test]
            fn every_fitted_setting_passes_the_write_rules(
                options in prop::collection::vec(value(), 1..4),
                default in value(),
                defaults in prop::collection::vec(value(), 0..4),
                (low, high, given) in (number(), number(), number()),
                seconds in -1e6f64..1e6,
                bounds in 0usize..4,
            ) {
                let (min, max) = (low.min(high), low.max(high));
                let options: Vec<Value> = options
                    .into_iter()
                    .enumerate()
                    .map(|(i, value)| json!({"label": format!("O{i}"), "value": value}))
                    .collect();
                let (numeric_min, numeric_max) = match bounds {
                    0 => (None, None),
                    1 => (Some(min), None),
                    2 => (None, Some(max)),
                    _ => (Some(min), Some(max)),
                };
                let mut numeric = json!({"type": "numeric_input", "key": "n", "label": "N", "defaultValue": given});
                if let Some(min) = numeric_min { numeric["min"] = json!(min); }
                if let Some(max) = numeric_max { numeric["max"] = json!(max); }
                let file = [
                    json!({"type": "select", "key": "s", "label": "S", "options": options, "defaultValue": default}),
                    json!({"type": "select_with_search", "key": "w", "label": "W", "options": options, "defaultValue": default}),
                    json!({"type": "multiselect", "key": "m", "label": "M", "options": options, "defaultValue": defaults}),
                    json!({"type": "slider", "key": "l", "label": "L", "min": min, "max": max, "defaultValue": given}),
                    numeric,
                    json!({"type": "time_picker", "key": "t", "label": "T", "defaultValue": seconds}),
                ];
                let mut adjustments = Vec::new();
                let settings: Vec<Setting> = file
                    .iter()
                    .enumerate()
                    .map(|(i, entry)| read_setting(i, entry, &mut adjustments).unwrap())
                    .collect();
                prop_assert_eq!(validate_settings(&settings), Ok(()));
                prop_assert!(adjustments.len() <= settings.len());
            }
        }
    }
}
