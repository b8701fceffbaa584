#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    termplane_fuzz::p256_fixed_key(data);
});
