//! `tessera lsp`, spoken to over stdio by a minimal LSP client (issue 21): a content file
//! with a mistake gets the diagnostic `check` gives, an id goes to its definition, and
//! completion lists kinds and ids.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// An LSP client talking to `tessera lsp` through its stdin and stdout.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

/// Reads `Content-Length`-framed JSON-RPC messages.
fn read_messages(out: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        loop {
            let mut len = None;
            loop {
                let mut header = String::new();
                if r.read_line(&mut header).unwrap_or(0) == 0 {
                    return;
                }
                let header = header.trim();
                if header.is_empty() {
                    break;
                }
                if let Some(n) = header.strip_prefix("Content-Length: ") {
                    len = n.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; len.expect("a Content-Length header")];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            let msg = serde_json::from_slice(&body).expect("a JSON message");
            if tx.send(msg).is_err() {
                return;
            }
        }
    });
    rx
}

impl Client {
    fn start(root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("lsp")
            .current_dir(root)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tessera lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let messages = read_messages(child.stdout.take().expect("stdout"));
        Client {
            child,
            stdin,
            messages,
            next_id: 1,
        }
    }

    fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        let mut msg = json!({ "jsonrpc": "2.0", "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
    }

    /// Waits (on the server's output, at most a minute) for a message `pick` accepts.
    fn wait_for(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.messages.recv_timeout(left) {
                Ok(m) if pick(&m) => return m,
                Ok(m) => seen.push(m),
                Err(_) => break,
            }
        }
        panic!("no {what} from the server; it sent: {seen:#?}");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
        let reply = self.wait_for(method, |m| m["id"] == id);
        assert!(reply["error"].is_null(), "{reply}");
        reply["result"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn workspace() -> PathBuf {
    let root = std::env::temp_dir().join(format!("tessera-lsp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(&root).unwrap();
    let ok = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["new", "mod", "cards"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(ok.status.success());
    root
}

const BROKEN: &str = "[class.ogre]\nname = \"cards.example_unit.name\"\nproperties = { attack = 4 }\ntags = [\"unit\"]\n\n[[class.ogre.trigger]]\nwhen = { event = \"core:event/created\", target = \"is_self\" }\ndo = [{ type = \"damag\", amount = 1 }, { type = \"create\", class = \"example_unit\", zone = \"board\" }]\n";

#[test]
fn the_language_server_gives_diagnostics_definitions_and_completions() {
    let root = workspace();
    let file = root.join("mods/cards/content/ogre.toml");
    let good = BROKEN.replace("damag\"", "damage\"");
    std::fs::write(&file, &good).unwrap();
    let mut c = Client::start(&root);
    let init = c.request(
        "initialize",
        json!({ "processId": null, "rootUri": uri(&root), "capabilities": {} }),
    );
    assert_eq!(init["capabilities"]["definitionProvider"], true);
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(&file), "languageId": "toml", "version": 1, "text": good } }),
    );
    c.wait_for("the first load's log message", |m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.starts_with("tessera: loaded 1 mods"))
    });
    // The modder misspells an action and saves.
    std::fs::write(&file, BROKEN).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(&file), "version": 2 }, "contentChanges": [{ "text": BROKEN }] }),
    );
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&file) } }),
    );

    // The diagnostic `check` gives, at the line of the misspelled action.
    let file_uri = uri(&file);
    let published = c.wait_for("diagnostics for ogre.toml", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == file_uri.as_str()
            && !m["params"]["diagnostics"]
                .as_array()
                .is_none_or(Vec::is_empty)
    });
    let d = &published["params"]["diagnostics"][0];
    assert_eq!(d["code"], "E-CONTENT-UNKNOWN-ID", "{d}");
    assert_eq!(d["range"]["start"]["line"], 7, "{d}");
    // The range covers the misspelled `"damag"`, as `check`'s snippet underlines it.
    let start = d["range"]["start"]["character"].as_u64().unwrap() as usize;
    let end = d["range"]["end"]["character"].as_u64().unwrap() as usize;
    assert_eq!(
        &BROKEN.lines().nth(7).unwrap()[start..end],
        "\"damag\"",
        "{d}"
    );
    assert!(d["message"].as_str().unwrap().contains("damag"), "{d}");

    // `example_unit` (short, in the mod's own namespace) goes to its definition.
    let col = BROKEN.lines().nth(7).unwrap().find("example_unit").unwrap() + 3;
    let def = c.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri(&file) }, "position": { "line": 7, "character": col } }),
    );
    assert_eq!(
        def["uri"],
        uri(&root.join("mods/cards/content/example.toml")),
        "{def}"
    );
    let line = std::fs::read_to_string(root.join("mods/cards/content/example.toml"))
        .unwrap()
        .lines()
        .position(|l| l == "[class.example_unit]")
        .unwrap();
    assert_eq!(def["range"]["start"]["line"], line, "{def}");

    // Hover says where it is defined.
    let hover = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&file) }, "position": { "line": 7, "character": col } }),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("cards:class/example_unit") && text.contains("defined by `cards`"),
        "{hover}"
    );

    // Completion on the `type = "create"` item: its parameters, every kind, every id.
    let items = c.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri(&file) }, "position": { "line": 7, "character": 60 } }),
    );
    let labels: Vec<&str> = items
        .as_array()
        .expect("a completion list")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in [
        "core:action/damage",
        "damage",
        "class",
        "cards:class/example_unit",
        "example_unit",
    ] {
        assert!(labels.contains(&want), "no `{want}` in {labels:?}");
    }

    // Fixed and saved: the diagnostic is cleared.
    std::fs::write(&file, &good).unwrap();
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri(&file) } }),
    );
    c.wait_for("cleared diagnostics for ogre.toml", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == file_uri.as_str()
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(Vec::is_empty)
    });
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    // It exits on `exit`, even while its stdin is still open.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = c.child.try_wait().expect("the server's status") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not exit after `exit`"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&root);
}
