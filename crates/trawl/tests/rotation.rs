//! Size-based WARC rotation: small files, each opening with warcinfo, none left `.open`, all valid.

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warcs_rotate_by_size_and_each_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.warc.max_file_bytes = 16 * 1024;
    config.warc.prefix = "rot".into();
    let report = trawl::selftest::run(dir.path(), config).await.unwrap();
    assert!(
        report.passed(),
        "{:?}",
        report
            .results
            .iter()
            .filter(|r| !r.passed)
            .collect::<Vec<_>>()
    );

    let files = common::warc_files(dir.path());
    assert!(files.len() >= 3, "expected rotation, got {files:?}");
    for (i, file) in files.iter().enumerate() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            name.starts_with("rot-") && name.ends_with(".warc.gz"),
            "{name}"
        );
        assert!(name.contains(&format!("-{i:05}-")), "serial {i} in {name}");
        let first = trawl_warc::open(file).unwrap().next().unwrap().unwrap();
        assert_eq!(first.get("WARC-Type"), Some("warcinfo"), "{name}");
        common::warcio_check(file);
    }
    assert_eq!(report.summary.warcs.len(), files.len());
}
