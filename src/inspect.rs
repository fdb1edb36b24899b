//! `kiln inspect`: what a file holds.
