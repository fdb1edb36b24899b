//! Faithful typed readers (and writers) of each file format. Nothing here
//! knows about rendering: lowering into `scene::Model` happens in `scene`.

pub mod arma;
pub mod gnd;
pub mod grimrock;
pub mod lua;
pub mod lzo;
pub mod reader;
pub mod rsm;
pub mod rsw;
pub mod text;
