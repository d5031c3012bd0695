//! Any bytes as a TOML experiment file and as a suite file: an experiment
//! (or a suite) or an error, never a panic. The file lies beside a small
//! qrels and run and two experiment files, so that references to them
//! resolve and the checks after parsing are reached too.

#![no_main]

use std::sync::OnceLock;

fn dir() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("qrels.txt"), "q1 0 d1 1\n").expect("write");
        std::fs::write(dir.path().join("run.trec"), "q1 Q0 d1 1 1.0 t\n").expect("write");
        let experiment = "qrels = \"qrels.txt\"\n[[runs]]\npath = \"run.trec\"\n";
        for name in ["a.toml", "b.toml"] {
            std::fs::write(dir.path().join(name), experiment).expect("write");
        }
        dir
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = dir().path().join("experiment.toml");
    std::fs::write(&path, data).expect("write the experiment");
    let _ = rankeval::config::load(&path);
    // The same bytes as a suite file (`experiments = ["a.toml", ...]`).
    let suite = dir().path().join("suite.toml");
    std::fs::write(&suite, data).expect("write the suite");
    if let Err(error) = rankeval::config::load_suite(&suite) {
        let text = error.to_string();
        assert!(text.contains("suite.toml"), "{text}");
    }
});
