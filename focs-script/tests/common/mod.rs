//! What the corpus tests share: FreeOrion's content as the corpus saved it, optionally
//! with a shim file (as the freeorion mod's `focs/shim.macros` supplies).

use focs_script::{DirFiles, Files};

/// The corpus as saved: two macro files its entries include were not available, and the
/// older versions saved in their place are read instead (focs-forge-SOURCES.txt,
/// "Includes").
pub struct Corpus(pub DirFiles);

impl Files for Corpus {
    fn read(&mut self, name: &str) -> Result<String, String> {
        let name = match name {
            "scripting/macros/priorities.macros" => "scripting/common/priorities.macros",
            "scripting/macros/base_prod.macros" => "scripting/common/base_prod.macros",
            other => other,
        };
        self.0.read(name)
    }

    fn list(&mut self, dir: &str) -> Result<Vec<String>, String> {
        self.0.list(dir)
    }
}

/// The corpus with one more file, `shim.macros`, defining `names` (as a mod's shim does).
pub struct WithShim(pub Corpus, pub String);

impl Files for WithShim {
    fn read(&mut self, name: &str) -> Result<String, String> {
        if name == "shim.macros" {
            return Ok(self.1.clone());
        }
        self.0.read(name)
    }

    fn list(&mut self, dir: &str) -> Result<Vec<String>, String> {
        self.0.list(dir)
    }
}
