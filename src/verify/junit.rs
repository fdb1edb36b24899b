//! JUnit XML, the report format CI systems read: one test suite, one test
//! case per file (named by the file, in a class per job) and one per job
//! that failed to bake.

use super::{CheckStatus, VerifyReport};

pub(super) fn report(r: &VerifyReport) -> String {
    let mut cases = String::new();
    let mut failures = 0;
    let mut errors = 0;
    for job in &r.bake.jobs {
        let class = esc(&job.label());
        match &job.result {
            Err(e) => {
                errors += 1;
                cases.push_str(&format!(
                    "    <testcase classname=\"{class}\" name=\"bake\" time=\"{:.3}\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                    job.seconds,
                    esc(&e.to_string())
                ));
            }
            Ok(_) => {
                for rec in &job.records {
                    let out = crate::paths::normalize(&rec.path);
                    let Some((n, f)) = r.files.iter().enumerate().find(|(_, f)| f.output == out)
                    else {
                        continue;
                    };
                    let name = esc(&f.output.display().to_string());
                    match f.status {
                        CheckStatus::Match | CheckStatus::Updated => cases.push_str(&format!(
                            "    <testcase classname=\"{class}\" name=\"{name}\"/>\n"
                        )),
                        CheckStatus::Mismatch | CheckStatus::Missing => {
                            failures += 1;
                            let diff = f
                                .diff
                                .as_ref()
                                .map(|d| format!(" (diff: {})", d.display()))
                                .unwrap_or_default();
                            // The page's anchor for a reader, and the
                            // `[[ATTACHMENT|path]]` lines GitLab and
                            // Jenkins show as pictures of the test case.
                            let page = r
                                .page
                                .as_ref()
                                .map(|p| {
                                    format!(
                                        "\nreport: {}#{}",
                                        p.display(),
                                        super::report::anchor(n)
                                    )
                                })
                                .unwrap_or_default();
                            let attached: String = f
                                .diff
                                .iter()
                                .map(|d| format!("[[ATTACHMENT|{}]]\n", absolute(d)))
                                .collect();
                            let out = if attached.is_empty() {
                                String::new()
                            } else {
                                format!("\n      <system-out>{}</system-out>", esc(&attached))
                            };
                            cases.push_str(&format!(
                                "    <testcase classname=\"{class}\" name=\"{name}\">\n      <failure message=\"{}\">{}</failure>{out}\n    </testcase>\n",
                                esc(&format!("{}: {}", f.status.as_str(), f.detail)),
                                esc(&format!("reference {}{diff}{page}", f.reference.display()))
                            ));
                        }
                    }
                }
            }
        }
    }
    let tests = cases.matches("<testcase").count();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"kiln verify\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

/// Attachment paths are read by the CI server from its checkout, so they
/// are absolute.
fn absolute(p: &std::path::Path) -> String {
    std::path::absolute(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// Text as XML attribute or element content.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {
                out.push_str(&format!("&#{};", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}
