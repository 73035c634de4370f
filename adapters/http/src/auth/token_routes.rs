//! Where a personal access token works, and which scope each such route needs: the one list. A route not
//! listed here refuses tokens (403 `TOKEN_NOT_ALLOWED`) before anything is read: `/auth/v1`, staff routes,
//! token management, member and organization management, sharing, images, sessions.

use actix_web::http::Method;
use domain::tokens::Scope;

/// What a token may do on a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenRoute {
    /// Any token works (who am I, which organizations).
    AnyScope,
    /// A token with this scope works.
    Needs(Scope),
    /// No token works.
    Refused,
}

/// The routes a token may use: (method, route pattern as actix-web matched it, what it needs).
const ROUTES: &[(Method, &str, TokenRoute)] = &[
    (Method::GET, "/api/dev/auth/me", TokenRoute::AnyScope),
    (Method::GET, "/api/orgs", TokenRoute::AnyScope),
    (Method::GET, "/api/orgs/{orgId}", TokenRoute::AnyScope),
    (Method::GET, "/api/dev/apps", TokenRoute::Needs(Scope::AppsRead)),
    (Method::GET, "/api/dev/apps/{packageName}", TokenRoute::Needs(Scope::AppsRead)),
    (Method::GET, "/api/dev/apps/{packageName}/config", TokenRoute::Needs(Scope::AppsRead)),
    (Method::GET, "/api/dev/apps/{packageName}/history", TokenRoute::Needs(Scope::AppsRead)),
    (Method::GET, "/api/dev/apps/{packageName}/health-check", TokenRoute::Needs(Scope::AppsRead)),
    (Method::GET, "/api/permissions/{packageName}", TokenRoute::Needs(Scope::AppsRead)),
    (Method::POST, "/api/dev/apps/register", TokenRoute::Needs(Scope::AppsWrite)),
    (Method::PUT, "/api/dev/apps/{packageName}", TokenRoute::Needs(Scope::AppsWrite)),
    (Method::DELETE, "/api/dev/apps/{packageName}", TokenRoute::Needs(Scope::AppsWrite)),
    (Method::PATCH, "/api/permissions/{packageName}", TokenRoute::Needs(Scope::AppsWrite)),
    (Method::POST, "/api/dev/apps/{packageName}/publish", TokenRoute::Needs(Scope::AppsPublish)),
    (Method::POST, "/api/dev/apps/{packageName}/api-key", TokenRoute::Needs(Scope::AppsKeys)),
];

/// What a token may do on the route `pattern` (actix-web's match pattern, such as
/// `/api/dev/apps/{packageName}`) with `method`.
#[must_use]
pub fn token_route(method: &Method, pattern: Option<&str>) -> TokenRoute {
    let Some(pattern) = pattern else {
        return TokenRoute::Refused;
    };
    ROUTES
        .iter()
        .find(|(m, p, _)| m == method && *p == pattern)
        .map_or(TokenRoute::Refused, |(_, _, route)| *route)
}

/// Every route a token works on, for the documentation and the authorization matrix.
pub fn token_routes() -> impl Iterator<Item = (&'static Method, &'static str, TokenRoute)> {
    ROUTES.iter().map(|(method, pattern, route)| (method, *pattern, *route))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_listed_routes_take_a_token() {
        assert_eq!(
            token_route(&Method::GET, Some("/api/dev/apps")),
            TokenRoute::Needs(Scope::AppsRead)
        );
        assert_eq!(
            token_route(&Method::POST, Some("/api/dev/apps/{packageName}/api-key")),
            TokenRoute::Needs(Scope::AppsKeys)
        );
        assert_eq!(token_route(&Method::POST, Some("/api/dev/tokens")), TokenRoute::Refused);
        assert_eq!(token_route(&Method::GET, Some("/api/admin/apps/submitted")), TokenRoute::Refused);
        assert_eq!(token_route(&Method::POST, Some("/api/orgs/{orgId}/members")), TokenRoute::Refused);
        assert_eq!(token_route(&Method::DELETE, Some("/api/orgs")), TokenRoute::Refused);
        assert_eq!(token_route(&Method::GET, None), TokenRoute::Refused);
    }
}
