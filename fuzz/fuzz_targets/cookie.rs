//! Shared by the portable fuzz targets: puts a valid portable cookie in front of the
//! fuzzer's bytes so that most inputs reach the directory and payload checks.

/// First byte % 3: 0 → cookie 12346 + the rest; 1 → cookie 12347 with a small container
/// count from the second byte + the rest; 2 → the bytes as they are.
pub fn with_cookie(data: &[u8]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(data.len() + 8);
    match data.first().map(|b| b % 3) {
        Some(0) => {
            buf.extend_from_slice(&12346u32.to_le_bytes());
            buf.extend_from_slice(&data[1..]);
        }
        Some(1) if data.len() >= 2 => {
            let n = u32::from(data[1] % 16);
            buf.extend_from_slice(&(12347 | (n << 16)).to_le_bytes());
            buf.extend_from_slice(&data[2..]);
        }
        _ => buf.extend_from_slice(data),
    }
    buf
}
