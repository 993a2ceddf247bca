//! The admin page (`GET /`) in a real headless browser: Debian's `chromium`, driven over
//! the DevTools protocol. The page lists the worlds the test created, the mods and the
//! metrics; pressing Reload shows the result and the reload counter goes up. Without a
//! chromium the test fails and says how to install one — it never skips silently.
//!
//! Every wait is for a DOM state (a selector with the expected data attributes), with a
//! timeout as a guard.

use std::path::PathBuf;
use std::time::Duration;

use headless_chrome::{Browser, LaunchOptions, Tab};
use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::SeatKind;
use tessera_host::serve::Server;

use super::matches::tempfile_dir;
use super::{create, http, options, runtime, url, Bot};

/// The chromium to drive: `$CHROME`, `$CHROMIUM`, or `chromium` on the PATH.
fn chromium() -> PathBuf {
    for var in ["CHROME", "CHROMIUM"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            assert!(
                p.is_file(),
                "${var} is {}, which is not a file; point it at a chromium binary or unset it",
                p.display()
            );
            return p;
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the admin page test needs a headless chromium and found none: \
                 `apt-get install chromium` (Debian/Ubuntu; `.ci/run` does this), \
                 or set CHROME=/path/to/chrome"
            )
        })
}

fn launch() -> Browser {
    let options = LaunchOptions {
        path: Some(chromium()),
        headless: true,
        // Containers run tests as root, where chromium's sandbox cannot start.
        sandbox: false,
        idle_browser_timeout: Duration::from_secs(300),
        args: vec!["--disable-dev-shm-usage".as_ref(), "--disable-gpu".as_ref()],
        ..LaunchOptions::default()
    };
    Browser::new(options).unwrap_or_else(|e| panic!("chromium did not start: {e:#}"))
}

/// Waits for an element matching `selector` and returns its text.
fn text_of(tab: &Tab, selector: &str) -> String {
    tab.wait_for_element(selector)
        .unwrap_or_else(|e| {
            let page = tab
                .find_element("body")
                .and_then(|b| b.get_inner_text())
                .unwrap_or_default();
            panic!("no `{selector}` on the admin page ({e}); the page shows:\n{page}")
        })
        .get_inner_text()
        .expect("element text")
}

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
}

#[test]
fn admin_page_shows_worlds_and_reloads_in_chromium() {
    let browser = launch();
    let rt = runtime();
    let root = tempfile_dir("serve-browser");
    let (server, played, waiting, _bot) = rt.block_on(async {
        let server = Server::start(options(&root.join("saves"))).await.unwrap();
        let u = url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        // One match a client plays two moves of, one nobody has joined yet.
        let played = create(&mut host, &[SeatKind::Human, SeatKind::Random], 11).await;
        let waiting = create(&mut host, &[SeatKind::Human, SeatKind::Greedy], 12).await;
        let mut bot = Bot::join(&u, played, 0, 11).await;
        bot.play(Some(2)).await;
        (server, played, waiting, (host, bot))
    });
    let addr = server.addr();

    // The page itself loads nothing from elsewhere.
    let (status, html) = rt.block_on(http(addr, "GET", "/"));
    assert_eq!(status, 200);
    for external in ["src=\"http", "href=\"http", "<link", "import "] {
        assert!(!html.contains(external), "the page loads `{external}`");
    }

    let tab = browser.new_tab().expect("a tab");
    tab.set_default_timeout(Duration::from_secs(60));
    tab.navigate_to(&format!("http://{addr}/"))
        .and_then(|t| t.wait_until_navigated())
        .expect("the admin page loads");

    // The worlds the test created, as the DOM shows them.
    let row = text_of(&tab, &format!("#worlds tr[data-match=\"{played}\"]"));
    assert!(row.contains("human (connected), random"), "{row}");
    assert!(row.contains("playing"), "{row}");
    let row = text_of(&tab, &format!("#worlds tr[data-match=\"{waiting}\"]"));
    assert!(row.contains("human, greedy"), "{row}");
    assert!(!row.contains("connected"), "nobody joined {waiting}: {row}");
    assert_eq!(text_of(&tab, "#world-count"), "(2)");

    // The mods in resolved order, and the metrics.
    let arena = text_of(&tab, "#mods tr[data-mod=\"arena\"]");
    assert!(arena.contains("yes"), "arena is loaded: {arena}");
    let shown = |name: &str| -> f64 {
        let v = text_of(&tab, &format!("#metrics tr[data-metric=\"{name}\"] td.num"));
        v.parse()
            .unwrap_or_else(|_| panic!("metric {name} shows `{v}`, not a number"))
    };
    assert_eq!(shown("tessera_worlds"), 2.0);
    assert!(shown("tessera_moves_total") >= 2.0, "two moves were played");
    text_of(
        &tab,
        "#metrics tr[data-metric=\"tessera_reloads_total\"][data-value=\"0\"]",
    );
    let (_, before) = rt.block_on(http(addr, "GET", "/metrics"));
    assert_eq!(metric(&before, "tessera_reloads_total"), 0.0);

    // Reload: the result appears, both worlds switch, the counter goes up.
    tab.find_element("#reload")
        .and_then(|b| b.click().map(|_| ()))
        .expect("the reload button");
    let result = text_of(&tab, "#reload-result.ok[data-generation=\"2\"]");
    assert!(
        result.starts_with("reloaded: generation 2, 2 world(s) switched"),
        "{result}"
    );
    text_of(
        &tab,
        "#metrics tr[data-metric=\"tessera_reloads_total\"][data-value=\"1\"]",
    );
    text_of(
        &tab,
        &format!("#worlds tr[data-match=\"{played}\"][data-generation=\"2\"]"),
    );
    let (_, after) = rt.block_on(http(addr, "GET", "/metrics"));
    assert_eq!(metric(&after, "tessera_reloads_total"), 1.0);
    assert_eq!(metric(&after, "tessera_generation"), 2.0);

    drop(tab);
    rt.block_on(async {
        server.drain().await;
        server.wait().await.unwrap();
    });
    let _ = std::fs::remove_dir_all(&root);
}
