//! Property test: the jti cache and seq gate agree with a plain reference model (linear scans
//! over a `Vec`) on random sequences of fresh commands, replays, conflicting reuses, answers,
//! reconnects and clock steps, under eviction pressure; and no jti is ever executed twice.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use sha2::{Digest as _, Sha256};
use termplane_machines::jws::Verified;
use termplane_machines::replay::{Admission, JtiCache, SEQ_REFUSAL, SeqGate, admit};
use termplane_machines::time::UnixSecs;
use termplane_proto::{Claims, CommandResult};

const T0: i64 = 1_767_225_600;

#[derive(Clone, Debug)]
enum Op {
    /// A fresh jti issued `iat_offset` seconds from now; `seq_fault` 0 = gap, 1 = regression,
    /// anything else = in order.
    Fresh { iat_offset: i64, seq_fault: u8 },
    /// The same token again.
    Replay(usize),
    /// The same jti with other content.
    Conflict(usize),
    /// The execution of an earlier jti finishes.
    Answer(usize),
    /// A new connection.
    Reconnect,
    /// The clock moves on.
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (-45_i64..=6, 0_u8..12).prop_map(|(iat_offset, seq_fault)| Op::Fresh { iat_offset, seq_fault }),
        3 => any::<usize>().prop_map(Op::Replay),
        1 => any::<usize>().prop_map(Op::Conflict),
        4 => any::<usize>().prop_map(Op::Answer),
        1 => Just(Op::Reconnect),
        2 => (0_i64..=20).prop_map(Op::Advance),
    ]
}

#[derive(Clone, Debug)]
enum MState {
    InFlight(usize),
    Done(CommandResult),
}

#[derive(Clone, Debug)]
struct MEntry {
    jti: String,
    digest: [u8; 32],
    iat: i64,
    insertion: u64,
    state: MState,
}

/// The reference: the documented policy, written as directly as possible.
struct Model {
    capacity: usize,
    start: i64,
    entries: Vec<MEntry>,
    next_insertion: u64,
    watermark: Option<i64>,
    last_seq: Option<u64>,
    refused: bool,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Execute,
    Resend(CommandResult),
    Wait,
    Conflict,
    Stale,
    DropLink,
}

fn kind(a: &Admission) -> Kind {
    match a {
        Admission::Execute => Kind::Execute,
        Admission::Resend(r) => Kind::Resend(r.clone()),
        Admission::Wait => Kind::Wait,
        Admission::Conflict => Kind::Conflict,
        Admission::Stale(_) => Kind::Stale,
        Admission::DropLink(_) => Kind::DropLink,
    }
}

impl Model {
    fn gate(&mut self, seq: u64) -> bool {
        if self.refused {
            return false;
        }
        let expected = self.last_seq.map_or(1, |l| l + 1);
        if seq == expected {
            self.last_seq = Some(seq);
            true
        } else {
            self.refused = true;
            false
        }
    }

    fn admit(&mut self, jti: &str, digest: [u8; 32], iat: i64, seq: u64) -> Kind {
        if let Some(e) = self.entries.iter_mut().find(|e| e.jti == jti) {
            if e.digest != digest {
                return Kind::Conflict;
            }
            return match &mut e.state {
                MState::Done(a) => Kind::Resend(a.clone()),
                MState::InFlight(w) => {
                    *w += 1;
                    Kind::Wait
                }
            };
        }
        // Step (3) refusals never reach the seq gate (step 4).
        let stale = iat < self.start - 5 || self.watermark.is_some_and(|w| iat <= w);
        if stale {
            return Kind::Stale;
        }
        while self.entries.len() >= self.capacity {
            let victim = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| matches!(e.state, MState::Done(_)))
                .min_by_key(|(_, e)| (e.iat, e.insertion))
                .map(|(i, _)| i);
            let Some(i) = victim else {
                return Kind::Stale;
            };
            let e = self.entries.remove(i);
            self.watermark = Some(self.watermark.map_or(e.iat, |w| w.max(e.iat)));
        }
        let ok = self.gate(seq);
        let state = if ok {
            MState::InFlight(0)
        } else {
            MState::Done(CommandResult::err(jti, SEQ_REFUSAL))
        };
        self.entries.push(MEntry {
            jti: jti.into(),
            digest,
            iat,
            insertion: self.next_insertion,
            state,
        });
        self.next_insertion += 1;
        if ok { Kind::Execute } else { Kind::DropLink }
    }

    fn answer(&mut self, jti: &str, answer: CommandResult) -> usize {
        match self.entries.iter_mut().find(|e| e.jti == jti) {
            Some(e) => match e.state {
                MState::InFlight(w) => {
                    e.state = MState::Done(answer);
                    w
                }
                MState::Done(_) => 0,
            },
            None => 0,
        }
    }
}

fn verified(jti: &str, iat: i64, seq: u64, variant: u32) -> Verified {
    let claims = Claims {
        iss: termplane_proto::COMMAND_ISSUER.into(),
        aud: "node:n".into(),
        jti: jti.into(),
        iat,
        exp: iat + 30,
        seq,
        cmd: serde_json::json!({"type": "ping", "v": variant}),
    };
    let digest = Sha256::digest(serde_json::to_vec(&claims).unwrap()).into();
    Verified { claims, digest }
}

fn run(capacity: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut cache = JtiCache::new(capacity, UnixSecs(T0));
    let mut gate = SeqGate::new();
    let mut model = Model {
        capacity,
        start: T0,
        entries: Vec::new(),
        next_insertion: 0,
        watermark: None,
        last_seq: None,
        refused: false,
    };
    let mut now = T0;
    let mut issued: Vec<Verified> = Vec::new();
    let mut conflicts = 0_u32;
    let mut executions: BTreeMap<String, u32> = BTreeMap::new();
    for (step, op) in ops.iter().enumerate() {
        let deliver = |v: &Verified,
                       cache: &mut JtiCache,
                       gate: &mut SeqGate,
                       model: &mut Model,
                       executions: &mut BTreeMap<String, u32>|
         -> Result<(), TestCaseError> {
            let got = kind(&admit(cache, gate, v, UnixSecs(now)));
            let want = model.admit(&v.claims.jti, v.digest, v.claims.iat, v.claims.seq);
            prop_assert_eq!(&got, &want, "step {} {:?}", step, op);
            if got == Kind::Execute {
                let n = executions.entry(v.claims.jti.clone()).or_default();
                *n += 1;
                prop_assert_eq!(*n, 1, "{} executed twice", v.claims.jti);
            }
            Ok(())
        };
        match op {
            Op::Fresh {
                iat_offset,
                seq_fault,
            } => {
                let expected = model.last_seq.map_or(1, |l| l + 1);
                let seq = match seq_fault {
                    0 => expected + 1,
                    1 => expected.saturating_sub(1),
                    _ => expected,
                };
                let v = verified(&format!("j{step}"), now + iat_offset, seq, 0);
                deliver(&v, &mut cache, &mut gate, &mut model, &mut executions)?;
                issued.push(v);
            }
            Op::Replay(i) if !issued.is_empty() => {
                let v = issued[i % issued.len()].clone();
                deliver(&v, &mut cache, &mut gate, &mut model, &mut executions)?;
            }
            Op::Conflict(i) if !issued.is_empty() => {
                let base = &issued[i % issued.len()];
                conflicts += 1;
                let v = verified(
                    &base.claims.jti,
                    base.claims.iat,
                    base.claims.seq,
                    conflicts,
                );
                deliver(&v, &mut cache, &mut gate, &mut model, &mut executions)?;
            }
            Op::Answer(i) if !issued.is_empty() => {
                let jti = issued[i % issued.len()].claims.jti.clone();
                let answer = CommandResult::ok(&jti, Some(serde_json::json!(step)));
                let got = cache.record_answer(&jti, answer.clone());
                let want = model.answer(&jti, answer);
                prop_assert_eq!(got, want, "waiters at step {}", step);
            }
            Op::Replay(_) | Op::Conflict(_) | Op::Answer(_) => {}
            Op::Reconnect => {
                gate = SeqGate::new();
                model.last_seq = None;
                model.refused = false;
            }
            Op::Advance(s) => now += s,
        }
        prop_assert_eq!(cache.len(), model.entries.len());
        prop_assert!(cache.len() <= capacity);
        prop_assert_eq!(cache.watermark(), model.watermark);
        prop_assert_eq!(
            gate.expected(),
            if model.refused {
                None
            } else {
                Some(model.last_seq.map_or(1, |l| l + 1))
            }
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn guard_agrees_with_the_reference_model(
        capacity in prop_oneof![Just(1_usize), Just(2), Just(8), Just(64)],
        ops in proptest::collection::vec(op(), 1..160),
    ) {
        run(capacity, &ops)?;
    }
}
