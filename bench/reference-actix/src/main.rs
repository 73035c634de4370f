//! The reference of `make bench`'s API figures: a plain actix-web server answering every `GET` with the
//! bytes of one file, as `application/json` with `Cache-Control: no-store` — what the portal answers for
//! the measured call, without authentication, database or middleware.
//!
//! ```text
//! reference-actix <127.0.0.1:PORT> <BODY-FILE> [WORKERS]
//! ```
//!
//! `WORKERS` defaults to actix-web's default (one per core), as the portal's server.

use actix_web::{App, HttpResponse, HttpServer, web};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: reference-actix <ADDRESS:PORT> <BODY-FILE> [WORKERS]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(address), Some(file)) = (args.first(), args.get(1)) else {
        return usage();
    };
    let workers = match args.get(2).map(|text| text.parse::<usize>()) {
        None => None,
        Some(Ok(count)) if count > 0 => Some(count),
        Some(_) => return usage(),
    };
    let body = match std::fs::read(file) {
        Ok(bytes) => web::Bytes::from(bytes),
        Err(error) => {
            eprintln!("reference-actix: cannot read {file}: {error}");
            return ExitCode::FAILURE;
        }
    };
    match serve(address, body, workers) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("reference-actix: {error}");
            ExitCode::FAILURE
        }
    }
}

#[actix_web::main]
async fn serve(address: &str, body: web::Bytes, workers: Option<usize>) -> std::io::Result<()> {
    let mut server = HttpServer::new(move || {
        let body = body.clone();
        App::new().default_service(web::get().to(move || {
            let body = body.clone();
            async move {
                HttpResponse::Ok()
                    .content_type("application/json")
                    .insert_header(("Cache-Control", "no-store"))
                    .body(body)
            }
        }))
    })
    .bind(address)?;
    if let Some(count) = workers {
        server = server.workers(count);
    }
    server.run().await
}
