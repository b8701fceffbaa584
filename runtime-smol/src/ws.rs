//! The WebSocket layer both link drivers share: the frame caps, reading one inbound message as a
//! machine-sized [`Inbound`], and the close handshake.
//!
//! # Caps
//! tungstenite's `max_message_size` and `max_frame_size` are both set to the link's frame cap
//! ([`MAX_FRAME_BYTES`], 1 MiB of raw wire payload — ciphertext on an encrypted link). A message
//! of exactly the cap is read; one byte more, a fragmented message whose continuations sum above
//! it, or a frame header that merely *claims* a larger length (even 2^63 bytes) ends the read with
//! a capacity error before any payload is buffered. The drivers turn that error into the
//! machine's `Oversize` input, so the close (1009 on the plane) is the machine's decision.
//!
//! `permessage-deflate` is never negotiated: the handshake in the plane answers no
//! `Sec-WebSocket-Extensions`, and tungstenite refuses frames with RSV bits set.

use std::time::Duration;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tungstenite::error::{CapacityError, Error as WsError, ProtocolError};
use async_tungstenite::tungstenite::protocol::frame::coding::CloseCode as WsCloseCode;
use async_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use async_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};
use futures_lite::{AsyncRead, AsyncWrite, FutureExt, StreamExt};
use termplane_proto::limits::MAX_FRAME_BYTES;

/// How long a closing side waits for the peer's close frame (or EOF) before dropping the TCP
/// connection.
pub const CLOSE_LINGER: Duration = Duration::from_secs(2);

/// The WebSocket configuration of every node-link socket (both ends).
#[must_use]
pub fn link_config() -> WebSocketConfig {
    link_config_with_cap(MAX_FRAME_BYTES)
}

/// The configuration with another cap (tests of the mapping only).
#[must_use]
pub fn link_config_with_cap(cap: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(cap))
        .max_frame_size(Some(cap))
        .accept_unmasked_frames(false)
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(2 * cap + 64 * 1024)
}

/// One inbound event, sized for a link machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inbound {
    /// A text message.
    Text(String),
    /// A binary message.
    Binary(Vec<u8>),
    /// A message above the cap (its bytes were never buffered).
    Oversize(u64),
    /// The WebSocket protocol was violated (control frame over 125 bytes, an unmasked client
    /// frame, RSV bits, a fragmented control frame…): RFC 6455 says fail the connection (1002).
    ProtocolViolation(String),
    /// A ping or a pong (tungstenite answers pings itself): the peer is alive, nothing else.
    Control,
    /// The peer closed (close frame, EOF or a broken socket).
    Closed {
        /// The close code, when a close frame carried one.
        code: Option<u16>,
        /// Its reason.
        reason: String,
    },
}

/// Reads the next link-relevant message. Ping and pong frames are answered by tungstenite and
/// reported as [`Inbound::Control`] (they prove the peer alive).
pub async fn next_inbound<S>(ws: &mut WebSocketStream<S>) -> Inbound
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    // Bounded: raw frames (never produced for reads) are skipped at most a few times.
    for _ in 0..64 {
        match ws.next().await {
            None => {
                return Inbound::Closed {
                    code: None,
                    reason: String::new(),
                };
            }
            Some(Ok(Message::Text(t))) => return Inbound::Text(t.as_str().to_owned()),
            Some(Ok(Message::Binary(b))) => return Inbound::Binary(b.to_vec()),
            Some(Ok(Message::Close(frame))) => {
                return Inbound::Closed {
                    code: frame.as_ref().map(|f| u16::from(f.code)),
                    reason: frame
                        .map(|f| f.reason.as_str().to_owned())
                        .unwrap_or_default(),
                };
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => return Inbound::Control,
            Some(Ok(Message::Frame(_))) => {}
            Some(Err(e)) => return map_error(e),
        }
    }
    futures_lite::future::yield_now().await;
    Inbound::Control
}

fn map_error(e: WsError) -> Inbound {
    match e {
        WsError::Capacity(CapacityError::MessageTooLong { size, .. }) => {
            Inbound::Oversize(u64::try_from(size).unwrap_or(u64::MAX))
        }
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => Inbound::Closed {
            code: None,
            reason: String::new(),
        },
        WsError::Protocol(p) => Inbound::ProtocolViolation(p.to_string()),
        WsError::Utf8(_) => Inbound::ProtocolViolation("invalid UTF-8 in a text message".into()),
        _ => Inbound::Closed {
            code: None,
            reason: String::new(),
        },
    }
}

/// Sends a text message.
pub async fn send_text<S>(ws: &mut WebSocketStream<S>, text: String) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    ws.send(Message::Text(Utf8Bytes::from(text))).await.is_ok()
}

/// Sends a binary message.
pub async fn send_binary<S>(ws: &mut WebSocketStream<S>, bytes: Vec<u8>) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    ws.send(Message::Binary(Bytes::from(bytes))).await.is_ok()
}

/// Sends a WebSocket ping (empty payload).
pub async fn send_ping<S>(ws: &mut WebSocketStream<S>) -> bool
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    ws.send(Message::Ping(Bytes::new())).await.is_ok()
}

/// The close frame a peer sent: its code (absent when the frame had none) and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerClose {
    /// The code.
    pub code: Option<u16>,
    /// The reason.
    pub reason: String,
}

/// Sends a close frame, then waits (bounded by [`CLOSE_LINGER`]) for the peer's close or EOF,
/// discarding whatever data arrives meanwhile. Answers the peer's close frame when one arrived:
/// its own close can have crossed ours, and it says what the peer meant.
///
/// When the peer's close was read first, the closing handshake is the peer's: `code` is not
/// sent, the peer's own close frame is echoed back (RFC 6455 §5.5.1) and the answer is `None`.
/// tungstenite queues that echo when it reads the close but refuses any later send, so it leaves
/// on the one further read this function makes; without it the peer saw its TCP connection end
/// with no close frame (1006).
pub async fn close<S>(ws: &mut WebSocketStream<S>, code: u16, reason: &str) -> Option<PeerClose>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let frame = CloseFrame {
        code: WsCloseCode::from(code),
        reason: Utf8Bytes::from(reason.to_owned()),
    };
    let send = async {
        if ws.close(Some(frame)).await.is_err() {
            // The peer closed first (or the socket broke): this read sends the queued echo.
            let _ = ws.next().await;
            return None;
        }
        for _ in 0..256 {
            match ws.next().await {
                None | Some(Err(_)) => return None,
                Some(Ok(Message::Close(f))) => {
                    return Some(PeerClose {
                        code: f.as_ref().map(|f| u16::from(f.code)),
                        reason: f.map(|f| f.reason.as_str().to_owned()).unwrap_or_default(),
                    });
                }
                Some(Ok(_)) => {}
            }
        }
        None
    };
    send.or(async {
        smol::Timer::after(CLOSE_LINGER).await;
        None
    })
    .await
}

/// After a failed send: reads what the peer already sent, bounded by [`CLOSE_LINGER`], looking
/// for its close frame. A peer that closes and drops its socket at once makes the next write
/// fail, while its close frame still waits, unread, in the receive buffer.
pub async fn pending_close<S>(ws: &mut WebSocketStream<S>) -> Option<PeerClose>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let read = async {
        for _ in 0..256 {
            match ws.next().await {
                None | Some(Err(_)) => return None,
                Some(Ok(Message::Close(f))) => {
                    return Some(PeerClose {
                        code: f.as_ref().map(|f| u16::from(f.code)),
                        reason: f.map(|f| f.reason.as_str().to_owned()).unwrap_or_default(),
                    });
                }
                Some(Ok(_)) => {}
            }
        }
        None
    };
    read.or(async {
        smol::Timer::after(CLOSE_LINGER).await;
        None
    })
    .await
}

/// Closes after the peer's message was refused as oversize: the close frame is sent, our side of
/// the TCP stream is shut down, and the peer's unread bytes (the rest of the oversize message,
/// whatever follows it) are read and discarded — without buffering, whatever length the frame
/// claimed — until the peer ends its side or [`CLOSE_LINGER`] passes. A socket dropped with
/// unread input is reset, and a reset can destroy the close frame before the peer reads it.
pub async fn close_discarding<S>(ws: &mut WebSocketStream<S>, code: u16, reason: &str)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    use futures_lite::{AsyncReadExt as _, AsyncWriteExt as _};
    let frame = CloseFrame {
        code: WsCloseCode::from(code),
        reason: Utf8Bytes::from(reason.to_owned()),
    };
    let work = async {
        if ws.close(Some(frame)).await.is_err() {
            return;
        }
        let raw = ws.get_mut();
        let _ = raw.close().await;
        let mut sink = [0u8; 16 * 1024];
        // Bounded by the linger below; each read consumes input or ends the loop.
        loop {
            match raw.read(&mut sink).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    work.or(async {
        smol::Timer::after(CLOSE_LINGER).await;
    })
    .await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use async_tungstenite::tungstenite::protocol::Role;

    /// A server socket with a 16-byte cap and a client, over loopback TCP.
    async fn pair() -> (
        WebSocketStream<smol::net::TcpStream>,
        WebSocketStream<smol::net::TcpStream>,
    ) {
        let listener = smol::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = smol::net::TcpStream::connect(addr).await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let server =
            WebSocketStream::from_raw_socket(server, Role::Server, Some(link_config_with_cap(16)))
                .await;
        let client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        (server, client)
    }

    #[test]
    fn the_cap_reads_exactly_cap_bytes_and_reports_one_more_as_oversize() {
        smol::block_on(async {
            let (mut server, mut client) = pair().await;
            assert!(send_binary(&mut client, vec![1; 16]).await);
            assert_eq!(
                next_inbound(&mut server).await,
                Inbound::Binary(vec![1; 16])
            );
            assert!(send_text(&mut client, "x".repeat(17)).await);
            assert_eq!(next_inbound(&mut server).await, Inbound::Oversize(17));
            // The server can still send the close the machine decides.
            close_discarding(&mut server, 1009, "too big").await;
            match next_inbound(&mut client).await {
                Inbound::Closed { code, .. } => assert_eq!(code, Some(1009)),
                other => panic!("{other:?}"),
            }
        });
    }

    #[test]
    fn pings_are_answered_and_reported_as_control_and_close_frames_are() {
        smol::block_on(async {
            let (mut server, mut client) = pair().await;
            assert!(send_ping(&mut client).await);
            assert!(send_text(&mut client, "after".into()).await);
            assert_eq!(next_inbound(&mut server).await, Inbound::Control);
            assert_eq!(
                next_inbound(&mut server).await,
                Inbound::Text("after".into())
            );
            // The server answered the ping on its own: the client reads the pong.
            assert_eq!(next_inbound(&mut client).await, Inbound::Control);
            close(&mut client, 4409, "superseded").await;
            assert_eq!(
                next_inbound(&mut server).await,
                Inbound::Closed {
                    code: Some(4409),
                    reason: "superseded".into()
                }
            );
        });
    }

    #[test]
    fn a_close_read_first_is_echoed_back_to_its_sender() {
        smol::block_on(async {
            let (mut server, mut client) = pair().await;
            // The client starts the closing handshake; the server reads it, then closes as
            // every handler does on a peer's close.
            let client_side = async {
                client
                    .close(Some(CloseFrame {
                        code: WsCloseCode::from(1000),
                        reason: Utf8Bytes::from("bye".to_owned()),
                    }))
                    .await
                    .unwrap();
                // Bounded: without the echo the server keeps the connection open.
                client
                    .next()
                    .or(async {
                        smol::Timer::after(Duration::from_secs(5)).await;
                        None
                    })
                    .await
            };
            let server_side = async {
                assert_eq!(
                    next_inbound(&mut server).await,
                    Inbound::Closed {
                        code: Some(1000),
                        reason: "bye".into()
                    }
                );
                close(&mut server, 4000, "ignored").await
            };
            let (echo, answered) = futures_lite::future::zip(client_side, server_side).await;
            assert_eq!(answered, None);
            match echo {
                Some(Ok(Message::Close(Some(f)))) => {
                    assert_eq!((u16::from(f.code), f.reason.as_str()), (1000, "bye"));
                }
                other => panic!("the client got no close frame back: {other:?}"),
            }
        });
    }

    /// What the node reads of a plane's close: a code a close frame may carry arrives as it is,
    /// whether or not the link's table lists it; one that RFC 6455 keeps off the wire (below
    /// 1000, 1004 to 1006, 1014 to 2999, 5000 and above) arrives as 1002, a protocol error.
    #[test]
    fn a_close_code_arrives_as_sent_unless_no_close_frame_may_carry_it() {
        smol::block_on(async {
            for (sent, read) in [
                (1001, 1001),
                (1003, 1003),
                (1007, 1007),
                (1008, 1008),
                (1011, 1011),
                (1012, 1012),
                (1013, 1013),
                (3000, 3000),
                (4000, 4000),
                (4400, 4400),
                (4403, 4403),
                (4408, 4408),
                (4999, 4999),
                (999, 1002),
                (1004, 1002),
                (1005, 1002),
                (1006, 1002),
                (1014, 1002),
                (1015, 1002),
                (2999, 1002),
                (5000, 1002),
            ] {
                let (mut plane, mut node) = pair().await;
                let plane_side = async {
                    let _ = plane
                        .close(Some(CloseFrame {
                            code: WsCloseCode::from(sent),
                            reason: Utf8Bytes::from("closing".to_owned()),
                        }))
                        .await;
                };
                let (_, got) = futures_lite::future::zip(plane_side, next_inbound(&mut node)).await;
                match got {
                    Inbound::Closed { code, .. } => assert_eq!(code, Some(read), "sent {sent}"),
                    other => panic!("sent {sent}: {other:?}"),
                }
            }
        });
    }
}
