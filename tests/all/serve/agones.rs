//! `tessera serve --agones` (feature `agones`) against a local stand-in for the Agones
//! SDK sidecar: a tonic gRPC server implementing the `agones.dev.sdk.SDK` and
//! `agones.dev.sdk.alpha.SDK` services by hand (the `agones` crate builds only the
//! client). It records every call; the test checks Ready once the server listens,
//! Health pings, PlayerConnect/PlayerDisconnect for a client's seat, and Shutdown only
//! after the drain. There is no Kubernetes cluster here: this is what is tested.

use std::convert::Infallible;
use std::future::{ready, Ready};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tessera_host::serve::agones::AgonesOptions;
use tessera_host::serve::client::Client;
use tessera_host::serve::protocol::SeatKind;
use tessera_host::serve::{ServeError, Server};
use tokio::sync::watch;
use tonic::body::BoxBody;
use tonic::codec::ProstCodec;
use tonic::codegen::{http, Body, BoxFuture, Service, StdError};
use tonic::server::{ClientStreamingService, Grpc, NamedService, UnaryService};
use tonic::{Status, Streaming};

use super::matches::tempfile_dir;
use super::{create, options, runtime, within, Bot};

/// `agones.dev.sdk.Empty` (and the alpha package's).
#[derive(Clone, PartialEq, prost::Message)]
struct Empty {}

/// `agones.dev.sdk.alpha.PlayerID`.
#[derive(Clone, PartialEq, prost::Message)]
struct PlayerId {
    #[prost(string, tag = "1")]
    player_id: String,
}

/// `agones.dev.sdk.alpha.Bool`.
#[derive(Clone, PartialEq, prost::Message)]
struct Bool {
    #[prost(bool, tag = "1")]
    bool: bool,
}

/// The calls the sidecar received, in order (`Ready`, `Health`, `PlayerConnect ID`, …).
#[derive(Clone)]
struct Sidecar {
    calls: Arc<watch::Sender<Vec<String>>>,
}

impl Sidecar {
    fn record(&self, call: String) {
        self.calls.send_modify(|c| c.push(call));
    }
}

/// A unary method: records `Method detail` and answers.
struct Unary<Req, Resp> {
    sidecar: Sidecar,
    method: String,
    answer: fn(&Req) -> (String, Resp),
}

impl<Req, Resp: Send + 'static> UnaryService<Req> for Unary<Req, Resp> {
    type Response = Resp;
    type Future = Ready<Result<tonic::Response<Resp>, Status>>;

    fn call(&mut self, request: tonic::Request<Req>) -> Self::Future {
        let (detail, resp) = (self.answer)(request.get_ref());
        let call = format!("{} {detail}", self.method);
        self.sidecar.record(call.trim_end().to_owned());
        ready(Ok(tonic::Response::new(resp)))
    }
}

fn unary<Req, Resp>(
    s: &Sidecar,
    method: &str,
    answer: fn(&Req) -> (String, Resp),
) -> Unary<Req, Resp> {
    Unary {
        sidecar: s.clone(),
        method: method.to_owned(),
        answer,
    }
}

/// `Health (stream Empty) returns (Empty)`: one record per ping.
struct Health(Sidecar);

impl ClientStreamingService<Empty> for Health {
    type Response = Empty;
    type Future = BoxFuture<tonic::Response<Empty>, Status>;

    fn call(&mut self, request: tonic::Request<Streaming<Empty>>) -> Self::Future {
        let sidecar = self.0.clone();
        Box::pin(async move {
            let mut pings = request.into_inner();
            while let Ok(Some(_)) = pings.message().await {
                sidecar.record("Health".into());
            }
            Ok(tonic::Response::new(Empty {}))
        })
    }
}

fn method_of<B>(req: &http::Request<B>) -> String {
    req.uri().path().rsplit('/').next().unwrap_or("").to_owned()
}

/// `agones.dev.sdk.SDK`.
#[derive(Clone)]
struct SdkService(Sidecar);

impl NamedService for SdkService {
    const NAME: &'static str = "agones.dev.sdk.SDK";
}

impl<B> Service<http::Request<B>> for SdkService
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<BoxBody>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let s = self.0.clone();
        let method = method_of(&req);
        Box::pin(async move {
            Ok(match method.as_str() {
                "Ready" | "Allocate" | "Shutdown" => {
                    let svc = unary(&s, &method, |_: &Empty| (String::new(), Empty {}));
                    Grpc::new(ProstCodec::default()).unary(svc, req).await
                }
                "GetGameServer" => {
                    let svc = unary(&s, &method, |_: &Empty| {
                        (String::new(), agones::GameServer::default())
                    });
                    Grpc::new(ProstCodec::default()).unary(svc, req).await
                }
                "Health" => {
                    Grpc::new(ProstCodec::default())
                        .client_streaming(Health(s), req)
                        .await
                }
                other => {
                    s.record(format!("unimplemented {other}"));
                    Status::unimplemented(other).into_http()
                }
            })
        })
    }
}

/// `agones.dev.sdk.alpha.SDK` (player tracking).
#[derive(Clone)]
struct AlphaService(Sidecar);

impl NamedService for AlphaService {
    const NAME: &'static str = "agones.dev.sdk.alpha.SDK";
}

impl<B> Service<http::Request<B>> for AlphaService
where
    B: Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<BoxBody>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let s = self.0.clone();
        let method = method_of(&req);
        Box::pin(async move {
            Ok(match method.as_str() {
                "PlayerConnect" | "PlayerDisconnect" => {
                    let svc = unary(&s, &method, |p: &PlayerId| {
                        (p.player_id.clone(), Bool { bool: true })
                    });
                    Grpc::new(ProstCodec::default()).unary(svc, req).await
                }
                other => {
                    s.record(format!("unimplemented alpha {other}"));
                    Status::unimplemented(other).into_http()
                }
            })
        })
    }
}

/// Starts the stand-in sidecar on a free port: the port and the calls it receives.
async fn sidecar() -> (u16, watch::Receiver<Vec<String>>) {
    let (tx, rx) = watch::channel(Vec::new());
    let s = Sidecar {
        calls: Arc::new(tx),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let incoming =
        tonic::transport::server::TcpIncoming::from_listener(listener, true, None).unwrap();
    let server = tonic::transport::Server::builder()
        .add_service(SdkService(s.clone()))
        .add_service(AlphaService(s));
    tokio::spawn(server.serve_with_incoming(incoming));
    (port, rx)
}

fn agones_at(port: u16) -> AgonesOptions {
    let mut a = AgonesOptions::new();
    a.host = Some("http://127.0.0.1".into());
    a.port = Some(port);
    a.health_every = Duration::from_millis(50);
    a
}

/// Waits until the calls satisfy `done`; returns them.
async fn calls_until(
    rx: &mut watch::Receiver<Vec<String>>,
    done: impl FnMut(&Vec<String>) -> bool,
) -> Vec<String> {
    within(rx.wait_for(done)).await.unwrap().clone()
}

#[test]
fn agones_sdk_hears_ready_health_players_and_shutdown_after_drain() {
    let rt = runtime();
    rt.block_on(async {
        let root = tempfile_dir("serve-agones");
        let (port, mut calls) = sidecar().await;
        let mut o = options(&root.join("saves"));
        o.agones = Some(agones_at(port));
        let server = Server::start(o).await.unwrap();

        // Ready once listening (the SDK first checks the sidecar with GetGameServer).
        let seen = calls.borrow().clone();
        let ready_at = seen.iter().position(|c| c == "Ready");
        assert!(
            ready_at.is_some(),
            "no Ready by the time start returned: {seen:?}"
        );
        assert!(!seen.iter().any(|c| c == "Shutdown"), "{seen:?}");
        let seen = calls_until(&mut calls, |c| c.iter().any(|c| c == "Health")).await;
        assert!(
            seen.iter().position(|c| c == "Health") > ready_at,
            "{seen:?}"
        );

        // A client takes a seat: one player connected.
        let u = super::url(&server);
        let (mut host, _) = Client::connect(&u).await.unwrap();
        let id = create(&mut host, &[SeatKind::Human, SeatKind::Random], 21).await;
        let mut bot = Bot::join(&u, id, 0, 21).await;
        let player = format!("match-{id}-seat-0");
        let connect = format!("PlayerConnect {player}");
        calls_until(&mut calls, |c| c.contains(&connect)).await;
        bot.play(Some(1)).await;
        assert!(!calls.borrow().iter().any(|c| c == "Shutdown"));

        // Drain: the match is saved, the seat is let go, then Shutdown — last.
        let report = server.drain().await;
        assert_eq!(report.saved, vec![id], "{report:?}");
        server.wait().await.unwrap();
        let seen = calls_until(&mut calls, |c| c.iter().any(|c| c == "Shutdown")).await;
        assert_eq!(
            seen.last().map(String::as_str),
            Some("Shutdown"),
            "{seen:?}"
        );
        let disconnect = format!("PlayerDisconnect {player}");
        let left = seen.iter().position(|c| *c == disconnect);
        assert!(left.is_some(), "the drained seat is let go: {seen:?}");
        assert_eq!(
            seen.iter().filter(|c| c.as_str() == "Ready").count(),
            1,
            "{seen:?}"
        );
        assert_eq!(
            seen.iter().filter(|c| c.as_str() == "Shutdown").count(),
            1,
            "{seen:?}"
        );
        assert!(
            !seen.iter().any(|c| c.starts_with("unimplemented")),
            "{seen:?}"
        );
        let _ = std::fs::remove_dir_all(&root);
    });
}

#[test]
fn agones_without_a_sidecar_refuses_to_start_and_says_why() {
    let rt = runtime();
    rt.block_on(async {
        let root = tempfile_dir("serve-agones-none");
        // A port nothing listens on.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut o = options(&root.join("saves"));
        let mut a = agones_at(port);
        a.connect_timeout = Duration::from_millis(500);
        o.agones = Some(a);
        let err = Server::start(o).await.unwrap_err();
        assert!(matches!(err, ServeError::Agones(_)), "{err:?}");
        let err = err.to_string();
        assert!(
            err.contains("Agones SDK server") && err.contains("without --agones"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&root);
    });
}
