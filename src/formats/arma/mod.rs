pub mod cfg;
pub mod p3d;
pub mod rtm;
