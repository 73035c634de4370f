//! Server secrets shared by every instance: created once, then always the same value.

use adapter_db::repos::ServerSecrets;
use std::collections::HashSet;

contract! {
    async fn a_secret_is_created_once_and_then_read_back(db) {
        let secrets = ServerSecrets::new(db.clone());
        let first = secrets.get_or_create("core_key", || "generated-1".to_owned()).await.unwrap();
        assert_eq!(first, "generated-1");
        let second = secrets.get_or_create("core_key", || "generated-2".to_owned()).await.unwrap();
        assert_eq!(second, "generated-1", "the stored value wins over a new one");
        let again = ServerSecrets::new(db.clone());
        assert_eq!(again.get_or_create("core_key", String::new).await.unwrap(), "generated-1");
    }

    async fn secrets_of_different_names_are_independent(db) {
        let secrets = ServerSecrets::new(db.clone());
        assert_eq!(secrets.get_or_create("core_key", || "c".to_owned()).await.unwrap(), "c");
        assert_eq!(secrets.get_or_create("identity_key", || "i".to_owned()).await.unwrap(), "i");
        assert_eq!(secrets.get_or_create("core_key", || "x".to_owned()).await.unwrap(), "c");
        assert_eq!(secrets.get_or_create("identity_key", || "y".to_owned()).await.unwrap(), "i");
    }

    async fn concurrent_first_uses_all_get_the_same_value(db) {
        let mut tasks = Vec::new();
        for i in 0..16 {
            let secrets = ServerSecrets::new(db.clone());
            tasks.push(tokio::spawn(async move {
                secrets.get_or_create("shared", move || format!("candidate-{i}")).await
            }));
        }
        let mut values = HashSet::new();
        for task in tasks {
            values.insert(task.await.unwrap().unwrap());
        }
        assert_eq!(values.len(), 1, "{values:?}");
        let stored = ServerSecrets::new(db.clone()).get_or_create("shared", String::new).await.unwrap();
        assert!(values.contains(&stored));
    }
}
