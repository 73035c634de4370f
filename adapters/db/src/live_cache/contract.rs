//! The session cache's contract, declared once: the tables whose rows authorize a request (what
//! `repos::live_sessions` reads in one statement, and the apps whose revision the cache gives on
//! PostgreSQL), and the notice each change to them announces on the schema's channel. The listening
//! connection finds its channel from this list, notices are read by these kinds, and the contract tests
//! (`contract_tests.rs`) hold the PostgreSQL migrations' triggers and the session statement's plan to it: a
//! watched table without its insert, update, delete or truncate trigger fails them, and so does a table the
//! statement reads that is not watched.

/// What a notice names, by the letter before its colon (`f:<family>`, …); the whole payload `*` (a table
/// emptied) names everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoticeKind {
    /// A session's tokens changed: `f:<family>`.
    Family,
    /// An account's platform role, second factors or passkeys changed: `u:<user>`.
    User,
    /// An organization's members, two-factor rule or row changed: `o:<organization>`.
    Org,
    /// An app of the organization was added, changed, moved in or out, or deleted: `a:<organization>`.
    Apps,
}

impl NoticeKind {
    const ALL: [Self; 4] = [Self::Family, Self::User, Self::Org, Self::Apps];

    /// The letter a trigger writes before the colon.
    pub(crate) const fn letter(self) -> &'static str {
        match self {
            Self::Family => "f",
            Self::User => "u",
            Self::Org => "o",
            Self::Apps => "a",
        }
    }

    pub(crate) fn from_letter(letter: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.letter() == letter)
    }
}

/// A watched table: a change to a row announces `kind` with the value of `column`, by the trigger
/// function `function` (the migrations' `live_cache_notice(letter, column)`, or for apps
/// `bump_apps_revision()`, which names the organization of the old and the new row).
#[derive(Debug, Clone, Copy)]
// Beside the table, what the contract tests hold the triggers to.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Watched {
    pub(crate) table: &'static str,
    pub(crate) kind: NoticeKind,
    pub(crate) column: &'static str,
    pub(crate) function: &'static str,
    /// The columns whose update announces itself, when not every column's does (`None`: any update).
    pub(crate) updated_columns: Option<&'static [&'static str]>,
}

const NOTICE: &str = "live_cache_notice";

/// Every table the session cache watches.
pub(crate) const WATCHED: [Watched; 7] = [
    Watched {
        table: "refresh_tokens",
        kind: NoticeKind::Family,
        column: "family_id",
        function: NOTICE,
        updated_columns: None,
    },
    Watched {
        table: "platform_admins",
        kind: NoticeKind::User,
        column: "user_id",
        function: NOTICE,
        updated_columns: None,
    },
    Watched {
        table: "factors",
        kind: NoticeKind::User,
        column: "user_id",
        function: NOTICE,
        updated_columns: None,
    },
    Watched {
        table: "passkeys",
        kind: NoticeKind::User,
        column: "user_id",
        function: NOTICE,
        updated_columns: None,
    },
    Watched {
        table: "org_members",
        kind: NoticeKind::Org,
        column: "org_id",
        function: NOTICE,
        updated_columns: None,
    },
    Watched {
        table: "organizations",
        kind: NoticeKind::Org,
        column: "id",
        function: NOTICE,
        // What the session statement reads of an organization; a new name or logo authorizes nothing.
        updated_columns: Some(&["apps_revision", "require_two_factor"]),
    },
    Watched {
        table: "apps",
        kind: NoticeKind::Apps,
        column: "org_id",
        function: "bump_apps_revision",
        updated_columns: None,
    },
];

/// The query the listening connection asks for its channel: named from the schema of the watched tables
/// that its `search_path` reaches (the triggers name it from the schema of the changed table, which need
/// not be `current_schema()`: a `search_path` whose first schema exists but holds none of the tables), by
/// the function the triggers call (migration `2026-11-28-000600_live_cache_channel`). `single` is true
/// when every watched table was found, all in one schema.
pub(crate) fn channel_query() -> String {
    let tables = WATCHED
        .iter()
        .map(|watched| format!("'{}'", watched.table))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "WITH tables AS ( \
             SELECT n.nspname FROM unnest(ARRAY[{tables}]) AS t(name) \
             LEFT JOIN pg_class c ON c.oid = to_regclass(t.name) \
             LEFT JOIN pg_namespace n ON n.oid = c.relnamespace \
         ), schema AS ( \
             SELECT min(nspname) AS name, count(DISTINCT nspname) AS schemas, count(nspname) AS found \
             FROM tables \
         ) \
         SELECT live_cache_channel(name) AS name, quote_ident(live_cache_channel(name)) AS quoted, \
                pg_backend_pid() AS pid, name AS schema, schemas = 1 AND found = {count} AS single \
         FROM schema",
        count = WATCHED.len()
    )
}
