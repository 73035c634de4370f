//! The outbox worker on shutdown, against a slow SMTP server on loopback, on SQLite and PostgreSQL: the
//! e-mails it claimed but had not sent when asked to stop are given back, due at once (not after their
//! 5-minute lease), and none is lost.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_db::Backend;
use adapter_db::repos::enqueue_emails;
use adapter_db::schema::email_outbox;
use adapter_db::testing::fresh;
use app_server::Config;
use app_server::workers::Workers;
use diesel::prelude::*;
use domain::common::EmailAddress;
use domain::mail::{EmailKind, OutgoingEmail};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A minimal SMTP server that takes `delay` to accept each message; counts the messages accepted.
async fn slow_smtp(delay: Duration, accepted: Arc<AtomicUsize>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let accepted = accepted.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 localhost ESMTP\r\n").await.ok();
                let mut in_data = false;
                while let Ok(Some(line)) = lines.next_line().await {
                    let reply: &[u8] = if in_data {
                        if line != "." {
                            continue;
                        }
                        in_data = false;
                        tokio::time::sleep(delay).await;
                        accepted.fetch_add(1, Ordering::SeqCst);
                        b"250 queued\r\n"
                    } else {
                        match line.get(..4).map(str::to_ascii_uppercase).as_deref() {
                            Some("EHLO" | "HELO") => b"250 localhost\r\n",
                            Some("DATA") => {
                                in_data = true;
                                b"354 go on\r\n"
                            }
                            Some("QUIT") => {
                                write.write_all(b"221 bye\r\n").await.ok();
                                return;
                            }
                            _ => b"250 ok\r\n",
                        }
                    };
                    if write.write_all(reply).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

fn confirmation(n: usize) -> OutgoingEmail {
    OutgoingEmail {
        kind: EmailKind::ConfirmSignup,
        to: EmailAddress::parse(&format!("user{n}@example.com")).unwrap(),
        subject: format!("Confirm your sign-up {n}"),
        text: "Follow the link.".into(),
        link: Some(format!("https://portal.example.com/confirm/{n}")),
    }
}

async fn claims_not_sent_at_shutdown_are_due_again_at_once(backend: Backend) {
    let test_db = fresh(backend);
    let db = test_db.db.clone();
    let emails: Vec<OutgoingEmail> = (0..12).map(confirmation).collect();
    db.write(move |conn| enqueue_emails(conn, &emails, chrono::Utc::now()))
        .await
        .unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let port = slow_smtp(Duration::from_millis(600), accepted.clone()).await;
    let vars: HashMap<String, String> = [
        ("DATABASE_URL", test_db.url().to_owned()),
        ("SMTP_URL", format!("smtp://127.0.0.1:{port}")),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let config = Config::from_vars(&vars).unwrap();
    let workers = Workers::start(&config, &db, None, None).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while accepted.load(Ordering::SeqCst) < 2 {
        assert!(std::time::Instant::now() < deadline, "no e-mail went out");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    workers.stop().await;

    let now = chrono::Utc::now().timestamp_millis();
    let rows: Vec<(Option<i64>, Option<i64>, i64)> = email_outbox::table
        .select((
            email_outbox::sent_at,
            email_outbox::lease_until,
            email_outbox::next_attempt_at,
        ))
        .load(&mut *db.connection().unwrap())
        .unwrap();
    assert_eq!(rows.len(), 12);
    let sent = rows.iter().filter(|(sent, ..)| sent.is_some()).count();
    assert!(
        (2..12).contains(&sent),
        "the worker stopped mid-batch: {sent} sent"
    );
    assert_eq!(
        sent,
        accepted.load(Ordering::SeqCst),
        "every e-mail sent is recorded as sent"
    );
    for (sent_at, lease, next) in rows.iter().filter(|(sent, ..)| sent.is_none()) {
        assert_eq!(*lease, None, "released, not leased: {sent_at:?}");
        assert!(*next <= now, "due again at once, not after the lease");
    }
}

#[tokio::test]
async fn claims_not_sent_at_shutdown_are_due_again_at_once_on_sqlite() {
    claims_not_sent_at_shutdown_are_due_again_at_once(Backend::Sqlite).await;
}

#[tokio::test]
async fn claims_not_sent_at_shutdown_are_due_again_at_once_on_postgres() {
    claims_not_sent_at_shutdown_are_due_again_at_once(Backend::Postgres).await;
}
