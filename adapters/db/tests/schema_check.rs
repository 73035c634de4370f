//! `make schema-check`: migrates a fresh SQLite database and a fresh PostgreSQL schema and verifies that
//! the committed `src/schema.rs` describes them exactly: the same tables, the same columns in the same
//! order, each with the same type and nullability.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test-only crate: a failed setup should panic

use adapter_db::testing::fresh;
use adapter_db::{Backend, DbConnection};
use diesel::prelude::*;
use diesel::sql_types::{Integer, Text};
use std::collections::BTreeMap;

type Tables = BTreeMap<String, Vec<(String, String)>>;

/// Tables and columns as `schema.rs` declares them (`column -> Type` or `Nullable<Type>`).
fn declared() -> Tables {
    let source = include_str!("../src/schema.rs");
    let mut tables = Tables::new();
    let mut current: Option<String> = None;
    for line in source.lines().map(str::trim) {
        if let Some(rest) = line.strip_suffix('{').map(str::trim) {
            if let Some((name, _keys)) = rest.split_once(' ')
                && !name.contains("::")
            {
                current = Some(name.to_owned());
                tables.insert(name.to_owned(), Vec::new());
            }
        } else if line == "}" {
            current = None;
        } else if let (Some(table), Some((column, kind))) = (&current, line.split_once("->")) {
            let kind = kind.trim().trim_end_matches(',').to_owned();
            tables
                .get_mut(table)
                .expect("table")
                .push((column.trim().to_owned(), kind));
        }
    }
    tables
}

#[derive(QueryableByName)]
struct SqliteColumn {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    r#type: String,
    #[diesel(sql_type = Integer)]
    notnull: i32,
    #[diesel(sql_type = Integer)]
    pk: i32,
}

#[derive(QueryableByName)]
struct PgColumn {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Text)]
    data_type: String,
    #[diesel(sql_type = Text)]
    is_nullable: String,
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

fn diesel_type(sql: &str) -> String {
    match sql.to_ascii_uppercase().as_str() {
        "TEXT" => "Text",
        "BIGINT" => "BigInt",
        "INTEGER" => "Integer",
        "BOOLEAN" => "Bool",
        other => panic!("no diesel type for the SQL type {other}"),
    }
    .to_owned()
}

fn with_null(kind: String, nullable: bool) -> String {
    if nullable {
        format!("Nullable<{kind}>")
    } else {
        kind
    }
}

fn actual(backend: Backend) -> Tables {
    let test_db = fresh(backend);
    let mut conn = test_db.connection().expect("connection");
    let mut tables = Tables::new();
    match &mut *conn {
        DbConnection::Sqlite(c) => {
            let names: Vec<Name> = diesel::sql_query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
                 AND name != '__diesel_schema_migrations' ORDER BY name",
            )
            .load(c)
            .expect("tables");
            for Name { name } in names {
                let columns: Vec<SqliteColumn> = diesel::sql_query(format!("PRAGMA table_info('{name}')"))
                    .load(c)
                    .expect("columns");
                let described = columns
                    .into_iter()
                    .map(|col| {
                        let nullable = col.notnull == 0 && col.pk == 0;
                        (col.name, with_null(diesel_type(&col.r#type), nullable))
                    })
                    .collect();
                tables.insert(name, described);
            }
        }
        DbConnection::Postgres(c) => {
            let columns: Vec<PgColumn> = diesel::sql_query(
                "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text \
                 FROM information_schema.columns WHERE table_schema = current_schema() \
                 AND table_name != '__diesel_schema_migrations' ORDER BY table_name, ordinal_position",
            )
            .load(c)
            .expect("columns");
            for col in columns {
                let kind = match col.data_type.as_str() {
                    "text" => "Text",
                    "bigint" => "BigInt",
                    "integer" => "Integer",
                    "boolean" => "Bool",
                    other => panic!("no diesel type for the PostgreSQL type {other}"),
                };
                tables.entry(col.table_name).or_default().push((
                    col.column_name,
                    with_null(kind.to_owned(), col.is_nullable == "YES"),
                ));
            }
        }
    }
    tables
}

fn assert_matches(backend: Backend) {
    let declared = declared();
    let actual = actual(backend);
    assert!(!declared.is_empty(), "schema.rs declares no table");
    assert_eq!(
        declared.keys().collect::<Vec<_>>(),
        actual.keys().collect::<Vec<_>>(),
        "{backend:?}: the tables differ"
    );
    for (table, columns) in &declared {
        assert_eq!(
            columns, &actual[table],
            "{backend:?}: the columns of `{table}` differ"
        );
    }
    println!(
        "schema-check: {backend:?} matches schema.rs ({} tables)",
        declared.len()
    );
}

#[test]
fn schema_rs_matches_the_sqlite_migrations() {
    assert_matches(Backend::Sqlite);
}

#[test]
fn schema_rs_matches_the_postgres_migrations() {
    assert_matches(Backend::Postgres);
}
