//! Section H of the catalogue, the node daemon's part: the file operations themselves are the
//! executor's (`exec/tests/suite/catalogue_h.rs`).
/// 100: only if Windows nodes exist — they do not: the node reports linux, darwin or unknown.
#[test]
fn h100_no_windows_nodes() {
    assert!(matches!(
        termplane_node::enroll::os_name(),
        "linux" | "darwin" | "unknown"
    ));
}
