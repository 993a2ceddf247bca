//! The operator's endpoints: health, readiness, Prometheus metrics, the mod list, hot
//! reload (good and bad), and drain.

use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::{ClientMsg, SeatKind, ServerMsg};
use tessera_host::serve::Server;

use super::matches::tempfile_dir;
use super::{create, http, options_in, runtime, url, Bot};
use crate::plugin_build::{copy_tree, repo};

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
}

#[test]
fn admin_endpoints_report_reload_and_drain() {
    let rt = runtime();
    rt.block_on(async {
        let root = tempfile_dir("serve-admin");
        let mods = root.join("mods");
        copy_tree(&repo().join("mods"), &mods);
        let saves = root.join("saves");
        let server = Server::start(options_in(&mods, &saves)).await.unwrap();
        let addr = server.addr();

        assert_eq!(http(addr, "GET", "/healthz").await, (200, "ok\n".into()));
        let (status, body) = http(addr, "GET", "/readyz").await;
        assert_eq!((status, body.as_str()), (200, "ready (generation 1)\n"));

        let (status, body) = http(addr, "GET", "/mods").await;
        assert_eq!(status, 200);
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        let arena = v["order"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == "arena")
            .expect("arena listed");
        assert_eq!(arena["loaded"], true);
        assert!(
            arena["hash"]
                .as_str()
                .is_some_and(|h| h.starts_with("sha256:")),
            "{arena}"
        );
        assert!(
            !arena["why"].as_str().unwrap().is_empty(),
            "says why: {arena}"
        );

        // A world with a client that made a move.
        let u = url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        let id = create(&mut host, &[SeatKind::Human, SeatKind::Random], 5).await;
        let mut bot = Bot::join(&u, id, 0, 5).await;
        bot.play(Some(2)).await;
        let (status, body) = http(addr, "GET", "/worlds").await;
        assert_eq!(status, 200, "{body}");
        let w: serde_json::Value = serde_json::from_str(&body).unwrap();
        let listed = &w["worlds"][0];
        assert_eq!(
            (
                w["worlds"].as_array().map(Vec::len),
                listed["match"].as_u64()
            ),
            (Some(1), Some(id)),
            "{body}"
        );
        assert_eq!(listed["seats"][0]["kind"], "human", "{body}");
        assert_eq!(listed["seats"][0]["connected"], true, "{body}");
        assert_eq!(listed["seats"][1]["connected"], false, "{body}");
        assert_eq!(listed["generation"], 1, "{body}");
        assert_eq!(listed["status"], "playing", "{body}");
        assert!(listed["turn"].as_u64().is_some(), "{body}");
        let (status, page) = http(addr, "GET", "/").await;
        assert_eq!(status, 200);
        assert!(page.contains("<title>tessera serve</title>"), "{page}");
        let (_, m) = http(addr, "GET", "/metrics").await;
        assert_eq!(metric(&m, "tessera_worlds"), 1.0);
        assert_eq!(metric(&m, "tessera_connections"), 2.0);
        assert!(metric(&m, "tessera_moves_total") >= 2.0);
        assert!(metric(&m, "tessera_events_total") > 0.0);
        assert!(
            m.contains("tessera_mod_seconds_total{mod=\"arena\",part=\"content\"}"),
            "{m}"
        );
        assert!(m.contains("# TYPE tessera_moves_total counter"));
        assert_eq!(metric(&m, "tessera_plugin_faults_total"), 0.0);
        assert_eq!(metric(&m, "tessera_plugins_quarantined"), 0.0);

        // A good reload: the world switches and its client is told.
        let (status, body) = http(addr, "POST", "/reload").await;
        assert_eq!(status, 200, "{body}");
        let r: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (r["generation"].as_u64(), r["worlds"].as_u64()),
            (Some(2), Some(1)),
            "{body}"
        );
        let generation = bot.c.wait_for(|m| match m {
            ServerMsg::State(v) => Some(v.generation),
            _ => None,
        });
        assert_eq!(generation.await.unwrap(), 2);

        // A bad reload keeps the last good generation.
        let rules = mods.join("arena/content/game.toml");
        let text = std::fs::read_to_string(&rules).unwrap();
        std::fs::write(&rules, text.replace("[game]", "[game]\nplayers = \"two\"")).unwrap();
        let (status, body) = http(addr, "POST", "/reload").await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("keeping generation 2"), "{body}");
        let (_, m) = http(addr, "GET", "/metrics").await;
        assert_eq!(metric(&m, "tessera_reloads_total"), 1.0);
        assert_eq!(metric(&m, "tessera_reload_failures_total"), 1.0);
        assert_eq!(metric(&m, "tessera_generation"), 2.0);
        bot.c.send(&ClientMsg::State {}).await.unwrap();
        let v = bot.c.wait_for(|m| match m {
            ServerMsg::State(v) => Some(v.clone()),
            _ => None,
        });
        let v = v.await.unwrap();
        assert_eq!(
            (v.generation, v.moves.is_empty()),
            (2, false),
            "the world plays on"
        );

        // Drain: saved, not ready, then stopped.
        let (status, body) = http(addr, "POST", "/drain").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(&format!("\"saved\":[{id}]")), "{body}");
        assert!(bot
            .c
            .wait_for(|m| (*m == ServerMsg::Draining).then_some(()))
            .await
            .is_ok());
        server.wait().await.unwrap();
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "the server stopped listening"
        );
        let _ = std::fs::remove_dir_all(&root);
    });
}
