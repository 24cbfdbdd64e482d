//! Validating cfsim's JSON documents against the schemas under docs/ with an independent validator:
//! Python's `jsonschema` package (draft 2020-12). Each document is one JSON value per line of a file;
//! without python3/jsonschema the check is skipped with a note, except under `CI=true`, where it fails.

use std::path::Path;
use std::process::Command;

const SCRIPT: &str = r#"
import json, sys
try:
    import jsonschema
except ImportError:
    print("SKIP: python3 module jsonschema missing (pip install jsonschema)")
    sys.exit(3)
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = n = 0
for path in sys.argv[2:]:
    for i, line in enumerate(open(path), 1):
        n += 1
        for err in v.iter_errors(json.loads(line)):
            bad += 1
            print(f"{path}:{i}: {err.json_path}: {err.message}")
print(f"{n} documents checked, {bad} errors")
sys.exit(1 if bad else 0)
"#;

/// Validates every line of every text in `docs` against `schema`; panics with the validator's report.
pub fn validate_lines(schema: &Path, docs: &[String]) {
    let dir = std::env::temp_dir().join(format!(
        "cfsim-schema-{}-{}",
        std::process::id(),
        schema.file_stem().and_then(|s| s.to_str()).unwrap_or("x")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (i, t) in docs.iter().enumerate() {
        let f = dir.join(format!("{i}.jsonl"));
        std::fs::write(&f, t).unwrap();
        files.push(f);
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(schema)
        .args(&files)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let out = match out {
        Ok(o) => o,
        Err(e) if !ci => {
            eprintln!("SKIP schema validation: no python3 ({e})");
            return;
        }
        Err(e) => panic!("python3 missing under CI: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) && !ci {
        eprintln!("{text}");
        return;
    }
    assert!(
        out.status.success(),
        "schema validation failed:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
}
