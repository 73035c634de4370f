//! The password policy (PRODUCT.md §1, OWASP ASVS 5.0 level 2): 12 to 128 characters, no composition rules,
//! refused when common, when it is the account's own e-mail address, or when it is too weak beyond its
//! length: a word people often choose (or a keyboard run) with digits and symbols around it, letters swapped
//! for look-alike digits (`p@ssw0rd2024!`) or repeated.
//!
//! Two lists: the bundled one of very common passwords (most of them shorter than 12 characters), and one
//! generated here from patterns — common words and keyboard runs followed by years, digit runs and symbols
//! — keeping what is at least 12 characters long (several thousand entries). The pattern check below
//! catches the variations the generated list does not spell out.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::common::EmailAddress;

/// Fewest characters (Unicode scalar values, not bytes).
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Most characters.
pub const MAX_PASSWORD_CHARS: usize = 128;

pub const PASSWORD_REQUIRED: &str = "Password is required";
pub const PASSWORD_TOO_SHORT: &str = "Password must be at least 12 characters";
pub const PASSWORD_TOO_LONG: &str = "Password must be at most 128 characters";
pub const PASSWORD_TOO_COMMON: &str = "This password is too common. Choose a less common one.";
pub const PASSWORD_IS_EMAIL: &str = "Password must not be your email address or a part of it";
pub const PASSWORD_TOO_WEAK: &str = "Password is too weak: a common word or keyboard pattern with digits or \
     symbols added is easy to guess. Use a few unrelated words instead.";

/// The bundled list: about a thousand very common passwords, lower-case, one a line.
const COMMON_PASSWORDS_TEXT: &str = include_str!("common_passwords.txt");

static COMMON_PASSWORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    COMMON_PASSWORDS_TEXT
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
});

/// Words people often build passwords on (lower-case; at least four letters). Written for this project.
const COMMON_WORDS: &[&str] = &[
    "password",
    "passwort",
    "letmein",
    "welcome",
    "admin",
    "administrator",
    "login",
    "master",
    "dragon",
    "monkey",
    "football",
    "baseball",
    "basketball",
    "soccer",
    "hockey",
    "tennis",
    "golfer",
    "sunshine",
    "princess",
    "shadow",
    "superman",
    "batman",
    "spiderman",
    "starwars",
    "pokemon",
    "pikachu",
    "iloveyou",
    "loveyou",
    "trustno",
    "whatever",
    "freedom",
    "michael",
    "jennifer",
    "jessica",
    "charlie",
    "thomas",
    "daniel",
    "andrew",
    "joshua",
    "matthew",
    "jordan",
    "hunter",
    "ranger",
    "buster",
    "tigger",
    "ginger",
    "pepper",
    "summer",
    "winter",
    "autumn",
    "spring",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "chocolate",
    "cookie",
    "banana",
    "orange",
    "cheese",
    "computer",
    "internet",
    "secret",
    "security",
    "changeme",
    "default",
    "guest",
    "hello",
    "helloworld",
    "family",
    "forever",
    "blessed",
    "jesus",
    "angel",
    "butterfly",
    "flower",
    "purple",
    "yellow",
    "silver",
    "golden",
    "diamond",
    "london",
    "paris",
    "berlin",
    "newyork",
    "chicago",
    "america",
    "canada",
    "germany",
    "england",
    "mustang",
    "ferrari",
    "porsche",
    "harley",
    "liverpool",
    "arsenal",
    "chelsea",
    "barcelona",
    "madrid",
    "juventus",
    "matrix",
    "cowboys",
    "yankees",
    "lakers",
    "eagles",
    "steelers",
    "packers",
    "dolphins",
    "tigers",
    "warrior",
    "thunder",
    "phoenix",
    "samsung",
    "google",
    "facebook",
    "microsoft",
    "apple",
    "android",
    "iphone",
    "nintendo",
    "playstation",
    "minecraft",
    "fortnite",
    "roblox",
    "developer",
    "devportal",
    "portal",
    "glasses",
    "smartglasses",
    "testing",
    "test",
    "demo",
    "sample",
    "example",
    "user",
    "username",
    "company",
    "office",
    "coffee",
    "music",
    "guitar",
    "rainbow",
    "unicorn",
    "kitten",
    "puppy",
    "snoopy",
    "mickey",
    "garfield",
    "naruto",
    "loveme",
    "lovely",
    "babygirl",
    "sweetheart",
    "friends",
    "nothing",
    "anything",
    "something",
    "access",
    "private",
    "qwerty",
    "qwertz",
    "azerty",
    "asdfgh",
    "zxcvbn",
    "abcdef",
    "letmeinnow",
    "superstar",
    "rockstar",
    "midnight",
    "starlight",
    "moonlight",
    "sunflower",
    "elephant",
    "dolphin",
    "penguin",
    "tiger",
    "lion",
    "eagle",
    "falcon",
    "wizard",
    "magic",
    "knight",
    "pirate",
    "ninja",
    "samurai",
    "zombie",
    "vampire",
    "hacker",
    "gamer",
    "player",
    "winner",
    "champion",
    "freedom",
    "liberty",
    "victory",
    "heaven",
    "prince",
    "queen",
    "king",
    "mother",
    "father",
    "sister",
    "brother",
    "daughter",
    "summertime",
    "christmas",
    "holiday",
    "vacation",
];

/// Keyboard runs and sequences (lower-case).
const KEYBOARD_RUNS: &[&str] = &[
    "qwertyuiop",
    "qwertyuio",
    "qwertyui",
    "qwertyu",
    "qwerty",
    "asdfghjkl",
    "asdfghjk",
    "asdfgh",
    "asdf",
    "zxcvbnm",
    "zxcvbn",
    "zxcv",
    "qazwsx",
    "qazwsxedc",
    "qazwsxedcrfv",
    "1qaz2wsx",
    "1qaz2wsx3edc",
    "zaq12wsx",
    "1q2w3e4r",
    "1q2w3e4r5t",
    "1q2w3e4r5t6y",
    "q1w2e3r4",
    "q1w2e3r4t5",
    "qweasdzxc",
    "abcdefgh",
    "abcdefghijkl",
    "abc123",
    "abcd1234",
    "qwer1234",
    "asdf1234",
    "zxcv1234",
    "poiuytrewq",
    "lkjhgfdsa",
    "mnbvcxz",
    "azertyuiop",
    "qwertzuiop",
    "1234qwer",
    "passw0rd",
    "p4ssw0rd",
    "iloveu",
];

/// What is put after a word: years, digit runs, symbols.
fn suffixes() -> Vec<String> {
    let mut suffixes: Vec<String> = [
        "",
        "1",
        "12",
        "123",
        "1234",
        "12345",
        "123456",
        "1234567",
        "12345678",
        "123456789",
        "0",
        "00",
        "01",
        "007",
        "11",
        "13",
        "21",
        "22",
        "23",
        "69",
        "77",
        "88",
        "99",
        "100",
        "111",
        "123123",
        "321",
        "54321",
        "2580",
        "!",
        "!!",
        "!!!",
        "!@#",
        "@123",
        "#1",
        "1!",
        "12!",
        "123!",
        "1234!",
        "$",
        "*",
        ".",
        "?",
        "_1",
        "-1",
        "@",
        "#",
        "123$",
        "123.",
        "1@",
        "!1",
        "1111",
        "0000",
        "2468",
        "1357",
        "246810",
        "12341234",
        "112233",
        "121212",
        "696969",
        "777777",
        "987654321",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for year in 1960..=2030 {
        suffixes.push(year.to_string());
        suffixes.push(format!("{year}!"));
    }
    suffixes
}

/// The generated list: each common word and keyboard run followed by each suffix, and each word doubled,
/// keeping what is at least [`MIN_PASSWORD_CHARS`] long.
static GENERATED_PASSWORDS: LazyLock<HashSet<String>> = LazyLock::new(|| {
    let suffixes = suffixes();
    let doubled = COMMON_WORDS.iter().map(|w| format!("{w}{w}"));
    COMMON_WORDS
        .iter()
        .chain(KEYBOARD_RUNS)
        .flat_map(|base| suffixes.iter().map(move |suffix| format!("{base}{suffix}")))
        .chain(doubled)
        .filter(|candidate| candidate.chars().count() >= MIN_PASSWORD_CHARS)
        .collect()
});

static WEAK_BASES: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| COMMON_WORDS.iter().chain(KEYBOARD_RUNS).copied().collect());

/// Reads look-alike digits and symbols as the letters they stand for (`p@ssw0rd` → `password`).
fn unleet(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '0' => 'o',
            '1' | '!' => 'i',
            '3' => 'e',
            '4' | '@' => 'a',
            '5' | '$' => 's',
            '7' => 't',
            '8' => 'b',
            other => other,
        })
        .collect()
}

/// Whether the (lower-cased) password is a sequence or repeated group, or a common word or keyboard run —
/// possibly repeated, with look-alike characters, separated by symbols — with only digits and symbols
/// around it.
fn is_decorated_common_word(lowered: &str) -> bool {
    let decoration = |c: char| c.is_ascii_digit() || c.is_ascii_punctuation() || c.is_whitespace();
    if is_sequence(lowered) {
        return true;
    }
    let core = lowered.trim_matches(decoration);
    if core.is_empty() {
        return false;
    }
    let candidates = [core.to_owned(), unleet(core)];
    candidates.iter().any(|candidate| {
        let letters: String = candidate.chars().filter(|c| !decoration(*c)).collect();
        // The word itself, or the word repeated (`passwordpassword`, `monkey-monkey`).
        WEAK_BASES.contains(candidate.as_str())
            || WEAK_BASES.contains(letters.as_str())
            || WEAK_BASES
                .iter()
                .any(|base| letters.len() > base.len() && letters == base.repeat(letters.len() / base.len()))
    })
}

/// Whether the text is a run of consecutive characters going up or down (`123456789012`, `abcdefghijkl`)
/// or one short group repeated (`121212121212`).
fn is_sequence(text: &str) -> bool {
    let chars: Vec<u32> = text.chars().map(u32::from).collect();
    if chars.len() < 2 {
        return true;
    }
    let wraps = |a: u32, b: u32, step: i64| {
        let (a, b) = (i64::from(a), i64::from(b));
        b - a == step
            || (a == i64::from(u32::from('9')) && b == i64::from(u32::from('0')) && step == 1)
            || (a == i64::from(u32::from('0')) && b == i64::from(u32::from('9')) && step == -1)
    };
    let up = chars.windows(2).all(|w| wraps(w[0], w[1], 1));
    let down = chars.windows(2).all(|w| wraps(w[0], w[1], -1));
    let repeated = (1..=4).any(|period| {
        chars.len() >= 2 * period && chars.iter().enumerate().all(|(i, c)| *c == chars[i % period])
    });
    up || down || repeated
}

/// Why a password was refused. The Display texts are the messages shown to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("{}", PASSWORD_REQUIRED)]
    Required,
    #[error("{}", PASSWORD_TOO_SHORT)]
    TooShort,
    #[error("{}", PASSWORD_TOO_LONG)]
    TooLong,
    #[error("{}", PASSWORD_TOO_COMMON)]
    TooCommon,
    #[error("{}", PASSWORD_IS_EMAIL)]
    SameAsEmail,
    #[error("{}", PASSWORD_TOO_WEAK)]
    TooWeak,
}

/// Whether the bundled or the generated list holds this password (compared lower-cased).
#[must_use]
pub fn is_common_password(password: &str) -> bool {
    let lowered = password.to_lowercase();
    COMMON_PASSWORDS.contains(lowered.as_str()) || GENERATED_PASSWORDS.contains(&lowered)
}

/// Number of entries in the bundled list.
#[must_use]
pub fn common_password_count() -> usize {
    COMMON_PASSWORDS.len()
}

/// Number of entries of the generated list (all at least 12 characters long).
#[must_use]
pub fn generated_password_count() -> usize {
    GENERATED_PASSWORDS.len()
}

/// Checks a new password, in this order: present, at least 12 characters, at most 128 characters, not the
/// e-mail address or its local part (case-insensitive), not common (either list, case-insensitive, or one
/// character repeated), not weak (a common word or keyboard run with only digits and symbols around it, a
/// sequence or a repeated group).
///
/// # Errors
/// The first [`PasswordError`] that applies.
pub fn check_password(password: &str, email: Option<&EmailAddress>) -> Result<(), PasswordError> {
    if password.is_empty() {
        return Err(PasswordError::Required);
    }
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(PasswordError::TooLong);
    }
    let lowered = password.to_lowercase();
    if let Some(email) = email
        && (lowered == email.as_str() || lowered == email.local_part())
    {
        return Err(PasswordError::SameAsEmail);
    }
    let mut distinct = lowered.chars();
    let first = distinct.next();
    if COMMON_PASSWORDS.contains(lowered.as_str())
        || GENERATED_PASSWORDS.contains(&lowered)
        || distinct.all(|c| Some(c) == first)
    {
        return Err(PasswordError::TooCommon);
    }
    if is_decorated_common_word(&lowered) {
        return Err(PasswordError::TooWeak);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    #[test]
    fn a_long_uncommon_password_is_accepted() {
        assert_eq!(check_password("violet-harbour-tram-42", None), Ok(()));
    }

    #[test]
    fn an_empty_password_is_required() {
        assert_eq!(check_password("", None), Err(PasswordError::Required));
        assert_eq!(PasswordError::Required.to_string(), "Password is required");
    }

    #[test]
    fn eleven_characters_are_too_short_and_twelve_are_enough() {
        assert_eq!(check_password("kx9!vb2#qm7", None), Err(PasswordError::TooShort));
        assert_eq!(check_password("kx9!vb2#qm7z", None), Ok(()));
        assert_eq!(
            PasswordError::TooShort.to_string(),
            "Password must be at least 12 characters"
        );
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        // Eleven two-byte characters are 22 bytes but still too short; twelve are enough.
        assert_eq!(check_password("éééééñüöäßç", None), Err(PasswordError::TooShort));
        assert_eq!(check_password("éñüöäßçøåæœð", None), Ok(()));
    }

    #[test]
    fn more_than_128_characters_are_too_long() {
        // 128 characters that are not one short group repeated (that would be weak).
        let ok: String = "violet-harbour-tram-42 ".repeat(6).chars().take(128).collect();
        assert_eq!(check_password(&ok, None), Ok(()));
        assert_eq!(
            check_password(&format!("{ok}x"), None),
            Err(PasswordError::TooLong)
        );
        assert_eq!(
            PasswordError::TooLong.to_string(),
            "Password must be at most 128 characters"
        );
        // 128 four-byte characters (512 bytes) are still within the limit.
        let emoji: String = "🦀🐍🐘🐳🦊".repeat(26).chars().take(128).collect();
        assert_eq!(check_password(&emoji, None), Ok(()));
    }

    #[test]
    fn a_password_from_the_common_list_is_too_common_whatever_its_case() {
        assert_eq!(
            check_password("qwertyuiop123", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            check_password("PassWord1234", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            PasswordError::TooCommon.to_string(),
            "This password is too common. Choose a less common one."
        );
    }

    #[test]
    fn one_character_repeated_is_too_common() {
        assert_eq!(
            check_password("zzzzzzzzzzzzzzz", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            check_password("ŽžŽžŽžŽžŽžŽžŽž", None),
            Err(PasswordError::TooCommon)
        );
    }

    #[test]
    fn the_email_address_or_its_local_part_is_refused_case_insensitively() {
        let address = email("ada.lovelace@example.com");
        assert_eq!(
            check_password("Ada.Lovelace@Example.com", Some(&address)),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(
            check_password("ADA.LOVELACE", Some(&address)),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(check_password("ada.lovelace!", Some(&address)), Ok(()));
        assert_eq!(
            PasswordError::SameAsEmail.to_string(),
            "Password must not be your email address or a part of it"
        );
    }

    #[test]
    fn the_generated_list_holds_thousands_of_long_pattern_passwords() {
        let count = generated_password_count();
        assert!((3000..=60_000).contains(&count), "{count}");
        assert!(
            GENERATED_PASSWORDS
                .iter()
                .all(|p| p.chars().count() >= MIN_PASSWORD_CHARS)
        );
        assert!(GENERATED_PASSWORDS.iter().all(|p| *p == p.to_lowercase()));
        for listed in [
            "sunshine2024!",
            "Football1234",
            "qwertyuiop123",
            "monkeymonkey",
            "1qaz2wsx3edc",
        ] {
            assert!(is_common_password(listed), "{listed}");
            assert_eq!(
                check_password(listed, None),
                Err(PasswordError::TooCommon),
                "{listed}"
            );
        }
    }

    #[test]
    fn a_common_word_dressed_up_with_digits_symbols_or_look_alikes_is_too_weak() {
        for weak in [
            "P@ssw0rd2024!!",
            "!!Welcome-2031",
            "dragon_dragon_dragon",
            "Summer#2033$%",
            "3456789012345",
            "876543210987",
            "474747474747",
            "bcdefghijklmn",
            "qwertyuiop!!!!",
        ] {
            assert_eq!(check_password(weak, None), Err(PasswordError::TooWeak), "{weak}");
        }
        assert!(
            PasswordError::TooWeak
                .to_string()
                .starts_with("Password is too weak: ")
        );
    }

    #[test]
    fn passphrases_and_random_strings_are_strong_enough() {
        for strong in [
            "violet-harbour-tram-42",
            "a sufficiently long passphrase 42",
            "glasses are the next screen 42",
            "kx9!vb2#qm7z",
            "correct horse battery staple",
            "Sunshine over the harbour 7",
            "748291036455",
        ] {
            assert_eq!(check_password(strong, None), Ok(()), "{strong}");
        }
    }

    #[test]
    fn the_bundled_list_has_about_a_thousand_lower_case_entries() {
        assert!((900..=1500).contains(&common_password_count()));
        assert!(COMMON_PASSWORDS.iter().all(|p| *p == p.to_lowercase()));
        assert!(is_common_password("Password"));
        assert!(!is_common_password("violet-harbour-tram-42"));
    }
}
