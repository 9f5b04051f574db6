"""``conkeeper stale`` on the shapes of a real Rust crate's history (dtolnay/semver walked
from 0.11 through the 1.0 redesign to 1.0.27: `Type::method` calls with arguments, in prose
and in a fenced block, and a test named to ``cargo test``). Each test builds the case in a
small fixture repository and runs the real command; no cargo build is needed.
"""

from __future__ import annotations

from pathlib import Path

from test_freshness_realproj import project
from test_freshness_stale import DAY, T0, by_line, commit, stale_json, write

REQ = (
    "pub struct VersionReq;\n\nimpl VersionReq {\n"
    "    pub fn exact(v: &Version) -> VersionReq { VersionReq }\n"
    "    pub fn parse(text: &str) -> VersionReq { VersionReq }\n"
    "    pub fn matches(&self, v: &Version) -> bool { true }\n}\n"
)
VERSION = (
    "pub struct Version;\n\nimpl Version {\n"
    "    pub fn new(major: u64, minor: u64, patch: u64) -> Version { Version }\n"
    "    pub fn parse(text: &str) -> Version { Version }\n}\n"
)


def test_a_rust_call_with_arguments_in_backticks_is_cited(tmp_path: Path) -> None:
    memory = "- `Version::new(1, 2, 3)` builds a version without pre or build.\n"
    root = project(tmp_path, {"src/version.rs": VERSION, "src/req.rs": REQ}, memory)
    write(root, "src/version.rs", VERSION.replace("Version", "SemVer"))
    write(root, "src/req.rs", REQ.replace("Version", "SemVer"))
    commit(root, "rename the version type", T0 + 2 * DAY)
    finding = by_line(stale_json(root, "--no-cache"))[3]
    assert (finding["reason"], finding["citation"]) == ("symbol-gone", "Version")


def test_a_rust_call_written_in_prose_is_cited(tmp_path: Path) -> None:
    memory = (
        "- Use VersionReq::exact(&v) to pin a dependency to one version.\n"
        "- VersionReq::matches is the only matching entry point.\n"
    )
    root = project(tmp_path, {"src/version.rs": VERSION, "src/req.rs": REQ}, memory)
    write(
        root,
        "src/req.rs",
        REQ.replace("    pub fn exact(v: &Version) -> VersionReq { VersionReq }\n", ""),
    )
    commit(root, "remove VersionReq::exact", T0 + 2 * DAY)
    findings = by_line(stale_json(root, "--no-cache"))
    assert {line: (f["reason"], f["citation"]) for line, f in findings.items()} == {
        3: ("symbol-gone", "exact")
    }


def test_a_rust_path_call_in_a_fenced_block_is_cited(tmp_path: Path) -> None:
    memory = (
        "- Matching a requirement:\n\n"
        "```rust\n"
        'let req = VersionReq::parse(">= 1.0.0").unwrap();\n'
        'let owned = String::from("1.0.1");\n'
        "assert!(req.matches(&Version::parse(&owned).unwrap()));\n"
        "```\n"
    )
    root = project(tmp_path, {"src/version.rs": VERSION, "src/req.rs": REQ}, memory)
    write(root, "src/req.rs", REQ.replace("fn parse", "fn from_text"))
    commit(root, "rename the requirement parser", T0 + 2 * DAY)
    findings = by_line(stale_json(root, "--no-cache"))
    assert {line: (f["reason"], f["citation"]) for line, f in findings.items()} == {
        5: ("symbol-gone", "parse")
    }


def test_a_test_named_to_cargo_test_is_cited(tmp_path: Path) -> None:
    tests = (
        "#[test]\nfn test_parsing_pre_and_build_metadata_see_issue_217() {}\n\n"
        "#[test]\nfn test_wildcard() {}\n"
    )
    memory = (
        "- Issue 217 regression: `cargo test test_parsing_pre_and_build_metadata_see_issue_217`.\n"
        "- Wildcards: `cargo test --features serde test_wildcard -- --nocapture`.\n"
        "- One file: `cargo test --test test_version_req`; a filter: `cargo test version_req`.\n"
    )
    root = project(tmp_path, {"tests/test_version_req.rs": tests, "src/req.rs": REQ}, memory)
    renamed = tests.replace(
        "test_parsing_pre_and_build_metadata_see_issue_217", "test_leading_digit_in_pre_and_build"
    )
    write(root, "tests/test_version_req.rs", renamed)
    commit(root, "Rename leading digit test", T0 + 2 * DAY)
    findings = by_line(stale_json(root, "--no-cache"))
    assert {line: (f["reason"], f["citation"]) for line, f in findings.items()} == {
        3: ("symbol-gone", "test_parsing_pre_and_build_metadata_see_issue_217")
    }
