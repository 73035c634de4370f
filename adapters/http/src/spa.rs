//! The built web UI. A path that names a file serves it; a path whose page was rendered at build time
//! (`prerendered/<path>.html`, `prerendered/index.html` for `/`) serves that page, which paints before its
//! JavaScript arrives; any other path serves `index.html`, so that the browser's router handles it (and
//! shows its own 404 page). Hashed assets are cached for a year; the pages are revalidated every time.

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
            // Not `web::get()`: a default service ignores a route's guard, so POST, PUT, DELETE, TRACE… got
            // the page too. `serve` answers them 405 itself.
            .default_service(web::to(serve));
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
    use actix_web::ResponseError;
    use actix_web::http::Method;
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return crate::ApiError::MethodNotAllowed {
            method: req.method().to_string(),
            allow: "GET, HEAD".into(),
        }
        .error_response();
    }
    let root = &dir.0;
    if let Some(relative) = safe_relative(req.path()) {
        let candidate = root.join(&relative);
        if !relative.as_os_str().is_empty() && candidate.is_file() {
            let immutable = relative.starts_with("assets");
            return file_response(&req, &candidate, immutable);
        }
        if let Some(page) = prerendered_page(root, &relative) {
            return file_response(&req, &page, false);
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

/// The Content-Security-Policy sources (`'sha256-…'`) of the inline scripts in the pages rendered at build
/// time (the one that applies the stored colour mode before the first paint), from the list the build
/// writes next to them. None when there is no list; a line that is not such a hash is left out and logged.
#[must_use]
pub fn inline_script_sources(dir: &Path) -> Vec<String> {
    let list = dir.join("prerendered").join("script-hashes.txt");
    let Ok(text) = std::fs::read_to_string(&list) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .filter(|line| {
            let ok = is_script_hash(line);
            if !ok {
                tracing::warn!(line, path = %list.display(), "not a script hash; left out of the CSP");
            }
            ok
        })
        .map(str::to_owned)
        .collect()
}

fn is_script_hash(source: &str) -> bool {
    source
        .strip_prefix("'sha256-")
        .and_then(|rest| rest.strip_suffix('\''))
        .is_some_and(|b64| {
            !b64.is_empty()
                && b64
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        })
}

/// The page rendered at build time for a request path, if there is one.
fn prerendered_page(root: &Path, relative: &Path) -> Option<PathBuf> {
    let name = if relative.as_os_str().is_empty() {
        PathBuf::from("index.html")
    } else {
        let mut name = relative.to_path_buf().into_os_string();
        name.push(".html");
        PathBuf::from(name)
    };
    let page = root.join("prerendered").join(name);
    page.is_file().then_some(page)
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
    fn prerendered_pages_are_found_by_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("prerendered")).unwrap();
        std::fs::write(dir.path().join("prerendered/index.html"), "home").unwrap();
        std::fs::write(dir.path().join("prerendered/signin.html"), "sign in").unwrap();
        assert_eq!(
            prerendered_page(dir.path(), Path::new("")),
            Some(dir.path().join("prerendered/index.html"))
        );
        assert_eq!(
            prerendered_page(dir.path(), Path::new("signin")),
            Some(dir.path().join("prerendered/signin.html"))
        );
        assert_eq!(prerendered_page(dir.path(), Path::new("dashboard")), None);
        assert_eq!(prerendered_page(dir.path(), Path::new("signin/more")), None);
    }

    #[test]
    fn script_hashes_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        assert!(inline_script_sources(dir.path()).is_empty());
        std::fs::create_dir(dir.path().join("prerendered")).unwrap();
        std::fs::write(
            dir.path().join("prerendered/script-hashes.txt"),
            "'sha256-5N+sAeZlvUlVQOuVAuSI3KIoigE7c64l2sH+qBCARps='\n\n'unsafe-inline'\nsha256-abc\n",
        )
        .unwrap();
        assert_eq!(
            inline_script_sources(dir.path()),
            vec!["'sha256-5N+sAeZlvUlVQOuVAuSI3KIoigE7c64l2sH+qBCARps='".to_owned()]
        );
    }

    #[test]
    fn traversal_and_hidden_files_are_refused() {
        assert_eq!(safe_relative("/../etc/passwd"), None);
        assert_eq!(safe_relative("/assets/../../secret"), None);
        assert_eq!(safe_relative("/.env"), None);
        assert_eq!(safe_relative("/a\\b"), None);
    }
}
