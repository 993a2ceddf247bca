//! The HTTP routes: the client WebSocket (`/ws`) and the operator's endpoints — the
//! admin page `/` (static HTML, `admin.html`, reading the JSON routes below), `/worlds`
//! (the hosted matches, JSON), `/healthz` (the process answers), `/readyz` (it accepts matches), `/metrics`
//! (Prometheus text), `/mods` (the resolved order and why), `POST /reload` (stage the mod
//! folders again; every world switches between two commands, or the last good
//! generation stays), `POST /drain` (stop accepting, save running worlds, exit).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use crate::reload::Staged;

use super::{App, Current, DrainReport};

/// Every route.
pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/worlds", get(worlds))
        .route("/ws", get(ws))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/mods", get(mods))
        .route("/reload", post(reload))
        .route("/drain", post(drain_route))
        .with_state(app)
}

async fn ws(State(app): State<Arc<App>>, upgrade: WebSocketUpgrade) -> Response {
    if app.core.is_draining() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is draining; connect again after it restarts\n",
        )
            .into_response();
    }
    upgrade
        .max_message_size(super::protocol::MAX_FRAME_BYTES)
        .on_upgrade(move |socket| super::conn::connection(socket, app))
}

/// The admin page: one static file, plain JavaScript, no external resources.
const PAGE: &str = include_str!("admin.html");

async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE,
    )
        .into_response()
}

/// Every hosted world, by match id.
async fn worlds(State(app): State<Arc<App>>) -> Json<serde_json::Value> {
    let mut all: Vec<_> = app
        .workers
        .each(|w| w.summaries())
        .await
        .into_iter()
        .flatten()
        .collect();
    all.sort_unstable_by_key(|w| w.match_id);
    Json(json!({
        "generation": app.core.current().gen.number,
        "draining": app.core.is_draining(),
        "worlds": all,
    }))
}

async fn readyz(State(app): State<Arc<App>>) -> Response {
    if app.core.is_draining() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "draining: not accepting matches\n",
        )
            .into_response();
    }
    let gen = app.core.current().gen.number;
    (StatusCode::OK, format!("ready (generation {gen})\n")).into_response()
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let text = app
        .core
        .metrics
        .render(&app.core.current().gen, app.core.is_draining());
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// The mods in force: resolved order, versions, hashes, why each is enabled or not.
fn mods_json(c: &Current) -> serde_json::Value {
    let loaded = &c.stage.loaded;
    let r = &loaded.resolution;
    let order: Vec<serde_json::Value> = r
        .order
        .iter()
        .map(|m| {
            let hash = c.mods.iter().find(|x| x.id == m.id).map(|x| x.hash.clone());
            let disabled = loaded
                .content_disabled
                .iter()
                .find(|(id, _)| *id == m.id)
                .map(|(_, why)| why.clone());
            json!({
                "id": m.id,
                "version": m.version.to_string(),
                "hash": hash,
                "loaded": loaded.loaded.contains(&m.id),
                "why": r.explain(&m.id).unwrap_or_default(),
                "disabled_because": disabled,
                "required_by": m.required_by,
            })
        })
        .collect();
    let errors: Vec<String> = loaded
        .all_diagnostics()
        .filter(|d| d.is_error())
        .map(|d| d.render(false))
        .collect();
    json!({
        "generation": c.gen.number,
        "order": order,
        "summary": r.summary(),
        "errors": errors,
    })
}

async fn mods(State(app): State<Arc<App>>) -> Json<serde_json::Value> {
    Json(mods_json(&app.core.current()))
}

async fn reload(State(app): State<Arc<App>>) -> Response {
    if app.core.is_draining() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"ok": false, "error": "the server is draining"})),
        )
            .into_response();
    }
    let _one_at_a_time = app.reloading.lock().await;
    let started = Instant::now();
    let core = app.core.clone();
    let number = core.current().gen.number + 1;
    let loaded = tokio::task::spawn_blocking(move || {
        crate::mods::load_generation(
            &core.opts.mod_dirs,
            core.opts.server.as_ref(),
            Arc::new(crate::rules::registry::Registry::with_core()),
            number,
        )
    })
    .await;
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"ok": false, "error": format!("staging failed: {e}")})),
            )
                .into_response()
        }
    };
    let staged = Arc::new(Staged {
        loaded,
        changed: Vec::new(),
        took: started.elapsed(),
        seen: started,
        unplayable: std::sync::OnceLock::new(),
    });
    let live = app.core.current().gen.number;
    let mods = super::save::mod_set(&staged.loaded);
    let (Some(gen), Ok(mods), true) = (staged.loaded.generation.clone(), mods, staged.is_good())
    else {
        super::metrics::add(&app.core.metrics.reload_failures, 1);
        let errors: Vec<String> = staged
            .loaded
            .all_diagnostics()
            .filter(|d| d.is_error())
            .map(|d| d.render(false))
            .collect();
        let body = json!({"ok": false, "generation": live, "error": format!("the mods did not validate ({} error(s)); keeping generation {live}", errors.len()), "errors": errors});
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response();
    };
    // Valid mods can still leave no game (every card deleted): refuse, as `run --watch` does.
    if let Some(why) = crate::play::unplayable(&staged) {
        super::metrics::add(&app.core.metrics.reload_failures, 1);
        let body = json!({"ok": false, "generation": live, "error": format!("reload refused: {why}; keeping generation {live}"), "errors": [why]});
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response();
    }
    let s = staged.clone();
    let switched: usize = app
        .workers
        .each(move |w| w.reload(&s))
        .await
        .into_iter()
        .sum();
    let number = gen.number;
    app.core.set_current(Current {
        gen,
        stage: staged,
        mods,
    });
    super::metrics::add(&app.core.metrics.reloads, 1);
    let body = json!({"ok": true, "generation": number, "worlds": switched, "took_ms": started.elapsed().as_millis()});
    (StatusCode::OK, Json(body)).into_response()
}

async fn drain_route(State(app): State<Arc<App>>) -> Json<serde_json::Value> {
    let r = drain(&app).await;
    Json(json!({"saved": r.saved, "errors": r.errors}))
}

/// Stops accepting matches, saves every running world, and stops the server. A second
/// drain returns the first one's report.
pub(crate) async fn drain(app: &Arc<App>) -> DrainReport {
    if app.core.draining.swap(true, Ordering::SeqCst) {
        return app.last_drain();
    }
    let dir = app.core.opts.saves.clone();
    let mut report = DrainReport::default();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        report.errors.push(format!(
            "failed to create the saves folder {}: {e}",
            dir.display()
        ));
    }
    for (saved, errors) in app.workers.each(move |w| w.drain(&dir)).await {
        report.saved.extend(saved);
        report.errors.extend(errors);
    }
    report.saved.sort_unstable();
    *app.drained.lock().unwrap_or_else(|e| e.into_inner()) = Some(report.clone());
    let _ = app.shutdown.send(true);
    report
}
