#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    termplane_fuzz::kx_responder(data);
});
