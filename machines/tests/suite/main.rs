//! The sans-IO machines' integration tests, one binary: the link between a node and the plane
//! driven end to end in memory, the JWS verifier and the sealed stream against third-party
//! vectors (Wycheproof, libsodium, and PyNaCl and a JOSE library when they are installed), the
//! properties proptest checks, and the protocol document's examples. `common` and
//! `jws_common` hold the helpers they share.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod jws_common;

mod agent_link;
mod catalogue_d;
mod jose_live;
mod jws_keys;
mod jws_props;
mod kx_catalogue;
mod libsodium_vectors;
mod pair;
mod plane_link;
mod protocol_doc;
mod pynacl_live;
mod replay_props;
mod seal_catalogue;
mod seal_props;
mod wycheproof_ecdsa;
mod wycheproof_jws;
mod wycheproof_x25519;
mod wycheproof_xchacha;
