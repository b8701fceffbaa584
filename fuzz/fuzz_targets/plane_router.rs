#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    termplane_fuzz::plane_router(data);
});
