//! The decompressors and GRF's DES, fed a claimed output size and a stream.

/// The first four bytes (little-endian) as the size the caller expects,
/// the rest as the stream: the decoders must not trust the size.
fn split(data: &[u8]) -> Option<(usize, &[u8])> {
    let (head, stream) = data.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*head) as usize, stream))
}

pub fn lzo(data: &[u8]) {
    if let Some((expected, stream)) = split(data) {
        if let Ok((out, used)) = kiln::internals::formats::lzo::decompress(stream, expected) {
            assert_eq!(out.len(), expected, "lzo: output size");
            assert!(used <= stream.len(), "lzo: consumed past the input");
        }
    }
}

pub fn lzss(data: &[u8]) {
    if let Some((expected, stream)) = split(data) {
        if let Ok((out, used)) = kiln::archives::lzss::decompress(stream, expected) {
            assert_eq!(out.len(), expected, "lzss: output size");
            assert!(used <= stream.len(), "lzss: consumed past the input");
        }
    }
}

pub fn des(data: &[u8]) {
    // DES is not public API: the one target that reaches an inner module.
    use kiln::internals::source::grf::des;
    let Some((size, body)) = split(data) else {
        return;
    };
    let mut mixed = body.to_vec();
    des::decrypt_mixed(&mut mixed, size as u64);
    let mut again = mixed.clone();
    des::encrypt_mixed(&mut again, size as u64);
    assert_eq!(
        again, body,
        "des: mixed encryption does not undo decryption"
    );
    let mut header = body.to_vec();
    des::crypt_header(&mut header);
    let name = des::decode_name(body);
    assert!(name.len() <= body.len(), "des: a decoded name grew");
}
