// The diesel schema of both migration sets. `make schema-check` migrates fresh SQLite and PostgreSQL
// databases and verifies that every table and column here matches them (name, type, nullability).

diesel::table! {
    server_secrets (name) {
        name -> Text,
        value -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    accounts (id) {
        id -> Text,
        email -> Text,
        password_hash -> Nullable<Text>,
        email_confirmed_at -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        last_sign_in_at -> Nullable<BigInt>,
        profile -> Text,
        display_name -> Nullable<Text>,
        email_proven_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    identities (issuer, subject) {
        issuer -> Text,
        subject -> Text,
        user_id -> Text,
        email -> Nullable<Text>,
        email_verified -> Bool,
        created_at -> BigInt,
        provider -> Text,
    }
}

diesel::table! {
    refresh_tokens (token_hash) {
        token_hash -> Text,
        family_id -> Text,
        user_id -> Text,
        created_at -> BigInt,
        last_used_at -> BigInt,
        family_started_at -> BigInt,
        revoked_at -> Nullable<BigInt>,
        replaced_by -> Nullable<Text>,
        method -> Text,
        second_factor_method -> Nullable<Text>,
        second_factor_id -> Nullable<Text>,
        second_factor_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    factors (id) {
        id -> Text,
        user_id -> Text,
        factor_type -> Text,
        status -> Text,
        friendly_name -> Nullable<Text>,
        sealed_secret -> Text,
        last_used_step -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        last_challenged_at -> Nullable<BigInt>,
        webauthn_credential_id -> Nullable<Text>,
        webauthn_public_key -> Nullable<Text>,
        webauthn_sign_count -> Nullable<BigInt>,
    }
}

diesel::table! {
    factor_challenges (id) {
        id -> Text,
        factor_id -> Text,
        created_at -> BigInt,
        verified_at -> Nullable<BigInt>,
        ip_address -> Text,
        webauthn_kind -> Nullable<Text>,
        webauthn_state -> Nullable<Text>,
    }
}

diesel::table! {
    recovery_codes (id) {
        id -> Text,
        factor_id -> Text,
        code_hash -> Text,
        created_at -> BigInt,
        used_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    passkeys (id) {
        id -> Text,
        user_id -> Text,
        credential_id -> Text,
        public_key -> Text,
        sign_count -> BigInt,
        friendly_name -> Nullable<Text>,
        created_at -> BigInt,
        last_used_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    session_clients (family_id) {
        family_id -> Text,
        user_id -> Text,
        user_agent -> Nullable<Text>,
        ip_address -> Nullable<Text>,
        last_used_at -> BigInt,
    }
}

diesel::table! {
    webauthn_challenges (id) {
        id -> Text,
        user_id -> Nullable<Text>,
        kind -> Text,
        state -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    one_time_codes (id) {
        id -> Text,
        purpose -> Text,
        email -> Text,
        code_hash -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
        used_at -> Nullable<BigInt>,
        pending_password_hash -> Nullable<Text>,
        browser_hash -> Nullable<Text>,
        typed -> Bool,
    }
}

diesel::table! {
    failed_codes (email) {
        email -> Text,
        failures -> BigInt,
        last_failed_at -> BigInt,
    }
}

diesel::table! {
    platform_admins (id) {
        id -> Text,
        email -> Text,
        user_id -> Nullable<Text>,
        role -> Text,
        added_at -> BigInt,
        added_by -> Nullable<Text>,
    }
}

diesel::table! {
    platform_admin_seeds (email) {
        email -> Text,
        seeded_at -> BigInt,
    }
}

diesel::table! {
    platform_setup_tokens (token_hash) {
        token_hash -> Text,
        expires_at -> BigInt,
    }
}

diesel::table! {
    organizations (id) {
        id -> Text,
        name -> Text,
        website -> Nullable<Text>,
        contact_email -> Nullable<Text>,
        description -> Nullable<Text>,
        logo -> Nullable<Text>,
        created_at -> BigInt,
        updated_at -> BigInt,
        apps_revision -> BigInt,
        require_two_factor -> Bool,
    }
}

diesel::table! {
    org_members (org_id, user_id) {
        org_id -> Text,
        user_id -> Text,
        role -> Text,
        joined_at -> BigInt,
    }
}

diesel::table! {
    org_invites (id) {
        id -> Text,
        org_id -> Text,
        email -> Text,
        role -> Text,
        token_hash -> Text,
        invited_by -> Text,
        invited_at -> BigInt,
        expires_at -> BigInt,
        email_sent_count -> Integer,
        accepted_at -> Nullable<BigInt>,
        accepted_by -> Nullable<Text>,
        cancelled_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    apps (package_name) {
        package_name -> Text,
        org_id -> Text,
        developer_id -> Text,
        name -> Text,
        description -> Text,
        onboarding_instructions -> Text,
        public_url -> Text,
        logo_url -> Text,
        webview_url -> Nullable<Text>,
        is_public -> Bool,
        app_store_status -> Text,
        app_type -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
        review_notes -> Nullable<Text>,
        reviewed_by -> Nullable<Text>,
        reviewed_at -> Nullable<BigInt>,
        tools -> Text,
        settings -> Text,
        hardware_requirements -> Text,
        permissions -> Text,
        shared_with_organization -> Bool,
        shared_with_emails -> Text,
    }
}

diesel::table! {
    app_api_keys (package_name) {
        package_name -> Text,
        key_hash -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    app_share_tokens (package_name) {
        package_name -> Text,
        token -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    review_events (id) {
        id -> Text,
        package_name -> Text,
        org_id -> Text,
        kind -> Text,
        actor_id -> Text,
        actor_email -> Text,
        notes -> Nullable<Text>,
        at -> BigInt,
        detail -> Nullable<Text>,
    }
}

diesel::table! {
    images (id) {
        id -> Text,
        org_id -> Text,
        uploaded_by -> Text,
        content_type -> Text,
        size -> BigInt,
        app_package -> Nullable<Text>,
        created_at -> BigInt,
    }
}

diesel::table! {
    email_outbox (id) {
        id -> Text,
        kind -> Text,
        recipient -> Text,
        subject -> Text,
        body -> Text,
        link -> Nullable<Text>,
        created_at -> BigInt,
        attempts -> Integer,
        next_attempt_at -> BigInt,
        lease_until -> Nullable<BigInt>,
        sent_at -> Nullable<BigInt>,
        failed_at -> Nullable<BigInt>,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Text,
        org_id -> Text,
        url -> Text,
        description -> Text,
        events -> Text,
        enabled -> Bool,
        disabled_reason -> Nullable<Text>,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_secret_until -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        failing_since -> Nullable<BigInt>,
        last_attempt_at -> Nullable<BigInt>,
        last_attempt_ok -> Nullable<Bool>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Text,
        endpoint_id -> Text,
        org_id -> Text,
        event_type -> Text,
        event_at -> BigInt,
        data -> Text,
        created_at -> BigInt,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Nullable<BigInt>,
        lease_until -> Nullable<BigInt>,
        last_attempt_at -> Nullable<BigInt>,
        last_status -> Nullable<Integer>,
        last_duration_ms -> Nullable<Integer>,
        last_response -> Nullable<Text>,
        last_error -> Nullable<Text>,
    }
}

diesel::table! {
    webhook_manual_sends (id) {
        id -> Text,
        org_id -> Text,
        endpoint_id -> Text,
        at -> BigInt,
    }
}

diesel::table! {
    uptime_monitor (package_name) {
        package_name -> Text,
        check_slot_at -> BigInt,
        lease_until -> Nullable<BigInt>,
        consecutive_failures -> Integer,
        last_health -> Nullable<Text>,
        last_online -> Nullable<Bool>,
        last_checked_at -> Nullable<BigInt>,
        offline_alert_at -> Nullable<BigInt>,
        last_changed_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    uptime_checks (package_name, checked_at) {
        package_name -> Text,
        checked_at -> BigInt,
        health -> Text,
        online -> Bool,
        http_status -> Nullable<Integer>,
        latency_ms -> Nullable<Integer>,
        healthy -> Bool,
    }
}

diesel::table! {
    uptime_daily (package_name, day) {
        package_name -> Text,
        day -> Text,
        healthy -> Integer,
        unhealthy -> Integer,
        total -> Integer,
        latency_sum_ms -> BigInt,
        latency_count -> Integer,
    }
}

diesel::table! {
    uptime_state_changes (package_name, changed_at) {
        package_name -> Text,
        changed_at -> BigInt,
        online -> Bool,
        health -> Text,
    }
}

diesel::table! {
    rate_limit_counters (key, window_start) {
        key -> Text,
        window_start -> BigInt,
        count -> BigInt,
        expires_at -> BigInt,
    }
}

diesel::table! {
    oauth_flows (state_hash) {
        state_hash -> Text,
        provider -> Text,
        code_challenge -> Text,
        code_challenge_method -> Text,
        redirect_to -> Text,
        nonce -> Text,
        provider_verifier -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
    }
}

diesel::table! {
    oauth_auth_codes (code_hash) {
        code_hash -> Text,
        code_challenge -> Text,
        code_challenge_method -> Text,
        provider -> Text,
        issuer -> Text,
        subject -> Text,
        email -> Nullable<Text>,
        email_verified -> Bool,
        claims -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
    }
}

diesel::joinable!(identities -> accounts (user_id));
diesel::joinable!(refresh_tokens -> accounts (user_id));
diesel::joinable!(factors -> accounts (user_id));
diesel::joinable!(factor_challenges -> factors (factor_id));
diesel::joinable!(recovery_codes -> factors (factor_id));
diesel::joinable!(session_clients -> accounts (user_id));
diesel::joinable!(passkeys -> accounts (user_id));
diesel::joinable!(platform_admins -> accounts (user_id));
diesel::joinable!(org_members -> organizations (org_id));
diesel::joinable!(webhook_endpoints -> organizations (org_id));
diesel::joinable!(webhook_deliveries -> webhook_endpoints (endpoint_id));
diesel::joinable!(org_members -> accounts (user_id));
diesel::joinable!(access_tokens -> accounts (user_id));
diesel::joinable!(org_invites -> organizations (org_id));
diesel::joinable!(apps -> organizations (org_id));
diesel::joinable!(app_api_keys -> apps (package_name));
diesel::joinable!(app_share_tokens -> apps (package_name));
diesel::table! {
    audit_log (id) {
        id -> Text,
        at -> BigInt,
        org_id -> Nullable<Text>,
        platform -> Bool,
        actor_id -> Nullable<Text>,
        actor_email -> Text,
        action -> Text,
        target_kind -> Nullable<Text>,
        target_id -> Nullable<Text>,
        target_label -> Nullable<Text>,
        changes -> Text,
        client_ip -> Nullable<Text>,
        user_agent -> Nullable<Text>,
        via_token -> Nullable<Text>,
    }
}

diesel::table! {
    access_tokens (id) {
        id -> Text,
        user_id -> Text,
        org_id -> Nullable<Text>,
        name -> Text,
        scopes -> Text,
        secret_digest -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
        revoked_at -> Nullable<BigInt>,
        expiry_recorded -> Bool,
        last_used_at -> Nullable<BigInt>,
        last_used_ip -> Nullable<Text>,
        made_aal -> Text,
        made_first_factor_at -> Nullable<BigInt>,
        made_by_family -> Nullable<Text>,
        made_raised_by -> Nullable<Text>,
    }
}

diesel::joinable!(review_events -> apps (package_name));
diesel::joinable!(images -> organizations (org_id));
diesel::joinable!(uptime_monitor -> apps (package_name));
diesel::joinable!(uptime_checks -> apps (package_name));
diesel::joinable!(uptime_daily -> apps (package_name));
diesel::joinable!(uptime_state_changes -> apps (package_name));

diesel::allow_tables_to_appear_in_same_query!(
    audit_log,
    server_secrets,
    accounts,
    identities,
    refresh_tokens,
    factors,
    factor_challenges,
    recovery_codes,
    session_clients,
    passkeys,
    webauthn_challenges,
    one_time_codes,
    failed_codes,
    platform_admins,
    platform_admin_seeds,
    platform_setup_tokens,
    organizations,
    org_members,
    access_tokens,
    org_invites,
    apps,
    app_api_keys,
    app_share_tokens,
    review_events,
    images,
    email_outbox,
    webhook_endpoints,
    webhook_deliveries,
    uptime_monitor,
    uptime_checks,
    uptime_daily,
    uptime_state_changes,
    rate_limit_counters,
    oauth_flows,
    oauth_auth_codes,
);
