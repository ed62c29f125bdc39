//! CRC32C (Castagnoli), hardware-accelerated with `std`, table-driven without.

/// CRC32C of `bytes`.
#[inline]
pub(crate) fn crc32c(bytes: &[u8]) -> u32 {
    #[cfg(feature = "std")]
    {
        ::crc32c::crc32c(bytes)
    }
    #[cfg(not(feature = "std"))]
    {
        const CRC: crc::Crc<u32, crc::Table<16>> =
            crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
        CRC.checksum(bytes)
    }
}

/// CRC32C of the bytes that gave `crc` followed by `bytes` (for the bitmap file's footer,
/// which covers two separate byte ranges).
#[cfg(feature = "std")]
#[inline]
pub(crate) fn crc32c_append(crc: u32, bytes: &[u8]) -> u32 {
    ::crc32c::crc32c_append(crc, bytes)
}

/// Checks a CRC32C trailer: the last 4 bytes of `bytes` against the CRC32C of the rest.
pub(crate) fn check_trailer(bytes: &[u8]) -> Result<(), crate::error::Error> {
    use crate::error::{Error, ErrorKind};
    let Some(split) = bytes.len().checked_sub(4) else {
        return Err(Error::truncated("checksum", 0, 4, bytes.len() as u64));
    };
    let (body, tail) = bytes.split_at(split);
    let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let computed = crc32c(body);
    if stored != computed {
        return Err(
            Error::new(ErrorKind::ChecksumMismatch, "checksum", body.len())
                .values(u64::from(computed), u64::from(stored)),
        );
    }
    Ok(())
}

/// CRC-32 with zlib's polynomial (ISO-HDLC, what zlib's `crc32`, Java's `CRC32` and
/// Python's `zlib.crc32` compute): the checksum of a deletion-vector frame.
pub(crate) fn crc32_zlib(bytes: &[u8]) -> u32 {
    #[cfg(feature = "std")]
    {
        crc32fast::hash(bytes)
    }
    #[cfg(not(feature = "std"))]
    {
        const CRC: crc::Crc<u32, crc::Table<16>> =
            crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISO_HDLC);
        CRC.checksum(bytes)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        // The check value of CRC-32C (RFC 3720, and the catalogue of CRC algorithms).
        assert_eq!(super::crc32c(b"123456789"), 0xE306_9283);
        let software = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
        let data: [u8; 1000] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        assert_eq!(super::crc32c(&data), software.checksum(&data));
        #[cfg(feature = "std")]
        {
            let (a, b) = data.split_at(333);
            assert_eq!(
                super::crc32c_append(super::crc32c(a), b),
                super::crc32c(&data)
            );
        }
    }
}
