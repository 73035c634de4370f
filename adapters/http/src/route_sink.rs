//! Where the routes are registered: on actix-web's own `ServiceConfig` when serving, on utoipa-actix-web's
//! when the OpenAPI document is collected ([`crate::openapi::document`]). The routes are listed once
//! ([`crate::documented_routes`] and each module's `routes`), generic over [`RouteSink`], so that a route
//! still cannot be served without being described.
//!
//! Serving through utoipa-actix-web built the paths and schemas of every route in every worker as it
//! registered them: an idle server kept about 7.5 MB more of anonymous memory (most likely the workers'
//! allocator arenas) and 2.3 MB more of resident code (docs/benchmarks.md).

use std::future::Future;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{HttpServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::{Next, from_fn};
use actix_web::{Error, Route, web};
use utoipa_actix_web::OpenApiFactory;
use utoipa_actix_web::service_config::ServiceConfig as DescribedConfig;

/// A registration of routes: actix-web's `ServiceConfig` (serving) or utoipa-actix-web's (describing).
pub trait RouteSink {
    /// What the routes of a [`scope`](Self::scope) are registered on.
    type Scoped<'a>: RouteSink;

    /// Registers a handler; its method, path and description come from its `#[utoipa::path]` attribute.
    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: HttpServiceFactory + OpenApiFactory + 'static;

    /// What answers the requests that none of the routes matches.
    fn default_service(&mut self, route: Route) -> &mut Self;

    /// Registers the routes that `routes` adds (a module's `routes` function).
    fn configure(&mut self, routes: impl FnOnce(&mut Self)) -> &mut Self {
        routes(self);
        self
    }

    /// Registers the routes that `routes` adds under `path`, every request of the scope passing through
    /// `middleware` (a function for [`actix_web::middleware::from_fn`]).
    fn scope<M, Fut, B>(
        &mut self,
        path: &str,
        middleware: M,
        routes: impl FnOnce(&mut Self::Scoped<'_>),
    ) -> &mut Self
    where
        M: Fn(ServiceRequest, Next<BoxBody>) -> Fut + 'static,
        Fut: Future<Output = Result<ServiceResponse<B>, Error>> + 'static,
        B: MessageBody + 'static;
}

/// Serving: plain actix-web, nothing described.
impl RouteSink for web::ServiceConfig {
    type Scoped<'a> = Self;

    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: HttpServiceFactory + OpenApiFactory + 'static,
    {
        Self::service(self, factory)
    }

    fn default_service(&mut self, route: Route) -> &mut Self {
        Self::default_service(self, route)
    }

    fn scope<M, Fut, B>(
        &mut self,
        path: &str,
        middleware: M,
        routes: impl FnOnce(&mut Self::Scoped<'_>),
    ) -> &mut Self
    where
        M: Fn(ServiceRequest, Next<BoxBody>) -> Fut + 'static,
        Fut: Future<Output = Result<ServiceResponse<B>, Error>> + 'static,
        B: MessageBody + 'static,
    {
        Self::service(self, web::scope(path).wrap(from_fn(middleware)).configure(routes))
    }
}

/// Describing: the routes' paths and schemas are collected into the OpenAPI document.
impl RouteSink for DescribedConfig<'_> {
    type Scoped<'a> = DescribedConfig<'a>;

    fn service<F>(&mut self, factory: F) -> &mut Self
    where
        F: HttpServiceFactory + OpenApiFactory + 'static,
    {
        Self::service(self, factory)
    }

    fn default_service(&mut self, route: Route) -> &mut Self {
        Self::default_service(self, route)
    }

    fn scope<M, Fut, B>(
        &mut self,
        path: &str,
        middleware: M,
        routes: impl FnOnce(&mut Self::Scoped<'_>),
    ) -> &mut Self
    where
        M: Fn(ServiceRequest, Next<BoxBody>) -> Fut + 'static,
        Fut: Future<Output = Result<ServiceResponse<B>, Error>> + 'static,
        B: MessageBody + 'static,
    {
        Self::service(
            self,
            utoipa_actix_web::scope(path)
                .wrap(from_fn(middleware))
                .configure(routes),
        )
    }
}
