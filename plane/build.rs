//! Checks that the API reference's front-end assets are installed (they are embedded into the
//! binary by `src/http/docs.rs`) and passes their version on to the compiler.

use std::path::Path;
use std::process::exit;

const DIST: &str = "ui/node_modules/swagger-ui-dist";
const FILES: [&str; 3] = ["package.json", "swagger-ui-bundle.js", "swagger-ui.css"];

fn fail(why: &str) -> ! {
    eprintln!(
        "error: {why}\n\
         The API reference at /docs embeds swagger-ui-dist from plane/ui/node_modules.\n\
         Install it from the lockfile first: run `npm ci --ignore-scripts --prefix plane/ui` \
         at the repository root."
    );
    exit(1)
}

/// The string value of the first `"version": "…"` at or after `from` in `text`.
fn version_after(text: &str, from: usize) -> Option<String> {
    let rest = text.get(from..)?;
    let at = rest.find("\"version\"")?;
    let rest = &rest[at + "\"version\"".len()..];
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

fn main() {
    println!("cargo::rerun-if-changed=ui/package-lock.json");
    println!("cargo::rerun-if-changed=ui/init.js");
    for f in FILES {
        println!("cargo::rerun-if-changed={DIST}/{f}");
    }
    for f in FILES {
        if !Path::new(DIST).join(f).is_file() {
            fail(&format!("{DIST}/{f} is missing."));
        }
    }
    let read = |p: &str| {
        std::fs::read_to_string(p).unwrap_or_else(|e| fail(&format!("cannot read {p}: {e}")))
    };
    let installed = version_after(&read(&format!("{DIST}/package.json")), 0)
        .unwrap_or_else(|| fail("swagger-ui-dist's package.json names no version."));
    let lock = read("ui/package-lock.json");
    let entry = lock
        .find("\"node_modules/swagger-ui-dist\"")
        .unwrap_or_else(|| fail("ui/package-lock.json does not lock swagger-ui-dist."));
    let locked = version_after(&lock, entry)
        .unwrap_or_else(|| fail("ui/package-lock.json names no swagger-ui-dist version."));
    if installed != locked {
        fail(&format!(
            "swagger-ui-dist {installed} is installed but the lockfile says {locked}."
        ));
    }
    println!("cargo::rustc-env=TERMPLANE_SWAGGER_UI_VERSION={installed}");
}
