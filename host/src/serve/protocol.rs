//! The client protocol: JSON text frames over a WebSocket, one message per frame, each an
//! object whose `type` names it. `docs/protocol.md` is its narrative reference and
//! `docs/protocol.schema.json` its JSON Schema; the tests keep all three in step.

use serde::{Deserialize, Serialize};

/// The protocol's name and major version, sent in `welcome`.
pub const PROTOCOL: &str = "tessera/1";

/// Largest message the server reads, in bytes; a longer one gets an error reply.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// Largest frame the server accepts at all; a longer frame closes the connection.
pub const MAX_FRAME_BYTES: usize = 1024 * 1024;

/// Who plays a seat of a new match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SeatKind {
    /// A client that joins the seat.
    Human,
    /// The server's random agent (any legal move).
    Random,
    /// The server's greedy agent (the move the game's `score` rates best).
    Greedy,
}

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Messages without fields are empty struct variants (`State {}`), not unit variants:
// serde ignores unknown fields of an internally tagged unit variant, and
// `{"type":"resign","by":"mistake"}` must be refused, not obeyed.
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ClientMsg {
    /// Creates a match of the loaded game; the reply is `created`.
    Create {
        /// Who plays each seat, in order (default: every seat `human`).
        #[serde(default)]
        seats: Option<Vec<SeatKind>>,
        /// The world's seed (default: the match id).
        #[serde(default)]
        seed: Option<u64>,
    },
    /// Takes a seat (0-based) of a match, or takes it back with the token `joined` gave.
    Join {
        /// The match id.
        #[serde(rename = "match")]
        match_id: u64,
        /// The seat; optional with a token.
        #[serde(default)]
        seat: Option<usize>,
        /// The seat's token, to reconnect (also after a server restart).
        #[serde(default)]
        token: Option<String>,
    },
    /// Asks for the seat's view again (`state`).
    State {},
    /// Asks for the legal moves (`moves`).
    Moves {},
    /// Plays the legal move with this index (from `moves` or `state`).
    Play {
        /// The index.
        #[serde(rename = "move")]
        index: usize,
    },
    /// Answers the pending `choice` with option indices.
    Answer {
        /// The chosen option indices.
        choice: Vec<usize>,
    },
    /// Gives the match up: the other player wins.
    Resign {},
    /// Leaves the seat (it can be taken back with its token).
    Leave {},
}

/// One legal move, as a client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MoveView {
    /// Its index, to send in `play`.
    pub index: usize,
    /// The move's id (`arena:move/attack`).
    pub id: String,
    /// What acts.
    pub subject: String,
    /// What it acts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A readable line (`Player 1: attack Ember Whelp -> Player 2`).
    pub text: String,
}

/// One object a seat may see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectView {
    /// Its id (`#12`, `#3g1`).
    pub id: String,
    /// Its class.
    pub class: String,
    /// Its display name.
    pub name: String,
    /// The seat of its owner, if a player owns it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<usize>,
    /// The seat it is, if it is a player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<usize>,
    /// Its zone.
    pub zone: String,
    /// Its properties (numbers are effective values, after modifiers).
    pub props: serde_json::Map<String, serde_json::Value>,
    /// Its tags.
    pub tags: Vec<String>,
}

/// How many objects of an owner a seat may not see in a zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HiddenCount {
    /// The owner's seat.
    pub owner: Option<usize>,
    /// The zone.
    pub zone: String,
    /// How many objects.
    pub count: usize,
}

/// A seat's view of its match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// The match.
    #[serde(rename = "match")]
    pub match_id: u64,
    /// The seat this view is for.
    pub seat: usize,
    /// Turns completed.
    pub turns: u32,
    /// The seat whose turn it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<usize>,
    /// The rules generation in force.
    pub generation: u64,
    /// The world checksum (hex).
    pub checksum: String,
    /// The objects this seat sees, in id order.
    pub objects: Vec<ObjectView>,
    /// What it does not see, as counts.
    pub hidden: Vec<HiddenCount>,
    /// Its legal moves, when it is its turn and no choice is pending.
    #[serde(default)]
    pub moves: Vec<MoveView>,
    /// How the match ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// One option of a choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionView {
    /// Its index, to send in `answer`.
    pub index: usize,
    /// The object's id.
    pub id: String,
    /// Its display name.
    pub name: String,
}

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ServerMsg {
    /// Sent first on every connection.
    Welcome {
        /// [`PROTOCOL`].
        protocol: String,
        /// The server's version.
        version: String,
        /// The game the loaded mods define (`[game]`'s player class).
        game: String,
        /// Players per match.
        players: usize,
    },
    /// A match was created.
    Created {
        /// Its id.
        #[serde(rename = "match")]
        match_id: u64,
        /// Its seed.
        seed: u64,
        /// Who plays each seat.
        seats: Vec<SeatKind>,
    },
    /// This connection now plays a seat.
    Joined {
        /// The match.
        #[serde(rename = "match")]
        match_id: u64,
        /// The seat.
        seat: usize,
        /// The token to take the seat back (keep it).
        token: String,
    },
    /// The seat's view (after joining, after every move, and on request).
    State(View),
    /// The legal moves (on request).
    Moves {
        /// The moves; empty when it is not this seat's turn.
        moves: Vec<MoveView>,
    },
    /// The move sent needs a choice answered before it is played.
    Choice {
        /// What the choice is for.
        prompt: String,
        /// The options.
        options: Vec<OptionView>,
        /// Fewest options to choose.
        min: usize,
        /// Most options to choose.
        max: usize,
    },
    /// Lines of the match log.
    Log {
        /// The lines, in order.
        lines: Vec<String>,
    },
    /// The match is over.
    Ended {
        /// How it ended (`Player 1 wins`).
        result: String,
        /// The final world checksum (hex).
        checksum: String,
    },
    /// The seat was left.
    Left,
    /// A message could not be carried out; nothing changed.
    Error {
        /// A stable code (`malformed`, `not_your_turn`, ...; see `docs/protocol.md`).
        code: String,
        /// What went wrong and how to fix it.
        message: String,
    },
    /// The server is draining: running matches are saved; reconnect with the seat token
    /// after it restarts.
    Draining,
}

impl ServerMsg {
    /// An error message.
    pub fn error(code: &str, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The message as a JSON text frame.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                r#"{{"type":"error","code":"internal","message":"could not encode a reply: {e}"}}"#
            )
        })
    }
}

/// Every `type` a client may send (the schema and the docs list the same).
pub const CLIENT_TYPES: &[&str] = &[
    "create", "join", "state", "moves", "play", "answer", "resign", "leave",
];

/// Every `type` the server sends.
pub const SERVER_TYPES: &[&str] = &[
    "welcome", "created", "joined", "state", "moves", "choice", "log", "ended", "left", "error",
    "draining",
];

/// A client's frame that is not a valid message: what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The frame is larger than [`MAX_MESSAGE_BYTES`].
    #[error("the message is {bytes} bytes; the limit is {MAX_MESSAGE_BYTES}")]
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The frame is not JSON.
    #[error("not JSON ({0}); send one JSON object per text frame")]
    NotJson(String),
    /// The object has no string `type`.
    #[error("the message has no string `type`; use one of: {}", CLIENT_TYPES.join(", "))]
    NoType,
    /// The `type` is none of [`CLIENT_TYPES`].
    #[error("unknown message type `{found}`{}; use one of: {}", near.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(), CLIENT_TYPES.join(", "))]
    UnknownType {
        /// The type sent.
        found: String,
        /// The closest known type, if one is close.
        near: Option<String>,
    },
    /// A known type with bad fields.
    #[error("bad `{kind}` message: {message}; see docs/protocol.md")]
    BadMessage {
        /// The message type.
        kind: String,
        /// What is wrong.
        message: String,
    },
}

/// Parses a client's text frame; the error names what is wrong and how to fix it.
pub fn parse(text: &str) -> Result<ClientMsg, ProtocolError> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(ProtocolError::TooLarge { bytes: text.len() });
    }
    serde_json::from_str(text).map_err(|e| {
        let value: Result<serde_json::Value, _> = serde_json::from_str(text);
        match value {
            Err(_) => ProtocolError::NotJson(e.to_string()),
            Ok(v) => match v.get("type").and_then(|t| t.as_str()) {
                None => ProtocolError::NoType,
                Some(t) if !CLIENT_TYPES.contains(&t) => ProtocolError::UnknownType {
                    found: t.to_owned(),
                    near: crate::id::closest(t, CLIENT_TYPES.iter().copied())
                        .first()
                        .map(|s| (*s).to_owned()),
                },
                Some(t) => ProtocolError::BadMessage {
                    kind: t.to_owned(),
                    message: e.to_string(),
                },
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_messages_and_names_what_is_wrong() {
        assert_eq!(
            parse(r#"{"type":"play","move":2}"#),
            Ok(ClientMsg::Play { index: 2 })
        );
        assert!(matches!(parse("{"), Err(ProtocolError::NotJson(_))));
        assert!(parse(r#"{"type":"plya"}"#)
            .unwrap_err()
            .to_string()
            .contains("did you mean `play`"));
        assert!(matches!(
            parse(r#"{"type":"play"}"#),
            Err(ProtocolError::BadMessage { kind, .. }) if kind == "play"
        ));
        assert!(parse(r#"{"type":"play","move":-1}"#).is_err());
        assert!(parse(r#"{"type":"state","x":1}"#).is_err());
        assert!(parse(r#"{"type":"resign","now":true}"#).is_err());
        assert_eq!(parse(r#"{"type":"resign"}"#), Ok(ClientMsg::Resign {}));
        assert_eq!(parse(r#"[1]"#), Err(ProtocolError::NoType));
    }

    fn docs(file: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs")
            .join(file);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The `type` consts of a `$defs/<side>` of the schema.
    fn schema_types(side: &str) -> Vec<String> {
        let schema: serde_json::Value =
            serde_json::from_str(&docs("protocol.schema.json")).unwrap();
        schema["$defs"][side]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                m["properties"]["type"]["const"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn the_schema_lists_every_message_type() {
        assert_eq!(schema_types("client"), CLIENT_TYPES);
        assert_eq!(schema_types("server"), SERVER_TYPES);
        // Every variant's `type` is listed (a new variant fails here until it is).
        let client = [
            ClientMsg::Create {
                seats: None,
                seed: None,
            },
            ClientMsg::Join {
                match_id: 1,
                seat: None,
                token: None,
            },
            ClientMsg::State {},
            ClientMsg::Moves {},
            ClientMsg::Play { index: 0 },
            ClientMsg::Answer { choice: vec![] },
            ClientMsg::Resign {},
            ClientMsg::Leave {},
        ];
        for m in client {
            let v = serde_json::to_value(&m).unwrap();
            assert!(CLIENT_TYPES.contains(&v["type"].as_str().unwrap()), "{v}");
        }
        for m in [
            ServerMsg::Left,
            ServerMsg::Draining,
            ServerMsg::error("x", "y"),
        ] {
            let v = serde_json::to_value(&m).unwrap();
            assert!(SERVER_TYPES.contains(&v["type"].as_str().unwrap()), "{v}");
        }
    }

    #[test]
    fn the_documented_examples_parse() {
        let md = docs("protocol.md");
        let blocks: Vec<&str> = md
            .split("```json")
            .skip(1)
            .filter_map(|b| b.split("```").next())
            .collect();
        assert!(blocks.len() >= 7, "protocol.md has its examples");
        for b in blocks {
            let b = b.trim();
            if parse(b).is_err() {
                let m: ServerMsg = serde_json::from_str(b).unwrap_or_else(|e| {
                    panic!("{b}\nis neither a client nor a server message: {e}")
                });
                assert!(matches!(m, ServerMsg::State(_)), "{m:?}");
            }
        }
        for t in CLIENT_TYPES.iter().chain(SERVER_TYPES) {
            assert!(
                md.contains(&format!("| `{t}` |")),
                "protocol.md documents `{t}`"
            );
        }
    }
}
