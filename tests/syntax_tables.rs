//! The generated syntax tables: regenerated from the committed `cf-promises -s json` output they must equal
//! the committed sources, the committed JSON must equal what the installed cf-promises prints, and the lookup
//! API must agree with the JSON. `UPDATE_TABLES=1` rewrites the JSON and the generated sources.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/syntax_gen.rs"]
mod syntax_gen;
#[path = "common/tables_live.rs"]
mod tables_live;

use std::path::{Path, PathBuf};

use cfsim::syntax::tables::{self, DataType, PromiseTypeLookup, Status, Visibility};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const JSON: &str = "src/syntax/cf-syntax-3.21.0.json";
const TABLES: &str = "src/syntax/tables_gen.rs";
const FUNCTIONS: &str = "src/syntax/functions_gen.rs";

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

fn committed_json() -> Value {
    serde_json::from_str(&read(JSON)).expect("committed syntax JSON parses")
}

fn updating() -> bool {
    std::env::var("UPDATE_TABLES").as_deref() == Ok("1")
}

fn write(rel: &str, text: &str) {
    std::fs::write(root().join(rel), text).unwrap_or_else(|e| panic!("writing {rel}: {e}"));
    eprintln!("UPDATE_TABLES=1: rewrote {rel}");
}

/// Regenerate both sources from `json`; compare with (or, when updating, rewrite) the committed files.
fn check_generated(json: &Value) {
    let tables = syntax_gen::tables_source(json).unwrap();
    let functions = syntax_gen::functions_source(json).unwrap();
    for (rel, text) in [(TABLES, tables), (FUNCTIONS, functions)] {
        if updating() {
            write(rel, &text);
        } else {
            assert!(
                read(rel) == text,
                "{rel} is out of date with {JSON}; rerun with UPDATE_TABLES=1"
            );
        }
    }
}

#[test]
fn generated_sources_match_committed_json() {
    if updating() {
        // The live test does the rewrite from the installed binary.
        return;
    }
    check_generated(&committed_json());
}

#[test]
fn committed_json_matches_installed_cf_promises() {
    let Some(bin) = tables_live::cf_promises("committed_json_matches_installed_cf_promises") else {
        return;
    };
    let version = tables_live::run(&bin, Path::new("/"), &["--version"]).unwrap();
    assert!(
        version.stdout.contains("3.21.0"),
        "the recordings are for CFEngine 3.21.0, found: {}",
        version.stdout
    );
    let run = tables_live::run(&bin, Path::new("/"), &["-s", "json"]).unwrap();
    assert_eq!(run.exit, 0, "cf-promises -s json failed: {}", run.stderr);
    let live: Value = serde_json::from_str(&run.stdout).expect("cf-promises -s json prints JSON");
    if updating() {
        write(JSON, &run.stdout);
        check_generated(&live);
    } else {
        assert!(
            live == committed_json(),
            "{JSON} differs from `cf-promises -s json`; rerun with UPDATE_TABLES=1"
        );
    }
}

fn entries<'a>(v: &'a Value, key: &str) -> &'a serde_json::Map<String, Value> {
    v[key].as_object().unwrap()
}

#[test]
fn every_json_attribute_is_found_by_the_lookup_api() {
    let json = committed_json();
    let mut checked = 0;
    for (bundle, b) in entries(&json, "bundleTypes") {
        assert!(
            tables::bundle_type(bundle).is_some(),
            "bundle type {bundle}"
        );
        for pt in b["promiseTypes"].as_array().unwrap() {
            let pt = pt.as_str().unwrap();
            assert!(tables::promise_type_allowed(bundle, pt), "{bundle}/{pt}");
            assert!(matches!(
                tables::lookup_promise_type(bundle, pt),
                PromiseTypeLookup::BuiltIn(s) if s.name == pt
            ));
            for (lval, a) in entries(&json["promiseTypes"][pt], "attributes") {
                let spec = tables::promise_attr(bundle, pt, lval)
                    .unwrap_or_else(|| panic!("{bundle}/{pt}/{lval}"));
                assert_eq!(spec.ty.name(), a["type"], "{bundle}/{pt}/{lval}");
                assert_eq!(spec.range, a["range"].as_str(), "{bundle}/{pt}/{lval}");
                assert_eq!(spec.status.name(), a["status"]);
                assert_eq!(spec.visibility.name(), a["visibility"]);
                checked += 1;
            }
        }
    }
    for (body, b) in entries(&json, "bodyTypes") {
        for (lval, a) in entries(b, "attributes") {
            let spec = tables::body_attr(body, lval).unwrap_or_else(|| panic!("{body}/{lval}"));
            assert_eq!(spec.ty.name(), a["type"], "{body}/{lval}");
            assert_eq!(spec.range, a["range"].as_str(), "{body}/{lval}");
            checked += 1;
        }
    }
    assert!(checked > 1200, "only {checked} attributes checked");
}

#[test]
fn every_json_function_is_found_by_the_lookup_api() {
    let json = committed_json();
    let fns = entries(&json, "functions");
    assert_eq!(fns.len(), 186);
    assert_eq!(tables::functions().len(), 186);
    for (name, f) in fns {
        let spec = tables::function(name).unwrap_or_else(|| panic!("function {name}"));
        assert_eq!(spec.returns.name(), f["returnType"], "{name}");
        assert_eq!(spec.variadic, f["variadic"], "{name}");
        assert_eq!(spec.category, f["category"], "{name}");
        assert_eq!(spec.status.name(), f["status"], "{name}");
        let params = f["parameters"].as_array().unwrap();
        assert_eq!(spec.params.len(), params.len(), "{name}");
        for (p, j) in spec.params.iter().zip(params) {
            assert_eq!(p.ty.name(), j["type"], "{name}");
            assert_eq!(p.range, j["range"], "{name}");
        }
    }
    assert!(tables::function("nosuchfunction").is_none());
}

#[test]
fn lookups_outside_the_tables() {
    assert!(tables::bundle_type("nosuch").is_none());
    assert!(tables::promise_types_in("nosuch").is_empty());
    assert!(!tables::promise_type_allowed("common", "files"));
    assert!(tables::promise_type_allowed("agent", "files"));
    // A promise type that is not built into the bundle type is treated as custom; only common attributes.
    assert_eq!(
        tables::lookup_promise_type("common", "files"),
        PromiseTypeLookup::Custom
    );
    // Like CFEngine's PromiseTypeSyntaxGet: the common promise types exist in every bundle type, known or not.
    assert!(matches!(
        tables::lookup_promise_type("knowledge", "vars"),
        PromiseTypeLookup::BuiltIn(s) if s.name == "vars"
    ));
    assert_eq!(
        tables::lookup_promise_type("knowledge", "files"),
        PromiseTypeLookup::Custom
    );
    assert_eq!(
        tables::promise_attr("agent", "mytype", "if").map(|a| a.ty),
        Some(DataType::String)
    );
    assert!(tables::promise_attr("agent", "mytype", "perms").is_none());
    assert!(tables::promise_attr("agent", "vars", "nosuch").is_none());
    assert!(tables::body_attr("nosuch", "x").is_none());
    let ifelapsed = tables::body_attr("action", "ifelapsed").unwrap();
    assert_eq!(
        (ifelapsed.ty, ifelapsed.range),
        (DataType::Int, Some("0,99999999999"))
    );
    assert_eq!(ifelapsed.status, Status::Normal);
    assert_eq!(ifelapsed.visibility, Visibility::Body);
    let sel = tables::promise_attr("edit_line", "insert_lines", "select_region").unwrap();
    assert_eq!(sel.visibility, Visibility::Bundle);
    assert_eq!(
        tables::control_body_types(),
        ["agent", "common", "executor", "file", "hub", "monitor", "runagent", "server"]
    );
    assert!(tables::is_control_body_type("common"));
    assert!(!tables::is_control_body_type("perms"));
}

#[test]
fn common_attributes() {
    let names: Vec<&str> = tables::common_attrs().iter().map(|a| a.name).collect();
    assert_eq!(
        names,
        [
            "action",
            "classes",
            "comment",
            "depends_on",
            "handle",
            "if",
            "ifvarclass",
            "meta",
            "unless",
            "with"
        ]
    );
}

#[test]
fn tables_are_sorted_for_binary_search() {
    fn sorted<T>(v: &[T], key: impl Fn(&T) -> &str) -> bool {
        v.windows(2).all(|w| key(&w[0]) < key(&w[1]))
    }
    assert!(sorted(tables::bundle_types(), |b| b.name));
    assert!(sorted(tables::promise_types(), |p| p.name));
    assert!(sorted(tables::body_types(), |b| b.name));
    assert!(sorted(tables::functions(), |f| f.name));
    assert!(sorted(tables::common_attrs(), |a| a.name));
    for b in tables::bundle_types() {
        assert!(sorted(b.promise_types, |p| p));
    }
    for p in tables::promise_types() {
        assert!(sorted(p.attrs, |a| a.name));
    }
    for b in tables::body_types() {
        assert!(sorted(b.attrs, |a| a.name));
    }
}
