//! `cfsim henc` against the Perl reference merge (tests/henc/henc_reference.pl, written from the spec) on
//! randomized hierarchies with comments, blanks, indentation, CRLF, missing files and every sigil: the two
//! must print the same set of lines (the Perl one prints in hash order). Also checks that `cfsim henc`
//! always exits 0 and prints in its documented order (sorted classes, then sorted variables).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

fn have_perl() -> bool {
    let ok = Command::new("perl")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "perl is required when CI=true"
        );
        eprintln!("note: perl not found, skipping the reference comparison");
    }
    ok
}

fn random_line(rng: &mut Rng) -> String {
    let names = [
        "web",
        "db",
        "ntp",
        "x y",
        "a,b",
        "role",
        "arr[k]",
        "henc_classification_completed",
        "é",
    ];
    let sig = rng.pick(&[
        "+", "-", "_", "=", "@", "%", "/", ",", ".", "!", "#", "^", "", "&", "~",
    ]);
    let name = rng.pick(&names);
    let body = match sig {
        "=" | "@" | "%" | "&" => match rng.below(4) {
            0 => format!("{name}=v{}", rng.below(3)),
            1 => format!("{name} = a = b"),
            2 => name.to_string(),
            _ => format!("{name}={{ \"a\", 'b' }}"),
        },
        "!" => rng
            .pick(&[
                "RESET_ALL_CLASSES",
                "RESET_ACTIVE_CLASSES",
                "RESET_CANCELLED_CLASSES",
                "RESET_ALL_CLASSES extra",
                "UNKNOWN",
            ])
            .to_string(),
        "#" => " a comment +x".to_string(),
        "^" => "context=foo".to_string(),
        "" => rng.pick(&["", " ", "\t", "garbage"]).to_string(),
        _ => format!("{name}{}", rng.pick(&["", "", " # c"])),
    };
    let pad = rng.pick(&["", "", " ", "\t ", "\x0b"]);
    format!("{pad}{sig}{body}{}", rng.pick(&["", "", "  ", "\r"]))
}

fn write_hierarchy(dir: &Path, rng: &mut Rng) -> Vec<PathBuf> {
    let n = 1 + rng.below(5);
    let mut paths = Vec::new();
    for i in 0..n {
        let p = dir.join(format!("level{i}"));
        if rng.below(6) == 0 {
            paths.push(dir.join(format!("missing{i}")));
            continue;
        }
        let mut text = String::new();
        for _ in 0..rng.below(25) {
            text.push_str(&random_line(rng));
            text.push('\n');
        }
        if rng.below(4) == 0 {
            text.pop(); // no final newline
        }
        std::fs::write(&p, text).unwrap();
        paths.push(p);
    }
    paths
}

fn sorted_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    v.sort();
    v
}

#[test]
fn cfsim_henc_prints_the_same_lines_as_the_perl_reference() {
    if !have_perl() {
        return;
    }
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("henc_reference");
    let _ = std::fs::remove_dir_all(&root);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/henc/henc_reference.pl");
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for case in 0..150 {
        let dir = root.join(format!("case{case}"));
        std::fs::create_dir_all(&dir).unwrap();
        let files = write_hierarchy(&dir, &mut rng);
        let ours = Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .arg("henc")
            .args(&files)
            .output()
            .unwrap();
        let perl = Command::new("perl")
            .arg(&reference)
            .args(&files)
            .output()
            .unwrap();
        assert_eq!(
            ours.status.code(),
            Some(0),
            "cfsim henc exit status, case {case}"
        );
        assert_eq!(
            sorted_lines(&ours.stdout),
            sorted_lines(&perl.stdout),
            "case {case}: {}",
            dir.display()
        );
        // Documented order: classes sorted by name, then variable lines sorted by variable name.
        let text = ours.stdout;
        let lines: Vec<&[u8]> = text
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let split = lines
            .iter()
            .position(|l| !matches!(l.first(), Some(b'+' | b'-')))
            .unwrap_or(lines.len());
        let classes: Vec<&[u8]> = lines[..split].iter().map(|l| &l[1..]).collect();
        assert!(
            classes.windows(2).all(|w| w[0] < w[1]),
            "class order, case {case}"
        );
    }
}
