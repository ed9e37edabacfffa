//! The browser bundle the pages ask for (script, wasm, stylesheet). A
//! binary started on its own, as a deployment starts it, must serve the
//! files its pages name: otherwise every page loads, nothing on it ever
//! becomes interactive, and nothing says why. So the console reads the
//! build's `hash.txt` when it is there, and refuses to start, naming the
//! path, when the site root lacks a file of the bundle.

use leptos::config::LeptosOptions;
use std::path::{Path, PathBuf};

/// The file names of the bundle, as the pages name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleNames {
    pub js: String,
    pub wasm: String,
    pub css: String,
}

impl BundleNames {
    /// The names with the hashes the build wrote to its hash file (lines
    /// `js: …`, `wasm: …`, `css: …`), as Leptos's `HydrationScripts` and
    /// `HashedStylesheet` make them.
    pub fn hashed(output_name: &str, hash_file: &str) -> BundleNames {
        let hash = |kind: &str| {
            hash_file.lines().find_map(|line| {
                let (file, hash) = line.trim().split_once(':')?;
                (file.trim() == kind).then(|| format!(".{}", hash.trim()))
            })
        };
        BundleNames {
            js: format!("{output_name}{}.js", hash("js").unwrap_or_default()),
            wasm: format!("{output_name}{}.wasm", hash("wasm").unwrap_or_default()),
            css: format!("{output_name}{}.css", hash("css").unwrap_or_default()),
        }
    }

    /// The names without hashes. A build by cargo-leptos (which compiles
    /// the output name in) names the wasm `NAME.wasm`; wasm-bindgen's own
    /// default, which Leptos expects otherwise, is `NAME_bg.wasm`.
    pub fn plain(output_name: &str, built_by_cargo_leptos: bool) -> BundleNames {
        let wasm_suffix = if built_by_cargo_leptos { "" } else { "_bg" };
        BundleNames {
            js: format!("{output_name}.js"),
            wasm: format!("{output_name}{wasm_suffix}.wasm"),
            css: format!("{output_name}.css"),
        }
    }

    fn all(&self) -> [&str; 3] {
        [&self.js, &self.wasm, &self.css]
    }
}

/// Where Leptos looks for the build's hash file: beside the binary.
fn hash_file_path(options: &LeptosOptions) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join(options.hash_file.as_ref()))
}

/// Settles whether the bundle's names carry hashes — as `LEPTOS_HASH_FILES`
/// says when it is set, and otherwise whenever the build left a hash file
/// beside the binary — and checks that the site root holds every file the
/// pages will name. The error names the missing paths and what to do.
pub fn prepare(options: &mut LeptosOptions, hash_files_set: bool) -> Result<(), String> {
    let hash_path = hash_file_path(options);
    let hashes = hash_path
        .as_deref()
        .and_then(|path| std::fs::read_to_string(path).ok());
    if !hash_files_set && hashes.is_some() {
        options.hash_files = true;
    }
    let names = if options.hash_files {
        let Some(hashes) = hashes else {
            let path = hash_path.unwrap_or_else(|| PathBuf::from(options.hash_file.as_ref()));
            return Err(format!(
                "LEPTOS_HASH_FILES is true but the build's hash file {} is missing: \
                 build with `cargo leptos build --release`, or unset LEPTOS_HASH_FILES",
                path.display()
            ));
        };
        BundleNames::hashed(&options.output_name, &hashes)
    } else {
        BundleNames::plain(
            &options.output_name,
            option_env!("LEPTOS_OUTPUT_NAME").is_some(),
        )
    };
    let pkg = Path::new(options.site_root.as_ref()).join(options.site_pkg_dir.as_ref());
    let missing: Vec<String> = names
        .all()
        .iter()
        .map(|name| pkg.join(name))
        .filter(|path| !path.is_file())
        .map(|path| path.display().to_string())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the site root lacks the browser bundle the pages ask for: {} — build it with \
             `cargo leptos build --release` (or `make run`), or point LEPTOS_SITE_ROOT at the \
             directory that holds it",
            missing.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_take_each_kind_of_file_its_own_hash() {
        let names = BundleNames::hashed("toolwright", "js: 6Hk1tQ\nwasm: y0OkGQ\n css:  3rSwpw \n");
        assert_eq!(names.js, "toolwright.6Hk1tQ.js");
        assert_eq!(names.wasm, "toolwright.y0OkGQ.wasm");
        assert_eq!(names.css, "toolwright.3rSwpw.css");
    }

    #[test]
    fn a_kind_missing_from_the_hash_file_keeps_its_plain_name() {
        let names = BundleNames::hashed("toolwright", "js: abc\n");
        assert_eq!(names.js, "toolwright.abc.js");
        assert_eq!(names.wasm, "toolwright.wasm");
    }

    #[test]
    fn plain_names_follow_who_built_the_binary() {
        assert_eq!(BundleNames::plain("tw", true).wasm, "tw.wasm");
        assert_eq!(BundleNames::plain("tw", false).wasm, "tw_bg.wasm");
        assert_eq!(BundleNames::plain("tw", false).js, "tw.js");
        assert_eq!(BundleNames::plain("tw", true).css, "tw.css");
    }

    #[test]
    fn an_empty_site_root_is_refused_naming_the_files() {
        let site = tempfile::tempdir().unwrap();
        let mut options = LeptosOptions::builder()
            .output_name("toolwright")
            .site_root(site.path().to_string_lossy().into_owned())
            .site_pkg_dir("pkg")
            .build();
        let error = prepare(&mut options, true).unwrap_err();
        assert!(
            error.contains(&format!(
                "{}",
                site.path().join("pkg").join("toolwright.js").display()
            )),
            "{error}"
        );
        // Once the files are there, it starts.
        std::fs::create_dir_all(site.path().join("pkg")).unwrap();
        let names = BundleNames::plain("toolwright", option_env!("LEPTOS_OUTPUT_NAME").is_some());
        for name in names.all() {
            std::fs::write(site.path().join("pkg").join(name), "").unwrap();
        }
        assert_eq!(prepare(&mut options, true), Ok(()));
    }
}
