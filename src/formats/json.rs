//! How parsed values appear in `kiln inspect --json`: the serializers the
//! format structs name with `#[serde(serialize_with = …)]`, so every format
//! shows its fields the same way. Vectors are arrays of numbers
//! (`[x, y, z]`, quaternions `[x, y, z, w]`), names are their CP949 bytes
//! decoded, and blocks of raw bytes are lowercase hex strings (one string
//! per block keeps a 65,536-lightmap ground printable).

use glam::{Quat, Vec3};
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize as _;

/// `x` as a JSON value whose numbers print as the file's own: an `f32` goes
/// through its shortest decimal form (`0.35`, not the `0.3499999940395355`
/// its exact `f64` would print), which reads back to the same `f32`.
pub fn to_value<T: serde::Serialize>(x: &T) -> serde_json::Value {
    serde_json::to_string(x)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null)
}

/// `[x, y, z]`.
pub fn vec3<S: Serializer>(v: &Vec3, s: S) -> Result<S::Ok, S::Error> {
    v.to_array().serialize(s)
}

/// `[[x, y, z], …]`.
pub fn vec3s<S: Serializer>(v: &[Vec3], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for p in v {
        seq.serialize_element(&p.to_array())?;
    }
    seq.end()
}

/// `[x, y, z, w]`, the order the files store.
pub fn quat<S: Serializer>(q: &Quat, s: S) -> Result<S::Ok, S::Error> {
    q.to_array().serialize(s)
}

/// A name's bytes decoded from CP949.
pub fn name<S: Serializer>(n: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::text::decode_cp949(n))
}

/// Names decoded from CP949.
pub fn names<S: Serializer>(v: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for n in v {
        seq.serialize_element(&crate::text::decode_cp949(n))?;
    }
    seq.end()
}

/// Bytes as one lowercase hex string.
pub fn hex<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&to_hex(b))
}

/// Blocks of bytes, one hex string each.
pub fn hexes<S: Serializer, B: AsRef<[u8]>>(v: &[B], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for b in v {
        seq.serialize_element(&to_hex(b.as_ref()))?;
    }
    seq.end()
}

/// Lowercase hex, two digits a byte.
pub fn to_hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(b.len() * 2);
    for &x in b {
        out.push(DIGITS[usize::from(x >> 4)] as char);
        out.push(DIGITS[usize::from(x & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_their_shortest_f32_form() {
        let v = to_value(&[0.35f32, 0.96, 1.0e-7]);
        assert_eq!(v.to_string(), "[0.35,0.96,1e-7]");
        let back = v[1].as_f64().unwrap() as f32;
        assert_eq!(back.to_bits(), 0.96f32.to_bits());
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(to_hex(&[0, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(to_hex(&[]), "");
    }
}
