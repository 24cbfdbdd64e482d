//! The host's package database (profile field `packages`): what is installed, the updates the package
//! manager offers, and what its repositories have. One database per host, shared by every package
//! module and legacy `package_method` (on a real host `apt_get` and `dpkg` read the same dpkg
//! database: the module is only the way of reading it). cfsim never runs a package module or a legacy
//! package command: this inventory is their answer (see `src/promise/packages/`).

use serde_json::Value;

use super::profile::{describe, Reader, R};

const PACKAGES_FIELDS: &[&str] = &["installed", "updates", "available", "cache"];
const PACKAGE_FIELDS: &[&str] = &["name", "version", "arch", "install_error"];

/// One package record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// Architecture as the package manager prints it (`amd64`, `x86_64`, `noarch`); default `amd64`.
    pub arch: String,
    /// `available` only: installing it fails with this message (the module's `ErrorMessage=`).
    pub install_error: Option<String>,
}

/// The package database of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageDb {
    pub installed: Vec<Package>,
    /// Newer versions of installed packages (`list-updates`).
    pub updates: Vec<Package>,
    /// Other packages the repositories offer (what a `present` promise can install).
    pub available: Vec<Package>,
    /// Whether the agent's package caches (`packages_installed_<module>.lmdb` …) already hold this
    /// inventory when the run starts (`"cache": "warm"`, the default: the agent ran on the host
    /// before), or are empty until a package promise queries its module (`"cold"`).
    pub warm_cache: bool,
}

impl Default for PackageDb {
    fn default() -> PackageDb {
        PackageDb {
            installed: Vec::new(),
            updates: Vec::new(),
            available: Vec::new(),
            warm_cache: true,
        }
    }
}

impl Reader<'_> {
    /// The `packages` field.
    pub(super) fn packages(&self, v: Option<&Value>) -> R<PackageDb> {
        let Some(v) = v else {
            return Ok(PackageDb::default());
        };
        let m = self.object(v, "packages", PACKAGES_FIELDS)?;
        let warm_cache = match self.string(m, "cache", "packages.cache")?.as_deref() {
            None | Some("warm") => true,
            Some("cold") => false,
            Some(other) => {
                return self.err(
                    "packages.cache",
                    "\"warm\" or \"cold\"",
                    format!("'{other}'"),
                )
            }
        };
        Ok(PackageDb {
            installed: self.package_list(m.get("installed"), "packages.installed")?,
            updates: self.package_list(m.get("updates"), "packages.updates")?,
            available: self.package_list(m.get("available"), "packages.available")?,
            warm_cache,
        })
    }

    fn package_list(&self, v: Option<&Value>, field: &str) -> R<Vec<Package>> {
        let items = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => a,
            Some(other) => return self.err(field, "an array of package objects", describe(other)),
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let f = format!("{field}[{i}]");
            let m = self.object(item, &f, PACKAGE_FIELDS)?;
            let name = self.req_string(m, "name", &format!("{f}.name"))?;
            let version = self.req_string(m, "version", &format!("{f}.version"))?;
            let arch = self
                .string(m, "arch", &format!("{f}.arch"))?
                .unwrap_or_else(|| "amd64".to_string());
            for (k, s) in [("name", &name), ("version", &version), ("arch", &arch)] {
                if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return self.err(
                        &format!("{f}.{k}"),
                        "a string without white space",
                        format!("'{s}'"),
                    );
                }
            }
            let install_error = self.string(m, "install_error", &format!("{f}.install_error"))?;
            out.push(Package {
                name,
                version,
                arch,
                install_error,
            });
        }
        Ok(out)
    }
}

/// A package operation of the run, for the result JSON (`packages`): what the simulated agent changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub name: String,
    pub version: String,
    pub arch: String,
    /// `install`, `remove` or `update`.
    pub action: &'static str,
}

/// The run's view of the package database: the profile's inventory as changed by the run, the agent's
/// per-module inventory caches (what `packagesmatching` reads), the operations recorded for the
/// `--simulate` report, and the changes made.
#[derive(Debug, Clone, Default)]
pub struct PackageState {
    pub installed: Vec<Package>,
    pub updates: Vec<Package>,
    pub available: Vec<Package>,
    start: (Vec<Package>, Vec<Package>),
    warm_cache: bool,
    /// module name → (installed, updates) as last queried this run.
    caches: std::collections::BTreeMap<String, (Vec<Package>, Vec<Package>)>,
    /// Operations the simulate report lists, in order.
    pub ops: Vec<super::simreport::PackageChange>,
    /// Changes made by the run, in order.
    pub applied: Vec<Applied>,
}

impl PackageState {
    /// The state at the start of a run on `db`.
    pub fn new(db: &PackageDb) -> PackageState {
        PackageState {
            installed: db.installed.clone(),
            updates: db.updates.clone(),
            available: db.available.clone(),
            start: (db.installed.clone(), db.updates.clone()),
            warm_cache: db.warm_cache,
            ..PackageState::default()
        }
    }

    /// A package promise queried `module` (`list-installed`, `list-updates`): its cache is refreshed.
    pub fn query(&mut self, module: &str) {
        self.caches.insert(
            module.to_string(),
            (self.installed.clone(), self.updates.clone()),
        );
    }

    /// What the agent's cache of `module` holds now (installed or updates): the last query of this run,
    /// else the inventory at the start of the run (warm cache) or nothing (cold cache).
    pub fn cached(&self, module: &str, updates: bool) -> Vec<Package> {
        let pick = |c: &(Vec<Package>, Vec<Package>)| {
            if updates {
                c.1.clone()
            } else {
                c.0.clone()
            }
        };
        match self.caches.get(module) {
            Some(c) => pick(c),
            None if self.warm_cache => pick(&self.start),
            None => Vec::new(),
        }
    }

    /// Installed packages named `name` (and of `arch` when given).
    pub fn find_installed(&self, name: &str, arch: Option<&str>) -> Vec<&Package> {
        self.installed
            .iter()
            .filter(|p| p.name == name && arch.is_none_or(|a| a == p.arch))
            .collect()
    }

    /// The update for an installed `name` (and `arch`), if the package manager offers one.
    pub fn find_update(&self, name: &str, arch: Option<&str>) -> Option<&Package> {
        self.updates
            .iter()
            .find(|p| p.name == name && arch.is_none_or(|a| a == p.arch))
    }

    /// What installing `name` would install: the first of the updates, then the repository, with the
    /// version and architecture when given (as the fake module of the corpus picks it).
    pub fn candidate(
        &self,
        name: &str,
        version: Option<&str>,
        arch: Option<&str>,
    ) -> Option<&Package> {
        self.updates.iter().chain(self.available.iter()).find(|p| {
            p.name == name
                && version.is_none_or(|v| v == p.version)
                && arch.is_none_or(|a| a == p.arch)
        })
    }

    /// Installs `p` (replacing the installed package of the same name and architecture, dropping its
    /// update), recording the change.
    pub fn install(&mut self, p: &Package) {
        let updated = self
            .installed
            .iter()
            .any(|i| i.name == p.name && i.arch == p.arch);
        self.installed
            .retain(|i| !(i.name == p.name && i.arch == p.arch));
        self.updates
            .retain(|i| !(i.name == p.name && i.arch == p.arch));
        let mut rec = p.clone();
        rec.install_error = None;
        self.installed.push(rec);
        self.applied.push(Applied {
            name: p.name.clone(),
            version: p.version.clone(),
            arch: p.arch.clone(),
            action: if updated { "update" } else { "install" },
        });
    }

    /// Removes the installed packages named `name` (of `arch` when given), recording the change.
    pub fn remove(&mut self, name: &str, arch: Option<&str>) {
        let gone: Vec<Package> = self
            .installed
            .iter()
            .filter(|p| p.name == name && arch.is_none_or(|a| a == p.arch))
            .cloned()
            .collect();
        self.installed
            .retain(|p| !(p.name == name && arch.is_none_or(|a| a == p.arch)));
        for p in gone {
            self.applied.push(Applied {
                name: p.name,
                version: p.version,
                arch: p.arch,
                action: "remove",
            });
        }
    }
}
