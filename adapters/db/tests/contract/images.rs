//! `ImageRepository`: image rows, org-scoped except for delivery.

// Contracts fail loudly: `unwrap` is the assertion that a call succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fixtures::audit;
use crate::fixtures::{
    self,
    app_fixtures::{at, package},
};
use adapter_db::repos::DieselImageRepository;
use domain::common::{ImageId, OrgId, RepoError, UserId};
use domain::media::{ImageMeta, ImageRepository};

fn meta(org: OrgId, app: Option<&str>, ms: i64) -> ImageMeta {
    ImageMeta {
        id: ImageId::new(),
        org_id: org,
        uploaded_by: UserId::new(),
        content_type: "image/webp".into(),
        size: 10 * 1024 * 1024,
        created_at: at(ms),
        app_package: app.map(package),
    }
}

contract! {
    async fn an_inserted_image_reads_back_unchanged(db) {
        let repo = DieselImageRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let image = meta(org, Some("com.example.notes"), 5);
        repo.insert(&image, &audit()).await.unwrap();
        assert_eq!(repo.get(org, image.id).await.unwrap(), Some(image.clone()));
        assert_eq!(repo.get_for_delivery(image.id).await.unwrap(), Some(image));
        let bare = meta(org, None, 6);
        repo.insert(&bare, &audit()).await.unwrap();
        assert_eq!(repo.get(org, bare.id).await.unwrap(), Some(bare));
    }

    async fn an_existing_image_id_is_a_duplicate(db) {
        let repo = DieselImageRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let image = meta(org, None, 1);
        repo.insert(&image, &audit()).await.unwrap();
        let mut again = meta(org, None, 2);
        again.id = image.id;
        let err = repo.insert(&again, &audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::Duplicate("image_id")), "{err:?}");
        assert_eq!(repo.get(org, image.id).await.unwrap(), Some(image));
    }

    async fn another_org_cannot_read_the_image_but_delivery_can(db) {
        let repo = DieselImageRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let image = meta(acme, None, 1);
        repo.insert(&image, &audit()).await.unwrap();
        assert_eq!(repo.get(other, image.id).await.unwrap(), None);
        assert_eq!(repo.get_for_delivery(image.id).await.unwrap().map(|i| i.org_id), Some(acme));
        assert_eq!(repo.get_for_delivery(ImageId::new()).await.unwrap(), None);
    }

    async fn replace_stores_the_new_image_and_removes_the_old_one(db) {
        let repo = DieselImageRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let old = meta(org, Some("com.example.notes"), 1);
        repo.insert(&old, &audit()).await.unwrap();
        let new = meta(org, Some("com.example.notes"), 2);
        repo.replace(org, old.id, &new, &[audit()]).await.unwrap();
        assert_eq!(repo.get(org, old.id).await.unwrap(), None);
        assert_eq!(repo.get(org, new.id).await.unwrap(), Some(new.clone()));
        assert_eq!(repo.list_for_app(org, &package("com.example.notes")).await.unwrap(), vec![new]);
    }

    async fn replacing_another_orgs_or_a_missing_image_is_not_found_and_stores_nothing(db) {
        let repo = DieselImageRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let old = meta(acme, None, 1);
        repo.insert(&old, &audit()).await.unwrap();
        let new = meta(other, None, 2);
        let err = repo.replace(other, old.id, &new, &[audit()]).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        let err = repo.replace(other, ImageId::new(), &new, &[audit()]).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get_for_delivery(new.id).await.unwrap(), None, "the new row was rolled back");
        assert_eq!(repo.get(acme, old.id).await.unwrap(), Some(old));
    }

    async fn a_failed_insert_of_the_new_image_keeps_the_old_one(db) {
        let repo = DieselImageRepository::new(db.clone());
        let org = fixtures::organization(db, "Acme");
        let old = meta(org, None, 1);
        let taken = meta(org, None, 2);
        repo.insert(&old, &audit()).await.unwrap();
        repo.insert(&taken, &audit()).await.unwrap();
        let mut new = meta(org, None, 3);
        new.id = taken.id;
        let err = repo.replace(org, old.id, &new, &[audit()]).await.unwrap_err();
        assert!(matches!(err, RepoError::Duplicate("image_id")), "{err:?}");
        assert_eq!(repo.get(org, old.id).await.unwrap(), Some(old), "the removal was rolled back");
        assert_eq!(repo.get(org, taken.id).await.unwrap(), Some(taken));
    }

    async fn delete_removes_only_the_orgs_own_image(db) {
        let repo = DieselImageRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let image = meta(acme, None, 1);
        let kept = meta(acme, None, 2);
        repo.insert(&image, &audit()).await.unwrap();
        repo.insert(&kept, &audit()).await.unwrap();
        let err = repo.delete(other, image.id, &audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get(acme, image.id).await.unwrap(), Some(image.clone()));
        repo.delete(acme, image.id, &audit()).await.unwrap();
        assert_eq!(repo.get_for_delivery(image.id).await.unwrap(), None);
        let err = repo.delete(acme, image.id, &audit()).await.unwrap_err();
        assert!(matches!(err, RepoError::NotFound), "{err:?}");
        assert_eq!(repo.get(acme, kept.id).await.unwrap(), Some(kept));
    }

    async fn the_images_of_an_app_are_listed_oldest_first_for_its_org(db) {
        let repo = DieselImageRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let late = meta(acme, Some("com.example.notes"), 30);
        let early = meta(acme, Some("com.example.notes"), 10);
        for image in [
            &late,
            &early,
            &meta(acme, Some("com.example.other"), 20),
            &meta(acme, None, 15),
            &meta(other, Some("com.example.notes"), 5),
        ] {
            repo.insert(image, &audit()).await.unwrap();
        }
        assert_eq!(repo.list_for_app(acme, &package("com.example.notes")).await.unwrap(), vec![early, late]);
        assert_eq!(repo.list_for_app(other, &package("com.example.notes")).await.unwrap().len(), 1);
        assert!(repo.list_for_app(OrgId::new(), &package("com.example.notes")).await.unwrap().is_empty());
    }

    async fn images_nothing_refers_to_are_removed_once_old_enough_and_answered(db) {
        use adapter_db::schema::{apps, organizations};
        use diesel::prelude::*;
        let repo = DieselImageRepository::new(db.clone());
        let (acme, other) = (fixtures::organization(db, "Acme"), fixtures::organization(db, "Other"));
        let developer = fixtures::account(db, "dev@example.com");
        let orphan = meta(acme, None, 10);
        let orphan_of_app = meta(other, Some("com.example.notes"), 11);
        let app_logo = meta(acme, Some("com.example.notes"), 12);
        let org_logo = meta(other, None, 13);
        let recent = meta(acme, None, 500);
        for image in [&orphan, &orphan_of_app, &app_logo, &org_logo, &recent] {
            repo.insert(image, &audit()).await.unwrap();
        }
        fixtures::app(db, acme, developer, "com.example.notes");
        {
            let mut conn = db.connection().unwrap();
            diesel::update(apps::table.filter(apps::package_name.eq("com.example.notes")))
                .set(apps::logo_url.eq(format!("https://portal.example.com/api/images/{}", app_logo.id)))
                .execute(&mut *conn)
                .unwrap();
            diesel::update(organizations::table.filter(organizations::id.eq(other.to_string())))
                .set(organizations::logo.eq(format!("https://portal.example.com/api/images/{}", org_logo.id)))
                .execute(&mut *conn)
                .unwrap();
        }
        // One at a time, oldest first; then the rest; an image newer than the cutoff stays.
        assert_eq!(repo.remove_unreferenced(at(100), 1).await.unwrap(), vec![orphan.clone()]);
        assert_eq!(repo.remove_unreferenced(at(100), 10).await.unwrap(), vec![orphan_of_app.clone()]);
        assert!(repo.remove_unreferenced(at(100), 10).await.unwrap().is_empty());
        for kept in [&app_logo, &org_logo, &recent] {
            assert_eq!(repo.get_for_delivery(kept.id).await.unwrap().as_ref(), Some(kept));
        }
        assert_eq!(repo.get_for_delivery(orphan.id).await.unwrap(), None);
    }
}
