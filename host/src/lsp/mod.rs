//! `tessera lsp`: a language server for content files (LSP over stdio, `tower-lsp`).
//!
//! Owns the protocol side: which requests it answers and how an [`Index`] of the
//! workspace becomes diagnostics (the same as `tessera check`, published on open and on
//! save), go-to-definition and hover for ids (where defined, who patched it, a kind's
//! parameters), and completion of ids, kinds and the parameters of the kind named on the
//! line. The workspace is loaded off the protocol thread; it never touches a world.

mod index;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer, LspService, Server};

pub use index::{word_at, Index};

use crate::diag::Severity;

/// What the server holds between requests.
#[derive(Default)]
struct State {
    root: Option<PathBuf>,
    index: Arc<Index>,
    open: HashMap<Url, String>,
    published: BTreeSet<PathBuf>,
}

struct Backend {
    client: Client,
    state: Mutex<State>,
    /// Held for a whole reload: tower-lsp runs notifications concurrently, and two loads
    /// racing (an open and a save) could publish an older load's diagnostics last.
    reloading: tokio::sync::Mutex<()>,
}

impl Backend {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Loads the workspace again and publishes its diagnostics (clearing files that no
    /// longer have any).
    async fn reindex(&self) {
        let _one_at_a_time = self.reloading.lock().await;
        let Some(root) = self.state().root.clone() else {
            return;
        };
        let loaded = tokio::task::spawn_blocking(move || Index::load(&root)).await;
        let index = match loaded {
            Ok(Ok(mut index)) => {
                index.inherit(&self.state().index);
                Arc::new(index)
            }
            Ok(Err(e)) => {
                return self
                    .client
                    .show_message(MessageType::ERROR, e.render(false))
                    .await
            }
            Err(e) => {
                let msg = format!("loading the mods failed: {e}");
                return self.client.show_message(MessageType::ERROR, msg).await;
            }
        };
        let summary = format!(
            "tessera: loaded {} mods: {} ids, {} kinds; diagnostics in {} files",
            index.mods.len(),
            index.ids.len(),
            index.kinds.len(),
            index.diagnostics.len()
        );
        self.client.log_message(MessageType::INFO, summary).await;
        let now: BTreeSet<PathBuf> = index.diagnostics.keys().cloned().collect();
        let cleared: Vec<PathBuf> = {
            let mut st = self.state();
            st.index = index.clone();
            let cleared = st.published.difference(&now).cloned().collect();
            st.published = now;
            cleared
        };
        for path in cleared {
            if let Ok(uri) = Url::from_file_path(&path) {
                self.client.publish_diagnostics(uri, Vec::new(), None).await;
            }
        }
        for (path, diags) in &index.diagnostics {
            let Ok(uri) = Url::from_file_path(path) else {
                continue;
            };
            let list = diags.iter().map(to_lsp).collect();
            self.client.publish_diagnostics(uri, list, None).await;
        }
    }

    /// The text of line `line` of the document, from the editor's copy or the disk.
    fn line(&self, uri: &Url, line: u32) -> Option<String> {
        let text = match self.state().open.get(uri) {
            Some(t) => t.clone(),
            None => std::fs::read_to_string(uri.to_file_path().ok()?).ok()?,
        };
        text.lines()
            .nth(usize::try_from(line).ok()?)
            .map(str::to_owned)
    }

    /// The full id under the cursor.
    fn id_at(&self, at: &TextDocumentPositionParams) -> Option<(String, Arc<Index>)> {
        let line = self.line(&at.text_document.uri, at.position.line)?;
        let word = word_at(&line, usize::try_from(at.position.character).ok()?)?;
        let path = at.text_document.uri.to_file_path().ok()?;
        let index = self.state().index.clone();
        let id = index.resolve(&canonical(&path), &word)?;
        Some((id, index))
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn to_lsp(d: &index::FileDiag) -> Diagnostic {
    let at = Position::new(d.line, d.col);
    let end = if d.end > (d.line, d.col) {
        Position::new(d.end.0, d.end.1)
    } else {
        Position::new(d.line, d.col.saturating_add(1))
    };
    Diagnostic {
        range: Range::new(at, end),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            _ => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_owned())),
        source: Some("tessera".to_owned()),
        message: d.message.clone(),
        ..Diagnostic::default()
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        definition_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".into(), ":".into(), "/".into()]),
            ..CompletionOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> RpcResult<InitializeResult> {
        let from_folders = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .and_then(|f| f.uri.to_file_path().ok());
        let from_root = params.root_uri.as_ref().and_then(|u| u.to_file_path().ok());
        let root = from_folders
            .or(from_root)
            .or_else(|| std::env::current_dir().ok())
            .map(|r| canonical(&r));
        self.state().root = root;
        Ok(InitializeResult {
            capabilities: capabilities(),
            server_info: Some(ServerInfo {
                name: "tessera".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.reindex().await;
    }

    async fn shutdown(&self) -> RpcResult<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.state().open.insert(doc.uri, doc.text);
        self.reindex().await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        if let Some(change) = params.content_changes.into_iter().last() {
            self.state()
                .open
                .insert(params.text_document.uri, change.text);
        }
    }

    async fn did_save(&self, _: DidSaveTextDocumentParams) {
        self.reindex().await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.state().open.remove(&params.text_document.uri);
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> RpcResult<Option<GotoDefinitionResponse>> {
        let Some((id, index)) = self.id_at(&params.text_document_position_params) else {
            return Ok(None);
        };
        let Some(sites) = index.ids.get(&id) else {
            return Ok(None);
        };
        let site = sites.iter().find(|s| s.op == "defined").or(sites.first());
        Ok(site.and_then(|s| {
            let uri = Url::from_file_path(&s.file).ok()?;
            let line = u32::try_from(s.line.saturating_sub(1)).ok()?;
            let at = Position::new(line, 0);
            Some(GotoDefinitionResponse::Scalar(Location::new(
                uri,
                Range::new(at, at),
            )))
        }))
    }

    async fn hover(&self, params: HoverParams) -> RpcResult<Option<Hover>> {
        let found = self.id_at(&params.text_document_position_params);
        Ok(found
            .and_then(|(id, index)| index.hover(&id))
            .map(|text| Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: text,
                }),
                range: None,
            }))
    }

    async fn completion(&self, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
        let at = &params.text_document_position;
        let line = self
            .line(&at.text_document.uri, at.position.line)
            .unwrap_or_default();
        let path = at
            .text_document
            .uri
            .to_file_path()
            .map(|p| canonical(&p))
            .unwrap_or_default();
        let index = self.state().index.clone();
        let col = usize::try_from(at.position.character).unwrap_or(usize::MAX);
        Ok(Some(CompletionResponse::Array(completions(
            &index, &path, &line, col,
        ))))
    }
}

/// The parameters of the kind named before the cursor, then every kind, then every id.
fn completions(index: &Index, file: &Path, line: &str, col: usize) -> Vec<CompletionItem> {
    let mut items = Vec::new();
    let named = index::type_before(line, col).and_then(|t| index.resolve(file, t));
    if let Some(kind) = named.as_deref().and_then(|id| index.kind(id)) {
        items.extend(kind.params.iter().map(|p| CompletionItem {
            label: p.name.to_string(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(format!("{} parameter: {}", kind.id, p.ty.describe())),
            documentation: Some(Documentation::String(p.doc.to_string())),
            ..CompletionItem::default()
        }));
    }
    for k in &index.kinds {
        let item = |label: &str| CompletionItem {
            label: label.to_owned(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(format!("{} {}", k.kind, k.id)),
            documentation: Some(Documentation::String(k.doc.clone())),
            ..CompletionItem::default()
        };
        items.push(item(&k.id));
        if let Some(short) = k.id.strip_prefix("core:").and_then(|r| r.split_once('/')) {
            items.push(item(short.1));
        }
    }
    let ns = index.namespace_of(file);
    for id in index.ids.keys() {
        items.push(CompletionItem {
            label: id.clone(),
            kind: Some(CompletionItemKind::REFERENCE),
            ..CompletionItem::default()
        });
        if let Some(rest) = ns.and_then(|n| id.strip_prefix(&format!("{n}:"))) {
            let name = rest.split_once('/').map_or(rest, |(_, n)| n);
            items.push(CompletionItem {
                label: name.to_owned(),
                kind: Some(CompletionItemKind::REFERENCE),
                detail: Some(id.clone()),
                ..CompletionItem::default()
            });
        }
    }
    items
}

/// The language service, watched for the client's `exit` notification.
struct ExitWatch<S> {
    inner: S,
    exited: Arc<tokio::sync::Notify>,
}

impl<S> tower_service::Service<tower_lsp::jsonrpc::Request> for ExitWatch<S>
where
    S: tower_service::Service<tower_lsp::jsonrpc::Request>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: tower_lsp::jsonrpc::Request) -> S::Future {
        let exit = req.method() == "exit";
        let answer = self.inner.call(req);
        if exit {
            self.exited.notify_one();
        }
        answer
    }
}

/// Serves the language server on stdin/stdout until the client sends `exit` (or closes
/// stdin).
pub fn serve_stdio() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) = LspService::new(|client| Backend {
            client,
            state: Mutex::new(State::default()),
            reloading: tokio::sync::Mutex::new(()),
        });
        let exited = Arc::new(tokio::sync::Notify::new());
        let service = ExitWatch {
            inner: service,
            exited: exited.clone(),
        };
        // tower-lsp keeps reading after `exit` until stdin closes; stop at `exit`.
        tokio::select! {
            () = Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).serve(service) => {}
            () = exited.notified() => {}
        }
    });
    // tokio reads stdin on a blocking thread that a client keeping its end open never
    // wakes: waiting for it at shutdown would keep the process alive after `exit`.
    runtime.shutdown_background();
    Ok(())
}
