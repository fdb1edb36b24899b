//! LZO1X: round trips through kiln's own compressors, the real BMTR streams
//! in the corpus, and hostile streams (truncations, flips, bad distances).

use kiln::internals::formats::lzo::{compress, compress_literal, decompress};
use std::path::Path;

/// Deterministic xorshift so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next() as u8).collect()
}

/// Text-like data with repeats at every distance class (near, M3, M4).
fn repetitive(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::with_capacity(n);
    while v.len() < n {
        let kind = rng.below(4);
        if v.len() < 16 || kind == 0 {
            let k = 1 + rng.below(20);
            for _ in 0..k {
                v.push(b'a' + rng.below(6) as u8);
            }
        } else {
            let max_back = v.len().min(0xBFFF);
            let dist = 1 + match kind {
                1 => rng.below(max_back.min(0x800)),
                2 => rng.below(max_back.min(0x4000)),
                _ => rng.below(max_back),
            };
            let span = if rng.below(8) == 0 { 600 } else { 12 };
            let len = 3 + rng.below(span);
            let start = v.len() - dist;
            for i in 0..len {
                v.push(v[start + i]);
            }
        }
    }
    v.truncate(n);
    v
}

fn inputs() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut v = vec![
        vec![],
        vec![7],
        vec![1, 2],
        vec![1, 2, 3],
        vec![9; 4],
        vec![0; 100_000],
        (0..=255u8).cycle().take(70_000).collect(),
    ];
    for n in [5, 17, 18, 19, 238, 239, 240, 270, 271, 1000, 5000, 60_000] {
        v.push(random_bytes(&mut rng, n));
        v.push(repetitive(&mut rng, n));
    }
    v.push(repetitive(&mut rng, 200_000));
    v
}

#[test]
fn literal_streams_round_trip() {
    for data in inputs() {
        let mut s = compress_literal(&data);
        let len = s.len();
        s.extend_from_slice(b"TAIL");
        let (out, used) = decompress(&s, data.len()).unwrap();
        assert_eq!(out, data);
        assert_eq!(used, len);
    }
    // Exact encodings: short runs use the first-byte form; long runs the
    // zero-extended form (18 + 255 + 2 = 275 bytes → 0, 0, 2).
    assert_eq!(
        compress_literal(b"abc"),
        vec![20, b'a', b'b', b'c', 0x11, 0, 0]
    );
    let long = compress_literal(&[5u8; 275]);
    assert_eq!(&long[..3], &[0, 0, 2]);
    assert_eq!(long.len(), 3 + 275 + 3);
}

#[test]
fn greedy_streams_round_trip_and_compress() {
    for data in inputs() {
        let s = compress(&data);
        let (out, used) = decompress(&s, data.len()).unwrap();
        assert_eq!(out, data, "len {}", data.len());
        assert_eq!(used, s.len());
    }
    let zeros = compress(&[0u8; 100_000]);
    assert!(zeros.len() < 500, "{} bytes", zeros.len());
    let mut rng = Rng(99);
    let text = repetitive(&mut rng, 200_000);
    let c = compress(&text);
    assert!(c.len() * 2 < text.len(), "{} of {}", c.len(), text.len());
}

#[test]
fn wrong_expected_length_is_an_error() {
    let s = compress(b"hello hello hello hello");
    let e = decompress(&s, 22).unwrap_err();
    assert!(e.message.contains("expected 22"), "{e}");
    let e = decompress(&s, 24).unwrap_err();
    assert!(e.message.contains("expected 24"), "{e}");
    assert_eq!(e.offset, s.len() - 3);
}

#[test]
fn distance_before_output_start_is_an_error() {
    // Literal "ab", then an M2 reaching 8 bytes back.
    let s = [17 + 2, b'a', b'b', (2 << 5) | (7 << 2), 0, 0x11, 0, 0];
    let e = decompress(&s, 5).unwrap_err();
    assert_eq!(e.offset, 3);
    assert!(e.message.contains("distance 8"), "{e}");
}

#[test]
fn huge_extension_is_bounded() {
    // A literal run whose length extension is megabytes of zeros must fail
    // as soon as it passes the expected size, not after counting them all.
    let mut s = vec![0u8; 4_000_000];
    s[0] = 0;
    let e = decompress(&s, 1000).unwrap_err();
    assert!(e.offset == 0 && e.message.contains("extension"), "{e}");
}

#[test]
fn every_truncation_and_flip_fails_cleanly() {
    let mut rng = Rng(7);
    let data = repetitive(&mut rng, 3000);
    for s in [compress(&data), compress_literal(&data)] {
        for cut in 0..s.len() {
            assert!(decompress(&s[..cut], data.len()).is_err(), "cut {cut}");
        }
        for _ in 0..3000 {
            let mut t = s.clone();
            let i = rng.below(t.len());
            t[i] ^= 1 << rng.below(8);
            // Flips may still decode (e.g. inside a literal); they must never panic
            // and never produce more than asked.
            if let Ok((out, used)) = decompress(&t, data.len()) {
                assert_eq!(out.len(), data.len());
                assert!(used <= t.len());
            }
        }
    }
    for _ in 0..2000 {
        let n = rng.below(64);
        let junk = random_bytes(&mut rng, n);
        if let Ok((out, _)) = decompress(&junk, 100) {
            assert_eq!(out.len(), 100);
        }
    }
}

fn corpus() -> Option<std::path::PathBuf> {
    crate::common::corpus("arma")
}

fn u32_at(d: &[u8], o: usize) -> usize {
    u32::from_le_bytes(d[o..o + 4].try_into().unwrap()) as usize
}

/// Walks a BMTR file's header to the frame-time array (v3 has no metadata;
/// both corpus v5 files carry an empty metadata list of two zero u32s).
fn bmtr_arrays_start(d: &[u8]) -> (u32, usize, usize) {
    assert_eq!(&d[..4], b"BMTR");
    let version = u32_at(d, 4) as u32;
    let frames = u32_at(d, 4 + 4 + 1 + 12);
    let count = u32_at(d, 4 + 4 + 1 + 12 + 12);
    let mut o = 4 + 4 + 1 + 12 + 16;
    for _ in 0..count {
        o += d[o..].iter().position(|&b| b == 0).unwrap() + 1;
    }
    if version >= 4 {
        assert_eq!(u32_at(d, o), 0);
        assert_eq!(u32_at(d, o + 4), 0);
        o += 8;
    }
    (version, frames, o)
}

/// Reads one array of `elem`-byte items; returns (bytes, compressed?, next offset).
fn bmtr_array(d: &[u8], mut o: usize, version: u32, elem: usize) -> (Vec<u8>, bool, usize) {
    let n = u32_at(d, o);
    o += 4;
    let packed = if version >= 5 {
        let flag = d[o];
        o += 1;
        assert!(flag == 0 || flag == 2, "flag {flag} at {o}");
        flag == 2
    } else {
        n * elem >= 1024
    };
    if packed {
        let (out, used) =
            decompress(&d[o..], n * elem).unwrap_or_else(|e| panic!("array at {o}: {e}"));
        (out, true, o + used)
    } else {
        (d[o..o + n * elem].to_vec(), false, o + n * elem)
    }
}

/// Decodes every frame and checks the structure lands exactly on the end of
/// file and every quaternion (i16 / 16384) has unit length.
fn check_bmtr(path: &Path, frames_expected: usize, bones: usize, packed_expected: usize) {
    let d = std::fs::read(path).unwrap();
    let (version, frames, mut o) = bmtr_arrays_start(&d);
    assert_eq!(frames, frames_expected);
    let (times, _, next) = bmtr_array(&d, o, version, 4);
    o = next;
    assert_eq!(times.len(), frames * 4);
    let mut packed = 0;
    let mut worst = 0f64;
    for _ in 0..frames {
        let (f, was_packed, next) = bmtr_array(&d, o, version, 14);
        o = next;
        packed += was_packed as usize;
        assert_eq!(f.len(), bones * 14);
        for b in f.chunks_exact(14) {
            let q: Vec<f64> = (0..4)
                .map(|k| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]) as f64 / 16384.0)
                .collect();
            let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            worst = worst.max((norm - 1.0).abs());
        }
    }
    assert_eq!(o, d.len(), "{}", path.display());
    assert_eq!(packed, packed_expected);
    assert!(worst < 1e-3, "quaternion norm off by {worst}");
}

#[test]
fn corpus_bmtr_v5_lzo_frames() {
    let Some(c) = corpus() else { return };
    check_bmtr(
        &c.join("MrClock8163+armaio/tests/data/animation_bmtr_lzo.rtm"),
        165,
        66,
        124,
    );
}

#[test]
fn corpus_bmtr_v3_lzo_frames() {
    let Some(c) = corpus() else { return };
    check_bmtr(
        &c.join("earlbalai+DayZ-Source/SQF/dayz_anim/zmb/zmbStandDeath2.rtm"),
        139,
        127,
        139,
    );
}

#[test]
fn corpus_stream_truncations_fail() {
    let Some(c) = corpus() else { return };
    let d = std::fs::read(c.join("MrClock8163+armaio/tests/data/animation_bmtr_lzo.rtm")).unwrap();
    let (version, _, o) = bmtr_arrays_start(&d);
    let (_, _, o) = bmtr_array(&d, o, version, 4);
    let start = o + 5;
    let (first, used) = decompress(&d[start..], 66 * 14).unwrap();
    // Re-encoding kiln's way decodes to the same bytes.
    assert_eq!(decompress(&compress(&first), first.len()).unwrap().0, first);
    for cut in 0..used {
        assert!(
            decompress(&d[start..start + cut], 66 * 14).is_err(),
            "cut {cut}"
        );
    }
}

/// An independent stream: lzallright 0.3.0 (an MIT LZO1X-1 compressor, a
/// port of lzokay) compressing the 3000 bytes of [`formula_bytes`].
const FOREIGN_STREAM_HEX: &[&str] = &[
    "1261270100624100634300646465000006666667676869696a6b59026341026655016a740150014c01a60166670c045e",
    "0065664e036162000699016455016b92016b62900042026a610209676970006601686a4e02696b0002460266685c00cc",
    "006d02660d04640109624a0364670403c601686b4e0263660003690069940059016b0d05610407690167c8017c007e01",
    "686150007901658f016b64699a00656a590367a101696e00636806006267480265006684008d0162060569640f076a65",
    "6b41026200095001a80160016602646b71006a08042710004b036b676390015c0068017601626949006588008e016a66",
    "4a03646b0402590364090a650004580055016be8018c004e0168654e02666390014201646104045401500044014c0288",
    "01281400460264625001980079016661016b4002410163650169e901615001750167017865017a630504624d026b0100",
    "6a4100694000b400a0006c024c3e4000944368437d4268bc4260408c419044275808600168027842dc4178005045d440",
    "4804f842ac43c50167006cb44250015c44280c008443984127180070028401bc415c01bc40a841286008bc007c017040",
    "7c43295508655c3f5003282008c443285c08c4435c004502697840a041285408a00178005401503f4c014843d10061e0",
    "428c42754165984328840880016440c5436144452c64084c00f842483fe84350014001b942640088e442e80174006c01",
    "74435c427d41630803285c086003dd4269a44388436443c943659043a0007c822d0000b984640c6b5484dc418042c044",
    "98019c8380832848088c4188434845903f74002b9010284c08b88590437c4040445001cc0040032d5c0874019485c943",
    "689886740044022d9c1095836655816188412794105c3d6040983e58037c4370422b5808640078418042e8422da01060",
    "0164027c012e5008683ea441284408bc43684468007901688c407c4254458401278c10e886280c0090437c417c859884",
    "b841284c082814009800888658004c42743f6441c0842ab0106c0170016442273c089c858486d0862891106b0c69a843",
    "2b001929041929a01088016401600181456a086c84c7543e6841a0422aec186401c84374848843c0c86c0074432ab410",
    "6801780074016040dc416c436800d084e0436c4028f4182f54086c8629ec1827b010dc424c0074009c416400294c0874",
    "42b0c7b043dc0127bc10500084c72c400827b410680060012710199086a08429d8188801b801cc0074c768435c3e28f4",
    "182c941068014840bc4270c7dc415843fc422c1019a0437001844390875043bc85404428c810a000640268414c419441",
    "808584c788c76087f443a842a401a942656c41484444439800bcc628901027d010280819d84468c8583edc428c442a40",
    "08244421267821acc7a0416c41f84129bc107c00b8c8d100679800540498004c412850089842808648026400274008e8",
    "42b4832b68216001ac437042232421d000a8c8266c218041b400c84360019c4290c97c01b8852d5821280c00dc852710",
    "19c8448401804048c3a4c727402188436c42703d703f293421e801b8c730fc1860822470292410212698292704198c43",
    "88c82944212b4821a80160c8fc002aa82974408042297c21a044c401c0c8d4424840ec002998106041b884c401bc41d8",
    "864001884128f418bc007c01a042b8874c8727a0292884109c82e443bc42c44384014c42d0849844d4422a1419703f80",
    "8580847483a042110000",
];

fn formula_bytes() -> Vec<u8> {
    (0..3000usize)
        .map(|i| ((i * i / 97 + i / 31) % 11) as u8 + b'a')
        .collect()
}

#[test]
fn decodes_a_foreign_compressors_stream() {
    let hex: String = FOREIGN_STREAM_HEX.concat();
    let s: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(s.len(), 1258);
    let (out, used) = decompress(&s, 3000).unwrap();
    assert_eq!(out, formula_bytes());
    assert_eq!(used, 1258);
}
