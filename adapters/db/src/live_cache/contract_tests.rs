//! The session cache's contract against the real PostgreSQL schema: every watched table announces every
//! change (its triggers, read from `pg_trigger`), and the session statement reads no table that is not
//! watched (the relations of its `EXPLAIN (FORMAT JSON)` plan). Each check is also shown to fail on a
//! schema or a statement that breaks the contract.

use super::contract::{NoticeKind, WATCHED, Watched};
use crate::Backend;
use crate::repos::live_sessions::{session_in_org_statement, session_statement};
use crate::testing::{TestDb, fresh};
use diesel::connection::SimpleConnection;
use diesel::pg::{Pg, PgConnection};
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Array, Bool, Integer, Nullable, Text};
use std::collections::BTreeSet;

/// `EXPLAIN (FORMAT JSON)` of a diesel statement, with its binds.
#[derive(QueryId)]
struct Explain<Q>(Q);

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for Explain<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("EXPLAIN (FORMAT JSON) ");
        self.0.walk_ast(out.reborrow())
    }
}

impl<Q> Query for Explain<Q> {
    type SqlType = Text;
}

impl<Q> RunQueryDsl<PgConnection> for Explain<Q> {}

/// The relations a plan (`EXPLAIN (FORMAT JSON)`'s answer) reads, subplans included.
fn relations(plan: &str) -> BTreeSet<String> {
    fn walk(node: &serde_json::Value, found: &mut BTreeSet<String>) {
        match node {
            serde_json::Value::Object(fields) => {
                for (name, value) in fields {
                    if name == "Relation Name"
                        && let Some(relation) = value.as_str()
                    {
                        found.insert(relation.to_owned());
                    }
                    walk(value, found);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| walk(item, found)),
            _ => {}
        }
    }
    let plan: serde_json::Value =
        serde_json::from_str(plan).unwrap_or_else(|e| panic!("not a JSON plan ({e}): {plan}"));
    let mut found = BTreeSet::new();
    walk(&plan, &mut found);
    found
}

/// What a plan reads that the cache does not watch.
fn unwatched(plan: &str) -> BTreeSet<String> {
    relations(plan)
        .into_iter()
        .filter(|relation| !WATCHED.iter().any(|watched| watched.table == relation))
        .collect()
}

fn connect(db: &TestDb) -> PgConnection {
    PgConnection::establish(db.url()).unwrap_or_else(|e| panic!("PostgreSQL: {e}"))
}

/// The plans of the session statements, with and without an organization.
fn session_plans(conn: &mut PgConnection) -> Vec<String> {
    let (family, org) = (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string());
    vec![
        Explain(session_statement!(family.as_str()))
            .get_result::<String>(conn)
            .unwrap(),
        Explain(session_in_org_statement!(family.as_str(), org.as_str()))
            .get_result::<String>(conn)
            .unwrap(),
    ]
}

#[test]
fn the_session_statement_reads_only_watched_tables() {
    let db = fresh(Backend::Postgres);
    let mut conn = connect(&db);
    for plan in session_plans(&mut conn) {
        let read = relations(&plan);
        // The check sees through subqueries: the statement's own tables are there.
        for table in ["refresh_tokens", "platform_admins", "factors", "passkeys"] {
            assert!(read.contains(table), "{table} is not in the plan: {read:?}");
        }
        assert_eq!(unwatched(&plan), BTreeSet::new(), "{plan}");
    }
    // And it would see a table read beside them: the same statement with a subquery of the accounts.
    let family = uuid::Uuid::new_v4().to_string();
    let with_accounts = session_statement!(family.as_str())
        .filter(diesel::dsl::exists(crate::schema::accounts::table.filter(
            crate::schema::accounts::id.eq(crate::schema::refresh_tokens::user_id),
        )));
    let plan = Explain(with_accounts).get_result::<String>(&mut conn).unwrap();
    assert_eq!(
        unwatched(&plan),
        BTreeSet::from(["accounts".to_owned()]),
        "{plan}"
    );
}

/// A trigger of a watched table, as `pg_trigger` has it.
#[derive(QueryableByName, Debug)]
struct Trigger {
    #[diesel(sql_type = Text)]
    function: String,
    #[diesel(sql_type = Integer)]
    kind: i32,
    #[diesel(sql_type = Array<Text>)]
    arguments: Vec<String>,
    #[diesel(sql_type = Nullable<Array<Text>>)]
    columns: Option<Vec<String>>,
    #[diesel(sql_type = Bool)]
    enabled: bool,
}

/// `pg_trigger.tgtype`'s bits.
const ROW: i32 = 1;
const BEFORE: i32 = 2;
const INSERT: i32 = 4;
const DELETE: i32 = 8;
const UPDATE: i32 = 16;
const TRUNCATE: i32 = 32;

fn triggers(conn: &mut PgConnection, table: &str) -> Vec<Trigger> {
    diesel::sql_query(
        "SELECT p.proname AS function, t.tgtype::int AS kind, \
                coalesce(string_to_array(nullif(encode(t.tgargs, 'escape'), ''), '\\000'), '{}') AS arguments, \
                (SELECT array_agg(a.attname::text ORDER BY a.attname) FROM unnest(t.tgattr::int2[]) AS k(num) \
                 JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = k.num) AS columns, \
                t.tgenabled <> 'D' AS enabled \
         FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid \
         WHERE t.tgrelid = to_regclass($1) AND NOT t.tgisinternal",
    )
    .bind::<Text, _>(table)
    .load(conn)
    .unwrap_or_else(|e| panic!("triggers of {table}: {e}"))
}

/// What is wrong with the triggers of `watched`: every insert, update (of the declared columns), delete and
/// truncate must announce its notice, after the change.
fn contract_breaches(conn: &mut PgConnection, watched: &Watched) -> Vec<String> {
    let found = triggers(conn, watched.table);
    let mut breaches = Vec::new();
    for (event, bit) in [
        ("INSERT", INSERT),
        ("UPDATE", UPDATE),
        ("DELETE", DELETE),
        ("TRUNCATE", TRUNCATE),
    ] {
        let announces = found.iter().any(|trigger| {
            let row_level = bit != TRUNCATE;
            let right_function = if row_level {
                trigger.function == watched.function
            } else {
                trigger.function == "live_cache_notice"
            };
            let right_arguments = !row_level
                || watched.function != "live_cache_notice"
                || trigger
                    .arguments
                    .iter()
                    .filter(|argument| !argument.is_empty())
                    .eq([watched.kind.letter(), watched.column]);
            let right_columns = bit != UPDATE
                || match (watched.updated_columns, &trigger.columns) {
                    (_, None) => true,
                    (Some(declared), Some(columns)) => {
                        let mut declared: Vec<&str> = declared.to_vec();
                        declared.sort_unstable();
                        columns.iter().map(String::as_str).eq(declared)
                    }
                    (None, Some(_)) => false,
                };
            trigger.enabled
                && trigger.kind & bit != 0
                && trigger.kind & BEFORE == 0
                && (trigger.kind & ROW != 0) == row_level
                && right_function
                && right_arguments
                && right_columns
        });
        if !announces {
            breaches.push(format!("{}: no trigger announces {event}", watched.table));
        }
    }
    breaches
}

#[test]
fn every_watched_table_announces_every_change() {
    let db = fresh(Backend::Postgres);
    let mut conn = connect(&db);
    let breaches: Vec<String> = WATCHED
        .iter()
        .flat_map(|watched| contract_breaches(&mut conn, watched))
        .collect();
    assert_eq!(breaches, Vec::<String>::new());
    // Every kind of notice is announced by some table.
    for kind in [
        NoticeKind::Family,
        NoticeKind::User,
        NoticeKind::Org,
        NoticeKind::Apps,
    ] {
        assert!(WATCHED.iter().any(|watched| watched.kind == kind), "{kind:?}");
    }
}

#[test]
fn a_dropped_trigger_breaks_the_contract() {
    let db = fresh(Backend::Postgres);
    let mut conn = connect(&db);
    conn.batch_execute(
        "DROP TRIGGER passkeys_live_cache ON passkeys; \
         DROP TRIGGER org_members_live_cache_truncate ON org_members",
    )
    .unwrap();
    let breaches: Vec<String> = WATCHED
        .iter()
        .flat_map(|watched| contract_breaches(&mut conn, watched))
        .collect();
    assert_eq!(
        breaches,
        [
            "passkeys: no trigger announces INSERT",
            "passkeys: no trigger announces UPDATE",
            "passkeys: no trigger announces DELETE",
            "org_members: no trigger announces TRUNCATE",
        ]
    );
}

#[test]
fn the_listener_looks_for_every_watched_table() {
    let query = super::contract::channel_query();
    for watched in WATCHED {
        assert!(query.contains(&format!("'{}'", watched.table)), "{query}");
    }
    assert!(query.contains(&format!("found = {}", WATCHED.len())), "{query}");
    // And the query answers on a migrated schema: one schema holds every watched table.
    let db = fresh(Backend::Postgres);
    let mut conn = connect(&db);
    #[derive(QueryableByName)]
    struct Single {
        #[diesel(sql_type = Bool)]
        single: bool,
    }
    let answer: Single = diesel::sql_query(query).get_result(&mut conn).unwrap();
    assert!(answer.single);
}
