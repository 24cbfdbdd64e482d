//! Unit tests of the hENC merge: the 8 upstream hENC test cases (spec henc-enc-bcfg2.md §1.6), every row
//! of §1.3 and every edge case of §1.4 (observed there with the real Perl module), the documented output
//! order, and the idempotence property F ++ F == F on random hierarchies.
#![allow(clippy::unwrap_used)]

use cfsim::henc::{load, merge, merge_files, MemReader};

fn out(files: &[(&str, &str)]) -> Vec<String> {
    let mut r = MemReader::new();
    let mut names = Vec::new();
    for (n, t) in files {
        r = r.with(n, t);
        names.push(n.to_string());
    }
    let bytes = merge_files(&names, &r);
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn one(text: &str) -> Vec<String> {
    out(&[("f", text)])
}

const DONE: &str = "+henc_classification_completed";

// ---- the 8 upstream cases (henc_test.cf + tlib/) -------------------------------------------------------

const HENC_SET: &str = "+global_class_to_be_set_by_henc\n-global_class_to_be_cancelled_by_henc\n\
+global_class_to_be_lowered\n=test_scalar=hENC test\n\
@test_list={ \"this\",\"list\",\"will\",\"be\",\"slashed\" }\n";
const HENC_OVERRIDE: &str = "_global_class_to_be_lowered\n/test_list\n";

#[test]
fn upstream_cases_1_to_5_combined_output() {
    // §1.6: "for case 1-5 the combined module output is (observed, sorted)".
    let got = out(&[("henc_set", HENC_SET), ("henc_override", HENC_OVERRIDE)]);
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec![
            "+global_class_to_be_set_by_henc",
            "+henc_classification_completed",
            "-global_class_to_be_cancelled_by_henc",
            "=test_scalar=hENC test",
        ]
    );
}

#[test]
fn upstream_case_1_set() {
    assert!(out(&[("s", HENC_SET), ("o", HENC_OVERRIDE)])
        .contains(&"+global_class_to_be_set_by_henc".into()));
}

#[test]
fn upstream_case_2_cancel() {
    assert!(out(&[("s", HENC_SET), ("o", HENC_OVERRIDE)])
        .contains(&"-global_class_to_be_cancelled_by_henc".into()));
}

#[test]
fn upstream_case_3_lower() {
    let o = out(&[("s", HENC_SET), ("o", HENC_OVERRIDE)]);
    assert!(!o.iter().any(|l| l.contains("global_class_to_be_lowered")));
}

#[test]
fn upstream_case_4_scalar() {
    assert!(
        out(&[("s", HENC_SET), ("o", HENC_OVERRIDE)]).contains(&"=test_scalar=hENC test".into())
    );
}

#[test]
fn upstream_case_5_slash() {
    let o = out(&[("s", HENC_SET), ("o", HENC_OVERRIDE)]);
    assert!(!o.iter().any(|l| l.contains("test_list")));
}

fn reset_file(a: u8, cmd: &str) -> String {
    let mut s = String::new();
    for i in a..a + 3 {
        s.push_str(&format!("+active_class_{i}\n"));
    }
    for i in a..a + 3 {
        s.push_str(&format!("-cancelled_class_{i}\n"));
    }
    s.push_str(cmd);
    s.push('\n');
    s
}

#[test]
fn upstream_case_6_reset_active() {
    assert_eq!(
        one(&reset_file(1, "!RESET_ACTIVE_CLASSES")),
        vec![
            "-cancelled_class_1",
            "-cancelled_class_2",
            "-cancelled_class_3",
            DONE
        ]
    );
}

#[test]
fn upstream_case_7_reset_cancelled() {
    assert_eq!(
        one(&reset_file(4, "!RESET_CANCELLED_CLASSES")),
        vec![
            "+active_class_4",
            "+active_class_5",
            "+active_class_6",
            DONE
        ]
    );
}

#[test]
fn upstream_case_8_reset_all() {
    assert_eq!(one(&reset_file(7, "!RESET_ALL_CLASSES")), vec![DONE]);
}

// ---- §1.3 merge table ----------------------------------------------------------------------------------

#[test]
fn table_last_class_word_wins() {
    assert_eq!(one("+x\n-x\n"), vec![DONE, "-x"]);
    assert_eq!(one("-x\n+x\n"), vec![DONE, "+x"]);
    assert_eq!(one("+x\n_x\n"), vec![DONE]);
}

#[test]
fn table_variables() {
    assert_eq!(one("=v=1\n/v\n=v=2\n"), vec![DONE, "=v=2"]);
    let f = [("f1", "=v=file1\n"), ("f2", "=v=file2\n")];
    assert_eq!(out(&f), vec![DONE, "=v=file2"]);
    assert_eq!(out(&[f[1], f[0]]), vec![DONE, "=v=file1"]);
    assert_eq!(
        one("@list= { \"a\" }\n=list=scalar now\n"),
        vec![DONE, "=list=scalar now"]
    );
    assert_eq!(
        one("=arr[key]=v1\n=arr[key]=v2\n"),
        vec![DONE, "=arr[key]=v2"]
    );
    assert_eq!(one("%data={\"k\":[1,2]}\n/data\n"), vec![DONE]);
}

#[test]
fn table_reset_all_and_same_file_twice() {
    assert_eq!(one("+a\n!RESET_ALL_CLASSES\n"), vec![DONE]);
    let f = ("f", "+a\n-a\n");
    assert_eq!(out(&[f, f]), vec!["-a", DONE]);
}

// ---- §1.4 edge cases -----------------------------------------------------------------------------------

#[test]
fn edge_indented_class_is_stripped() {
    assert_eq!(one("   +indented_class\n"), vec![DONE, "+indented_class"]);
}

#[test]
fn edge_indented_variable_keeps_its_indent() {
    assert_eq!(
        one("   =indented_var=x\n"),
        vec![DONE, "   =indented_var=x"]
    );
}

#[test]
fn edge_trailing_blanks_and_inline_comment_stay_in_the_name() {
    assert_eq!(one("+trailing_ws   \n"), vec![DONE, "+trailing_ws   "]);
    assert_eq!(
        one("+foo # trailing comment\n"),
        vec!["+foo # trailing comment", DONE]
    );
}

#[test]
fn edge_variable_names() {
    // `=spaced = value` is stored under `spaced ` and re-emitted verbatim.
    let src = [cfsim::henc::Source {
        name: "f".into(),
        text: Some(b"=spaced = value with spaces \n=a=b=c\n=noequals\n".to_vec()),
    }];
    let m = merge::merge(&src, false);
    let keys: Vec<&[u8]> = m.sorted_vars().iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, vec![&b""[..], &b"a"[..], &b"spaced "[..]]);
    assert_eq!(
        one("=spaced = value with spaces \n=a=b=c\n=noequals\n"),
        vec![DONE, "=noequals", "=a=b=c", "=spaced = value with spaces "]
    );
}

#[test]
fn edge_commas_kept_in_class_names() {
    assert_eq!(one("+a,b\n-c,d\n"), vec!["+a,b", "-c,d", DONE]);
}

#[test]
fn edge_crlf_keeps_cr() {
    let o = String::from_utf8(merge_files(
        &["f".into()],
        &MemReader::new().with("f", "+x\r\n=v=1\r\n"),
    ))
    .unwrap();
    assert_eq!(o, "+henc_classification_completed\n+x\r\n=v=1\r\n");
}

#[test]
fn edge_ignored_lines() {
    assert_eq!(
        one(",comma\n.dot\n^context=xyz\ngarbage\n# comment\n\n+\n-\n"),
        vec![DONE]
    );
}

#[test]
fn edge_noops() {
    assert_eq!(
        one("_never_set\n/never_set\n!UNKNOWN_CMD\n+a\n!RESET_ALL_CLASSES extra\n"),
        vec!["+a", DONE]
    );
}

#[test]
fn edge_duplicates_collapse() {
    assert_eq!(one("+dup\n+dup\n-dup\n"), vec!["-dup", DONE]);
}

#[test]
fn edge_completed_class_always_set() {
    assert_eq!(one("-henc_classification_completed\n"), vec![DONE]);
    assert_eq!(out(&[]), vec![DONE]);
}

#[test]
fn missing_files_are_skipped() {
    let r = MemReader::new().with("b", "+b\n");
    let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    let sources = load(&names, &r);
    let m = merge::merge(&sources, false);
    assert_eq!(m.skipped, vec![0, 2]);
    assert_eq!(
        String::from_utf8(m.render()).unwrap(),
        "+b\n+henc_classification_completed\n"
    );
}

#[test]
fn output_order_is_classes_by_name_then_variables_by_name() {
    assert_eq!(
        one("=zz=1\n-b\n@aa={ \"x\" }\n+c\n+a\n"),
        vec!["+a", "-b", "+c", DONE, "@aa={ \"x\" }", "=zz=1"]
    );
}

#[test]
fn no_trailing_newline_and_empty_file() {
    assert_eq!(
        out(&[("a", "+x"), ("b", ""), ("c", "+y\n")]),
        vec![DONE, "+x", "+y"]
    );
}

// ---- property: merging F ++ F gives the same result as F ------------------------------------------------

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next_u64() % xs.len() as u64) as usize]
    }
}

fn random_file(rng: &mut Rng) -> String {
    let names = ["a", "b", "c", "web", "db", "x y", "a,b"];
    let sigils = ["+", "-", "_", "=", "@", "%", "/", ",", ".", "!"];
    let mut s = String::new();
    for _ in 0..(rng.next_u64() % 12) {
        let sig = rng.pick(&sigils);
        let name = rng.pick(&names);
        let line = match sig {
            "=" | "@" | "%" => format!("{sig}{name}={}", rng.next_u64() % 3),
            "!" => rng
                .pick(&[
                    "!RESET_ALL_CLASSES",
                    "!RESET_ACTIVE_CLASSES",
                    "!RESET_CANCELLED_CLASSES",
                    "!X",
                ])
                .to_string(),
            _ => format!("{sig}{name}"),
        };
        let pad = rng.pick(&["", "  ", "\t"]);
        s.push_str(pad);
        s.push_str(&line);
        s.push_str(rng.pick(&["\n", "\n", " \n", "\r\n"]));
    }
    s
}

#[test]
fn property_merging_a_list_twice_is_merging_it_once() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..500 {
        let n = 1 + (rng.next_u64() % 4) as usize;
        let mut r = MemReader::new();
        let mut names = Vec::new();
        for i in 0..n {
            let name = format!("f{i}");
            r = r.with(&name, &random_file(&mut rng));
            names.push(name);
        }
        if rng.next_u64().is_multiple_of(5) {
            names.push("missing".into());
        }
        let once = merge_files(&names, &r);
        let twice_names: Vec<String> = names.iter().chain(names.iter()).cloned().collect();
        let twice = merge_files(&twice_names, &r);
        assert_eq!(once, twice, "files: {:?}", r.files);
    }
}

#[test]
fn native_module_merges_henc_promises_without_running_them() {
    use cfsim::henc::{is_henc_wrapper, module_argv, native_henc_output};
    use cfsim::module::protocol::{parse_output, Event};
    assert_eq!(
        module_argv("/var/cfengine/modules/henc /e/a /e/b"),
        Some((
            "/var/cfengine/modules/henc".into(),
            vec!["/e/a".into(), "/e/b".into()]
        ))
    );
    // recognised by content, never by name
    assert!(is_henc_wrapper("#!/bin/sh\nexec cfsim henc \"$@\"\n"));
    assert!(is_henc_wrapper(
        "#!/bin/sh\nexec /usr/local/bin/cfsim henc \"$@\"\n"
    ));
    assert!(!is_henc_wrapper(
        "#!/bin/sh\n# exec cfsim henc\necho +pwned\n"
    ));
    assert!(!is_henc_wrapper("#!/usr/bin/perl\nprint \"+web\\n\";\n"));
    let r = MemReader::new()
        .with("/e/a", "+web\n=role=www\n")
        .with("/e/b", "-web\n");
    let cmd = "/var/cfengine/modules/henc /e/a /e/b /e/missing";
    let (_, args) = module_argv(cmd).unwrap();
    let out = native_henc_output(&args, &r);
    assert_eq!(out, "+henc_classification_completed\n-web\n=role=www\n");
    // The protocol layer then sees it as the agent would: context `henc`.
    let events = parse_output(cmd, &out);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Scalar { context, name, value, .. }
        if context == "henc" && name == "role" && value == "www")));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::UndefineClass { name } if name == "web")));
}
