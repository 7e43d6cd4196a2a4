//! The window a zstd frame declares, read from its header (RFC 8878 §3.1.1.1) before decoding.
//!
//! A decoder must keep the whole window in memory, and ruzstd hands out no byte before its buffer holds a
//! window's worth: a small body declaring a window of gigabytes (filled with run-length blocks) would cost
//! that much memory whatever the output cap. Reading the window first lets such a frame be refused.

/// Largest window a frame may declare for decoding: RFC 9659 (zstd as an HTTP content coding) has
/// encoders stay within 8 MB and decoders need support no more.
pub(crate) const MAX_WINDOW: u64 = 8 << 20;

/// The zstd frame magic number, little-endian on the wire.
const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The window (in bytes) the zstd frame at the start of `input` needs: its Window_Descriptor's size, or for
/// a single-segment frame its Frame_Content_Size. `None` when `input` does not start with a complete zstd
/// frame header (a skippable frame, another format, too few bytes, the reserved bit set).
pub(crate) fn window_size(input: &[u8]) -> Option<u64> {
    let rest = input.strip_prefix(&MAGIC)?;
    let (&descriptor, rest) = rest.split_first()?;
    if descriptor & 0x08 != 0 {
        return None; // Reserved_bit: must be zero.
    }
    let single_segment = descriptor & 0x20 != 0;
    let fcs_len = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let did_len = [0, 1, 2, 4][usize::from(descriptor & 0x03)];
    if !single_segment {
        let &window_descriptor = rest.first()?;
        let window_log = 10 + u32::from(window_descriptor >> 3);
        let base = 1u64 << window_log;
        return Some(base + (base / 8) * u64::from(window_descriptor & 0x07));
    }
    let fcs = rest.get(did_len..did_len + fcs_len)?;
    let value = fcs
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    // A two-byte Frame_Content_Size is stored less 256.
    Some(if fcs_len == 2 { value + 256 } else { value })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn windows_and_content_sizes() {
        // Window_Descriptor: exponent 24 (2^34), mantissa 0; as the tester's bomb declared.
        assert_eq!(
            window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, 24 << 3]),
            Some(1 << 34)
        );
        // Exponent 11, mantissa 3: 2^21 + 3 x 2^18.
        assert_eq!(
            window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, (11 << 3) | 3]),
            Some((1 << 21) + 3 * (1 << 18))
        );
        // Single segment, one-byte content size ("hello", from the reference tool).
        assert_eq!(window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05]), Some(5));
        // Single segment, two-byte content size (+256), after a one-byte dictionary id.
        assert_eq!(
            window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x61, 0x07, 0x10, 0x00]),
            Some(0x10 + 256)
        );
        // Single segment, eight-byte content size.
        assert_eq!(
            window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 1, 0, 0, 0]),
            Some(1 << 32)
        );
        // Not a frame, truncated, skippable, reserved bit.
        assert_eq!(window_size(b"hello"), None);
        assert_eq!(window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x00]), None);
        assert_eq!(window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0]), None);
        assert_eq!(window_size(&[0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]), None);
        assert_eq!(window_size(&[0x28, 0xb5, 0x2f, 0xfd, 0x08, 0x00]), None);
    }

    proptest! {
        /// Any Window_Descriptor reads as RFC 8878 defines it, whatever follows.
        #[test]
        fn window_descriptor(wd in any::<u8>(), fcs_flag in 0u8..4, did in 0u8..4, checksum in any::<bool>(),
                             tail in proptest::collection::vec(any::<u8>(), 0..16)) {
            let descriptor = fcs_flag << 6 | u8::from(checksum) << 2 | did;
            let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, descriptor, wd];
            frame.extend(tail);
            let log = 10 + u64::from(wd >> 3);
            let expected = (1u64 << log) + ((1u64 << log) / 8) * u64::from(wd & 7);
            prop_assert_eq!(window_size(&frame), Some(expected));
        }

        /// A single-segment frame's window is its content size, read little-endian at the right place.
        #[test]
        fn single_segment(size in any::<u64>(), did in 0u8..4) {
            let did_len = [0, 1, 2, 4][usize::from(did)];
            let (flag, fcs): (u8, Vec<u8>) = if size < 256 {
                (0, vec![size as u8])
            } else if (256..65_536 + 256).contains(&size) {
                (1, ((size - 256) as u16).to_le_bytes().to_vec())
            } else if size <= u64::from(u32::MAX) {
                (2, (size as u32).to_le_bytes().to_vec())
            } else {
                (3, size.to_le_bytes().to_vec())
            };
            let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, flag << 6 | 0x20 | did];
            frame.extend(std::iter::repeat_n(0xaa, did_len));
            frame.extend(&fcs);
            prop_assert_eq!(window_size(&frame), Some(size));
            // One byte short of the header: no answer rather than a wrong one.
            prop_assert_eq!(window_size(&frame[..frame.len() - 1]), None);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..20)) {
            let mut frame = MAGIC.to_vec();
            frame.extend(bytes);
            let _ = window_size(&frame);
        }
    }
}
