//! The first platform admins: `PORTAL_ADMIN_EMAILS` at start-up and `app-server admin …`.

use crate::helpers::spawn_app_with;
use adapter_db::{Backend, Db};
use app_server::admin_cli::{self, AdminCommand};

fn grant(email: &str, role: &str) -> AdminCommand {
    AdminCommand::Grant {
        email: email.into(),
        role: role.into(),
    }
}

#[tokio::test]
async fn configured_admin_emails_become_platform_admins_at_start_up() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let app = spawn_app_with(
            backend,
            &[("PORTAL_ADMIN_EMAILS", "First@Example.com, second@example.com")],
        )
        .await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        let listed = admin_cli::run(&db, AdminCommand::List).await.unwrap();
        assert!(
            listed.contains("first@example.com") && listed.contains("second@example.com"),
            "{listed}"
        );
        assert_eq!(listed.matches(" admin ").count(), 2, "{backend:?}: {listed}");
    }
}

#[tokio::test]
async fn the_command_line_grants_lists_and_revokes_with_the_same_rules() {
    let app = spawn_app_with(Backend::Sqlite, &[]).await;
    let db = Db::connect(&app.database_url, 2).unwrap();
    assert!(
        admin_cli::run(&db, AdminCommand::List)
            .await
            .unwrap()
            .starts_with("No platform admins yet")
    );
    assert_eq!(
        admin_cli::run(&db, grant("ada@example.com", "admin"))
            .await
            .unwrap(),
        "ada@example.com is now a platform admin"
    );
    admin_cli::run(&db, grant("rev@example.com", "reviewer"))
        .await
        .unwrap();
    let refused = admin_cli::run(&db, grant("not-an-email", "boss"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("Please enter a valid email address"),
        "{refused}"
    );
    let last = admin_cli::run(
        &db,
        AdminCommand::Revoke {
            email: "ada@example.com".into(),
        },
    )
    .await
    .unwrap_err();
    assert_eq!(
        last.to_string(),
        "You cannot remove the last platform admin. Add another admin first."
    );
    admin_cli::run(
        &db,
        AdminCommand::Revoke {
            email: "rev@example.com".into(),
        },
    )
    .await
    .unwrap();
    let listed = admin_cli::run(&db, AdminCommand::List).await.unwrap();
    assert!(
        listed.contains("ada@example.com") && !listed.contains("rev@example.com"),
        "{listed}"
    );
}
