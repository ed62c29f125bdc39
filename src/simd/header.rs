//! The check of a portable stream's offset header and of a frozen directory's run
//! counts, sixteen containers at a time.

use crate::cast::{KeyCardLE, U32};
#[cfg(all(feature = "std", target_arch = "x86_64"))]
use crate::format::MAX_RUNS;

/// What a passing offset-header check learned: the end of the last payload, whether a
/// bitset container is present, and the bitmap's cardinality.
pub(crate) type HeaderFacts = (usize, bool, u64);

/// The checks of the scalar offset-header check (`view::open`), sixteen containers per
/// step with AVX-512: keys strictly increasing, the first offset at `off_end`, each run
/// count (read where the stored offset says) in `1..=MAX_RUNS`, each container's size
/// leading to the next stored offset, the last payload within `body`. `Some(None)` if a
/// check fails; `None` where there is no such kernel (the CPU, or a stream of 2 GiB or
/// more, whose offsets do not fit the vector lanes' signed indices), and the scalar check
/// runs.
#[inline]
pub(crate) fn portable_offsets_hold(
    descs: &[KeyCardLE],
    run_flags: &[u8],
    offsets: &[U32],
    body: &[u8],
    off_end: usize,
) -> Option<Option<HeaderFacts>> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if super::x86::has_v4()
        && (4..=i32::MAX as usize).contains(&body.len())
        && !descs.is_empty()
        && descs.len() == offsets.len()
        && (run_flags.is_empty() || run_flags.len() == descs.len().div_ceil(8))
    {
        if offsets[0].get() as usize != off_end {
            return Some(None);
        }
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VL; the lengths are as the kernel
        // requires (checked just above).
        return Some(unsafe { kernels::offsets_hold(descs, run_flags, offsets, body) });
    }
    let _ = (descs, run_flags, offsets, body, off_end);
    None
}

/// The run-count pass of the frozen directory check (`view::open`), sixteen containers per
/// step with AVX-512: each run container's count (read at the offset its entry gives, as
/// the low half of 4 bytes) in `1..=MAX_RUNS` and its payload ending at or before the next
/// entry's offset. A count less than 4 bytes from the end fails here where the scalar pass
/// reads it; that directory fails the whole check either way (its payload, at least 6
/// bytes, passes the end, and so do the offsets after it). The last container is left to
/// the caller (its end is compared with the body's). `Some(false)` if a check fails;
/// `None` where there is no such kernel (the CPU, or a body of 2 GiB or more, whose
/// offsets do not fit the lanes' signed indices), and the scalar pass runs.
#[inline]
pub(crate) fn frozen_run_counts_hold(descs: &[U32], body: &[u8]) -> Option<bool> {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if super::x86::has_v4() && (4..=i32::MAX as usize).contains(&body.len()) && descs.len() > 1 {
        // SAFETY: `has_v4` confirmed AVX-512 F, BW and VL; the lengths are as the kernel
        // requires (checked just above).
        return Some(unsafe { kernels::run_counts_hold(descs, body) });
    }
    let _ = (descs, body);
    None
}

#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod kernels {
    use super::{HeaderFacts, KeyCardLE, MAX_RUNS, U32};
    use core::arch::x86_64::*;

    /// See [`super::portable_offsets_hold`], whose first-offset check is made by the
    /// caller.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VL; `descs` and `offsets` have the same, nonzero
    /// length `n`; `run_flags` is empty or `ceil(n / 8)` bytes long; `body` is 4 to
    /// `i32::MAX` bytes long.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn offsets_hold(
        descs: &[KeyCardLE],
        run_flags: &[u8],
        offsets: &[U32],
        body: &[u8],
    ) -> Option<HeaderFacts> {
        let n = descs.len();
        let (dp, op) = (descs.as_ptr().cast::<i32>(), offsets.as_ptr().cast::<i32>());
        let len = body.len() as u32;
        let lenv = _mm512_set1_epi32(len as i32);
        let low16 = _mm512_set1_epi32(0xFFFF);
        let two = _mm512_set1_epi32(2);
        let (mut bad, mut bitsets) = (0u16, 0u16);
        let (mut cards, mut last) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut i = 0;
        while i < n {
            let left = n - i;
            // The lanes of containers `i..`, and those of the ones that have a successor.
            let m = lanes_below(left);
            let mn = if left > 16 { u16::MAX } else { m >> 1 };
            // SAFETY: lane `j` of `m` is loaded only if `i + j < n`, of `mn` only if
            // `i + 1 + j < n`: each within `descs` or `offsets` (4 bytes an entry, any
            // alignment for `loadu`); masked-off lanes are not read. `i + 1 <= n`, so both
            // pointers stay within or one past their slices.
            let (d, o, dn, on) = unsafe {
                (
                    _mm512_maskz_loadu_epi32(m, dp.add(i)),
                    _mm512_maskz_loadu_epi32(m, op.add(i)),
                    _mm512_maskz_loadu_epi32(mn, dp.add(i + 1)),
                    _mm512_maskz_loadu_epi32(mn, op.add(i + 1)),
                )
            };
            let key = _mm512_and_si512(d, low16);
            bad |= _mm512_mask_cmple_epu32_mask(mn, _mm512_and_si512(dn, low16), key);
            let card_minus_one = _mm512_srli_epi32::<16>(d);
            // Zero in the lanes past `n`; the `n` ones are added at the end.
            cards = _mm512_add_epi32(cards, card_minus_one);
            let flags = |b: usize| run_flags.get(b).map_or(0, |&f| u16::from(f));
            // `i` is a multiple of 16: its flags start at bit 0 of byte `i / 8`.
            let runs = (flags(i / 8) | flags(i / 8 + 1) << 8) & m;
            let bitset =
                !runs & _mm512_mask_cmpge_epu32_mask(m, card_minus_one, _mm512_set1_epi32(4096));
            bitsets |= bitset;
            // Every offset within the body (then no end below overflows a lane).
            bad |= _mm512_mask_cmpgt_epu32_mask(m, o, lenv);
            // SAFETY: `body` is 4 to `i32::MAX` bytes long (this function's contract).
            let (count, unread) = unsafe { run_counts(runs, o, body) };
            bad |= unread;
            // Stored sizes: 2 * card for an array, 2 + 4 * runs for runs, 8,192 for a bitset.
            let mut size = _mm512_add_epi32(_mm512_slli_epi32::<1>(card_minus_one), two);
            size = _mm512_mask_mov_epi32(
                size,
                runs,
                _mm512_add_epi32(_mm512_slli_epi32::<2>(count), two),
            );
            size = _mm512_mask_mov_epi32(size, bitset, _mm512_set1_epi32(8192));
            let end = _mm512_add_epi32(o, size);
            bad |= _mm512_mask_cmpneq_epu32_mask(mn, on, end);
            bad |= _mm512_mask_cmpgt_epu32_mask(m, end, lenv);
            last = end;
            i += 16;
        }
        if bad != 0 {
            return None;
        }
        // The last container's end, from its lane of the last step.
        let lane = _mm512_set1_epi32(((n - 1) % 16) as i32);
        let end = _mm512_cvtsi512_si32(_mm512_permutexvar_epi32(lane, last)) as u32;
        // At most 65,535 a lane per step and 4,096 steps: no lane or sum overflows.
        let card = _mm512_reduce_add_epi32(cards) as u32;
        Some((end as usize, bitsets != 0, u64::from(card) + n as u64))
    }

    /// See [`super::frozen_run_counts_hold`].
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VL; `descs` holds at least 2 entries; `body` is
    /// 4 to `i32::MAX` bytes long.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn run_counts_hold(descs: &[U32], body: &[u8]) -> bool {
        // The containers that have a successor: all but the last.
        let n = descs.len() - 1;
        let dp = descs.as_ptr().cast::<i32>();
        let low2 = _mm512_set1_epi32(3);
        let two = _mm512_set1_epi32(2);
        let mut bad = 0u16;
        let mut i = 0;
        while i < n {
            let left = n - i;
            let m = lanes_below(left);
            // SAFETY: lane `j` is loaded only if `i + j < n`, or `i + 1 + j < n + 1`: both
            // within `descs` (4 bytes an entry, any alignment for `loadu`); masked-off
            // lanes are not read. `i + 1 <= n`, so both pointers stay within the slice.
            let (d, dn) = unsafe {
                (
                    _mm512_maskz_loadu_epi32(m, dp.add(i)),
                    _mm512_maskz_loadu_epi32(m, dp.add(i + 1)),
                )
            };
            let runs = _mm512_mask_cmpeq_epi32_mask(m, _mm512_and_si512(d, low2), two);
            let off = _mm512_srli_epi32::<2>(d);
            // SAFETY: `body` is 4 to `i32::MAX` bytes long (this function's contract).
            let (count, unread) = unsafe { run_counts(runs, off, body) };
            bad |= unread;
            // The payload's end, at most `2^30 + 2 + 4 * 65,535`: no lane overflows.
            let end = _mm512_add_epi32(_mm512_add_epi32(off, two), _mm512_slli_epi32::<2>(count));
            bad |= _mm512_mask_cmpgt_epu32_mask(runs, end, _mm512_srli_epi32::<2>(dn));
            i += 16;
        }
        bad == 0
    }

    /// The run counts of the lanes in `runs`, read at the offsets `off` as the low half of
    /// 4 bytes of `body`, and the lanes among them whose count is unreadable (an offset
    /// past `body.len() - 4`) or outside `1..=MAX_RUNS`. Lanes outside `runs` count 0.
    ///
    /// # Safety
    ///
    /// The CPU supports AVX-512 F, BW and VL; `body` is 4 to `i32::MAX` bytes long.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn run_counts(runs: u16, off: __m512i, body: &[u8]) -> (__m512i, u16) {
        // A run count is read as the low half of 4 bytes: at an offset up to `len - 4`.
        let last_readable = _mm512_set1_epi32((body.len() - 4) as i32);
        let readable = _mm512_mask_cmple_epu32_mask(runs, off, last_readable);
        // SAFETY: each gathered lane reads 4 bytes at `body + off` with
        // `off <= len - 4` (`readable`), inside `body`; `off` is then below `i32::MAX`,
        // so the signed index is the offset itself.
        let raw = unsafe {
            _mm512_mask_i32gather_epi32::<1>(
                _mm512_setzero_si512(),
                readable,
                off,
                body.as_ptr().cast::<i32>(),
            )
        };
        let count = _mm512_and_si512(raw, _mm512_set1_epi32(0xFFFF));
        let in_range = _mm512_mask_cmplt_epu32_mask(
            readable,
            _mm512_sub_epi32(count, _mm512_set1_epi32(1)),
            _mm512_set1_epi32(MAX_RUNS as i32),
        );
        (count, runs & !in_range)
    }

    /// The mask of the first `left` of 16 lanes (all 16 from 16 on).
    #[inline(always)]
    fn lanes_below(left: usize) -> u16 {
        if left >= 16 {
            u16::MAX
        } else {
            (1u16 << left) - 1
        }
    }
}
