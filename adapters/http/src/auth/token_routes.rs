//! Where a personal access token works, and which scope each such route needs. Each such route declares it
//! where it is written, in its OpenAPI operation's `security`: `("accessToken" = ["apps:read"])` (a token with
//! that scope works) or `("accessToken" = [])` (any token works). The document served at
//! `/api/openapi.json` therefore shows it, and this module reads it from that same document, once. A route
//! that declares nothing refuses tokens (403 `TOKEN_NOT_ALLOWED`) before anything is read: `/auth/v1`, staff
//! routes, token management, member and organization management, sharing, images, sessions.

use std::collections::HashMap;
use std::sync::OnceLock;

use actix_web::http::Method;
use domain::tokens::Scope;
use serde_json::Value;

use crate::openapi::ACCESS_TOKEN;

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

/// What a token may do on the route `pattern` (actix-web's match pattern, such as
/// `/api/dev/apps/{packageName}`) with `method`.
#[must_use]
pub fn token_route(method: &Method, pattern: Option<&str>) -> TokenRoute {
    let Some(routes) = pattern.and_then(|pattern| declared().get(pattern)) else {
        return TokenRoute::Refused;
    };
    routes
        .iter()
        .find(|(m, _)| m == method.as_str())
        .map_or(TokenRoute::Refused, |(_, route)| *route)
}

/// The routes that take a token, by path: (method, what a token needs), as the served document declares them.
fn declared() -> &'static HashMap<String, Vec<(String, TokenRoute)>> {
    static DECLARED: OnceLock<HashMap<String, Vec<(String, TokenRoute)>>> = OnceLock::new();
    DECLARED.get_or_init(|| {
        let document = serde_json::to_value(crate::openapi::document()).unwrap_or_default();
        let mut by_path: HashMap<String, Vec<(String, TokenRoute)>> = HashMap::new();
        for (method, path, route) in routes_of(&document) {
            by_path.entry(path).or_default().push((method, route));
        }
        by_path
    })
}

/// Every route an OpenAPI `document` (as JSON) lets a token use: (method in capitals, path, what it needs).
/// An operation that lists the access-token scheme with more than one scope, or with a name that is no scope,
/// is left out (refused): the unit test below holds the served document to none.
#[must_use]
pub fn routes_of(document: &Value) -> Vec<(String, String, TokenRoute)> {
    let mut routes = Vec::new();
    let Some(paths) = document["paths"].as_object() else {
        return routes;
    };
    for (path, item) in paths {
        let Some(operations) = item.as_object() else {
            continue;
        };
        for (method, operation) in operations {
            let requirements = operation["security"].as_array().into_iter().flatten();
            let declared = requirements
                .filter_map(|requirement| requirement[ACCESS_TOKEN].as_array())
                .next();
            let route = match declared.map(Vec::as_slice) {
                None => continue,
                Some([]) => TokenRoute::AnyScope,
                Some([name]) => match name.as_str().and_then(Scope::parse) {
                    Some(scope) => TokenRoute::Needs(scope),
                    None => continue,
                },
                Some(_) => continue,
            };
            routes.push((method.to_ascii_uppercase(), path.clone(), route));
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_declared_routes_take_a_token() {
        assert_eq!(
            token_route(&Method::GET, Some("/api/dev/apps")),
            TokenRoute::Needs(Scope::AppsRead)
        );
        assert_eq!(
            token_route(&Method::POST, Some("/api/dev/apps/{packageName}/api-key")),
            TokenRoute::Needs(Scope::AppsKeys)
        );
        assert_eq!(
            token_route(&Method::GET, Some("/api/dev/auth/me")),
            TokenRoute::AnyScope
        );
        assert_eq!(
            token_route(&Method::POST, Some("/api/dev/tokens")),
            TokenRoute::Refused
        );
        assert_eq!(
            token_route(&Method::GET, Some("/api/admin/apps/submitted")),
            TokenRoute::Refused
        );
        assert_eq!(
            token_route(&Method::POST, Some("/api/orgs/{orgId}/members")),
            TokenRoute::Refused
        );
        assert_eq!(
            token_route(&Method::DELETE, Some("/api/orgs")),
            TokenRoute::Refused
        );
        assert_eq!(token_route(&Method::GET, None), TokenRoute::Refused);
    }

    #[test]
    fn every_access_token_declaration_of_the_document_names_at_most_one_known_scope() {
        let document = serde_json::to_value(crate::openapi::document()).unwrap();
        let mut declared = 0;
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let requirements = operation["security"].as_array().into_iter().flatten();
                for scopes in requirements.filter_map(|r| r[ACCESS_TOKEN].as_array()) {
                    declared += 1;
                    assert!(scopes.len() <= 1, "{method} {path}: {scopes:?}");
                    for name in scopes {
                        assert!(
                            name.as_str().and_then(Scope::parse).is_some(),
                            "{method} {path}: {name} is no scope"
                        );
                    }
                }
            }
        }
        assert_eq!(routes_of(&document).len(), declared);
        assert_eq!(declared, 15, "the routes that take a token");
    }
}
