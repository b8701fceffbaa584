#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    termplane_fuzz::peer_handshake(data);
});
