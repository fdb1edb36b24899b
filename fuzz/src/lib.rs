//! kiln's fuzz targets: one plain function per parser, archive, texture or
//! sprite reader, each taking the fuzzer's bytes and returning nothing.
//!
//! A target returns normally for every input: an `Err` from kiln is the
//! right answer to bad bytes. A panic, an abort (an allocation the input
//! does not justify), a stack overflow or a hang is what the fuzzer is
//! looking for. The same functions run under AFL (`src/bin/afl.rs`) and
//! over folders of files without it (`src/bin/replay.rs`), so whatever the
//! fuzzer found can be replayed, timed and minimised with ordinary tools.

mod archives;
mod codecs;
pub mod load;
mod models;
pub mod seeds;
mod sprites;
mod textures;

/// A fuzz target: its name on the command line, what it reads, and its body.
pub struct Target {
    /// The name `kiln-afl`, `replay` and `seeds` know it by.
    pub name: &'static str,
    /// What it feeds its input to.
    pub reads: &'static str,
    /// The harness.
    pub run: fn(&[u8]),
}

/// Every target, in the order fuzz/README.md lists them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "rsm",
        reads: "formats::rsm::parse (RSM 1.x and RSM2)",
        run: models::rsm,
    },
    Target {
        name: "rsw",
        reads: "formats::rsw::parse, then rsw::details and rsw::names",
        run: models::rsw,
    },
    Target {
        name: "gnd",
        reads: "formats::gnd::parse",
        run: models::gnd,
    },
    Target {
        name: "spr",
        reads: "formats::sprite::spr::parse",
        run: sprites::spr,
    },
    Target {
        name: "act",
        reads: "formats::sprite::act::parse",
        run: sprites::act,
    },
    Target {
        name: "grimrock_model",
        reads: "formats::grimrock::parse_model, then its lowering (grimrock::lower::lower)",
        run: models::grimrock_model,
    },
    Target {
        name: "grimrock_anim",
        reads: "formats::grimrock::parse_animation, then lower::lower_animation",
        run: models::grimrock_anim,
    },
    Target {
        name: "lua",
        reads: "formats::lua::calls (defineMaterial and defineObject tables, walked)",
        run: models::lua,
    },
    Target {
        name: "p3d",
        reads: "formats::arma::p3d::parse (MLOD), then lower::lower_mlod for every LOD",
        run: models::p3d,
    },
    Target {
        name: "rtm",
        reads: "formats::arma::rtm::parse (RTM_0101/RTM_MDAT and BMTR with LZO), then lowered",
        run: models::rtm,
    },
    Target {
        name: "cfg",
        reads: "formats::arma::cfg::parse_bytes, skeletons, resolve_bones, model_skeleton_name",
        run: models::cfg,
    },
    Target {
        name: "lzo",
        reads: "formats::lzo::decompress (u32 LE expected size, then the stream)",
        run: codecs::lzo,
    },
    Target {
        name: "lzss",
        reads: "archives::lzss::decompress (u32 LE expected size, then the stream)",
        run: codecs::lzss,
    },
    Target {
        name: "des",
        reads: "GRF DES: decrypt_mixed, crypt_header, decode_name (internal module)",
        run: codecs::des,
    },
    Target {
        name: "bmp",
        reads: "formats::texture::decode_with and summarize, named .bmp",
        run: textures::bmp,
    },
    Target {
        name: "tga",
        reads: "formats::texture::decode_with and summarize, named .tga",
        run: textures::tga,
    },
    Target {
        name: "png",
        reads: "formats::texture::decode_with and summarize, named .png",
        run: textures::png,
    },
    Target {
        name: "dds",
        reads: "formats::texture::decode_with (mip 0 and 1) and summarize, named .dds",
        run: textures::dds,
    },
    Target {
        name: "paa",
        reads: "formats::texture::decode_with (mip 0 and 1), paa::parse and summarize, named .paa",
        run: textures::paa,
    },
    Target {
        name: "grf",
        reads: "archives::Grf::open_path over a temporary file, every entry read",
        run: archives::grf,
    },
    Target {
        name: "pbo",
        reads: "archives::Pbo::open_path over a temporary file, every entry read",
        run: archives::pbo,
    },
    Target {
        name: "dat",
        reads: "archives::GrimrockDat::open_path over a temporary file, every entry read",
        run: archives::dat,
    },
    Target {
        name: "load",
        reads: "Model::load_from a MemorySource (the whole load path into the scene model), \
                then Model::animated by a second file",
        run: load::load,
    },
    Target {
        name: "map",
        reads: "Map::load_from a MemorySource: the RSW, its GND, the models it places \
                (the map scene: ground, water, instances)",
        run: load::map,
    },
    Target {
        name: "inspect",
        reads: "inspect_with over a temporary file (summaries of every format and archive)",
        run: load::inspect,
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Whether `KILN_FUZZ_SHOW` is set: `replay` then prints what the load
/// and inspect targets made of each input (errors and warnings), to check
/// that seeds get past the parsers.
pub(crate) fn show() -> bool {
    static SHOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SHOW.get_or_init(|| std::env::var_os("KILN_FUZZ_SHOW").is_some())
}

/// A file in the system's temporary folder (in memory where `/dev/shm`
/// is), named for this process, for the readers that open a path; removed
/// when dropped. The fuzzer runs one input at a time per process.
pub(crate) struct TempFile(std::path::PathBuf);

impl TempFile {
    pub(crate) fn new(ext: &str, data: &[u8]) -> TempFile {
        let shm = std::path::Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let path = dir.join(format!("kiln-fuzz-{}.{ext}", std::process::id()));
        std::fs::write(&path, data).expect("temporary file");
        TempFile(path)
    }

    pub(crate) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
