//! The built web UI. A path that names a file serves it; any other path serves `index.html`, so that the
//! browser's router handles it (and shows its own 404 page). Hashed assets are cached for a year; the
//! entry page is revalidated every time.

use actix_files::NamedFile;
use actix_web::http::header::{CACHE_CONTROL, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use std::path::{Path, PathBuf};

/// The built UI's folder.
#[derive(Debug, Clone)]
struct FrontendDir(PathBuf);

pub fn configure(dir: PathBuf) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(web::Data::new(FrontendDir(dir)))
            .default_service(web::get().to(serve));
    }
}

/// A request path made safe to join onto the folder: no `..`, no hidden segments, no backslashes.
fn safe_relative(path: &str) -> Option<PathBuf> {
    let mut relative = PathBuf::new();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if segment.starts_with('.') || segment.contains('\\') || segment.contains('\0') {
            return None;
        }
        relative.push(segment);
    }
    Some(relative)
}

async fn serve(req: HttpRequest, dir: web::Data<FrontendDir>) -> HttpResponse {
    let root = &dir.0;
    if let Some(relative) = safe_relative(req.path()) {
        let candidate = root.join(&relative);
        if !relative.as_os_str().is_empty() && candidate.is_file() {
            let immutable = relative.starts_with("assets");
            return file_response(&req, &candidate, immutable);
        }
    }
    let index = root.join("index.html");
    if index.is_file() {
        return file_response(&req, &index, false);
    }
    HttpResponse::ServiceUnavailable()
        .content_type("text/plain; charset=utf-8")
        .body("The web UI has not been built. Run `make run` (or `npm run build` in frontend/).")
}

fn file_response(req: &HttpRequest, path: &Path, immutable: bool) -> HttpResponse {
    match NamedFile::open(path) {
        Ok(file) => {
            let mut response = file.use_etag(true).use_last_modified(true).into_response(req);
            let cache = if immutable {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            };
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static(cache));
            response
        }
        Err(error) => {
            tracing::error!(%error, path = %path.display(), "could not open a web UI file");
            HttpResponse::InternalServerError().finish()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_paths_are_safe() {
        assert_eq!(
            safe_relative("/assets/app.js"),
            Some(PathBuf::from("assets/app.js"))
        );
        assert_eq!(safe_relative("/"), Some(PathBuf::new()));
    }

    #[test]
    fn traversal_and_hidden_files_are_refused() {
        assert_eq!(safe_relative("/../etc/passwd"), None);
        assert_eq!(safe_relative("/assets/../../secret"), None);
        assert_eq!(safe_relative("/.env"), None);
        assert_eq!(safe_relative("/a\\b"), None);
    }
}
