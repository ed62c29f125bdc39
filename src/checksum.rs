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

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        // The check value of CRC-32C (RFC 3720, and the catalogue of CRC algorithms).
        assert_eq!(super::crc32c(b"123456789"), 0xE306_9283);
        let software = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);
        let data: [u8; 1000] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        assert_eq!(super::crc32c(&data), software.checksum(&data));
    }
}
